-- Case normalize, fingerprint level: normalisation is applied inside the fingerprint, so rows that
-- differ raw but are equal normalised (keys 1, 3, 5, 7, 12) are skipped on block signatures alone.
-- Every key has a leaf of its own (premise). Fails with the offending keys.
with key_leaf as (
    {{ key_leaves(ref('normalize_diff__ranges'), ref('normalize_diff__block_split'),
                  range(1, 14) | list) }}
)

select 'premise: keys share a leaf' as problem, leaf_id as key_value
from key_leaf
group by leaf_id
having count(*) > 1

union all

select 'equal rows not skipped by their signatures' as problem, key_value
from key_leaf
where key_value in (1, 3, 5, 7, 12) and in_unit
