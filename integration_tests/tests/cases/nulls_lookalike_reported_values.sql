-- Case nulls_lookalike: modified rows show the stored values, with '' and NULL kept apart and no
-- value shifted into its neighbour. Fails with the name of each check that does not hold.
with reported as (
    select * from {{ ref('nulls_lookalike_diff__row_diff') }}
),

checks as (
    select
        'key 51: empty string and NULL swap columns, reported as stored' as check_name,
        count_if(
            id = 51 and diff_type = 'modified'
            and source__c1 = '' and source__c2 is null
            and target__c1 is null and target__c2 = ''
        ) = 1 as passed
    from reported

    union all

    select
        'key 50: ab,c -> a,bc reported as stored' as check_name,
        count_if(
            id = 50 and diff_type = 'modified'
            and source__c1 = 'ab' and source__c2 = 'c'
            and target__c1 = 'a' and target__c2 = 'bc'
        ) = 1 as passed
    from reported

    union all

    select
        'key 40: all-NULL row on both sides is not reported' as check_name,
        count_if(id = 40) = 0 as passed
    from reported
)

select * from checks where not passed
