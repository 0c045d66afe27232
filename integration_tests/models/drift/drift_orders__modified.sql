-- Replica with 4 modified rows: a value change, NULL -> value, value -> NULL, a timestamp shift.
select
  order_id,
  customer,
  case
    when order_id = 10 then cast(99.00 as decimal(12, 2))
    when order_id = 11 then null
    else amount
  end as amount,
  if(order_id = 12, 'cancelled', status) as status,
  if(order_id = 13, updated_at + interval 1 second, updated_at) as updated_at
from {{ ref('drift_orders') }}
