-- table_diff pair 'null_keys_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('null_keys__source'),
    target=ref('null_keys__target'),
    primary_key=['id']
) }}
