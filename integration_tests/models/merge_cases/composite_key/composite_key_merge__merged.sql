-- table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- The merged table.
{{ table_diff.merged_rows(
    candidates=ref('composite_key_merge__merge_candidates'),
    ours=ref('composite_key__ours'),
    schema=ref('composite_key_merge__merge_schema')
) }}
