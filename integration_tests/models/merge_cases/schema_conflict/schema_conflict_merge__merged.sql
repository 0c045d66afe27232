-- table_diff merge 'schema_conflict_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- The merged table.
{{ table_diff.merged_rows(
    candidates=ref('schema_conflict_merge__merge_candidates'),
    ours=ref('schema_conflict__ours'),
    schema=ref('schema_conflict_merge__merge_schema')
) }}
