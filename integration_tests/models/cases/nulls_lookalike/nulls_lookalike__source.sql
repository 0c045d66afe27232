{#- Source side of case nulls_lookalike: NULL in every column position, and look-alike values. -#}
select
    cast(id as int) as id,
    cast(c1 as string) as c1,
    cast(c2 as string) as c2,
    cast(c3 as int) as c3,
    cast(c4 as date) as c4
from values
    -- NULL -> value, per column position
    (11, null, 'y', 7, date '2024-01-01'),
    (12, 'x', null, 7, date '2024-01-01'),
    (13, 'x', 'y', null, date '2024-01-01'),
    (14, 'x', 'y', 7, null),
    -- value -> NULL, per column position
    (21, 'x', 'y', 7, date '2024-01-01'),
    (22, 'x', 'y', 7, date '2024-01-01'),
    (23, 'x', 'y', 7, date '2024-01-01'),
    (24, 'x', 'y', 7, date '2024-01-01'),
    -- NULL = NULL, per column position (unchanged)
    (31, null, 'y', 7, date '2024-01-01'),
    (32, 'x', null, 7, date '2024-01-01'),
    (33, 'x', 'y', null, date '2024-01-01'),
    (34, 'x', 'y', 7, null),
    -- all NULL on both sides (unchanged)
    (40, null, null, null, null),
    -- a NULL that moves to the neighbouring column
    (41, null, 'x', 7, date '2024-01-01'),
    (42, 'x', 'y', null, date '2024-01-01'),
    -- look-alikes
    (50, 'ab', 'c', 7, date '2024-01-01'),
    (51, '', null, 7, date '2024-01-01'),
    (52, '', 'y', 7, date '2024-01-01'),
    (53, '', 'y', 7, date '2024-01-01'),
    (54, 'a|b', 'c', 7, date '2024-01-01'),
    (55, 'a|b', 'c', 7, date '2024-01-01'),
    (56, 'NULL', 'y', 7, date '2024-01-01'),
    (57, 'x', 'y', 0, date '2024-01-01'),
    (59, 'a ', 'y', 7, date '2024-01-01'),
    (60, '', '', 7, date '2024-01-01'),
    (61, '1', 'y', null, date '2024-01-01')
    as t (id, c1, c2, c3, c4)
