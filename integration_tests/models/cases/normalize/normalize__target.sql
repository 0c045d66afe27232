{#- Target side of case normalize; see normalize__source for the rules. -#}
select
    cast(id as int) as id,
    cast(amt as double) as amt,
    cast(price as decimal(12, 4)) as price,
    cast(ts as timestamp) as ts,
    cast(name as string) as name,
    cast(note as string) as note
from values
    -- amt 1.234 vs 1.2341: both round to 1.23, unchanged; 1.234 vs 1.236: 1.23 vs 1.24, modified
    (1, '1.2341', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    (2, '1.236', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    -- price 2.3449 vs 2.3351: both 2.34, unchanged; 2.3449 vs 2.3550: 2.34 vs 2.36, modified
    (3, '1.0', '2.3351', '2024-01-01 12:00:00', 'ada', 'n'),
    (4, '1.0', '2.3550', '2024-01-01 12:00:00', 'ada', 'n'),
    -- ts .100 vs .900 in the same second: unchanged; .900 vs next second .100: modified
    (5, '1.0', '2.0000', '2024-01-01 12:00:00.900', 'ada', 'n'),
    (6, '1.0', '2.0000', '2024-01-01 12:00:01.100', 'ada', 'n'),
    -- name '  Ada ' vs 'ada': trim + lower equal, unchanged; 'Ada' vs 'Ava': modified
    (7, '1.0', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    (8, '1.0', '2.0000', '2024-01-01 12:00:00', 'Ava', 'n'),
    -- name equal after normalising, note (not normalised) differs only in case: modified [note]
    (9, '1.0', '2.0000', '2024-01-01 12:00:00', 'ADA', 'x'),
    (10, '1.0', '2.0000', '2024-01-01 12:00:00', 'ada', 'x'),
    -- NULL vs 0.001 (rounds to 0.0): NULL still differs from every value, modified
    (11, '0.001', '2.0000', '2024-01-01 12:00:00', 'ada', 'n'),
    -- every normalised column differs raw, all equal normalised: unchanged
    (12, '9.8801', '7.7801', '2024-01-01 23:59:59.000001', 'mixed', 'n'),
    -- every normalised column differs after normalising too: modified [amt, price, ts, name]
    (13, '1.5', '2.5000', '2024-01-01 13:00:00', 'bob', 'n')
    as t (id, amt, price, ts, name, note)
