-- table_diff merge 'semantics_sparse_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One-row summary.
{{ table_diff.merge_summary(
    candidates=ref('semantics_sparse_merge__merge_candidates'),
    schema=ref('semantics_sparse_merge__merge_schema'),
    violations=ref('semantics_sparse_merge__merge_violations'),
    constraints=['qty >= 0']
) }}
