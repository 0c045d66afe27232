-- table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.merge_schema_table(
    base=ref('semantics__base'),
    ours=ref('semantics__ours'),
    theirs=ref('semantics__theirs'),
    primary_key=['id'],
    on_schema_conflict='error'
) }}
