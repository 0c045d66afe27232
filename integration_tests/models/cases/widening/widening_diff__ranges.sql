-- table_diff pair 'widening_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('widening__source'),
    target=ref('widening__target'),
    primary_key=['id'],
    block_count=32,
    compare_unit_size=1
) }}
