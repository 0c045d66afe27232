-- An exact replica.
select order_id, customer, amount, status, updated_at from {{ ref('drift_orders') }}
