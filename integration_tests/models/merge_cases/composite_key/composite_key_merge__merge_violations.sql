-- table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Constraint and key violations of the merged table.
{{ table_diff.merge_violations(
    merged=ref('composite_key_merge__merged'),
    primary_key=['k_str', 'k_int']
) }}
