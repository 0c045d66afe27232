-- table_diff pair 'range_edges_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('range_edges__source'),
    target=ref('range_edges__target'),
    primary_key=['id'],
    strategy='range',
    block_count=4,
    split_factor=2,
    compare_unit_size=2
) }}
