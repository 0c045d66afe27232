-- table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.
{{ config(materialized='table_diff_table') }}
-- Options of the merge live here and in the schema model (keep them in step).
{{ table_diff.merge_candidates(
    base=ref('semantics__base'),
    ours=ref('semantics__ours'),
    theirs=ref('semantics__theirs'),
    primary_key=['id'],
    leaf_count=1,
    on_schema_conflict='error'
) }}
