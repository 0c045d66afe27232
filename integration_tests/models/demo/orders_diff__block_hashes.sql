-- table_diff pair 'orders_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('orders_diff__ranges'),
    source=ref('orders__source'),
    target=ref('orders__target')
) }}
