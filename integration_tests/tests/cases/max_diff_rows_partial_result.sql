-- Case max_diff_rows: 40 modified rows, max_diff_rows 5. The row diff stops early: at least one
-- and at most 5 rows (each a true difference: the subset check is the generic test on the
-- row_diff model), and the summary says the result is partial. Fails with the name of each check
-- that does not hold.
with summary as (
    select * from {{ ref('max_diff_rows_diff__summary') }}
),

diff_rows as (
    select count(*) as n from {{ ref('max_diff_rows_diff__row_diff') }}
),

checks as (
    select 'row_diff has 1 to max_diff_rows rows' as check_name, n between 1 and 5 as passed
    from diff_rows
    union all
    select 'summary max_diff_rows = 5' as check_name, max_diff_rows = 5 as passed
    from summary
    union all
    select 'summary max_diff_rows_reached' as check_name, max_diff_rows_reached as passed
    from summary
    union all
    select 'summary counts add up to the rows reported' as check_name,
        rows_added + rows_deleted + rows_modified + duplicate_key_rows = d.n as passed
    from summary cross join diff_rows as d
)

select * from checks where not coalesce(passed, false)
