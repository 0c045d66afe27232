{#- Whether a pair's run takes the quick check (ADR 0009, 0020): decided by key_ranges for a pair
    (ADR 0031), by block_hashes for a replica set or ranges that did not decide. -#}

{% macro _plan_quick_check(spec, layout) %}
  {#-
    Whether this run of the pair takes the quick check (ADR 0009), decided before any scan so that
    key_ranges cuts no key sample for it (ADR 0031): the whole-table signatures use no leaf, and
    when they differ every level-0 block is a unit and the row diff fetches every row, so no
    bound is read either. The same rule block_hashes applied on its own before
    (`_quick_check_sides`): `true` always, `'auto'` when the pair's block_hashes table says the
    sides were identical last run. False (the leaves are sampled, block_hashes decides as before)
    with check_duplicate_keys, a changes track, a replica set, strategy 'hash' (nothing to save),
    more level-0 blocks than max_diff_rows (the row diff would then need the leaves of the units
    it keeps), or when 'auto' finds no single block_hashes model built on these ranges.
  -#}
  {% set mode = spec.get('quick_check', 'auto') %}
  {% if mode is false or spec.get('check_duplicate_keys') or spec.get('track') or spec.get('replicas')
        or spec['strategy'] == 'hash' or layout['block_count'] > spec['max_diff_rows'] %}
    {{ return(false) }}
  {% endif %}
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
  {{ return(table_diff._quick_check_sides(spec, ['target'], previous) == ['target']) }}
{% endmacro %}


{% macro _quick_check_sides(spec, others, previous='this') %}
  {#- Which of the sides `others` (every side but the source) take the whole-table signature this
      run: all or none for a pair. Never with check_duplicate_keys (the per-leaf distinct-key
      counts are what it asks for). 'auto': the sides whose totals equalled the source's in this
      model's previous result (whole-table or per-leaf rows: their per-side totals are the
      whole-table signatures either way); none on a first run (ADR 0020: a drifted first run then
      finds its blocks, at two reads as well). In a replica set (ADR 0028) each replica is judged
      on its own, and the source is grouped into leaves as soon as one replica is. `previous`:
      the block_hashes table whose last result decides, by default this model's own (key_ranges
      passes the pair's, ADR 0031); none when it does not exist. -#}
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
  {% if differ %}
    {% set replicas = spec.get('replicas') or [] %}
    {% set skipped = replicas | selectattr('side', 'in', differ) | map(attribute='name') | list %}
    {% set taken = replicas | selectattr('side', 'in', quick) | map(attribute='name') | list %}
    {% do log("table_diff.block_hashes: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": quick check skipped"
        ~ (" for " ~ skipped | join(', ') if skipped else "") ~ (", taken for " ~ taken | join(', ') if taken else "")
        ~ " (quick_check='auto' and the last run found the sides different).", info=true) %}
  {% endif %}
  {{ return(quick) }}
{% endmacro %}
