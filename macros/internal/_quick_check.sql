{#- Whether a pair's run takes the quick check (ADR 0009, 0020): decided by key_ranges for a pair
    (ADR 0031), by block_hashes for a replica set or ranges that did not decide. -#}

{% macro _plan_quick_check(spec, layout) %}
  {#-
    Whether this run of the pair takes the quick check (ADR 0009), decided before any scan so that
    key_ranges cuts no key sample for it (ADR 0031): the whole-table signatures use no leaf, and
    when they differ every level-0 block is a unit and the row diff fetches every row, so no
    bound is read either. The same rule block_hashes applied on its own before
    (`_quick_check_sides`): `true` always, `'auto'` when the pair's block_hashes table says the
    sides were identical last run, or that most leaves differed (`_dense_last_run`). False (the leaves are sampled, block_hashes decides as before)
    with check_duplicate_keys, a changes track, a replica set, strategy 'hash' (nothing to save),
    more level-0 blocks than max_diff_rows (the row diff would then need the leaves of the units
    it keeps), or when 'auto' finds no single block_hashes model built on these ranges.
  -#}
  {% set mode = spec.get('quick_check', 'auto') %}
  {% if mode is false or not table_diff._quick_check_plannable(spec, layout) %}{{ return(false) }}{% endif %}
  {% if mode is true %}{{ return(true) }}{% endif %}
  {% if model is not mapping or not model.get('unique_id') %}{{ return(false) }}{% endif %}
  {% set found = [] %}
  {% for node in graph.nodes.values() if node.resource_type == 'model'
        and model.unique_id in node.depends_on.nodes and 'macro.table_diff.block_hashes' in node.depends_on.macros %}
    {% do found.append(node) %}
  {% endfor %}
  {% if found | length != 1 %}{{ return(false) }}{% endif %}
  {% set previous = adapter.get_relation(database=found[0].database, schema=found[0].schema,
      identifier=found[0].alias or found[0].name) %}
  {#- Quiet: when neither rule takes the check, block_hashes asks again and logs why it groups. -#}
  {% if table_diff._quick_check_sides(spec, ['target'], previous, quiet=true) == ['target'] %}{{ return(true) }}{% endif %}
  {{ return(table_diff._dense_last_run(spec, previous)) }}
{% endmacro %}


{% macro _quick_check_plannable(spec, layout) %}
  {#- Whether key_ranges may plan the quick check for `layout` at all (the cost preview counts the
      key sample by the same rule): not with check_duplicate_keys, a changes track, a replica set,
      strategy 'hash' (no sample to save), or more level-0 blocks than max_diff_rows. -#}
  {{ return(not spec.get('check_duplicate_keys') and not spec.get('track') and not spec.get('replicas')
      and spec['strategy'] == 'range' and layout['block_count'] <= spec['max_diff_rows']) }}
{% endmacro %}


{% macro _dense_last_run(spec, previous) %}
  {#-
    'auto' after dense drift (ADR 0031): the pair's last run grouped leaves, and at least
    `table_diff_whole_fetch_leaf_share` of them differed, every one selected by the split (the
    rows its units surely differ by, at least one a leaf, stayed under max_diff_rows). Its row
    fetch then read every row without a leaf lookup (ADR 0030), so the leaf pass bought nothing
    the quick check does not: this run takes the quick check (one ungrouped pass) and, when it
    finds the sides different, fetches every row as that run did. The run after it groups leaves
    again (its last result is whole-table), so persistent dense drift alternates, and drift that
    thinned out is found with its leaves within a run. `previous`: the pair's block_hashes table;
    `this`: the ranges it was grouped by, whose leaves the share is of.
  -#}
  {% set share = table_diff._whole_fetch_leaf_share('key_ranges') %}
  {% set ranges = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) %}
  {% if previous is none or ranges is none or share > 1 %}{{ return(false) }}{% endif %}
  {% set differs = [] %}
  {% for c in ['n_rows', 'h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
    {% do differs.append("sum(if(side = 'source', " ~ c ~ ", 0)) != sum(if(side = 'target', " ~ c ~ ", 0))") %}
  {% endfor %}
  {#- Runs of contiguous differing leaves: a few would have been fetched by key-range predicates
      (ADR 0010), reading only their row groups, rather than every row. -#}
  {% set row = run_query("select count_if(leaf_id is null), count_if(differs), coalesce(sum(if(differs, certain, 0)), 0),"
      ~ " (select count(*) from " ~ ranges ~ "), (select max(run_id) from " ~ ranges ~ "), max(run_id),"
      ~ " count_if(differs and not coalesce(run_on, false))"
      ~ " from (select *, lag(differs) over (order by leaf_id) and lag(leaf_id) over (order by leaf_id) = leaf_id - 1 as run_on"
      ~ " from (select leaf_id, max(run_id) as run_id, " ~ differs | join(' or ') ~ " as differs,"
      ~ " greatest(1, abs(sum(if(side = 'source', n_rows, 0)) - sum(if(side = 'target', n_rows, 0)))) as certain"
      ~ " from " ~ previous ~ " where side in ('source', 'target') group by leaf_id) as g) as l").rows[0] %}
  {% set whole, differing, certain, leaves = row[0] | int, row[1] | int, row[2] | int, row[3] | int %}
  {% if whole > 0 or leaves == 0 or row[4] != row[5] or differing < leaves * share or certain >= spec['max_diff_rows']
        or (differing < leaves and (row[6] | int) <= table_diff._key_range_limit('key_ranges')) %}
    {{ return(false) }}
  {% endif %}
  {% do log("table_diff.key_ranges: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": the last run found " ~ differing ~ " of "
      ~ leaves ~ " leaves different and fetched every row: this run takes the quick check (quick_check='auto').", info=true) %}
  {{ return(true) }}
{% endmacro %}


{% macro _quick_check_sides(spec, others, previous='this', quiet=false) %}
  {#- Which of the sides `others` (every side but the source) take the whole-table signature this
      run: all or none for a pair. Never with check_duplicate_keys (the per-leaf distinct-key
      counts are what it asks for). 'auto': the sides whose totals equalled the source's in this
      model's previous result (whole-table or per-leaf rows: their per-side totals are the
      whole-table signatures either way); none on a first run (ADR 0020: a drifted first run then
      finds its blocks, at two reads as well). In a replica set (ADR 0028) each replica is judged
      on its own, and the source is grouped into leaves as soon as one replica is. `previous`:
      the block_hashes table whose last result decides, by default this model's own (key_ranges
      passes the pair's, ADR 0031); none when it does not exist. `quiet`: no log of a skipped
      check (key_ranges' call, which the dense rule may still overrule). -#}
  {% set mode = spec.get('quick_check', 'auto') %}
  {% if mode is false or spec.get('check_duplicate_keys') %}{{ return([]) }}{% endif %}
  {% if mode is true %}{{ return(others) }}{% endif %}
  {% if previous == 'this' %}
    {% set previous = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) %}
  {% endif %}
  {% if previous is none %}{{ return([]) }}{% endif %}
  {% set totals = {} %}
  {% set res = run_query("select side, sum(n_rows), sum(h1_hi), sum(h1_lo), sum(h2_hi), sum(h2_lo) from "
      ~ previous ~ " group by side") %}
  {% for row in res.rows %}
    {% do totals.update({row[0]: [row[1], row[2], row[3], row[4], row[5]] | map('int') | list}) %}
  {% endfor %}
  {% set zero = [0, 0, 0, 0, 0] %}
  {% set quick, differ = [], [] %}
  {% for side in others %}
    {% do (differ if totals.get(side, zero) != totals.get('source', zero) else quick).append(side) %}
  {% endfor %}
  {% if differ and not quiet %}
    {% set replicas = spec.get('replicas') or [] %}
    {% set skipped = replicas | selectattr('side', 'in', differ) | map(attribute='name') | list %}
    {% set taken = replicas | selectattr('side', 'in', quick) | map(attribute='name') | list %}
    {% do log("table_diff.block_hashes: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": quick check skipped"
        ~ (" for " ~ skipped | join(', ') if skipped else "") ~ (", taken for " ~ taken | join(', ') if taken else "")
        ~ " (quick_check='auto' and the last run found the sides different).", info=true) %}
  {% endif %}
  {{ return(quick) }}
{% endmacro %}
