-- Premise of case range_edges: the keys the target gains (1, 2, 1000, 1001) lie below the smallest
-- and above the largest sampled bound, so they can only be found through the open first and last
-- leaves; and the pair has several leaves. Fails with the ranges summary when that is not so.
with bounds as (
    select
        count(*) as n_leaves,
        min(lower_bound) as min_bound,
        max(lower_bound) as max_bound
    from {{ ref('range_edges_diff__ranges') }}
)

select *
from bounds
where not (n_leaves >= 4 and min_bound > 2 and max_bound < 1000)
