{#- Size estimate (statistics, not a count(*), unless no side can be sized) and the block layout planned from it. -#}

{% macro _plan_pair(spec, source, target) %}
  {{ return(table_diff._plan_sides(spec, [['source', source], ['target', target]])) }}
{% endmacro %}


{% macro _plan_sides(spec, relations) %}
  {#- Size estimates of every [side, relation] (EXPLAINs, no scan), the larger side (the first of
      equals) whose keys a range layout samples, and the layout planned from its size. -#}
  {% set rels = [] %}
  {% for side, relation in relations %}{% do rels.append(relation) %}{% endfor %}
  {% set ests = table_diff._estimate_sides(rels, spec) %}
  {% set ns = namespace(best=0) %}
  {% for e in ests %}{% if (e or 0) > (ests[ns.best] or 0) %}{% set ns.best = loop.index0 %}{% endif %}{% endfor %}
  {{ return({'larger': relations[ns.best][1], 'larger_side': relations[ns.best][0],
             'layout': table_diff._plan_layout(spec, (ests | map('default', 1, true) | list + [1]) | max)}) }}
{% endmacro %}


{% macro _estimate_sides(relations, spec) %}
  {#-
    Estimated rows of each relation (`_estimate_rows`; none without statistics). A relation Spark
    cannot size takes the largest estimate of the others (the sides of a diff are about the same
    size); only when none can be sized is the first one counted, once, and the log says how to
    avoid that pass.
  -#}
  {% set ests = [] %}
  {% for relation in relations %}{% do ests.append(table_diff._estimate_rows(relation, spec)) %}{% endfor %}
  {% set known = ests | reject('equalto', 'unknown') | reject('none') | list %}
  {% if known %}
    {% set fill = known | max %}
  {% elif 'unknown' in ests %}
    {% do log("table_diff: " ~ relations | join(', ') ~ ": no size statistics (a partitioned table or a view over one):"
        ~ " counting the rows of " ~ relations[0] ~ " to plan the blocks. `ANALYZE TABLE ... COMPUTE STATISTICS`"
        ~ " on the table skips this count.", info=true) %}
    {% set fill = [run_query("select count(*) from " ~ relations[0]).rows[0][0] | int, 1] | max %}
  {% endif %}
  {% set out = [] %}
  {% for e in ests %}{% do out.append(fill if e == 'unknown' else e) %}{% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _estimate_rows(relation, spec) %}
  {#-
    Rows of a relation from the optimizer's statistics (EXPLAIN COST): the catalog rowCount after
    ANALYZE TABLE, else file bytes / an estimated row width; none without statistics; 'unknown'
    when Spark cannot size it. Only plans the layout: every count the diff reports is exact, and a
    wrong estimate costs speed, never correctness.
    A partitioned table without statistics reports Spark's `spark.sql.defaultSizeInBytes` (8 EiB)
    unless a filter on a partition column makes Spark list its files: so the plan is explained
    again with an always-true filter on the first partition column (metadata only, no scan).
    Failing that (a view over such a table): 'unknown' (`_estimate_sides` decides).
  -#}
  {% set est = table_diff._explained_rows("select * from " ~ relation, spec) %}
  {% if est != 'unknown' %}{{ return(est) }}{% endif %}
  {% set partition_column = table_diff._first_partition_column(relation) %}
  {% if not partition_column %}{{ return('unknown') }}{% endif %}
  {% set p = table_diff.quote_identifier(partition_column) %}
  {{ return(table_diff._explained_rows("select * from " ~ relation ~ " where " ~ p ~ " is null or " ~ p ~ " is not null", spec)) }}
{% endmacro %}


{% macro _explained_rows(sql, spec) %}
  {#- Rows `sql` returns by its EXPLAIN COST statistics, none without statistics, or 'unknown' when
      the size is Spark's default for a relation it cannot size (8 EiB, Long.MaxValue bytes). -#}
  {% set res = run_query("explain cost " ~ sql) %}
  {% set plan = res.rows[0][0] if res is not none and res.rows | length > 0 else '' %}
  {% set re = modules.re %}
  {% set rc = re.search('rowCount=([0-9.Ee+-]+)', plan) %}
  {% if rc %}{{ return([(rc.group(1) | float) | int, 1] | max) }}{% endif %}
  {% set m = re.search('sizeInBytes=([0-9.Ee+-]+)\\s*([KMGTPE]i)?B', plan) %}
  {% if not m %}{{ return(none) }}{% endif %}
  {% set units = {none: 1, 'Ki': 1024, 'Mi': 1024 ** 2, 'Gi': 1024 ** 3, 'Ti': 1024 ** 4, 'Pi': 1024 ** 5, 'Ei': 1024 ** 6} %}
  {% set bytes = (m.group(1) | float) * units[m.group(2)] %}
  {% if bytes >= 2 ** 62 %}{{ return('unknown') }}{% endif %}
  {% set ns = namespace(width=0) %}
  {% for c in spec['key'] + spec['columns'] %}{% set ns.width = ns.width + table_diff._type_width(c['type']) %}{% endfor %}
  {#- Parquet stores a row in roughly half its in-memory width. -#}
  {{ return([(bytes / [ns.width / 2, 4] | max) | int, 1] | max) }}
{% endmacro %}


{% macro _first_partition_column(relation) %}
  {#- The first partition column of a table (DESCRIBE TABLE's "# Partition Information"), or none. -#}
  {% set ns = namespace(in_partitions=false, found=none) %}
  {% for row in run_query("describe table " ~ relation).rows %}
    {% set name = (row[0] or '') | trim %}
    {% if name == '# Partition Information' %}
      {% set ns.in_partitions = true %}
    {% elif ns.in_partitions and ns.found is none and name and not name.startswith('#') %}
      {% set ns.found = name %}
    {% endif %}
  {% endfor %}
  {{ return(ns.found) }}
{% endmacro %}


{% macro _plan_layout(spec, estimated_rows) %}
  {#-
    Level-0 blocks (B0), split factor f and depth D give B0 * f^D leaves: the finest blocks whose
    signatures the one hashing pass computes. The split step walks that tree (coarser signatures
    are sums of finer ones) without reading the tables again.
  -#}
  {% set d = table_diff._diff_defaults() %}
  {% set est = [estimated_rows or 1, 1] | max %}
  {% set f = spec['split_factor'] %}
  {% set wanted_leaves = [((est + spec['compare_unit_size'] - 1) // spec['compare_unit_size']) | int, 1] | max %}
  {% if spec['block_count'] is not none %}
    {% set b0 = spec['block_count'] %}
  {% elif spec['block_size'] is not none %}
    {% set b0 = [((est + spec['block_size'] - 1) // spec['block_size']) | int, 1] | max %}
  {% else %}
    {% set b0 = [d['default_block_count'], wanted_leaves] | min %}
  {% endif %}
  {% set b0 = [b0, d['max_leaves']] | min %}
  {% set ns = namespace(depth=0) %}
  {% for i in range(spec['max_depth']) %}
    {% if b0 * f ** ns.depth < wanted_leaves and b0 * f ** (ns.depth + 1) <= d['max_leaves'] %}
      {% set ns.depth = ns.depth + 1 %}
    {% endif %}
  {% endfor %}
  {% set leaves = b0 * f ** ns.depth %}
  {% set sample_rows = leaves * d['sample_keys_per_leaf'] %}
  {% set fraction = [sample_rows / est, 1.0] | min %}
  {{ return({'estimated_rows': est, 'block_count': b0, 'depth': ns.depth, 'leaf_count': leaves,
             'leaves_per_block': f ** ns.depth, 'sample_fraction': fraction if fraction < 0.5 else 1.0}) }}
{% endmacro %}


{% macro _sql_string(value) %}
  {#- A Spark SQL string literal (backslash escapes are on by default). -#}
  {{ return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") }}
{% endmacro %}


{% macro _where(spec) %}
  {#- The where clause of every scan of a side: `_filter_predicate` (the filter on its own lines). -#}
  {{ return(('where ' ~ table_diff._filter_predicate(spec['table_filter'])) if spec['table_filter'] else '') }}
{% endmacro %}


{% macro _key_sample_sql(spec, relation, side, layout) %}
  {#-
    Keys of `relation` sampled by key hash, not TABLESAMPLE: the same rows every run, so ranges are
    reproducible and a query can recompute identical bounds. Costs the same read of the key columns.
  -#}
  {%- set k = table_diff._key_expr(spec, side) -%}
  select {{ k }} as k
  from {{ relation }}
  where {{ table_diff._filter_predicate(spec['table_filter'] if spec['table_filter'] else 'true') }}
  {%- if layout['sample_fraction'] < 1 %}
    and pmod(xxhash64('table_diff:sample', {{ k }}), 1000000) < {{ [(layout['sample_fraction'] * 1000000) | round(0, 'ceil') | int, 1] | max }}
  {%- endif %}
{% endmacro %}
