-- Case value_types: a modified row shows the stored values of both sides, in each side's own type:
-- NaN and Infinity survive, decimals keep their scale, microseconds and the 1500th character are
-- there. Also checks the premise that the source really holds -0.0 (not 0.0) for key 1.
-- Fails with the name of each check that does not hold.
with reported as (
    select * from {{ ref('value_types_diff__row_diff') }}
),

checks as (
    select
        'premise: value_types__source key 1 holds -0.0' as check_name,
        count_if(id = 1 and cast(f as string) = '-0.0') = 1 as passed
    from {{ ref('value_types__source') }}

    union all

    select
        'key 3: NaN -> 1.0 shows source__f NaN and target__f 1.0' as check_name,
        count_if(id = 3 and isnan(source__f) and target__f = 1.0 and changed_columns = array('f')) = 1 as passed
    from reported

    union all

    select
        'key 5: Infinity -> -Infinity shown as stored' as check_name,
        count_if(
            id = 5 and source__f = cast('Infinity' as double) and target__f = cast('-Infinity' as double)
        ) = 1 as passed
    from reported

    union all

    select
        'key 8: decimal(10,2) 1.10 -> decimal(12,4) 1.1001, each side in its own type' as check_name,
        count_if(
            id = 8 and cast(source__d as string) = '1.10' and cast(target__d as string) = '1.1001'
            and typeof(source__d) = 'decimal(10,2)' and typeof(target__d) = 'decimal(12,4)'
        ) = 1 as passed
    from reported

    union all

    select
        'key 10: timestamps differ by one microsecond' as check_name,
        count_if(
            id = 10
            and cast(source__ts as string) = '2024-01-01 12:34:56.123456'
            and cast(target__ts as string) = '2024-01-01 12:34:56.123457'
        ) = 1 as passed
    from reported

    union all

    select
        'key 12: precomposed vs combining e-acute kept as stored (4 vs 5 characters)' as check_name,
        count_if(id = 12 and length(source__s) = 4 and length(target__s) = 5) = 1 as passed
    from reported

    union all

    select
        'key 14: 1500-character strings shown whole, differing in the last character' as check_name,
        count_if(
            id = 14 and length(source__s) = 1500 and length(target__s) = 1500
            and right(source__s, 1) = 'a' and right(target__s, 1) = 'b'
        ) = 1 as passed
    from reported

    union all

    select
        'key 17: NULL -> NaN shown as stored' as check_name,
        count_if(id = 17 and source__f is null and isnan(target__f)) = 1 as passed
    from reported
)

select * from checks where not passed
