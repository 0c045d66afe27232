{#-
  Source side of case column_map (key order_id). The target stores order_id as id and amount as
  amt, and has status and note under each other's names: the pair maps them back.
-#}
select
    cast(order_id as int) as order_id,
    cast(region as string) as region,
    cast(amount as decimal(10, 2)) as amount,
    cast(status as string) as status,
    cast(note as string) as note
from values
    (1, 'eu', '10.00', 'new', 'a'),
    (2, 'eu', '20.00', 'new', 'b'),
    (3, 'us', '30.00', 'new', 'c'),
    (4, 'us', '40.00', 'new', 'd'),
    (6, 'eu', '60.00', 'shipped', 'f'),
    (99, 'eu', '1.00', 'new', 'z')
    as t (order_id, region, amount, status, note)
