-- table_diff merge 'schema_conflict_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Constraint and key violations of the merged table.
{{ table_diff.merge_violations(
    merged=ref('schema_conflict_merge__merged'),
    primary_key=['id']
) }}
