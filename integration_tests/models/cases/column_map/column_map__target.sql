{#- Target side of case column_map: the source's rows under other column names; the comment at
    each key says what differs. -#}
select
    cast(id as int) as id,
    cast(region as string) as region,
    cast(amt as decimal(10, 2)) as amt,
    -- `note` holds what the source calls status, `status` what it calls note
    cast(note as string) as note,
    cast(status as string) as status
from values
    -- 1: equal once mapped
    (1, 'eu', '10.00', 'new', 'a'),
    -- 2: amount (amt) differs
    (2, 'eu', '20.50', 'new', 'b'),
    -- 3: status (stored as note) differs
    (3, 'us', '30.00', 'paid', 'c'),
    -- 4: deleted; 5: added
    (5, 'us', '50.00', 'new', 'e'),
    -- 6: note (stored as status) differs
    (6, 'eu', '60.00', 'shipped', 'F'),
    -- 99: differs, but the filter (order_id, the target's id) leaves it out on both sides
    (99, 'eu', '2.00', 'new', 'z')
    as t (id, region, amt, note, status)
