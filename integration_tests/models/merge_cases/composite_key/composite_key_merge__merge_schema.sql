-- table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.merge_schema_table(
    base=ref('composite_key__base'),
    ours=ref('composite_key__ours'),
    theirs=ref('composite_key__theirs'),
    primary_key=['k_str', 'k_int'],
    on_schema_conflict='error'
) }}
