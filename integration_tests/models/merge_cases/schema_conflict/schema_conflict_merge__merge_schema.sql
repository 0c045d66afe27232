-- table_diff merge 'schema_conflict_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.merge_schema_table(
    base=ref('schema_conflict__base'),
    ours=ref('schema_conflict__ours'),
    theirs=ref('schema_conflict__theirs'),
    primary_key=['id'],
    on_schema_conflict='report'
) }}
