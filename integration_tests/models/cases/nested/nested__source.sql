{#- Source side of case nested: see nested__target for what each key exercises. -#}
select
    cast(id as int) as id,
    id % 2 = 0 as flag,
    cast(case id when 1 then array(1, null) when 2 then array() when 16 then array(7) else array(id) end as array<int>) as arr,
    cast(case id
        when 4 then named_struct('a', 1, 'b', cast(null as double))
        when 5 then named_struct('a', 5, 'b', cast('-0.0' as double))
        when 6 then named_struct('a', 6, 'b', cast('NaN' as double))
        when 14 then null
        else named_struct('a', id, 'b', 1.5d) end as struct<a:int, b:double>) as st,
    cast(case id
        when 3 then map('b', 2, 'a', 1)
        when 7 then map('a', 1)
        when 17 then map('it''s', 1)
        else map('k', id) end as map<string, int>) as m,
    cast(case id
        when 8 then array(named_struct('x', 1, 'y', array('a')))
        when 9 then array(named_struct('x', 1, 'y', array('a', null)))
        else array(named_struct('x', id, 'y', cast(array() as array<string>))) end
        as array<struct<x:int, y:array<string>>>) as aos,
    case id
        when 10 then parse_json('{"b": 1, "a": [2, null]}')
        when 11 then parse_json('{"a": 2}')
        else parse_json(cast(id as string)) end as v,
    cast(named_struct('t', timestamp'2024-01-01 00:00:00.000001' + make_interval(0, 0, 0, id),
        'd', cast(id as decimal(10, 2))) as struct<t:timestamp, d:decimal(10,2)>) as ev,
    cast(case id when 16 then 'old' else 'same' end as string) as note
from (select explode(sequence(1, 17)) as id) as ids
where id != 12
