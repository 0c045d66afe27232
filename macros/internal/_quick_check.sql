{#- Whether a pair's run takes the quick check (ADR 0009, 0020): decided by key_ranges for a pair
    (ADR 0031), by block_hashes for a replica set or ranges that did not decide. -#}

{% macro _plan_quick_check(spec, layout, memo=none) %}
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
    `memo`: a dict that keeps the last run's leaf facts when the dense rule read them
    (`_last_leaves`), so that key_ranges' decision to keep the leaves (ADR 0046) reads nothing again.
  -#}
  {% set mode = spec.get('quick_check', 'auto') %}
  {% if mode is false or not table_diff._quick_check_plannable(spec, layout) %}{{ return(false) }}{% endif %}
  {% if mode is true %}{{ return(true) }}{% endif %}
  {% if model is not mapping or not model.get('unique_id') %}{{ return(false) }}{% endif %}
  {% set previous = table_diff._pair_block_hashes() %}
  {% if previous is none %}{{ return(false) }}{% endif %}
  {#- Both rules read the table block_hashes would read: its answer is this one (`decided`), so it
      does not ask again. Quiet: when neither rule takes the check, block_hashes logs why it groups. -#}
  {% if memo is mapping %}{% do memo.update({'decided': true}) %}{% endif %}
  {#- The sides' totals come from the leaf facts the dense rule and the kept leaves read anyway
      (one query on the last run's tables instead of two); the totals alone when the ranges table
      is missing. -#}
  {% set last = table_diff._last_leaves(previous, memo) %}
  {% if last is not none %}
    {% set identical = last['totals']['source'] == last['totals']['target'] %}
  {% else %}
    {% set identical = table_diff._quick_check_sides(spec, ['target'], previous, quiet=true) == ['target'] %}
  {% endif %}
  {% if identical %}{{ return(true) }}{% endif %}
  {{ return(table_diff._dense_last_run(spec, previous, memo)) }}
{% endmacro %}


{% macro _pair_block_hashes() %}
  {#- The relation of the one block_hashes model built on this key_ranges model (dbt's graph), or
      none: no such model, several, or its table not built yet. -#}
  {% if model is not mapping or not model.get('unique_id') %}{{ return(none) }}{% endif %}
  {% set found = [] %}
  {% for node in graph.nodes.values() if node.resource_type == 'model'
        and model.unique_id in node.depends_on.nodes and 'macro.table_diff.block_hashes' in node.depends_on.macros %}
    {% do found.append(node) %}
  {% endfor %}
  {% if found | length != 1 %}{{ return(none) }}{% endif %}
  {{ return(adapter.get_relation(database=found[0].database, schema=found[0].schema,
      identifier=found[0].alias or found[0].name)) }}
{% endmacro %}


{% macro _quick_check_plannable(spec, layout) %}
  {#- Whether key_ranges may plan the quick check for `layout` at all (the cost preview counts the
      key sample by the same rule): not with check_duplicate_keys, a changes track, a replica set,
      strategy 'hash' (no sample to save), or more level-0 blocks than max_diff_rows. -#}
  {#- Nor with a database side (ADR 0047): drift found by the quick check is then looked for in
      leaves, never by fetching every row, so the bounds are always cut. -#}
  {{ return(not spec.get('check_duplicate_keys') and not spec.get('track') and not spec.get('replicas')
      and spec['strategy'] == 'range' and layout['block_count'] <= spec['max_diff_rows'] and not spec.get('databases')) }}
{% endmacro %}


{% macro _dense_last_run(spec, previous, memo=none) %}
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
  {% if previous is none or share > 1 %}{{ return(false) }}{% endif %}
  {% set last = table_diff._last_leaves(previous, memo) %}
  {% if last is none %}{{ return(false) }}{% endif %}
  {% set differing, leaves = last['differing'], last['leaves'] %}
  {% if last['whole'] > 0 or leaves == 0 or not last['same_run'] or differing < leaves * share or last['certain'] >= spec['max_diff_rows'] %}
    {{ return(false) }}
  {% endif %}
  {#- Runs of contiguous differing leaves: a few would have been fetched by key-range predicates
      (ADR 0010), reading only their row groups, rather than every row. Counted only here (a
      window over the leaves, which costs its own job), when most leaves differed. -#}
  {% if differing < leaves and table_diff._differing_runs(previous) <= table_diff._key_range_limit('key_ranges') %}
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


{% macro _last_leaves(previous, memo=none) %}
  {#-
    What the pair's last run left in its ranges (`this`) and block_hashes (`previous`) tables, from
    one query: {'whole': whole-table rows (the quick check ran), 'differing': leaves whose
    signatures differed, 'certain': rows those leaves surely differ by, 'leaves': leaves of the
    ranges, 'same_run': whether the block pass ran on those ranges, 'max_leaf_rows': the most rows
    a leaf held on either side, 'source_rows' / 'target_rows', 'spec': the ranges' spec (JSON
    text), 'totals': {side: [rows, h1_hi, h1_lo, h2_hi, h2_lo] summed over the side}, the
    whole-table signatures the quick check compares}. None when either table does not exist. Read by the dense rule (ADR 0031) and the kept
    leaves (ADR 0046), once: `memo` (a dict) keeps the answer for the model's later calls.
  -#}
  {% if memo is mapping and 'last_leaves' in memo %}{{ return(memo['last_leaves']) }}{% endif %}
  {% set ranges = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) %}
  {% set facts = none %}
  {% if previous is not none and ranges is not none %}
    {% set differs = table_diff._leaf_differs_sql() %}
    {#- Each side's totals of the four hash sums (its row count is source_rows / target_rows). -#}
    {% set sums, totals = [], [] %}
    {% for side in ['source', 'target'] %}
      {% for c in ['h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
        {% do sums.append("sum(if(side = '" ~ side ~ "', " ~ c ~ ", 0)) as " ~ side ~ "_" ~ c) %}
        {% do totals.append("coalesce(sum(" ~ side ~ "_" ~ c ~ "), 0)") %}
      {% endfor %}
    {% endfor %}
    {% set row = run_query("select count_if(leaf_id is null), count_if(differs), coalesce(sum(if(differs, certain, 0)), 0),"
        ~ " coalesce(max(greatest(source_rows, target_rows)), 0), coalesce(sum(source_rows), 0), coalesce(sum(target_rows), 0), max(g.run_id),"
        ~ " max(r.leaves), max(r.run_id), max(r.spec), " ~ totals | join(', ')
        ~ " from (select leaf_id, max(run_id) as run_id, " ~ differs ~ " as differs,"
        ~ " greatest(1, abs(sum(if(side = 'source', n_rows, 0)) - sum(if(side = 'target', n_rows, 0)))) as certain,"
        ~ " sum(if(side = 'source', n_rows, 0)) as source_rows, sum(if(side = 'target', n_rows, 0)) as target_rows, " ~ sums | join(', ')
        ~ " from " ~ previous ~ " where side in ('source', 'target') group by leaf_id) as g"
        ~ " cross join (select count(*) as leaves, max(run_id) as run_id, max(if(leaf_id = 0, spec, null)) as spec from " ~ ranges ~ ") as r").rows[0] %}
    {% set facts = {'whole': row[0] | int, 'differing': row[1] | int, 'certain': row[2] | int, 'max_leaf_rows': row[3] | int,
        'source_rows': row[4] | int, 'target_rows': row[5] | int, 'leaves': (row[7] or 0) | int,
        'same_run': row[8] is not none and row[8] == row[6], 'spec': row[9],
        'totals': {'source': [row[4] | int] + (row[10:14] | map('int') | list), 'target': [row[5] | int] + (row[14:18] | map('int') | list)}} %}
  {% endif %}
  {% if memo is mapping %}{% do memo.update({'last_leaves': facts}) %}{% endif %}
  {{ return(facts) }}
{% endmacro %}


{% macro _differing_runs(previous) %}
  {#- Runs of contiguous leaves whose signatures differed in the block_hashes table `previous`. -#}
  {{ return(run_query("select count_if(differs and not coalesce(run_on, false))"
      ~ " from (select differs, lag(differs) over (order by leaf_id) and lag(leaf_id) over (order by leaf_id) = leaf_id - 1 as run_on"
      ~ " from (select leaf_id, " ~ table_diff._leaf_differs_sql() ~ " as differs"
      ~ " from " ~ previous ~ " where side in ('source', 'target') and leaf_id is not null group by leaf_id) as g) as l").rows[0][0] | int) }}
{% endmacro %}


{% macro _leaf_differs_sql() %}
  {#- An aggregate over one leaf's rows of a block_hashes table (grouped by leaf_id): true when the
      source's and the target's signatures differ (row count or either hash's sums). -#}
  {% set differs = [] %}
  {% for c in ['n_rows', 'h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
    {% do differs.append("sum(if(side = 'source', " ~ c ~ ", 0)) != sum(if(side = 'target', " ~ c ~ ", 0))") %}
  {% endfor %}
  {{ return(differs | join(' or ')) }}
{% endmacro %}
