-- Case duplicates: every stored row of a duplicated key is reported once, from its own side, with
-- its stored value on that side and NULL on the other (no cross product). Compares the multiset
-- (id, side, source__v, target__v) of the duplicate_key rows with the input rows, both directions.
with reported as (
    select
        id,
        side,
        source__v,
        target__v
    from {{ ref('duplicates_diff__row_diff') }}
    where diff_type = 'duplicate_key'
),

expected as (
    select
        cast(id as int) as id,
        side,
        cast(source__v as string) as source__v,
        cast(target__v as string) as target__v
    from values
        (2, 'source', 'a', null), (2, 'source', 'b', null), (2, 'target', null, 'a'),
        (3, 'source', 'c', null), (3, 'target', null, 'c'), (3, 'target', null, 'd'),
        (4, 'source', 'h', null), (4, 'source', 'i', null),
        (4, 'target', null, 'h'), (4, 'target', null, 'j'),
        (5, 'source', 'e', null), (5, 'source', 'f', null),
        (5, 'target', null, 'e'), (5, 'target', null, 'f'),
        (6, 'source', 'g', null), (6, 'source', 'g', null)
        as t (id, side, source__v, target__v)
)

select 'unexpected' as problem, u.* from (select * from reported except all select * from expected) as u
union all
select 'missing' as problem, m.* from (select * from expected except all select * from reported) as m
