-- table_diff pair 'orders_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('orders_diff__ranges'),
    block_split=ref('orders_diff__block_split'),
    source=ref('orders__source'),
    target=ref('orders__target')
) }}
