-- table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- The merged table.
{{ table_diff.merged_rows(
    candidates=ref('semantics_merge__merge_candidates'),
    ours=ref('semantics__ours'),
    schema=ref('semantics_merge__merge_schema')
) }}
