-- table_diff merge 'schema_added_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.merge_schema_table(
    base=ref('schema_added__base'),
    ours=ref('schema_added__ours'),
    theirs=ref('schema_added__theirs'),
    primary_key=['id'],
    on_schema_conflict='error'
) }}
