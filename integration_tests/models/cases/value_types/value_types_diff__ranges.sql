-- table_diff pair 'value_types_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('value_types__source'),
    target=ref('value_types__target'),
    primary_key=['id'],
    block_count=32,
    compare_unit_size=1
) }}
