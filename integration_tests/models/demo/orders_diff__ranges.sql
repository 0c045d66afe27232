-- table_diff pair 'orders_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('orders__source'),
    target=ref('orders__target'),
    primary_key=['order_id']
) }}
