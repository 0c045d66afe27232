-- Replica with 2 rows that the reference does not have (keys below and above its range).
select order_id, customer, amount, status, updated_at from {{ ref('drift_orders') }}
union all
select 0, 'late', 1.00, 'pending', timestamp'2026-01-01 00:00:00'
union all
select 1000, 'late', 2.00, 'pending', timestamp'2026-01-01 00:00:00'
