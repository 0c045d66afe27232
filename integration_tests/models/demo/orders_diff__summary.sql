-- table_diff pair 'orders_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('orders_diff__ranges'),
    block_hashes=ref('orders_diff__block_hashes'),
    block_split=ref('orders_diff__block_split'),
    row_diff=ref('orders_diff__row_diff'),
    column_stats=ref('orders_diff__column_stats')
) }}
