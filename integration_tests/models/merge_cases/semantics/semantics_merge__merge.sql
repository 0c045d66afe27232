-- table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One row per changed key.
{{ table_diff.merge_rows(
    candidates=ref('semantics_merge__merge_candidates')
) }}
