-- Reference table for the drift tests: 40 orders with NULLs, decimals and timestamps.
select
  cast(id as bigint) as order_id,
  concat('customer-', id % 7) as customer,
  if(id % 5 = 0, null, cast(id * 1.25 as decimal(12, 2))) as amount,
  if(id % 3 = 0, 'shipped', 'pending') as status,
  timestamp_seconds(1767225600 + id * 3600) as updated_at
from range(1, 41)
