{{ table_diff.block_hashes(ranges=ref('orders_diff__ranges'), source=ref('orders__source'), target=ref('orders__target')) }}
