-- table_diff merge 'schema_converge_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One row per changed key.
{{ table_diff.merge_rows(
    candidates=ref('schema_converge_merge__merge_candidates')
) }}
