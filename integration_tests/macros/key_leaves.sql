{#-
  Integration-test helper: for a pair with strategy range and a single integer key, the leaf of
  each of `keys` (the leaf whose half-open bounds hold it) and whether a compare unit of the split
  step covers that leaf. Columns: key_value, leaf_id, in_unit. A key whose leaf is in no compare
  unit was skipped on block signatures alone; a key alone in its leaf was found by its fingerprint.
  Use it as a subquery: from ({{ key_leaves(...) }}) as kl.
-#}
{% macro key_leaves(ranges, block_split, keys) %}
    select
        key_leaf.key_value,
        key_leaf.leaf_id,
        count(u.unit_id) > 0 as in_unit
    from (
        select
            k.key_value,
            max(r.leaf_id) as leaf_id
        from (select explode(array({{ keys | join(', ') }})) as key_value) as k
        inner join {{ ranges }} as r
            on r.lower_bound is null or r.lower_bound <= k.key_value
        group by k.key_value
    ) as key_leaf
    left join {{ block_split }} as u
        on key_leaf.leaf_id between u.leaf_lo and u.leaf_hi
    group by key_leaf.key_value, key_leaf.leaf_id
{% endmacro %}
