-- Case normalize: values are compared after normalising but reported as stored. Key 9 differs
-- only in note ('X' -> 'x'): name is not listed although ' Ada' and 'ADA' differ raw. Key 13
-- shows its raw source and target values. Fails with the name of each check that does not hold.
with reported as (
    select * from {{ ref('normalize_diff__row_diff') }}
),

checks as (
    select
        'key 9: only note changed, names shown raw' as check_name,
        count_if(
            id = 9 and changed_columns = array('note')
            and source__name = ' Ada' and target__name = 'ADA'
        ) = 1 as passed
    from reported

    union all

    select
        'key 13: stored values shown, not normalised ones' as check_name,
        count_if(
            id = 13 and source__amt = 1.0 and target__amt = 1.5
            and cast(source__price as string) = '2.0000' and cast(target__price as string) = '2.5000'
        ) = 1 as passed
    from reported

    union all

    select
        'key 12: equal after normalising every column, not reported' as check_name,
        count_if(id = 12) = 0 as passed
    from reported
)

select * from checks where not passed
