{#-
  The diff spec: every option of a pair resolved and validated once, serialised as JSON into the
  ranges table so that downstream models (block hashes, split, row diff, summary) use exactly the
  options the pair was defined with. Its fields are documented in docs/spec.md. Two versions:
  _hash_spec_version changes whenever the fingerprint changes (a stored hash means something else);
  _spec_version changes whenever a field is added, removed or changes meaning (the spec's schema).
  Either one differing from the stored spec's asks the user to rebuild the pair from its ranges.
  _package_version is the package's own version (dbt_project.yml; tested), stored for the message.
  The Python side (src/dbt_table_diff/spec.py) carries the same two numbers.
-#}

{% macro _hash_spec_version() %}{{ return(1) }}{% endmacro %}

{% macro _spec_version() %}{{ return(8) }}{% endmacro %}

{% macro _package_version() %}{{ return('0.2.0') }}{% endmacro %}

{% macro _diff_defaults() %}
  {{ return({'strategy': 'range', 'split_factor': 8, 'compare_unit_size': 10000, 'max_depth': 4,
             'max_diff_rows': 100000, 'max_leaves': 16384, 'default_block_count': 64,
             'sample_keys_per_leaf': 32, 'max_sample_keys': 131072}) }}
{% endmacro %}


{% macro _option_names(mode) %}
  {#- The argument names of the options `mode` takes ('pair', 'no_drift', 'merge', 'replicas'), in
      the option schema's order (`_option_schema`, generated: ADR 0039); no_drift's own names for
      the options it renames (model_as_of, compare_to_as_of). -#}
  {% set names = [] %}
  {% for name, o in table_diff._option_schema().items() if mode in o['modes'] %}
    {% do names.append(o['no_drift_name'] if mode == 'no_drift' and o['no_drift_name'] else name) %}
  {% endfor %}
  {{ return(names) }}
{% endmacro %}


{% macro _check_options(macro_name, primary_key, columns, exclude_columns, table_filter, strategy,
                        block_count, block_size, split_factor, compare_unit_size, max_depth,
                        max_diff_rows, normalize, check_duplicate_keys=none, keys_only=none, column_map=none, tolerance=none) %}
  {#- Argument checks that need no warehouse: run at parse and compile time alike. -#}
  {% set d = table_diff._diff_defaults() %}
  {#- Minimums and choices: the option schema's (generated, ADR 0039). -#}
  {% set schema = table_diff._option_schema() %}
  {#- The row fetch's tuning vars, checked here so a typo fails the first model, not the last. -#}
  {% do table_diff._dense_leaf_share(macro_name) %}
  {% do table_diff._dense_rows(macro_name) %}
  {% do table_diff._whole_fetch_leaf_share(macro_name) %}
  {% do table_diff._broadcast_key_limit(macro_name) %}
  {% do table_diff._key_range_limit(macro_name) %}
  {% do table_diff._keep_leaves_growth(macro_name) %}
  {% do table_diff._database_parts_from(macro_name) %}
  {% set key = table_diff._as_name_list(macro_name, 'primary_key', primary_key) %}
  {% set cols = table_diff._as_name_list(macro_name, 'columns', columns, allow_empty=true) %}
  {% set excl = table_diff._as_name_list(macro_name, 'exclude_columns', exclude_columns, allow_empty=true) %}
  {% if cols | length > 0 and excl | length > 0 %}
    {{ table_diff._fail(macro_name, 'columns', cols | join(', '), "either columns or exclude_columns, not both",
        "Keep columns (the list to compare) or exclude_columns (compare all but these), and remove the other.") }}
  {% endif %}
  {% if table_filter is not none and (table_filter is not string or table_filter | trim == '') %}
    {{ table_diff._fail(macro_name, 'table_filter', table_filter, "a SQL boolean expression as a string",
        "Write it as table_filter=\"status != 'test'\", or leave it out.") }}
  {% endif %}
  {% set strategy = strategy if strategy is not none else d['strategy'] %}
  {% if strategy not in schema['strategy']['choices'] %}
    {{ table_diff._fail(macro_name, 'strategy', strategy, "'range' or 'hash'",
        "Use 'range' for keys with a useful order (the default), 'hash' otherwise.") }}
  {% endif %}
  {% if block_count is not none and block_size is not none %}
    {{ table_diff._fail(macro_name, 'block_count', block_count, "either block_count or block_size, not both",
        "Remove one of them.") }}
  {% endif %}
  {% set opts = {
      'key': key, 'columns': cols, 'exclude_columns': excl,
      'table_filter': (table_filter | trim) if table_filter is not none else none,
      'strategy': strategy,
      'block_count': table_diff._positive_int_or_none(macro_name, 'block_count', block_count, schema['block_count']['minimum']),
      'block_size': table_diff._positive_int_or_none(macro_name, 'block_size', block_size, schema['block_size']['minimum']),
      'split_factor': table_diff._positive_int_or_none(macro_name, 'split_factor', split_factor,
          schema['split_factor']['minimum']) or d['split_factor'],
      'compare_unit_size': table_diff._positive_int_or_none(macro_name, 'compare_unit_size', compare_unit_size,
          schema['compare_unit_size']['minimum']),
      'max_depth': d['max_depth'] if max_depth is none else table_diff._positive_int_or_none(macro_name, 'max_depth',
          max_depth, schema['max_depth']['minimum']),
      'max_diff_rows': table_diff._positive_int_or_none(macro_name, 'max_diff_rows', max_diff_rows,
          schema['max_diff_rows']['minimum']) or d['max_diff_rows'],
      'normalize': normalize if normalize is not none else {},
      'check_duplicate_keys': check_duplicate_keys if check_duplicate_keys is not none else false,
      'keys_only': keys_only if keys_only is not none else false,
      'column_map': table_diff._column_map_option(macro_name, column_map),
      'tolerance': table_diff._tolerance_option(macro_name, tolerance),
  } %}
  {% if opts['keys_only'] is not boolean %}
    {{ table_diff._fail(macro_name, 'keys_only', keys_only, "true or false",
        "Write keys_only=true to compare only which keys exist on each side (no column values), or leave it out.") }}
  {% endif %}
  {% if opts['check_duplicate_keys'] is not boolean %}
    {{ table_diff._fail(macro_name, 'check_duplicate_keys', check_duplicate_keys, "true or false",
        "Write check_duplicate_keys=true to count duplicate keys in every block (one more shuffle), or leave it out.") }}
  {% endif %}
  {% if opts['normalize'] is not mapping %}
    {{ table_diff._fail(macro_name, 'normalize', normalize, "a mapping of column name to rules",
        "Write it as normalize={'amount': {'round': 2}, 'name': {'trim': true, 'lower': true}}.") }}
  {% endif %}
  {% for col_name, rules in opts['normalize'].items() %}
    {% if rules is not mapping %}
      {{ table_diff._fail(macro_name, 'normalize', col_name ~ ': ' ~ rules, "rules as a mapping such as {'round': 2}",
          "Supported rules: round (digits), truncate (millisecond|second|minute|hour|day), trim (true), lower (true).") }}
    {% endif %}
    {% for rule, arg in rules.items() %}
      {% if rule not in ['round', 'truncate', 'trim', 'lower'] %}
        {{ table_diff._fail(macro_name, 'normalize', col_name ~ '.' ~ rule, "one of round, truncate, trim, lower",
            "Remove the unknown rule '" ~ rule ~ "' from column " ~ col_name ~ ".") }}
      {% elif rule == 'round' and (arg is not number or arg is boolean or (arg | int) != arg or arg < 0 or arg > 38) %}
        {{ table_diff._fail(macro_name, 'normalize', col_name ~ '.round=' ~ arg, "a whole number of digits from 0 to 38",
            "Write it as {'round': 2}.") }}
      {% elif rule == 'truncate' and arg not in ['millisecond', 'second', 'minute', 'hour', 'day'] %}
        {{ table_diff._fail(macro_name, 'normalize', col_name ~ '.truncate=' ~ arg, "millisecond, second, minute, hour or day",
            "Write it as {'truncate': 'second'}.") }}
      {% elif rule in ['trim', 'lower'] and arg is not boolean %}
        {{ table_diff._fail(macro_name, 'normalize', col_name ~ '.' ~ rule ~ '=' ~ arg, "true or false",
            "Write it as {'" ~ rule ~ "': true}.") }}
      {% endif %}
    {% endfor %}
  {% endfor %}
  {{ return(opts) }}
{% endmacro %}


{% macro _column_map_option(macro_name, column_map) %}
  {#- A pair's `column_map` {target column: source column}: names only (the warehouse checks are
      `_resolve_sides`'). Two target columns read as one source column would make one of them
      vanish, so each source column is named once. -#}
  {% if column_map is none %}{{ return({}) }}{% endif %}
  {% if column_map is not mapping %}
    {{ table_diff._fail(macro_name, 'column_map', column_map, "a mapping of target column to source column",
        "Write it as column_map={'amt': 'amount', 'id': 'order_id'}: the target's amt is compared with the source's amount.") }}
  {% endif %}
  {% set seen = {} %}
  {% for t, s in column_map.items() %}
    {% if t is not string or s is not string or t | trim == '' or s | trim == '' %}
      {{ table_diff._fail(macro_name, 'column_map', t ~ ': ' ~ s, "column names as text on both sides of each entry",
          "Write each entry as 'target_column': 'source_column'.") }}
    {% endif %}
    {% if s | lower in seen %}
      {{ table_diff._fail(macro_name, 'column_map', s, "each source column named once",
          "Target columns " ~ seen[s | lower] ~ " and " ~ t ~ " both map to '" ~ s ~ "'; keep one of them.") }}
    {% endif %}
    {% do seen.update({s | lower: t}) %}
  {% endfor %}
  {{ return(column_map) }}
{% endmacro %}


{% macro _quick_check_option(macro_name, quick_check) %}
  {#- A pair's `quick_check`: true, false or 'auto' (the default, also for none). -#}
  {% if quick_check is none %}{{ return('auto') }}{% endif %}
  {% if quick_check is not boolean and quick_check != 'auto' %}
    {{ table_diff._fail(macro_name, 'quick_check', quick_check, "true, false or 'auto'",
        "Leave it out ('auto': a whole-table signature first unless the last run found drift), "
        ~ "true (always first) or false (never: drift is expected).") }}
  {% endif %}
  {{ return(quick_check) }}
{% endmacro %}


{% macro _find_column(columns, name) %}
  {% for c in columns %}
    {% if c.name | lower == name | lower %}{{ return(c) }}{% endif %}
  {% endfor %}
  {{ return(none) }}
{% endmacro %}


{% macro _resolve_spec(macro_name, source, target, opts, source_arg='source', target_arg='target') %}
  {#- Warehouse checks (only under execute) through the one resolver of sides (`_resolve_sides`),
      then the pair's own rule: no compared column left means keys only, and only when asked. -#}
  {% set keys_only = opts.get('keys_only', false) %}
  {% set resolved = table_diff._resolve_sides(macro_name, [['source', source, source_arg], ['target', target, target_arg]],
      opts, with_columns=not keys_only, pin=true, as_of={'source': opts.get('source_as_of'), 'target': opts.get('target_as_of')},
      renames={'target': opts.get('column_map') or {}}) %}
  {% set key, compared = resolved['key'], resolved['columns'] %}

  {#- A diff with no compared column only tells which keys exist: never by accident. -#}
  {% set non_key = [] %}
  {% for c in resolved['columns_of']['source'] %}{% if c.name | lower not in resolved['key_names'] %}{% do non_key.append(c.name) %}{% endif %}{% endfor %}
  {% if compared | length == 0 and non_key | length > 0 and not keys_only %}
    {% set arg = 'exclude_columns' if opts['exclude_columns'] | length > 0 else 'columns' %}
    {{ table_diff._fail(macro_name, arg, opts[arg] | join(', '), "at least one non-key column left to compare (" ~ non_key | join(', ') ~ " of " ~ source ~ ")",
        arg ~ " removes every non-key column, so the diff would compare keys only (0 modified rows, ever). "
        ~ "Set keys_only=true to compare only which keys exist, or keep at least one non-key column.") }}
  {% endif %}
  {% if compared | length == 0 %}
    {% do log("table_diff." ~ macro_name ~ ": " ~ source ~ " vs " ~ target ~ ": the diff compares keys only ("
        ~ ("keys_only=true" if keys_only else "no non-key columns") ~ "): rows are added or deleted, never modified.", info=true) %}
  {% endif %}

  {% set spec = {
      'spec_version': table_diff._spec_version(), 'package_version': table_diff._package_version(),
      'hash_spec_version': table_diff._hash_spec_version(),
      'source': source | string, 'target': target | string,
      'key': key, 'columns': compared,
      'table_filter': opts['table_filter'], 'strategy': opts['strategy'],
      'block_count': opts['block_count'], 'block_size': opts['block_size'],
      'split_factor': opts['split_factor'], 'compare_unit_size': opts['compare_unit_size'],
      'max_depth': opts['max_depth'], 'max_diff_rows': opts['max_diff_rows'],
      'check_duplicate_keys': opts.get('check_duplicate_keys', false),
      'quick_check': opts.get('quick_check', 'auto'),
      'keys_only': compared | length == 0,
      'track': opts.get('track', false),
      'pins': resolved['pins'],
      'column_map': opts.get('column_map') or {},
      'projections': resolved['projections'],
      'replicas': none, 'replica': none, 'databases': {},
  } %}
  {% do spec.update({'databases': table_diff._database_sides(macro_name, spec, {'source': source, 'target': target},
      {'source': source_arg, 'target': target_arg})}) %}
  {% for side in ['source', 'target'] %}
    {% set p = resolved['pins'][side] %}
    {% if p['version'] is not none or p['timestamp'] is not none %}
      {% do log("table_diff." ~ macro_name ~ ": " ~ spec[side] ~ " (" ~ p['format'] ~ ") read at "
          ~ table_diff.as_of_clause(p) ~ (" (its current version)" if not p['explicit'] else "") ~ " by every pass of this run.", info=true) %}
    {% endif %}
  {% endfor %}
  {{ return(spec) }}
{% endmacro %}


{% macro _spec_from_ranges(macro_name, ranges) %}
  {#- Read the spec a ranges model stored (downstream models of a pair). Execute time only. -#}
  {% set res = run_query("select spec from " ~ ranges ~ " limit 1") %}
  {{ return(table_diff._checked_spec(macro_name, ranges, res.rows[0][0] if res is not none and res.rows | length > 0 else none)) }}
{% endmacro %}


{% macro _read_ranges(macro_name, ranges) %}
  {#- The spec a ranges model stored, with what block_hashes and row_diff also ask of it, in one
      query (ADR 0038): {'spec', 'leaf_count': the ranges' rows (one per leaf), 'read_at': the
      driver's clock as Spark sees it, as `_run_started_at`}. Every row of a ranges table carries
      the same spec; an empty table fails as a missing spec. The other models read one row
      (`_spec_from_ranges`). Execute time only. -#}
  {% set res = run_query("select first(spec), count(*), cast(current_timestamp() as string) from " ~ ranges) %}
  {% set row = res.rows[0] if res is not none and res.rows | length > 0 else [none, 0, none] %}
  {% set spec = table_diff._checked_spec(macro_name, ranges, row[0]) %}
  {{ return({'spec': spec, 'leaf_count': row[1] | int, 'read_at': row[2]}) }}
{% endmacro %}


{% macro _checked_spec(macro_name, ranges, text) %}
  {#- The spec parsed from its JSON `text`, or the failure for a ranges table without one (none)
      or with one this version cannot read. -#}
  {% if text is none %}
    {{ table_diff._fail(macro_name, 'ranges', ranges, "a table built by table_diff.key_ranges",
        "Pass ref('<pair>__ranges') and build it first (dbt build --select +<this model>).") }}
  {% endif %}
  {% set spec = fromjson(text) %}
  {% if spec.get('spec_version') != table_diff._spec_version() or spec.get('hash_spec_version') != table_diff._hash_spec_version() %}
    {{ exceptions.raise_compiler_error(table_diff._stale_spec_message(macro_name, ranges, spec)) }}
  {% endif %}
  {{ return(spec) }}
{% endmacro %}


{% macro _stale_spec_message(macro_name, ranges, spec) %}
  {#- The one message for a spec this version cannot read (same text as dbt_table_diff.spec). -#}
  {% set built = ('version ' ~ spec['package_version']) if spec.get('package_version') else 'an earlier version' %}
  {{ return("table_diff." ~ macro_name ~ ": rebuild " ~ ranges ~ ": it was built by " ~ built
      ~ " of the package (spec v" ~ (spec.get('spec_version') or 0) ~ ", hash spec v" ~ spec.get('hash_spec_version')
      ~ "); this version reads spec v" ~ table_diff._spec_version() ~ " (hash spec v" ~ table_diff._hash_spec_version()
      ~ "). dbt build --select " ~ ranges ~ "+") }}
{% endmacro %}
