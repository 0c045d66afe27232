{#-
  table_diff.key_ranges: the first model of a diff pair. Resolves and validates every option (before
  any scan), plans the block layout from a size estimate and, for strategy 'range', cuts a sample of
  the larger side's keys into ntile leaves: leaf 0 is open below, the last leaf open above, bounds
  half-open, so every row of either side belongs to exactly one leaf. One row per leaf; the resolved
  spec travels with it (column `spec`, JSON) to every downstream model of the pair.
  `target` may be a list of replicas of the source (ADR 0028): one layout for all of them, planned
  from one sample; every replica's key and compared columns must match the first's.
-#}
{% macro key_ranges(source, target, primary_key, columns=none, exclude_columns=none, table_filter=none,
                    strategy=none, block_count=none, block_size=none, split_factor=none,
                    compare_unit_size=none, max_depth=none, max_diff_rows=none, normalize=none,
                    check_duplicate_keys=none, quick_check=none, keys_only=none, source_as_of=none, target_as_of=none,
                    track=none, column_map=none, tolerance=none) %}
  {% do table_diff._check_kwargs('key_ranges', kwargs, ['source', 'target', 'primary_key', 'columns', 'exclude_columns',
      'table_filter', 'strategy', 'block_count', 'block_size', 'split_factor', 'compare_unit_size', 'max_depth',
      'max_diff_rows', 'normalize', 'check_duplicate_keys', 'quick_check', 'keys_only', 'source_as_of', 'target_as_of', 'track',
      'column_map', 'tolerance']) %}
  {% do table_diff._require_relation('key_ranges', 'source', source) %}
  {% set replicas = table_diff._replica_targets('key_ranges', target) %}
  {% if replicas is none %}
    {% do table_diff._require_relation('key_ranges', 'target', target) %}
  {% endif %}
  {% set opts = table_diff._check_options('key_ranges', primary_key, columns, exclude_columns, table_filter,
      strategy, block_count, block_size, split_factor, compare_unit_size, max_depth, max_diff_rows, normalize,
      check_duplicate_keys, keys_only, column_map, tolerance) %}
  {% do opts.update({'quick_check': table_diff._quick_check_option('key_ranges', quick_check),
      'source_as_of': source_as_of, 'target_as_of': target_as_of,
      'track': table_diff._track_option('key_ranges', track, opts, source_as_of, target_as_of)}) %}
  {% if replicas is not none %}
    {% do table_diff._check_replica_options('key_ranges', opts) %}
    {% do opts.update({'replicas': replicas}) %}
    {% set target = replicas[0][1] %}
  {% endif %}
  {{ return(adapter.dispatch('key_ranges', 'table_diff')(source, target, opts)) }}
{% endmacro %}


{% macro default__key_ranges(source, target, opts) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.key_ranges: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__key_ranges(source, target, opts) %}
  {% if not execute %}
    {{ return("select 0 as leaf_id, 0 as block_id, cast(null as string) as lower_bound, cast(null as string) as upper_bound, '' as spec, '' as run_id") }}
  {% endif %}
  {% if opts.get('replicas') %}
    {% set spec = table_diff._resolve_replicas('key_ranges', source, opts['replicas'], opts) %}
  {% else %}
    {% set spec = table_diff._resolve_spec('key_ranges', source, target, opts) %}
  {% endif %}
  {% for k in spec['key'] %}
    {% if k['name'] | lower in ['diff_type', 'side', 'changed_columns', 'changed_paths', 'run_id'] %}
      {{ table_diff._fail('key_ranges', 'primary_key', k['name'], "a key column whose name is not one of the row diff's own columns (diff_type, side, changed_columns, changed_paths, run_id)",
          "Rename the key in a view over each side (select " ~ k['name'] ~ " as " ~ k['name'] ~ "_key, ...) and diff the views.") }}
    {% endif %}
  {% endfor %}
  {% if spec['track'] %}
    {#- A tracked pair keeps its leaf layout between runs (ADR 0019): stored signatures stay valid. -#}
    {% set tracked = table_diff._track_layout(spec, source, target) %}
    {% set plan = {'larger': none, 'larger_side': 'stored', 'layout': tracked['layout']} %}
  {% elif spec.get('replicas') %}
    {#- One sample for every replica: the layout is planned over all sides. -#}
    {% set sides = [['source', source]] %}
    {% for r in opts['replicas'] %}{% do sides.append([spec['replicas'][loop.index0]['side'], r[1]]) %}{% endfor %}
    {% set plan = table_diff._plan_sides(spec, sides) %}
  {% else %}
    {% set plan = table_diff._plan_pair(spec, source, target) %}
  {% endif %}
  {% set larger, larger_side, layout = plan['larger'], plan['larger_side'], plan['layout'] %}
  {% do log("table_diff.key_ranges: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": estimated "
      ~ layout['estimated_rows'] ~ " rows on the larger side (" ~ larger_side ~ "): " ~ layout['block_count']
      ~ " blocks, " ~ layout['depth'] ~ " split levels, " ~ layout['leaf_count'] ~ " leaves (strategy "
      ~ spec['strategy'] ~ "); next: one signature pass over each side (block_hashes).", info=true) %}
  {#- The pair's run starts here: every later model of the pair stamps this id on its output and
      refuses inputs stamped by another run, so a failed or killed run is visible (ADR 0011). -#}
  {% set track_layout = {'id': tracked['layout_id'], 'replanned': tracked['replanned']} if spec['track'] else none %}
  {#- The unit the layout was planned with, when the pair left it to the size (ADR 0030). -#}
  {% do layout.update({'compare_unit_size': table_diff._layout_compare_unit(spec, layout)}) %}
  {#- When this run will take the quick check, no leaf is grouped and no bound is used: no key
      sample is cut, and block_hashes takes the check because the spec says so (ADR 0031). -#}
  {% set memo = {} %}
  {% set quick_planned = table_diff._plan_quick_check(spec, layout, memo) %}
  {% if quick_planned and spec['strategy'] == 'range' %}
    {% do log("table_diff.key_ranges: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": this run takes the quick check (quick_check "
        ~ spec['quick_check'] ~ "), which uses no leaf bound: no key sample cut.", info=true) %}
  {% endif %}
  {#- Sampled bounds record what they were cut for; a later run of the same shape keeps them while
      the table keeps its size and the leaves stayed balanced (ADR 0046). -#}
  {% set leaves_of = none %}
  {% set kept = false %}
  {% if spec['strategy'] == 'range' and not quick_planned and not spec['track'] and not spec.get('replicas') %}
    {% set leaves_of = table_diff._sampled_leaves_of(spec, layout) %}
    {% set kept = table_diff._kept_leaves(spec, layout, leaves_of, memo) %}
  {% endif %}
  {% do spec.update({'layout': layout, 'run_id': invocation_id, 'ranges': this | string, 'track_layout': track_layout, 'quick_check_planned': quick_planned, 'quick_check_decided': memo.get('decided', false), 'leaves_of': leaves_of, 'leaves_kept': kept}) %}
  {% do spec.update({'compare_unit_size': layout['compare_unit_size']}) %}
  {% set run_sql = table_diff._sql_string(invocation_id) %}
  {% set spec_sql = table_diff._sql_string(tojson(spec)) %}
  {% set key_type = table_diff._key_type(spec) %}
  {% if (spec['strategy'] == 'hash' or quick_planned) and not spec['track'] %}
    {#- Hash leaves, or leaves the quick check will not use: NULL bounds, nothing sampled. -#}
    select
      leaf_id,
      leaf_id div {{ layout['leaves_per_block'] }} as block_id,
      cast(null as {{ key_type }}) as lower_bound,
      cast(null as {{ key_type }}) as upper_bound,
      {{ spec_sql }} as spec,
      {{ run_sql }} as run_id
    from (select explode(sequence(0, {{ layout['leaf_count'] - 1 }})) as leaf_id) as leaves
  {% elif kept %}
    {#- The last run's bounds, read before this statement replaces the table (ADR 0046). -#}
    select
      leaf_id,
      leaf_id div {{ layout['leaves_per_block'] }} as block_id,
      lower_bound,
      upper_bound,
      {{ spec_sql }} as spec,
      {{ run_sql }} as run_id
    from {{ this }}
  {% else %}
    {#- Sampled leaves, or a tracked pair's stored ones (any strategy: NULL bounds for hash). -#}
    with td_leaves as (
      {{ tracked['leaves_sql'] if spec['track'] else table_diff._range_leaves_sql(spec, larger, larger_side, layout) }}
    )

    select
      leaf_id,
      leaf_id div {{ layout['leaves_per_block'] }} as block_id,
      lower_bound,
      lead(lower_bound) over (order by leaf_id) as upper_bound,
      {{ spec_sql }} as spec,
      {{ run_sql }} as run_id
    from td_leaves
  {% endif %}
{% endmacro %}
