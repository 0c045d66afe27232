-- Case value_types, fingerprint level: every key has a leaf of its own (premise), and the keys
-- whose values are equal under the semantics (-0.0 / 0.0, NaN / NaN, Infinity, 1.10 / 1.1000,
-- microseconds, emoji, combining marks, long strings, -Infinity / -0.0100) are skipped on block
-- signatures alone: their rows hash alike. Each differing key, alone in its leaf, can only be in
-- the expected row diff if its fingerprint differs. Fails with the offending keys.
with key_leaf as (
    {{ key_leaves(ref('value_types_diff__ranges'), ref('value_types_diff__block_split'),
                  range(1, 19) | list) }}
)

select 'premise: keys share a leaf' as problem, leaf_id as key_value
from key_leaf
group by leaf_id
having count(*) > 1

union all

select 'equal rows not skipped by their signatures' as problem, key_value
from key_leaf
where key_value in (1, 2, 4, 7, 9, 11, 13, 15, 18) and in_unit
