{#-
  Source side of case value_types: values CSV cannot carry. f double (-0.0, NaN, +-Infinity),
  d decimal(10,2) (the target stores decimal(12,4)), ts timestamp with microseconds, s string
  (emoji, combining marks, 1500-character strings). -0.0, NaN and Infinity come from string casts
  (the literal -0.0 is a decimal zero without a sign).
-#}
select
    cast(id as int) as id,
    cast(f as double) as f,
    cast(d as decimal(10, 2)) as d,
    cast(ts as timestamp) as ts,
    cast(s as string) as s
from values
    (1, '-0.0', '1.00', '2024-01-01 00:00:00', 'plain'),
    (2, 'NaN', '1.00', '2024-01-01 00:00:00', 'plain'),
    (3, 'NaN', '1.00', '2024-01-01 00:00:00', 'plain'),
    (4, 'Infinity', '1.00', '2024-01-01 00:00:00', 'plain'),
    (5, 'Infinity', '1.00', '2024-01-01 00:00:00', 'plain'),
    (6, '1.0', '1.00', '2024-01-01 00:00:00', 'plain'),
    (7, '0.0', '1.10', '2024-01-01 00:00:00', 'plain'),
    (8, '0.0', '1.10', '2024-01-01 00:00:00', 'plain'),
    (9, '0.0', '1.00', '2024-01-01 12:34:56.123456', 'plain'),
    (10, '0.0', '1.00', '2024-01-01 12:34:56.123456', 'plain'),
    (11, '0.0', '1.00', '2024-01-01 00:00:00', '🦀 crab ✓'),
    (12, '0.0', '1.00', '2024-01-01 00:00:00', 'caf\u00e9'),
    (13, '0.0', '1.00', '2024-01-01 00:00:00', 'cafe\u0301'),
    (14, '0.0', '1.00', '2024-01-01 00:00:00', concat(repeat('x', 1499), 'a')),
    (15, '0.0', '1.00', '2024-01-01 00:00:00', concat(repeat('x', 1499), 'a')),
    (16, '0.0', '1.00', '2024-01-01 00:00:00', '👍🏽'),
    (17, null, '1.00', '2024-01-01 00:00:00', 'plain'),
    (18, '-Infinity', '-0.01', '2024-01-01 00:00:00', 'plain')
    as t (id, f, d, ts, s)
