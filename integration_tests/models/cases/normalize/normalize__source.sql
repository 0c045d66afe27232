{#-
  Source side of case normalize. The pair normalises amt (double, round 2), price (decimal(12,4),
  round 2), ts (truncate to the second) and name (trim, lower); note is compared as stored.
-#}
select
    cast(id as int) as id,
    cast(amt as double) as amt,
    cast(price as decimal(12, 4)) as price,
    cast(ts as timestamp) as ts,
    cast(name as string) as name,
    cast(note as string) as note
from values
    (1, '1.234', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    (2, '1.234', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    (3, '1.0', '2.3449', '2024-01-01 12:00:00', 'ada', 'n'),
    (4, '1.0', '2.3449', '2024-01-01 12:00:00', 'ada', 'n'),
    (5, '1.0', '2.0000', '2024-01-01 12:00:00.100', 'ada', 'n'),
    (6, '1.0', '2.0000', '2024-01-01 12:00:00.900', 'ada', 'n'),
    (7, '1.0', '2.0000', '2024-01-01 12:00:00', '  Ada ', 'n'),
    (8, '1.0', '2.0000', '2024-01-01 12:00:00', 'Ada', 'n'),
    (9, '1.0', '2.0000', '2024-01-01 12:00:00', ' Ada', 'X'),
    (10, '1.0', '2.0000', '2024-01-01 12:00:00', 'ada', 'X'),
    (11, null, '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    (12, '9.87654', '7.7777', '2024-01-01 23:59:59.999999', ' MiXeD ', 'n'),
    (13, '1.0', '2.0000', '2024-01-01 12:00:00', 'ada', 'n')
    as t (id, amt, price, ts, name, note)
