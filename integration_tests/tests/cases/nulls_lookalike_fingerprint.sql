-- Case nulls_lookalike, fingerprint level: every key has a leaf of its own (premise), and the keys
-- whose rows are equal (NULL = NULL in each position, the all-NULL row, '' = '', 'a|b' = 'a|b')
-- are skipped on block signatures alone. Each differing key, alone in its leaf, can only be in the
-- expected row diff if its fingerprint differs: NULL never hashes like a neighbour's value, a
-- separator never shifts a value. Fails with the offending keys.
with key_leaf as (
    {{ key_leaves(ref('nulls_lookalike_diff__ranges'), ref('nulls_lookalike_diff__block_split'),
                  [11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34, 40, 41, 42,
                   50, 51, 52, 53, 54, 55, 56, 57, 59, 60, 61]) }}
)

select 'premise: keys share a leaf' as problem, leaf_id as key_value
from key_leaf
group by leaf_id
having count(*) > 1

union all

select 'equal rows not skipped by their signatures' as problem, key_value
from key_leaf
where key_value in (31, 32, 33, 34, 40, 53, 55) and in_unit
