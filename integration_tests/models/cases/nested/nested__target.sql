{#- Target side of case nested (key id): arrays, maps, structs and a variant, nested; each key
    says what it exercises and the changed_paths expected (nested__expected). -#}
select
    id,
    flag,  -- a flat column before the nested ones: each keeps its own position
    case id
        when 1 then array(cast(null as int), 1)  -- [1, NULL] -> [NULL, 1]: arr[0], arr[1]
        when 2 then cast(null as array<int>)     -- [] -> NULL: arr
        when 16 then array(8)                    -- with a flat change: arr[0], note
        else arr end as arr,
    case id
        when 4 then named_struct('a', cast(null as int), 'b', 1d)  -- NULL moves field: st.a, st.b
        when 5 then named_struct('a', 5, 'b', 0d)                   -- -0.0 -> 0.0: equal
        when 14 then named_struct('a', 14, 'b', 1.5d)               -- NULL struct -> present: st
        else st end as st,
    case id
        when 3 then map('a', 1, 'b', 2)                -- same entries, other order: equal
        when 7 then map('a', 1, 'b', cast(null as int))  -- key added with a NULL value: m['b']
        when 17 then map('it''s', 2)                   -- a quote in the key: m['it\'s']
        else m end as m,
    case id
        when 8 then array(named_struct('x', 1, 'y', array('a')), named_struct('x', 2, 'y', cast(null as array<string>)))  -- aos[1]
        when 9 then array(named_struct('x', 1, 'y', array('b', null)))  -- deep leaf: aos[0].y[0]
        else aos end as aos,
    case id
        when 10 then parse_json('{"a": [2, null], "b": 1}')  -- object keys in another order: equal
        when 11 then parse_json('{"a": 3}')                  -- v
        else v end as v,
    case id
        when 15 then named_struct('t', ev.t + interval 1 microsecond, 'd', ev.d)  -- ev.t
        else ev end as ev,
    case id when 16 then 'new' else note end as note
from {{ ref('nested__source') }}
where id != 13
union all
select 12, true, array(12), named_struct('a', 12, 'b', 1.5d), map('k', 12),
    array(named_struct('x', 12, 'y', cast(array() as array<string>))), parse_json('12'),
    named_struct('t', timestamp'2024-01-02', 'd', cast(12 as decimal(10, 2))), 'same'
