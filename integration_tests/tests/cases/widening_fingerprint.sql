-- Case widening, fingerprint level: both sides are hashed in the common types, so key 1 (int / bigint
-- key, float 0.5 / double 0.5, date / midnight timestamp) is skipped on block signatures alone.
-- Keys 1, 2 and 3 have a leaf each (premise). Fails with the offending keys.
with key_leaf as (
    {{ key_leaves(ref('widening_diff__ranges'), ref('widening_diff__block_split'), [1, 2, 3]) }}
)

select 'premise: keys share a leaf' as problem, leaf_id as key_value
from key_leaf
group by leaf_id
having count(*) > 1

union all

select 'equal rows not skipped by their signatures' as problem, key_value
from key_leaf
where key_value = 1 and in_unit
