-- Replica missing 3 rows.
select * from {{ ref('drift_orders') }} where order_id not in (7, 21, 40)
