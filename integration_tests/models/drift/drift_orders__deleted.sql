-- Replica missing 3 rows.
select order_id, customer, amount, status, updated_at from {{ ref('drift_orders') }} where order_id not in (7, 21, 40)
