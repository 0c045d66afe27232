-- table_diff merge 'semantics_sparse_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Constraint and key violations of the merged table.
{{ table_diff.merge_violations(
    merged=ref('semantics_sparse_merge__merged'),
    primary_key=['id'],
    constraints=['qty >= 0']
) }}
