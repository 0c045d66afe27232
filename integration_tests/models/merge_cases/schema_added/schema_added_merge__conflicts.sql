-- table_diff merge 'schema_added_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Conflicting keys with every side's values.
{{ table_diff.merge_conflicts(
    candidates=ref('schema_added_merge__merge_candidates')
) }}
