-- Case widening: the key is reported in the common type (int vs bigint -> bigint, so the target key
-- 3000000000 fits), and each side's values in that side's own type (float / double, date /
-- timestamp). Fails with the name of each check that does not hold.
with reported as (
    select * from {{ ref('widening_diff__row_diff') }}
),

checks as (
    select
        'key column is bigint' as check_name,
        count_if(typeof(id) != 'bigint') = 0 and count(*) > 0 as passed
    from reported

    union all

    select
        'key 3: date 2024-01-02 vs timestamp 2024-01-02 12:00:00, each in its own type' as check_name,
        count_if(
            id = 3 and typeof(source__dt) = 'date' and typeof(target__dt) = 'timestamp'
            and source__dt = date '2024-01-02' and target__dt = timestamp '2024-01-02 12:00:00'
        ) = 1 as passed
    from reported

    union all

    select
        'key 2: float 2.25 vs double 2.5' as check_name,
        count_if(
            id = 2 and typeof(source__f) = 'float' and typeof(target__f) = 'double'
            and source__f = 2.25 and target__f = 2.5
        ) = 1 as passed
    from reported
)

select * from checks where not passed
