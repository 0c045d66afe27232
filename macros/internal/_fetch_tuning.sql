{#- The row fetch's tuning vars (shared by the pair's row diff and no_drift), checked with the
    other options when a run starts (`_spec.sql`), and the rule that picks the narrow pass. -#}

{% macro _dense_leaf_share(macro_name='row_diff', default=0.5) %}
  {#- Share of leaves selected from which the row diff first finds the differing keys on a narrow
      (key, row hash) projection, then fetches only their rows (ADR 0033): a third read of each
      table after the block pass, but a shuffle of the key and one hash per row instead of every
      column, which measured faster from half the leaves (and whenever a quick check found drift:
      its one unit is every leaf). Var `table_diff_dense_leaf_share` (0 = always, above 1 =
      never: the full rows of the selected leaves joined, two reads at most, ADR 0020). The
      merge passes `default` 2 (never): its three-way fetch was not measured against it. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_dense_leaf_share', default, 0)) }}
{% endmacro %}


{% macro _whole_fetch_leaf_share(macro_name='row_diff') %}
  {#- Share of leaves selected from which the pair's row diff fetches every row instead of looking
      up each row's leaf (ADR 0030): the lookup costs about one more read of the table, the rows of
      the other leaves only their share of the join. Var `table_diff_whole_fetch_leaf_share`
      (0 = always when allowed, above 1 = never). -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_whole_fetch_leaf_share', 0.5, 0)) }}
{% endmacro %}


{% macro _dense_rows(macro_name='row_diff') %}
  {#- Rows of the selected leaves (on the larger side) from which the narrow pass is taken at half
      `_dense_leaf_share()` (ADR 0048): the full-row join of that many rows costs more than one
      more read of the tables once a quarter of their leaves is selected. Var
      `table_diff_dense_rows` (0 = at half the share whatever the rows). -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_dense_rows', 10000000, 0, whole=true)) }}
{% endmacro %}


{% macro _takes_narrow_pass(spec, selected_leaves, leaf_count, selected_rows=none) %}
  {#- Whether the row fetch first finds the differing keys on a narrow (key, row hash) pass (ADR
      0033): from `_dense_leaf_share()` of the leaves, or from half of it when the selected leaves
      hold at least `_dense_rows()` rows on the larger side (`selected_rows`, none when unknown:
      ADR 0048). A share above 1 still means never; nor for a pair with a database side (ADR 0047). -#}
  {% if spec.get('databases') %}{{ return(false) }}{% endif %}
  {% set share = table_diff._dense_leaf_share() %}
  {{ return(selected_leaves >= leaf_count * share
      or (share <= 1 and selected_rows is not none and selected_rows >= table_diff._dense_rows()
          and selected_leaves >= leaf_count * share / 2)) }}
{% endmacro %}


{% macro _broadcast_key_limit(macro_name='row_diff') %}
  {#- Most differing keys the row fetch broadcasts; above it, the full rows are joined as usual.
      The var `table_diff_broadcast_key_limit` overrides it. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_broadcast_key_limit', 1000000, 0, whole=true)) }}
{% endmacro %}


{% macro _key_range_limit(macro_name='row_diff') %}
  {#- Most runs of contiguous selected leaves the row fetch also states as key-range
      predicates (ADR 0010); var `table_diff_key_range_limit`, 0 = never. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_key_range_limit', 8, 0, whole=true)) }}
{% endmacro %}
