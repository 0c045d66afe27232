-- An exact replica.
select * from {{ ref('drift_orders') }}
