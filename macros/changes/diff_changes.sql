{#-
  table_diff.diff_changes: what a pull request's build did to its models, against production, in
  one dbt invocation (`dbt run-operation`, run by `table-diff changes`, ADR 0042). `models` lists,
  in dependency order, each model to report: {id, name, change ('new', 'modified', 'downstream',
  'removed'), current and production ({database, schema, identifier}, none where the model has no
  such side), primary_key (none: keyless), exclude_columns, prune_parents (ids, or none), sources
  ([{name, relation}] it reads) and pinned_sources (names the build read at production's version)}.
  1. Every relation named is checked to exist before any scan (an error names the model).
  2. Per model, in order: a new model's rows are counted and its columns listed, a removed one's
     production rows counted; a modified or downstream one is compared with its production
     relation: schema first (`schema_differences`, catalog only), then the rows by key
     (`drift_rows`, whole-table signatures first: an identical model costs one pass a side) or,
     without a key, as a multiset (`multiset_difference`). A downstream model whose
     prune_parents all came out unchanged is reported unchanged without a scan.
  3. One row per model is written to `<results_schema>.table_diff_changes` (replaced: the run's
     rows only), stamped with `run_id`, and one log line names it.
-#}
{% macro diff_changes(models, run_id=none, sample_rows=none, max_diff_rows=none, results_schema=none) %}
  {% do table_diff._check_kwargs('diff_changes', kwargs, ['models', 'run_id', 'sample_rows', 'max_diff_rows', 'results_schema']) %}
  {% if models is string or models is mapping or models is not iterable %}
    {{ table_diff._fail('diff_changes', 'models', models, "a list of models, each {id, name, change, current, production, primary_key, exclude_columns, prune_parents}",
        "table-diff changes writes it; to call the macro yourself pass --args '{models: [{name: orders, change: modified, ...}]}'.") }}
  {% endif %}
  {% for entry in models %}
    {% do table_diff._changes_check_entry(entry, loop.index0) %}
  {% endfor %}
  {% if run_id is not none and (run_id is not string or run_id | trim == '') %}
    {{ table_diff._fail('diff_changes', 'run_id', run_id, "a non-empty string", "Leave it out to use the invocation id.") }}
  {% endif %}
  {% set per_kind = table_diff._sample_rows_var('diff_changes') if sample_rows is none
      else table_diff._positive_int_or_none('diff_changes', 'sample_rows', sample_rows, 0) %}
  {% set cap = table_diff._positive_int_or_none('diff_changes', 'max_diff_rows', max_diff_rows, 1)
      or table_diff._diff_defaults()['max_diff_rows'] %}
  {{ return(adapter.dispatch('diff_changes', 'table_diff')(models, run_id or invocation_id, per_kind, cap, results_schema)) }}
{% endmacro %}


{% macro default__diff_changes(models, run_id, sample_rows, max_diff_rows, results_schema) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.diff_changes: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__diff_changes(models, run_id, sample_rows, max_diff_rows, results_schema) %}
  {% if not execute %}{{ return(none) }}{% endif %}
  {#- 1. Every relation, before any scan: columns from the catalog (none: it does not exist). -#}
  {% set sides = [] %}
  {% for entry in models %}
    {% set found = {} %}
    {% for side in ['current', 'production'] if entry.get(side) %}
      {% set rel = table_diff._changes_relation(entry[side]) %}
      {% set cols = adapter.get_columns_in_relation(rel) %}
      {% if cols | length == 0 and not (side == 'production' and entry['change'] == 'removed') %}
        {{ exceptions.raise_compiler_error("table_diff.diff_changes: model " ~ entry['name'] ~ ": its " ~ side
            ~ " relation " ~ rel ~ " does not exist (or has no columns). "
            ~ ("It is named by production's manifest.json (--state): production never built it, or it was dropped since. "
               ~ "Build it in production, or point --state at the artifacts of the production run that built " ~ rel ~ "."
               if side == 'production' else
               "This run's manifest names it: build the model again (dbt build --select " ~ entry['name'] ~ " --defer --state ...) "
               ~ "and run table-diff changes in the same session or with the same profile target.")) }}
      {% endif %}
      {% do found.update({side: [rel, cols]}) %}
    {% endfor %}
    {% do sides.append(found) %}
  {% endfor %}
  {#- 2. Each model in order. -#}
  {% set results, status_of, name_of = [], {}, {} %}
  {% for entry in models %}
    {% do name_of.update({entry.get('id') or entry['name']: entry['name']}) %}
  {% endfor %}
  {% for entry in models %}
    {% set started = modules.datetime.datetime.now() %}
    {% set r = table_diff._changes_model(entry, sides[loop.index0], status_of, name_of, sample_rows, max_diff_rows) %}
    {% do r.update({'position': loop.index, 'seconds': (modules.datetime.datetime.now() - started).total_seconds()}) %}
    {% do status_of.update({entry.get('id') or entry['name']: r['status']}) %}
    {% do results.append(r) %}
    {% do log("table_diff.diff_changes: " ~ entry['name'] ~ " (" ~ entry['change'] ~ "): " ~ r['status']
        ~ ("" if r['diffed'] else " (not diffed)") ~ (": " ~ r['note'] if r['note'] else ""), info=true) %}
  {% endfor %}
  {#- 3. The results. -#}
  {% set relation = table_diff._changes_write(results, run_id, results_schema or target.schema) %}
  {% do log("table_diff.diff_changes results: " ~ relation ~ " run_id " ~ run_id ~ " models " ~ results | length, info=true) %}
  {{ return(none) }}
{% endmacro %}


{% macro _changes_model(entry, found, status_of, name_of, sample_rows, max_diff_rows) %}
  {#- One model's result: a mapping of the results table's columns (its position and seconds aside). -#}
  {% set r = {'model_id': entry.get('id') or entry['name'], 'model': entry['name'], 'change': entry['change'],
              'status': entry['change'], 'diffed': false, 'notes': [],
              'current_relation': (found['current'][0] | string) if 'current' in found else none,
              'production_relation': (found['production'][0] | string) if 'production' in found else none,
              'primary_key': none, 'rows_current': none, 'rows_production': none, 'added': none, 'deleted': none,
              'modified': none, 'duplicate_key_rows': none, 'partial': false, 'schema_changes': [],
              'column_changes': [], 'samples': [], 'inputs': [], 'production_written_at': none} %}
  {% if entry['change'] == 'new' %}
    {% set rel, cols = found['current'] %}
    {% do r.update({'rows_current': run_query("select count(*) from " ~ rel).rows[0][0] | int}) %}
    {% for c in cols %}{% do r['schema_changes'].append({'column': c.name, 'change': 'added', 'production_type': none, 'current_type': c.dtype}) %}{% endfor %}
  {% elif entry['change'] == 'removed' %}
    {% set rel, cols = found['production'] %}
    {% if cols | length > 0 %}
      {% do r.update({'rows_production': run_query("select count(*) from " ~ rel).rows[0][0] | int}) %}
    {% else %}
      {% do r['notes'].append("its production relation " ~ rel ~ " is already gone") %}
    {% endif %}
  {% else %}
    {#- Its sources as production read them and as they are now (changes_inputs.sql). -#}
    {% set ns = namespace(moved=false) %}
    {% if entry.get('sources') %}
      {% set inputs = table_diff._changes_inputs(found['production'][0], entry['sources'], entry.get('pinned_sources')) %}
      {% do r.update({'inputs': inputs['inputs'], 'production_written_at': inputs['written_at']}) %}
      {% for i in inputs['inputs'] if i['moved'] is not false and not i['pinned'] %}{% set ns.moved = true %}{% endfor %}
      {% set note = table_diff._changes_inputs_note(inputs) %}
      {% if note %}{% do r['notes'].append(note) %}{% endif %}
    {% endif %}
    {% set parents = entry.get('prune_parents') or [] %}
    {% set unchanged = [] %}
    {% for p in parents if status_of.get(p) == 'unchanged' %}{% do unchanged.append(name_of.get(p, p)) %}{% endfor %}
    {% if parents and unchanged | length == parents | length and ns.moved %}
      {% do r['notes'].append("diffed although every changed parent it reads came out identical: its own sources may have moved") %}
    {% endif %}
    {% if parents and unchanged | length == parents | length and not ns.moved %}
      {% do r.update({'status': 'unchanged'}) %}
      {% do r['notes'].append("not diffed: its code did not change and every changed parent it reads ("
          ~ unchanged | join(', ') ~ ") came out identical") %}
    {% else %}
      {% do r.update(table_diff._changes_compare(entry, found, sample_rows, max_diff_rows, r['notes'])) %}
    {% endif %}
  {% endif %}
  {% do r.update({'note': r.pop('notes') | join('; ') or none}) %}
  {{ return(r) }}
{% endmacro %}


{% macro _changes_compare(entry, found, sample_rows, max_diff_rows, notes) %}
  {#- A modified or downstream model against production: schema, counts, then rows. -#}
  {% set prod, prod_cols = found['production'] %}
  {% set cur, cur_cols = found['current'] %}
  {% set out = {'diffed': true, 'schema_changes': []} %}
  {% set excluded = [] %}
  {% for row in run_query(table_diff.schema_differences(prod, cur, exact_types=true)).rows %}
    {% set change = {'missing_in_model': 'added', 'missing_in_compare_to': 'dropped'}.get(row[1], 'retyped') %}
    {% do out['schema_changes'].append({'column': row[0], 'change': change, 'production_type': row[2], 'current_type': row[3]}) %}
    {% if change == 'dropped' or row[1] == 'incompatible_types' %}{% do excluded.append(row[0] | lower) %}{% endif %}
  {% endfor %}
  {% set counts = run_query("select (select count(*) from " ~ prod ~ "), (select count(*) from " ~ cur ~ ")").rows[0] %}
  {% do out.update({'rows_production': counts[0] | int, 'rows_current': counts[1] | int}) %}
  {% set prod_names = prod_cols | map(attribute='name') | map('lower') | list %}
  {% set cur_names = cur_cols | map(attribute='name') | map('lower') | list %}
  {% for c in entry.get('exclude_columns') or [] %}
    {% if c | lower in prod_names or c | lower in cur_names %}{% do excluded.append(c | lower) %}
    {% else %}{% do notes.append("exclude_columns " ~ c ~ ": no such column, ignored") %}{% endif %}
  {% endfor %}
  {#- A key column the change added, dropped, retyped beyond comparison (or excluded): no key. -#}
  {% set ns = namespace(key=entry.get('primary_key')) %}
  {% for k in ns.key or [] if (k | lower) not in prod_names or (k | lower) not in cur_names or (k | lower) in excluded %}
    {% do notes.append("key column " ~ k ~ " is " ~ ("missing from production" if (k | lower) not in prod_names
        else ("missing from this run" if (k | lower) not in cur_names else "not comparable between the two"))
        ~ ": diffed without a key, as a multiset") %}
    {% set ns.key = none %}
  {% endfor %}
  {% set key = ns.key %}
  {% set left = [] %}
  {% for n in prod_names if n not in excluded and n not in ((key or []) | map('lower') | list) %}{% do left.append(n) %}{% endfor %}
  {% if left | length == 0 and not key %}
    {% do notes.append("no column left to compare in both: rows not compared") %}
    {{ return(out) }}
  {% endif %}
  {% if key %}
    {% do out.update(table_diff._changes_by_key(prod, cur, key, excluded, left | length == 0, sample_rows, max_diff_rows)) %}
  {% else %}
    {% set m = table_diff.multiset_difference(prod, cur, exclude_columns=excluded or none, sample_rows=sample_rows) %}
    {% do out.update({'added': m['added'], 'deleted': m['deleted'], 'samples': m['samples']}) %}
    {% do table_diff.release_cached_views() %}
  {% endif %}
  {% set differs = out['schema_changes'] or out.get('added') or out.get('deleted') or out.get('modified') or out.get('duplicate_key_rows') %}
  {% do out.update({'status': 'modified' if differs else 'unchanged'}) %}
  {{ return(out) }}
{% endmacro %}


{% macro _changes_by_key(prod, cur, key, excluded, keys_only, sample_rows, max_diff_rows) %}
  {#- drift_rows (production as the source: `deleted` = only in production, `added` = only in this
      run), then counts, changed columns and sample rows from its cached rows. -#}
  {% set sql = table_diff.drift_rows(prod, cur, primary_key=key, exclude_columns=excluded or none,
      keys_only=keys_only or none, quick_check=true, max_diff_rows=max_diff_rows, allow_partial=true,
      arg_names={'macro': 'diff_changes', 'source': 'production', 'target': 'current'}) %}
  {% set rel = "(" ~ sql ~ ") as td_d" %}
  {% set out = {'primary_key': key, 'added': 0, 'deleted': 0, 'modified': 0, 'duplicate_key_rows': 0} %}
  {% set field = {'added': 'added', 'deleted': 'deleted', 'modified': 'modified', 'duplicate_key': 'duplicate_key_rows'} %}
  {% for row in run_query("select diff_type, count(*) from " ~ rel ~ " group by diff_type").rows %}
    {% do out.update({field[row[0]]: row[1] | int}) %}
  {% endfor %}
  {% set total = out['added'] + out['deleted'] + out['modified'] + out['duplicate_key_rows'] %}
  {% do out.update({'partial': total >= max_diff_rows}) %}
  {% if total > 0 %}
    {% set resolved = table_diff._resolve_sides('diff_changes', [['source', prod, 'production'], ['target', cur, 'current']],
        {'key': key, 'columns': [], 'exclude_columns': excluded, 'normalize': {}, 'tolerance': {}, 'table_filter': none},
        with_columns=not keys_only) %}
    {% set spec = {'key': resolved['key'], 'columns': resolved['columns']} %}
    {% do out.update({'column_changes': table_diff._column_changes(rel, spec) if out['modified'] > 0 else [],
                      'samples': table_diff._diff_samples(rel, spec, sample_rows)}) %}
  {% endif %}
  {% do table_diff.release_cached_views() %}
  {{ return(out) }}
{% endmacro %}


{% macro _changes_relation(r) %}
  {#- A relation of the plan ({database, schema, identifier}); Spark has no database level. -#}
  {{ return(api.Relation.create(database=none if target.type == 'spark' else r.get('database'),
      schema=r['schema'], identifier=r['identifier'])) }}
{% endmacro %}


{% macro _changes_check_entry(entry, index) %}
  {#- One entry of `models`, checked before anything runs. -#}
  {% set arg = 'models[' ~ index ~ ']' %}
  {% set changes = ['new', 'modified', 'downstream', 'removed'] %}
  {% if entry is not mapping or entry.get('name') is not string or entry.get('change') not in changes %}
    {{ table_diff._fail('diff_changes', arg, entry, "a mapping with name and change (" ~ changes | join(', ') ~ ")",
        "E.g. {name: orders, change: modified, current: {schema: pr_123, identifier: orders}, production: {schema: prod, identifier: orders}}.") }}
  {% endif %}
  {% for side in ['current', 'production'] %}
    {% set needed = (side == 'current' and entry['change'] != 'removed') or (side == 'production' and entry['change'] != 'new') %}
    {% set r = entry.get(side) %}
    {% if needed and (r is not mapping or r.get('schema') is not string or r.get('identifier') is not string) %}
      {{ table_diff._fail('diff_changes', arg ~ '.' ~ side, r, "{schema, identifier} (and database where the adapter has one)",
          "A " ~ entry['change'] ~ " model needs its " ~ side ~ " relation.") }}
    {% endif %}
  {% endfor %}
  {% for name in ['primary_key', 'exclude_columns', 'prune_parents', 'pinned_sources'] %}
    {% set v = entry.get(name) %}
    {% if v is not none and (v is string or v is mapping or v is not iterable) %}
      {{ table_diff._fail('diff_changes', arg ~ '.' ~ name, v, "a list of names, or none", "Write it as [a, b].") }}
    {% endif %}
  {% endfor %}
  {% set sources = entry.get('sources') %}
  {% if sources is not none and (sources is string or sources is mapping or sources is not iterable) %}
    {{ table_diff._fail('diff_changes', arg ~ '.sources', sources, "a list of {name, relation}, or none", "E.g. [{name: raw.events, relation: {schema: raw, identifier: events}}].") }}
  {% endif %}
  {% for s in sources or [] if s is not mapping or s.get('name') is not string or s.get('relation') is not mapping %}
    {{ table_diff._fail('diff_changes', arg ~ '.sources[' ~ loop.index0 ~ ']', s, "{name: 'source_name.table_name', relation: {schema, identifier}}", "table-diff changes writes it from the manifest.") }}
  {% endfor %}
{% endmacro %}
