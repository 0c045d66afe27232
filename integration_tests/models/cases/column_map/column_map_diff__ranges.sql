-- table_diff pair 'column_map_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('column_map__source'),
    target=ref('column_map__target'),
    primary_key=['order_id'],
    table_filter='order_id != 99',
    block_count=4,
    compare_unit_size=1,
    column_map={'id': 'order_id', 'amt': 'amount', 'note': 'status', 'status': 'note'}
) }}
