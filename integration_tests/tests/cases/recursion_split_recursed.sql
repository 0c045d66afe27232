-- Case recursion: with block_count 2, split_factor 2, a small compare_unit_size and max_depth 3 the
-- split step recursed below the level-0 blocks: more leaves than blocks, more than one mismatched
-- compare unit, units below level 0, and the units hold fewer rows than the table (unchanged
-- leaves were skipped). Fails with the name of each check that does not hold.
with summary as (
    select * from {{ ref('recursion_diff__summary') }}
),

units as (
    select
        max(level) as max_level,
        sum(greatest(source_rows, target_rows)) as unit_rows
    from {{ ref('recursion_diff__block_split') }}
),

checks as (
    select 'leaves_total > blocks_total' as check_name, leaves_total > blocks_total as passed
    from summary
    union all
    select 'units_mismatched > 1' as check_name, units_mismatched > 1 as passed
    from summary
    union all
    select 'blocks_total = 2' as check_name, blocks_total = 2 as passed
    from summary
    union all
    select 'compare units below level 0' as check_name, max_level > 0 as passed
    from units
    union all
    select 'compare units hold fewer rows than the source' as check_name, u.unit_rows < s.rows_source as passed
    from units as u cross join summary as s
)

select * from checks where not coalesce(passed, false)
