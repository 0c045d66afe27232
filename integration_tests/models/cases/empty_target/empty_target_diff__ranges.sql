-- table_diff pair 'empty_target_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('empty_sides__rows'),
    target=ref('empty_sides__empty'),
    primary_key=['id']
) }}
