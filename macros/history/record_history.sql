{#-
  table_diff.record_history: the package's on-run-end hook (ADR 0016). Appends one row per pair
  run and per no_drift test of the invocation to the run history table
  (the package model `table_diff_run_history`, created when absent):
  * a pair (its models NAME__ranges .. NAME__summary, the summary built by table_diff.diff_summary)
    of which this invocation built at least one model: `completed` / `partial` /
    `changed_during_run` with the summary's counts when NAME__summary was built, `failed` with the
    first error when one of its models failed; a pair whose models were all skipped or not
    selected is not a run;
  * a no_drift test that ran (not skipped): its counts as drift_rows noted them; `failed` when
    the test errored before it had counts.
  Append-only: a failed run adds a row and never touches the rows of earlier runs, so the last
  good summary stays. `vars: {table_diff_history: false}` turns it off. The table and the view
  are the package's models `table_diff_run_history` and `table_diff_runs` (ADR 0036): the hooks
  write where dbt builds them, and create or complete them first (_history_ensure), so a run that
  selects neither still records.

  table_diff.record_history_start, the on-run-start hook, first appends a `running` row for every
  pair and no_drift test the invocation selected; record_history closes each with its final row,
  or `skipped` when dbt ran none of its nodes. A run killed before its on-run-end keeps only its
  `running` row. The view `table_diff_runs` beside the table folds the two: one row per run, the
  final row when there is one, else the `running` row.
-#}
{% macro record_history_start() %}
  {{ return(adapter.dispatch('record_history_start', 'table_diff')()) }}
{% endmacro %}


{% macro default__record_history_start() %}
  {{ return('') }}
{% endmacro %}


{% macro spark__record_history_start() %}
  {% if not table_diff._history_on() %}{{ return('') }}{% endif %}
  {% set now = modules.datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M:%S.%f') %}
  {% set times = ["timestamp'" ~ now ~ "'", 'cast(null as timestamp)', 'cast(null as double)'] %}
  {% set rows = [] %}
  {% for kind, name in table_diff._history_selected() %}
    {% do rows.append(table_diff._history_values(kind, name, 'running', none, times, none, [none, none],
        none, none, none, none)) %}
  {% endfor %}
  {% do table_diff._history_append(rows) %}
  {{ return('') }}
{% endmacro %}


{% macro _history_on() %}
  {#- Only the commands that run pairs or tests record runs (not compile or docs generate, whose
      hooks also run). -#}
  {{ return(execute and var('table_diff_history', true) and flags.WHICH in ['run', 'build', 'test', 'retry']) }}
{% endmacro %}


{% macro _history_pair_of(node) %}
  {#- The pair name of a node of a pair pipeline (NAME__ranges .. NAME__summary whose summary is
      built by table_diff.diff_summary), else none; and the summary node. -#}
  {% set m = modules.re.match('^(.+)__(ranges|file_hashes|block_hashes|block_split|row_diff|column_stats|summary)$', node.name) %}
  {% if node.resource_type != 'model' or not m %}{{ return(none) }}{% endif %}
  {% set summary = graph.nodes.get('model.' ~ node.package_name ~ '.' ~ m.group(1) ~ '__summary') %}
  {% if summary and 'macro.table_diff.diff_summary' in summary.depends_on.macros %}
    {{ return([m.group(1), m.group(2), summary]) }}
  {% endif %}
  {{ return(none) }}
{% endmacro %}


{% macro _is_no_drift(node) %}
  {{ return(node.resource_type == 'test' and node.test_metadata and node.test_metadata.name == 'no_drift') }}
{% endmacro %}


{% macro _history_selected() %}
  {#- [kind, name] of every pair and no_drift test this invocation selected, in a stable order. -#}
  {% set found = [] %}
  {% for unique_id in (selected_resources or []) | sort %}
    {% set node = graph.nodes.get(unique_id) %}
    {% if node %}
      {% set pair = table_diff._history_pair_of(node) %}
      {% if pair and ['pair', pair[0]] not in found %}{% do found.append(['pair', pair[0]]) %}{% endif %}
      {% if table_diff._is_no_drift(node) %}{% do found.append(['no_drift', node.name]) %}{% endif %}
    {% endif %}
  {% endfor %}
  {{ return(found) }}
{% endmacro %}


{% macro _history_file_format() %}
  {#- The format of a new history table: the var `table_diff_file_format` as the package's
      materialization reads it, without a model's config (hooks have none). 'delta' on a session
      without Delta is left to the models to refuse, with the var named: the history stays parquet. -#}
  {% set value = var('table_diff_file_format', 'auto') | string | trim | lower %}
  {% if value == 'parquet' %}{{ return('parquet') }}{% endif %}
  {{ return('delta' if table_diff._session_delta_support()['available'] else 'parquet') }}
{% endmacro %}


{% macro _history_relation(name='table_diff_run_history') %}
  {#- [schema, identifier] of the package model NAME (table_diff_run_history or table_diff_runs):
      where dbt builds it (var table_diff_history_schema through the project's
      generate_schema_name, else the target schema), so the hooks write where the model is. -#}
  {% set node = graph.nodes.get('model.table_diff.' ~ name) %}
  {% if node %}{{ return([node.schema, node.alias]) }}{% endif %}
  {{ return([var('table_diff_history_schema', target.schema), name]) }}
{% endmacro %}


{% macro _history_quoted(schema, identifier) %}
  {{ return(table_diff.quote_identifier(schema) ~ '.' ~ table_diff.quote_identifier(identifier)) }}
{% endmacro %}


{% macro _history_exists(schema, identifier) %}
  {% if run_query("show schemas like '" ~ schema ~ "'").rows | length == 0 %}{{ return(false) }}{% endif %}
  {{ return(run_query('show tables in ' ~ table_diff.quote_identifier(schema) ~ " like '" ~ identifier ~ "'").rows | length > 0) }}
{% endmacro %}


{% macro _history_ensure() %}
  {#- The run history table and the runs view, as the package models declare them (ADR 0036):
      created when absent (Delta where the package's tables are, ADR 0015: each append one commit);
      columns a newer version added appended to an existing table (dbt's on_schema_change
      'append_new_columns'); never dropped, rewritten or emptied. A history kept before the model
      existed under the var's schema as named (`<table_diff_history_schema>.table_diff_run_history`)
      while the model's schema is named otherwise: copied into the model's table when that is
      absent, and left where it was. Returns the table's quoted name. Done once per dbt
      invocation (`_run_cache`, ADR 0038): the hooks at its start and end and the model itself
      would otherwise repeat the same four or more catalog statements; nothing in a run drops the
      history or its columns. -#}
  {% set cache = table_diff._run_cache() %}
  {% if cache.get('history_relation') %}{{ return(cache['history_relation']) }}{% endif %}
  {% set schema, identifier = table_diff._history_relation() %}
  {% set relation = table_diff._history_quoted(schema, identifier) %}
  {% set columns = table_diff._history_columns().split(', ') %}
  {% do run_query('create schema if not exists ' ~ table_diff.quote_identifier(schema)) %}
  {% set legacy_schema = var('table_diff_history_schema', target.schema) %}
  {% set legacy = none %}
  {% if [legacy_schema, 'table_diff_run_history'] != [schema, identifier]
        and not table_diff._history_exists(schema, identifier)
        and table_diff._history_exists(legacy_schema, 'table_diff_run_history') %}
    {% set legacy = table_diff._history_quoted(legacy_schema, 'table_diff_run_history') %}
  {% endif %}
  {% if legacy %}
    {% set had = [] %}
    {% for row in run_query('describe table ' ~ legacy) if row[0] and not row[0].startswith('#') %}
      {% do had.append(row[0] | lower) %}
    {% endfor %}
    {% set projection = [] %}
    {% for column in columns %}
      {% set name, type = column.split(' ') %}
      {% do projection.append(name if name in had else 'cast(null as ' ~ type ~ ') as ' ~ name) %}
    {% endfor %}
    {% do run_query('create table ' ~ relation ~ ' using ' ~ table_diff._history_file_format()
        ~ ' as select ' ~ (projection | join(', ')) ~ ' from ' ~ legacy) %}
    {% do log('table_diff: the run history moved to ' ~ relation ~ ' (the package model table_diff_run_history);'
        ~ ' its rows were copied from ' ~ legacy ~ ', which is left as it was.', info=true) %}
  {% elif adapter.get_relation(database=none, schema=schema, identifier=identifier) is none %}
    {#- dbt's relation cache, listed at the invocation's start, does not have it: create it (a
        statement Spark plans in full even when the table exists, about 0.3 s in a fresh JVM). -#}
    {% do run_query('create table if not exists ' ~ relation ~ ' (' ~ (columns | join(', ')) ~ ') using '
        ~ table_diff._history_file_format()) %}
  {% endif %}
  {% if not legacy %}
    {% set had = [] %}
    {% for row in run_query('describe table ' ~ relation) if row[0] and not row[0].startswith('#') %}
      {% do had.append(row[0] | lower) %}
    {% endfor %}
    {% set missing = [] %}
    {% for column in columns if column.split(' ')[0] not in had %}{% do missing.append(column) %}{% endfor %}
    {% if missing %}
      {% do run_query('alter table ' ~ relation ~ ' add columns (' ~ (missing | join(', ')) ~ ')') %}
      {% do log('table_diff: added column(s) ' ~ (missing | join(', ')) ~ ' to the run history ' ~ relation, info=true) %}
    {% endif %}
  {% endif %}
  {% set view_schema, view_identifier = table_diff._history_relation('table_diff_runs') %}
  {% if view_schema != schema %}
    {% do run_query('create schema if not exists ' ~ table_diff.quote_identifier(view_schema)) %}
  {% endif %}
  {#- Spark analyses the view's query before it finds the view there (about 0.5 s in a fresh JVM). -#}
  {% if adapter.get_relation(database=none, schema=view_schema, identifier=view_identifier) is none %}
    {% do run_query('create view if not exists ' ~ table_diff._history_quoted(view_schema, view_identifier)
        ~ ' as ' ~ table_diff._history_runs_select(relation)) %}
  {% endif %}
  {% do cache.update({'history_relation': relation}) %}
  {{ return(relation) }}
{% endmacro %}


{% macro _history_empty_select() %}
  {#- The run history's columns as a query of no row: the table_diff_run_history model's body. -#}
  {% set items = [] %}
  {% for column in table_diff._history_columns().split(', ') %}
    {% set name, type = column.split(' ') %}
    {% do items.append('cast(null as ' ~ type ~ ') as ' ~ name) %}
  {% endfor %}
  {{ return('select ' ~ (items | join(', ')) ~ ' where false') }}
{% endmacro %}


{% macro _history_runs_select(history) %}
  {#- One row per run of the history table HISTORY: its final row, else its `running` row. -#}
  {{ return('select ' ~ table_diff._history_column_names() ~ ' from (select *, row_number() over (partition by invocation_id, kind, name'
      ~ " order by case when status = 'running' then 1 else 0 end, recorded_at desc) as td_n from " ~ history
      ~ ') where td_n = 1') }}
{% endmacro %}


{% macro _history_append(rows) %}
  {#- Append rows to the history table, creating or completing it first (_history_ensure). -#}
  {% if not rows %}{{ return(none) }}{% endif %}
  {% set relation = table_diff._history_ensure() %}
  {% do run_query('insert into ' ~ relation ~ ' (' ~ table_diff._history_column_names() ~ ') values ' ~ (rows | join(',\n'))) %}
  {% do log('table_diff: recorded ' ~ (rows | length) ~ ' run(s) in ' ~ relation, info=true) %}
{% endmacro %}


{% macro record_history(results) %}
  {{ return(adapter.dispatch('record_history', 'table_diff')(results)) }}
{% endmacro %}


{% macro default__record_history(results) %}
  {{ return('') }}
{% endmacro %}


{% macro spark__record_history(results) %}
  {% if not table_diff._history_on() %}{{ return('') }}{% endif %}
  {% set pairs = {} %}
  {% set rows = [] %}
  {% set closed = [] %}
  {% for res in results or [] %}
    {% set node = res.node %}
    {% set pair = table_diff._history_pair_of(node) %}
    {% if pair %}
      {% if pair[0] not in pairs %}
        {% do pairs.update({pair[0]: {'summary': pair[2], 'results': {}}}) %}
      {% endif %}
      {% do pairs[pair[0]]['results'].update({pair[1]: res}) %}
    {% elif table_diff._is_no_drift(node) and (res.status | string) != 'skipped' %}
      {% do rows.append(table_diff._history_test_row(res)) %}
      {% do closed.append(['no_drift', node.name]) %}
    {% endif %}
  {% endfor %}
  {% for name, pair in pairs.items() %}
    {% set row = table_diff._history_pair_row(name, pair['summary'], pair['results']) %}
    {% if row %}{% do rows.append(row) %}{% do closed.append(['pair', name]) %}{% endif %}
  {% endfor %}
  {#- Close the running row of every selected pair or test that did not run. -#}
  {% set null_times = ['cast(null as timestamp)', 'cast(null as timestamp)', 'cast(null as double)'] %}
  {% for kind, name in table_diff._history_selected() if [kind, name] not in closed %}
    {% do rows.append(table_diff._history_values(kind, name, 'skipped', 'skipped', null_times, none,
        [none, none], none, none, none, 'not run: dbt skipped its nodes (an upstream node failed) or built none of them')) %}
  {% endfor %}
  {% do table_diff._history_append(rows) %}
  {#- Notes of drift_rows calls that were not no_drift tests (a model calling it directly). -#}
  {% for row in run_query("show views like 'td_history_*'") %}
    {% if row[2] %}{% do run_query('drop view if exists ' ~ table_diff.quote_identifier(row[1])) %}{% endif %}
  {% endfor %}
  {{ return('') }}
{% endmacro %}


{% macro _history_columns() %}
  {{ return('invocation_id string, kind string, name string, status string, outcome string, '
      ~ 'started_at timestamp, finished_at timestamp, seconds double, '
      ~ 'rows_source bigint, rows_target bigint, blocks_total bigint, blocks_mismatched bigint, '
      ~ 'rows_added bigint, rows_deleted bigint, rows_modified bigint, duplicate_key_rows bigint, '
      ~ 'source_relation string, target_relation string, run_id string, options string, '
      ~ 'hash_spec_version int, message string, recorded_at timestamp') }}
{% endmacro %}


{% macro _history_column_names() %}
  {% set names = [] %}
  {% for column in table_diff._history_columns().split(', ') %}{% do names.append(column.split(' ')[0]) %}{% endfor %}
  {{ return(names | join(', ')) }}
{% endmacro %}


{% macro _history_times(results) %}
  {#- [started_at, finished_at, seconds] of a list of node results, as SQL literals. -#}
  {% set starts = [] %}
  {% set ends = [] %}
  {% for res in results %}
    {% for t in res.timing %}
      {% if t.started_at %}{% do starts.append(t.started_at) %}{% endif %}
      {% if t.completed_at %}{% do ends.append(t.completed_at) %}{% endif %}
    {% endfor %}
  {% endfor %}
  {% if not starts or not ends %}
    {{ return(['cast(null as timestamp)', 'cast(null as timestamp)', 'cast(null as double)']) }}
  {% endif %}
  {% set start, finish = starts | min, ends | max %}
  {{ return(["timestamp'" ~ start.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'",
             "timestamp'" ~ finish.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'",
             ((finish - start).total_seconds() | round(3)) | string]) }}
{% endmacro %}


{% macro _history_literal(value, type='string') %}
  {% if value is none %}{{ return('cast(null as ' ~ type ~ ')') }}{% endif %}
  {% if type == 'string' %}{{ return(table_diff._sql_string(value)) }}{% endif %}
  {{ return('cast(' ~ value ~ ' as ' ~ type ~ ')') }}
{% endmacro %}


{% macro _history_values(kind, name, status, outcome, times, counts, relations, run_id, options, hash_spec_version, message) %}
  {% set lit = table_diff._history_literal %}
  {% set c = counts or {} %}
  {% set values = [lit(invocation_id), lit(kind), lit(name), lit(status), lit(outcome)] + times %}
  {% for column in ['rows_source', 'rows_target', 'blocks_total', 'blocks_mismatched',
                    'rows_added', 'rows_deleted', 'rows_modified', 'duplicate_key_rows'] %}
    {% do values.append(lit(c.get(column), 'bigint')) %}
  {% endfor %}
  {% do values.extend([lit(relations[0]), lit(relations[1]), lit(run_id), lit(options),
      lit(hash_spec_version, 'int'), lit(message), 'current_timestamp()']) %}
  {{ return('(' ~ (values | join(', ')) ~ ')') }}
{% endmacro %}


{% macro _history_pair_row(name, summary_node, results) %}
  {#- One row for a pair this invocation touched, or none when it built none of its models. -#}
  {% set statuses = [] %}
  {% for res in results.values() %}{% do statuses.append(res.status | string) %}{% endfor %}
  {% set errors = [] %}
  {% for model in ['ranges', 'file_hashes', 'block_hashes', 'block_split', 'row_diff', 'column_stats', 'summary'] %}
    {% if model in results and (results[model].status | string) == 'error' %}{% do errors.append(results[model]) %}{% endif %}
  {% endfor %}
  {% set built = 'success' in statuses %}
  {% if not built and not errors %}{{ return(none) }}{% endif %}
  {% set times = table_diff._history_times(results.values() | list) %}
  {% set options = none %}
  {% set ranges = graph.nodes.get('model.' ~ summary_node.package_name ~ '.' ~ name ~ '__ranges') %}
  {% if ranges and 'ranges' in results and (results['ranges'].status | string) == 'success' or not errors %}
    {% set spec_rows = run_query('select spec from ' ~ ranges.relation_name ~ ' limit 1').rows if ranges else [] %}
    {% set options = spec_rows[0][0] if spec_rows else none %}
  {% endif %}
  {% if errors %}
    {% set res = errors[0] %}
    {{ return(table_diff._history_values('pair', name, 'failed', 'error', times, none, [none, none], none,
        options, none, res.node.name ~ ': ' ~ (res.message or 'error'))) }}
  {% endif %}
  {% if 'summary' not in results or (results['summary'].status | string) != 'success' %}
    {{ return(none) }}
  {% endif %}
  {% set table = run_query('select * from ' ~ summary_node.relation_name) %}
  {% set s = table.rows[0] %}
  {% set counts = {} %}
  {% for column in ['rows_source', 'rows_target', 'blocks_total', 'blocks_mismatched',
                    'rows_added', 'rows_deleted', 'rows_modified', 'duplicate_key_rows'] %}
    {% do counts.update({column: s[column]}) %}
  {% endfor %}
  {% set status = 'completed' if s['status'] == 'complete' else s['status'] %}
  {{ return(table_diff._history_values('pair', name, status, 'success', times, counts,
      [s['source_relation'], s['target_relation']], s['run_id'], options, s['hash_spec_version'], none)) }}
{% endmacro %}


{% macro _history_test_row(res) %}
  {#- One row for a no_drift test: the counts drift_rows noted, the outcome dbt gave it. -#}
  {% set view = table_diff._history_view(res.node.unique_id) %}
  {% set noted = none %}
  {% if run_query("show views like '" ~ view ~ "'").rows | length > 0 %}
    {% set noted = run_query('select * from ' ~ view).rows[0] %}
    {% do run_query('drop view if exists ' ~ view) %}
  {% endif %}
  {% set outcome = res.status | string %}
  {% set times = table_diff._history_times([res]) %}
  {% set message = none if outcome in ['pass', 'success'] else res.message %}
  {% if noted is none %}
    {{ return(table_diff._history_values('no_drift', res.node.name, 'failed', outcome, times, none, [none, none],
        none, none, none, message or 'no counts: the test stopped before it compared the sides')) }}
  {% endif %}
  {% set counts = {} %}
  {% for column in ['rows_source', 'rows_target', 'blocks_total', 'blocks_mismatched',
                    'rows_added', 'rows_deleted', 'rows_modified', 'duplicate_key_rows'] %}
    {% do counts.update({column: noted[column]}) %}
  {% endfor %}
  {% set status = noted['status'] if noted['status'] != 'completed' or outcome != 'error' else 'failed' %}
  {{ return(table_diff._history_values('no_drift', res.node.name, status, outcome, times, counts,
      [noted['source_relation'], noted['target_relation']],
      none, noted['options'], noted['hash_spec_version'], message)) }}
{% endmacro %}


{% macro _history_model_guard(expected) %}
  {#- The history models' materializations can be overridden only by the root project (a
      `+materialized` directly under `models:` applies to installed packages too): any other than
      EXPECTED would replace the run history by an empty table (or the runs view by a copy), so
      the model refuses to compile, before any statement runs. -#}
  {% set got = config.get('materialized') %}
  {% if execute and got != expected %}
    {{ exceptions.raise_compiler_error("table_diff: model " ~ model['name'] ~ " is materialized as '" ~ got
        ~ "', not '" ~ expected ~ "': a `+materialized` directly under `models:` in your dbt_project.yml applies"
        ~ " to installed packages too, and would replace the run history. Set it under your project's name"
        ~ " (models: <your project>: +materialized: ...), or turn the history off (vars: {table_diff_history: false}).") }}
  {% endif %}
{% endmacro %}
