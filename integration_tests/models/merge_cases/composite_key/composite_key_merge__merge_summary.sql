-- table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One-row summary.
{{ table_diff.merge_summary(
    candidates=ref('composite_key_merge__merge_candidates'),
    schema=ref('composite_key_merge__merge_schema'),
    violations=ref('composite_key_merge__merge_violations')
) }}
