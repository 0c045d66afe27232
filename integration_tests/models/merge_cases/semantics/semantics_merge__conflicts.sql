-- table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Conflicting keys with every side's values.
{{ table_diff.merge_conflicts(
    candidates=ref('semantics_merge__merge_candidates')
) }}
