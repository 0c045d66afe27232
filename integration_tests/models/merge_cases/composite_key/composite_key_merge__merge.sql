-- table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One row per changed key.
{{ table_diff.merge_rows(
    candidates=ref('composite_key_merge__merge_candidates')
) }}
