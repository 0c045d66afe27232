{#- Target side of case value_types: d is decimal(12,4) here; see value_types__source for the rows. -#}
select
    cast(id as int) as id,
    cast(f as double) as f,
    cast(d as decimal(12, 4)) as d,
    cast(ts as timestamp) as ts,
    cast(s as string) as s
from values
    -- -0.0 = 0.0, NaN = NaN: unchanged
    (1, '0.0', '1.0000', '2024-01-01 00:00:00', 'plain'),
    (2, 'NaN', '1.0000', '2024-01-01 00:00:00', 'plain'),
    -- NaN -> 1.0: modified
    (3, '1.0', '1.0000', '2024-01-01 00:00:00', 'plain'),
    -- Infinity = Infinity: unchanged; Infinity -> -Infinity, 1.0 -> Infinity: modified
    (4, 'Infinity', '1.0000', '2024-01-01 00:00:00', 'plain'),
    (5, '-Infinity', '1.0000', '2024-01-01 00:00:00', 'plain'),
    (6, 'Infinity', '1.0000', '2024-01-01 00:00:00', 'plain'),
    -- decimal(10,2) 1.10 = decimal(12,4) 1.1000; 1.10 -> 1.1001 modified
    (7, '0.0', '1.1000', '2024-01-01 00:00:00', 'plain'),
    (8, '0.0', '1.1001', '2024-01-01 00:00:00', 'plain'),
    -- microseconds: equal; one microsecond later: modified
    (9, '0.0', '1.0000', '2024-01-01 12:34:56.123456', 'plain'),
    (10, '0.0', '1.0000', '2024-01-01 12:34:56.123457', 'plain'),
    -- emoji equal; precomposed e-acute vs e + combining acute: modified (no Unicode normalisation)
    (11, '0.0', '1.0000', '2024-01-01 00:00:00', '🦀 crab ✓'),
    (12, '0.0', '1.0000', '2024-01-01 00:00:00', 'cafe\u0301'),
    (13, '0.0', '1.0000', '2024-01-01 00:00:00', 'cafe\u0301'),
    -- 1500 characters, the last one differs: modified; equal long strings: unchanged
    (14, '0.0', '1.0000', '2024-01-01 00:00:00', concat(repeat('x', 1499), 'b')),
    (15, '0.0', '1.0000', '2024-01-01 00:00:00', concat(repeat('x', 1499), 'a')),
    -- skin-tone modifier differs: modified
    (16, '0.0', '1.0000', '2024-01-01 00:00:00', '👍🏿'),
    -- NULL -> NaN: modified (NaN is a value)
    (17, 'NaN', '1.0000', '2024-01-01 00:00:00', 'plain'),
    -- -Infinity = -Infinity, -0.01 = -0.0100: unchanged
    (18, '-Infinity', '-0.0100', '2024-01-01 00:00:00', 'plain')
    as t (id, f, d, ts, s)
