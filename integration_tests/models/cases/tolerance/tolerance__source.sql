{#-
  Source side of case tolerance (key id). The pair allows amount (double) 0.01, price
  (decimal(10,2)) 0.01, ts 2 seconds and rate (double) a relative 1e-6; note is compared exactly.
-#}
select
    cast(id as int) as id,
    cast(amount as double) as amount,
    cast(price as decimal(10, 2)) as price,
    cast(ts as timestamp) as ts,
    cast(rate as double) as rate,
    cast(note as string) as note
from values
    (1, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (2, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (3, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (4, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (5, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (6, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (7, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (8, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (9, null, '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (10, 'NaN', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (11, 'Infinity', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (12, '10.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a')
    as t (id, amount, price, ts, rate, note)
