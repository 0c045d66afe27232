{{ table_diff.key_ranges(source=ref('orders__source'), target=ref('orders__target'), primary_key=['order_id']) }}
