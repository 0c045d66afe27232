-- table_diff merge 'schema_added_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- The merged table.
{{ table_diff.merged_rows(
    candidates=ref('schema_added_merge__merge_candidates'),
    ours=ref('schema_added__ours'),
    schema=ref('schema_added_merge__merge_schema')
) }}
