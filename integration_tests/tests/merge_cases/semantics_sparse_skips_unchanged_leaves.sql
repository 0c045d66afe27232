-- Case semantics_sparse: on 64 hash leaves the merge fetches only leaves where a side changed, so
-- it checks fewer than the 69 keys of the inputs but at least the 27 changed keys, and every
-- fetched key that is not changed is counted unchanged (never listed in the merge model). The
-- merged table is still complete (rows_match_expected): unchanged leaves are copied from ours.
with summary as (
    select * from {{ ref('semantics_sparse_merge__merge_summary') }}
),

checks as (
    select 'keys_checked < 69 (unchanged leaves skipped)' as check_name, keys_checked < 69 as passed
    from summary
    union all
    select 'keys_checked >= 27 (every changed key fetched)' as check_name, keys_checked >= 27 as passed
    from summary
    union all
    select 'unchanged = keys_checked - changed_keys' as check_name, unchanged = keys_checked - changed_keys as passed
    from summary
)

select * from checks where not coalesce(passed, false)
