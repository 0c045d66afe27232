{#- Size estimate (statistics, not a count(*), unless no side can be sized) and the block layout planned from it. -#}

{% macro _plan_pair(spec, source, target, count_unknown=true) %}
  {{ return(table_diff._plan_sides(spec, [['source', source], ['target', target]], count_unknown)) }}
{% endmacro %}


{% macro _plan_sides(spec, relations, count_unknown=true) %}
  {#- Size estimates of every [side, relation] (EXPLAINs, no scan), the larger side (the first of
      equals) whose keys a range layout samples, and the layout planned from its size.
      `count_unknown` false (the cost preview): nothing is counted; `estimates` keeps 'unknown'
      for a side no estimate covers and `counted` names the side a run would count. -#}
  {% set ests = table_diff._estimate_sides(relations, spec, count_unknown) %}
  {% set sized = [] %}
  {% for e in ests %}{% do sized.append(e if e is number else none) %}{% endfor %}
  {#- A database side is never sampled (its keys would cross): the larger side Spark reads is (ADR 0047). -#}
  {% set dbs = spec.get('databases') or {} %}
  {% set ns = namespace(best=none) %}
  {% for i in range(sized | length) if relations[i][0] not in dbs %}
    {% if ns.best is none or (sized[i] or 0) > (sized[ns.best] or 0) %}{% set ns.best = i %}{% endif %}
  {% endfor %}
  {% set ns.best = ns.best or 0 %}
  {{ return({'larger': relations[ns.best][1], 'larger_side': relations[ns.best][0], 'estimates': ests,
             'counted': relations[0][0] if (not count_unknown and 'unknown' in ests and sized | select('number') | list | length == 0) else none,
             'layout': table_diff._plan_layout(spec, (sized | map('default', 1, true) | list + [1]) | max)}) }}
{% endmacro %}


{% macro _estimate_sides(relations, spec, count_unknown=true) %}
  {#-
    Estimated rows of each relation (`estimated_rows`, macros/dialect/; none without statistics). A relation Spark
    cannot size takes the largest estimate of the others (the sides of a diff are about the same
    size); only when none can be sized is the first one counted, once, and the log says how to
    avoid that pass (`count_unknown` false: not counted, left 'unknown').
  -#}
  {% set ests, rels = [], [] %}
  {% for side, relation in relations %}
    {% set db = (spec.get('databases') or {}).get(side) %}
    {% if db %}
      {#- A database side: its planner's estimate (-1: never analysed, taken from the other side). -#}
      {% do ests.append(db['rows'] if db['rows'] >= 0 else 'unknown') %}
    {% else %}
    {% do ests.append(table_diff.estimated_rows(relation, spec, table_diff._side_from(spec, side, relation))) %}
    {% endif %}
    {% do rels.append(relation) %}
  {% endfor %}
  {% set known = ests | reject('equalto', 'unknown') | reject('none') | list %}
  {% if known %}
    {% set fill = known | max %}
  {% elif 'unknown' in ests and not count_unknown %}
    {% set fill = 'unknown' %}
  {% elif 'unknown' in ests %}
    {% do log("table_diff: " ~ rels | join(', ') ~ ": no size statistics (a partitioned table or a view over one):"
        ~ " counting the rows of " ~ rels[0] ~ " to plan the blocks. `ANALYZE TABLE ... COMPUTE STATISTICS`"
        ~ " on the table skips this count.", info=true) %}
    {% set counted = (relations | rejectattr(0, 'in', (spec.get('databases') or {}).keys() | list) | list + relations)[0] %}
    {% set fill = [run_query("select count(*) from " ~ table_diff._side_from(spec, counted[0], counted[1])).rows[0][0] | int, 1] | max %}
  {% endif %}
  {% set out = [] %}
  {% for e in ests %}{% do out.append(fill if e == 'unknown' else e) %}{% endfor %}
  {{ return(out) }}
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
  {#- A database side (ADR 0047): the finest leaves, since a leaf's signature is one narrow row and
      a mismatched leaf sends all its rows across the connection. -#}
  {% set unit = spec['compare_unit_size'] or ([((est + d['max_leaves'] - 1) // d['max_leaves']) | int, 16] | max if spec.get('databases')
      else table_diff._auto_compare_unit(est)) %}
  {% set wanted_leaves = [((est + unit - 1) // unit) | int, 1] | max %}
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
  {% if spec['block_count'] is none and spec['block_size'] is none and b0 * f ** ns.depth < wanted_leaves
        and ns.depth < spec['max_depth'] and d['max_leaves'] // f ** (ns.depth + 1) * f ** (ns.depth + 1) > b0 * f ** ns.depth %}
    {#- One level deeper would pass max_leaves: fewer level-0 blocks there reach it (64 blocks, split
        factor 8: 4096 leaves, then 32 blocks one level deeper give 16384). -#}
    {% set b0 = d['max_leaves'] // f ** (ns.depth + 1) %}
    {% set ns.depth = ns.depth + 1 %}
  {% endif %}
  {% set leaves = b0 * f ** ns.depth %}
  {#- At most 131072 keys (32 a leaf up to 4096 leaves, 8 a leaf at 16384): the tiles are cut by one
      window over the whole sample, a single task, which at 524288 keys cost about 3 s (ADR 0030). -#}
  {% set sample_rows = [leaves * d['sample_keys_per_leaf'], d['max_sample_keys']] | min %}
  {% set fraction = [sample_rows / est, 1.0] | min %}
  {{ return({'estimated_rows': est, 'block_count': b0, 'depth': ns.depth, 'leaf_count': leaves, 'compare_unit_size': unit,
             'leaves_per_block': f ** ns.depth, 'sample_fraction': fraction if fraction < 0.5 else 1.0}) }}
{% endmacro %}


{% macro _auto_compare_unit(estimated_rows) %}
  {#-
    The compare unit when the pair sets none (ADR 0030): below a million rows 10000 (the whole
    row fetch of such a table takes about a second, and finer leaves only add key sample); from
    a million rows, the rows that spread the table over `max_leaves` leaves, at least 250. Scattered
    drift (the replication bug) then selects few leaves: at 6M rows, 1,248 differing rows select 7%
    of 16384 leaves, against all 64 blocks (438 of 512 leaves) with 10000-row units.
  -#}
  {% set d = table_diff._diff_defaults() %}
  {% if estimated_rows < 1000000 %}{{ return(d['compare_unit_size']) }}{% endif %}
  {{ return([((estimated_rows + d['max_leaves'] - 1) // d['max_leaves']) | int, 250] | max) }}
{% endmacro %}


{% macro _layout_compare_unit(spec, layout) %}
  {#- The compare unit a run splits with, as the ranges' spec records it (the split steps read an
      integer): the pair's own, or the one its layout was planned with; a tracked layout stored
      before units followed the size (ADR 0030) was planned with the old default. -#}
  {{ return(spec['compare_unit_size'] or layout.get('compare_unit_size') or table_diff._diff_defaults()['compare_unit_size']) }}
{% endmacro %}


{% macro _sql_string(value) %}
  {#- A Spark SQL string literal (backslash escapes are on by default). -#}
  {{ return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") }}
{% endmacro %}


{% macro _where(spec) %}
  {#- The where clause of every scan of a side: `_filter_predicate` (the filter on its own lines). -#}
  {{ return(('where ' ~ table_diff._filter_predicate(spec['table_filter'])) if spec['table_filter'] else '') }}
{% endmacro %}


{% macro _side_from(spec, side, relation) %}
  {#- A side as a FROM item: the relation at the version its run pinned (`spec['pins']`, set once by
      `_pin_side`), so every pass of one run reads one snapshot; the relation itself when unpinned.
      A side with a column_map is read through its projection (`spec['projections']`). -#}
  {{ return(table_diff._projected_from(relation, (spec.get('pins') or {}).get(side), (spec.get('projections') or {}).get(side))) }}
{% endmacro %}


{% macro _projected_from(relation, pin=none, projection=none, extra=none) %}
  {#- `relation [AS OF ...]`, or with a projection [[stored name, name], ...] a subquery that reads
      each column under its name: `(select `amt` as `amount`, ... from relation AS OF ...)`. A
      projection Spark removes when planning: filters, partition pruning and column pruning reach
      the scan as without it. `extra`: more select items of the relation itself (its `_metadata`).
      Aliased: a derived table needs a name in some SQL dialects, and the callers add none. -#}
  {% set clause = table_diff.as_of_clause(pin) if pin else '' %}
  {% set base = relation ~ ((' ' ~ clause) if clause else '') %}
  {% if not projection %}{{ return(base) }}{% endif %}
  {% set items = [] %}
  {% for stored, name in projection %}
    {% do items.append(table_diff.quote_identifier(stored) ~ ((' as ' ~ table_diff.quote_identifier(name)) if stored != name else '')) %}
  {% endfor %}
  {% for item in extra or [] %}{% do items.append(item) %}{% endfor %}
  {{ return('(select ' ~ items | join(', ') ~ ' from ' ~ base ~ ') as td_mapped') }}
{% endmacro %}


{% macro _key_sample_sql(spec, relation, side, layout) %}
  {#-
    Keys of `relation` sampled by key hash, not TABLESAMPLE: the same rows every run, so ranges are
    reproducible and a query can recompute identical bounds. Costs the same read of the key columns.
  -#}
  {%- set k = table_diff._key_expr(spec, side) -%}
  select {{ k }} as k
  from {{ table_diff._side_from(spec, side, relation) }}
  where {{ table_diff._filter_predicate(spec['table_filter'] if spec['table_filter'] else 'true') }}
  {%- if layout['sample_fraction'] < 1 %}
    and {{ table_diff.hash_bucket(k, 1000000, 'table_diff:sample') }} < {{ [(layout['sample_fraction'] * 1000000) | round(0, 'ceil') | int, 1] | max }}
  {%- endif %}
{% endmacro %}


{% macro _range_leaves_sql(spec, larger, larger_side, layout) %}
  {#- (leaf_id, lower_bound): leaf 0 open below; leaf i >= 1 starts at the i-th distinct tile minimum. -#}
  {%- set key_type = table_diff._key_type(spec) -%}
  select cast(0 as int) as leaf_id, cast(null as {{ key_type }}) as lower_bound
  union all
  select cast(row_number() over (order by lower_bound) as int) as leaf_id, lower_bound
  from (
    select distinct tile_min as lower_bound
    from (
      select min(k) as tile_min
      from (
        select k, ntile({{ layout['leaf_count'] }}) over (order by k) as tile
        from ({{ table_diff._key_sample_sql(spec, larger, larger_side, layout) }}) as sampled
        where k is not null
      ) as tiles
      where tile > 1
      group by tile
    ) as tile_mins
  ) as bounds
{% endmacro %}


{% macro _sampled_leaves_of(spec, layout) %}
  {#- What a range layout's bounds were cut for (ADR 0046): the key, the sides, the filter and the
      leaf tree. A later run keeps those bounds only for an equal value. -#}
  {{ return({'key': spec['key'], 'key_type': table_diff._key_type(spec), 'source': spec['source'], 'target': spec['target'],
             'table_filter': spec['table_filter'], 'projections': spec.get('projections'),
             'leaf_count': layout['leaf_count'], 'leaves_per_block': layout['leaves_per_block'],
             'block_count': layout['block_count'], 'depth': layout['depth']}) }}
{% endmacro %}


{% macro _keep_leaves_growth(macro_name='key_ranges') %}
  {#- The relative change of the larger side's estimated rows below which a pair keeps its last
      run's leaf bounds (ADR 0046); var `table_diff_keep_leaves_growth`, 0 = never keep. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_keep_leaves_growth', 0.05, 0)) }}
{% endmacro %}


{% macro _kept_leaves(spec, layout, leaves_of, memo=none) %}
  {#-
    Whether this run keeps the last run's leaf bounds instead of cutting a new key sample (ADR
    0046): true when the pair's ranges table was cut for the same `leaves_of` (key, sides,
    filter, leaf tree), the block pass ran on it (its leaves' row counts are known), the larger
    side's estimated rows moved by less than `table_diff_keep_leaves_growth` (default 0.05, 0:
    never keep) since, and no leaf held more than 4 times the mean rows of a leaf (plus 16) on
    either side then. Bounds only decide which rows are compared together: any bounds give the
    same diff, so a kept layout costs at most some balance, which the next run checks again.
    `dbt build --full-refresh` always cuts a new sample.
  -#}
  {% set growth = table_diff._keep_leaves_growth('key_ranges') %}
  {% if growth <= 0 or flags.FULL_REFRESH %}{{ return(false) }}{% endif %}
  {% set last = table_diff._last_leaves(table_diff._pair_block_hashes(), memo) %}
  {% if last is none or last['whole'] > 0 or not last['same_run'] or last['leaves'] != layout['leaf_count'] or not last['spec'] %}
    {{ return(false) }}
  {% endif %}
  {% set before = fromjson(last['spec']) %}
  {% if before.get('leaves_of') != fromjson(tojson(leaves_of)) %}{{ return(false) }}{% endif %}
  {% set was = (before.get('layout') or {}).get('estimated_rows') or 0 %}
  {% set now = layout['estimated_rows'] %}
  {% set mean = ([last['source_rows'], last['target_rows']] | max) / [last['leaves'], 1] | max %}
  {% if was <= 0 or (now - was) | abs >= growth * was or last['max_leaf_rows'] > 4 * mean + 16 %}
    {{ return(false) }}
  {% endif %}
  {% do log("table_diff.key_ranges: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": the last run's " ~ last['leaves']
      ~ " leaves are kept (at most " ~ last['max_leaf_rows'] ~ " rows a leaf, " ~ (mean | round(1)) ~ " on average; estimated "
      ~ now ~ " rows against " ~ was ~ "): no key sample read. `--full-refresh` cuts a new one.", info=true) %}
  {{ return(true) }}
{% endmacro %}
