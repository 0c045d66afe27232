-- Replica where order 5 was loaded twice (identical rows): a duplicate key, 3 reported rows.
select order_id, customer, amount, status, updated_at from {{ ref('drift_orders') }}
union all
select order_id, customer, amount, status, updated_at from {{ ref('drift_orders') }} where order_id = 5
