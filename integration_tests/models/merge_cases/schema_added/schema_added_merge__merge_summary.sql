-- table_diff merge 'schema_added_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- One-row summary.
{{ table_diff.merge_summary(
    candidates=ref('schema_added_merge__merge_candidates'),
    schema=ref('schema_added_merge__merge_schema'),
    violations=ref('schema_added_merge__merge_violations')
) }}
