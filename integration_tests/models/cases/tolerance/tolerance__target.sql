{#- Target side of case tolerance; the comment at each key says whether it is within. -#}
select
    cast(id as int) as id,
    cast(amount as double) as amount,
    cast(price as decimal(10, 2)) as price,
    cast(ts as timestamp) as ts,
    cast(rate as double) as rate,
    cast(note as string) as note
from values
    -- 1: amount moved 0.004, within 0.01: equal; 2: moved 0.02: modified [amount]
    (1, '10.004', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (2, '10.02', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    -- 3: price moved exactly 0.01 (on the tolerance): equal; 4: moved 0.02: modified [price]
    (3, '10.0', '5.01', '2024-01-01 12:00:00', '100.0', 'a'),
    (4, '10.0', '4.98', '2024-01-01 12:00:00', '100.0', 'a'),
    -- 5: ts 1.5 s later, within 2 seconds: equal; 6: 3 s earlier: modified [ts]
    (5, '10.0', '5.00', '2024-01-01 12:00:01.5', '100.0', 'a'),
    (6, '10.0', '5.00', '2024-01-01 11:59:57', '100.0', 'a'),
    -- 7: rate 100 -> 100.00005, within 1e-6 of 100: equal; 8: 100 -> 100.001: modified [rate]
    (7, '10.0', '5.00', '2024-01-01 12:00:00', '100.00005', 'a'),
    (8, '10.0', '5.00', '2024-01-01 12:00:00', '100.001', 'a'),
    -- 9: NULL -> 0.0 is never within: modified [amount]; 10: NaN = NaN: equal
    (9, '0.0', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (10, 'NaN', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    -- 11: Infinity vs the largest double: modified [amount]; 12: note is exact: modified [note]
    (11, '1.7976931348623157E308', '5.00', '2024-01-01 12:00:00', '100.0', 'a'),
    (12, '10.001', '5.00', '2024-01-01 12:00:00', '100.0', 'b')
    as t (id, amount, price, ts, rate, note)
