-- table_diff merge 'schema_converge_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- The merged table.
{{ table_diff.merged_rows(
    candidates=ref('schema_converge_merge__merge_candidates'),
    ours=ref('schema_converge__ours'),
    schema=ref('schema_converge_merge__merge_schema')
) }}
