{#-
  table_diff.preview_pair: what a run of a scaffolded pair would cost, before anything is scanned:
  `dbt run-operation table_diff.preview_pair --args "{pair: NAME}"`. The options are those of the
  `NAME__ranges` model's key_ranges call (its code in the project graph, rendered with a macro that
  only collects them); they are checked and the sides resolved by the same `_resolve_spec`, and the
  layout planned by the same `_plan_pair`, as key_ranges does, except that nothing is ever counted.
  Reads only the catalog (DESCRIBE), the optimizer's estimates (EXPLAIN COST) and, for a
  partitioned table, its partition listing. Logs a readable report and one JSON line; returns the
  report as a dict. ADR 0018 says what the passes count and which statistics are trusted.
-#}
{% macro preview_pair(pair) %}
  {% if pair is not string or pair | trim == '' %}
    {{ table_diff._fail('preview_pair', 'pair', pair, "the name of a pair scaffolded by table-diff scaffold pair (its models are NAME__ranges ... NAME__summary)",
        'Call it as: dbt run-operation table_diff.preview_pair --args "{pair: orders_replica}"') }}
  {% endif %}
  {{ return(adapter.dispatch('preview_pair', 'table_diff')(pair | trim)) }}
{% endmacro %}


{% macro default__preview_pair(pair) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.preview_pair: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__preview_pair(pair) %}
  {% if not execute %}{{ return(none) }}{% endif %}
  {% set m = 'preview_pair' %}
  {% set args = table_diff._preview_options_of(pair) %}
  {% set source, target = args['source'], args['target'] %}
  {% set opts = table_diff._check_options(m, args['primary_key'], args['columns'], args['exclude_columns'],
      args['table_filter'], args['strategy'], args['block_count'], args['block_size'], args['split_factor'],
      args['compare_unit_size'], args['max_depth'], args['max_diff_rows'], args['normalize'],
      args['check_duplicate_keys'], args['keys_only'], args['column_map'], args['tolerance']) %}
  {% do opts.update({'quick_check': table_diff._quick_check_option(m, args['quick_check']),
      'source_as_of': args['source_as_of'], 'target_as_of': args['target_as_of'],
      'track': table_diff._track_option(m, args['track'], opts, args['source_as_of'], args['target_as_of'])}) %}
  {% set spec = table_diff._resolve_spec(m, source, target, opts) %}
  {% set plan = table_diff._plan_pair(spec, source, target, count_unknown=false) %}
  {% set layout = plan['layout'] %}
  {% set relations = {'source': source, 'target': target} %}
  {% set key_names = spec['key'] | map(attribute='name') | list %}
  {% set column_names = key_names + (spec['columns'] | map(attribute='name') | list) %}
  {% set sides = {} %}
  {% for side in ['source', 'target'] %}
    {% set rel = relations[side] %}
    {% set from_item = table_diff._side_from(spec, side, rel) %}
    {% set st = table_diff.relation_statistics(rel, spec, from_item, column_names) %}
    {% set est = plan['estimates'][loop.index0] %}
    {% set pin = spec['pins'][side] %}
    {% set pinned = pin['version'] is not none or pin['timestamp'] is not none %}
    {% do sides.update({side: {
        'relation': rel | string, 'format': st['format'], 'pinned': table_diff.as_of_clause(pin) if pinned else none,
        'rows_statistics': st['stats_rows'], 'bytes_statistics': st['stats_bytes'],
        'bytes_plan': (st['plan_bytes'] | int) if st['plan_bytes'] is not none else none, 'rows_plan': st['plan_rows'],
        'rows_estimate': est if est is number else none,
        'estimate_from': ("its database's planner statistics (no scan; ADR 0047)" if side in spec['databases'] and est is number
            else table_diff._preview_estimate_source(st, est)),
        'database': spec['databases'][side]['table'] if side in spec['databases'] else none,
        'partition_columns': st['partition_columns'], 'column_stats': st['column_stats'],
        'change_check': not pinned and table_diff.file_modified_at(rel) is not none,
        'pruning': table_diff.filter_pruning(rel, spec['table_filter'], st['partition_columns'], from_item) if spec['table_filter'] else none,
    }}) %}
  {% endfor %}
  {% set report = {
      'pair': pair, 'source': spec['source'], 'target': spec['target'], 'strategy': spec['strategy'],
      'quick_check': spec['quick_check'], 'check_duplicate_keys': spec['check_duplicate_keys'],
      'table_filter': spec['table_filter'], 'sides': sides,
      'layout': {'estimated_rows': layout['estimated_rows'], 'block_count': layout['block_count'], 'depth': layout['depth'],
                 'leaf_count': layout['leaf_count'], 'sample_fraction': layout['sample_fraction'],
                 'larger_side': plan['larger_side'], 'counted_side': plan['counted']},
      'dense_leaves': [(layout['leaf_count'] * table_diff._dense_leaf_share()) | round(0, 'ceil') | int, 1] | max,
      'changes_track': ('on: the first run (and one on a new layout) hashes every file, as the leaf pass below; '
          ~ 'later runs list each side\'s data files (metadata, no data column) and hash only new or changed ones '
          ~ '(docs/track.md)') if spec['track'] else 'off (track: true re-hashes only the files that changed since the last run)',
  } %}
  {% do report.update({'passes': table_diff._preview_passes(spec, report)}) %}
  {% do report.update({'warnings': table_diff._preview_warnings(spec, report)}) %}
  {% do table_diff._preview_log(report) %}
  {{ return(report) }}
{% endmacro %}


{% macro _preview_estimate_source(st, est) %}
  {#- Where the planned size of a side came from, as the run's `estimated_rows` chose it. -#}
  {% if st['plan_rows'] is not none %}{{ return('statistics (EXPLAIN COST rowCount)') }}{% endif %}
  {% if est is number and st['plan_bytes'] is not none %}{{ return('file bytes / row width') }}{% endif %}
  {% if est is number %}{{ return("the other side's estimate") }}{% endif %}
  {{ return('unknown') }}
{% endmacro %}


{% macro _preview_options_of(pair) %}
  {#- The key_ranges arguments of model `<pair>__ranges`, from the project graph: its code rendered
      with `_preview_options` in place of key_ranges (ref() and source() resolve as in a run; no
      query). Source and target come back as relations. -#}
  {% set name = pair ~ '__ranges' %}
  {% set found = [] %}
  {% for node in graph.nodes.values() if node.resource_type == 'model' and node.name == name %}
    {% do found.append(node) %}
  {% endfor %}
  {% if not found %}
    {{ table_diff._fail('preview_pair', 'pair', pair, "a pair of this project with a model " ~ name,
        "Check the name (the pair's models are " ~ pair ~ "__ranges ... " ~ pair ~ "__summary), or scaffold it: table-diff scaffold pair " ~ pair ~ " ...") }}
  {% endif %}
  {% set code = found[0].raw_code %}
  {% if 'table_diff.key_ranges(' not in code %}
    {{ table_diff._fail('preview_pair', 'pair', pair, "a model " ~ name ~ " that calls table_diff.key_ranges(...)",
        "Its options are read from that call; restore the model written by table-diff scaffold pair.") }}
  {% endif %}
  {% set rendered = render(code | replace('table_diff.key_ranges(', 'table_diff._preview_options(')) %}
  {% set found_json = modules.re.search('<td_preview>(.*?)</td_preview>', rendered, modules.re.S) %}
  {% set args = fromjson(found_json.group(1)) %}
  {% for side in ['source', 'target'] %}
    {% set r = args[side] %}
    {% do args.update({side: api.Relation.create(database=r['database'], schema=r['schema'], identifier=r['identifier'])}) %}
  {% endfor %}
  {{ return(args) }}
{% endmacro %}


{% macro _preview_options(source, target, primary_key, columns=none, exclude_columns=none, table_filter=none,
                          strategy=none, block_count=none, block_size=none, split_factor=none,
                          compare_unit_size=none, max_depth=none, max_diff_rows=none, normalize=none,
                          check_duplicate_keys=none, quick_check=none, keys_only=none, source_as_of=none, target_as_of=none,
                          track=none, column_map=none, tolerance=none) %}
  {#- key_ranges' signature; returns its arguments as JSON between markers (for `_preview_options_of`). -#}
  {% do table_diff._check_kwargs('preview_pair', kwargs, ['source', 'target', 'primary_key', 'columns', 'exclude_columns',
      'table_filter', 'strategy', 'block_count', 'block_size', 'split_factor', 'compare_unit_size', 'max_depth',
      'max_diff_rows', 'normalize', 'check_duplicate_keys', 'quick_check', 'keys_only', 'source_as_of', 'target_as_of', 'track',
      'column_map', 'tolerance']) %}
  {% do table_diff._require_relation('preview_pair', 'source', source) %}
  {% do table_diff._require_relation('preview_pair', 'target', target) %}
  {% set args = {
      'primary_key': primary_key, 'columns': columns, 'exclude_columns': exclude_columns, 'table_filter': table_filter,
      'strategy': strategy, 'block_count': block_count, 'block_size': block_size, 'split_factor': split_factor,
      'compare_unit_size': compare_unit_size, 'max_depth': max_depth, 'max_diff_rows': max_diff_rows,
      'normalize': normalize, 'check_duplicate_keys': check_duplicate_keys, 'quick_check': quick_check,
      'keys_only': keys_only, 'source_as_of': source_as_of, 'target_as_of': target_as_of, 'track': track,
      'column_map': column_map, 'tolerance': tolerance} %}
  {% for side, r in [('source', source), ('target', target)] %}
    {% do args.update({side: {'database': r.database, 'schema': r.schema, 'identifier': r.identifier}}) %}
  {% endfor %}
  {{ return('<td_preview>' ~ tojson(args) ~ '</td_preview>') }}
{% endmacro %}
