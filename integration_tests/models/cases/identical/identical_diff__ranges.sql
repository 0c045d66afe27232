-- table_diff pair 'identical_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('identical__source'),
    target=ref('identical__target'),
    primary_key=['id']
) }}
