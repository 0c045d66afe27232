{#-
  What a no_drift test leaves for the run history (ADR 0016). The test's outcome (pass / warn /
  fail / error) is known only when dbt has run its query, in the on-run-end hook; the counts are
  known only here, while drift_rows runs. So drift_rows notes them in a temporary view of the
  session named after the test node and the invocation, and `record_history` reads and drops it.
  Outside a node (`model` undefined: a run-operation) nothing is noted.
-#}

{% macro _history_view(unique_id) %}
  {{ return('td_history_' ~ local_md5(unique_id ~ '/' ~ invocation_id)) }}
{% endmacro %}


{% macro _note_drift_history(spec, status, rows_source, rows_target, blocks_total, blocks_mismatched, counts) %}
  {% if not var('table_diff_history', true) or model is not mapping or not model.get('unique_id') %}
    {{ return(none) }}
  {% endif %}
  {% set n = counts or {} %}
  {% set options = {} %}
  {% for key, value in spec.items() if key not in ['columns', 'key'] %}{% do options.update({key: value}) %}{% endfor %}
  {% do options.update({'key': spec['key'] | map(attribute='name') | list,
                        'columns': spec['columns'] | map(attribute='name') | list}) %}
  {% do run_query("create or replace temporary view " ~ table_diff._history_view(model['unique_id']) ~ " as select "
      ~ table_diff._sql_string(status) ~ " as status, "
      ~ table_diff._history_number(rows_source) ~ " as rows_source, "
      ~ table_diff._history_number(rows_target) ~ " as rows_target, "
      ~ table_diff._history_number(blocks_total) ~ " as blocks_total, "
      ~ table_diff._history_number(blocks_mismatched) ~ " as blocks_mismatched, "
      ~ table_diff._history_number(n.get('added', 0)) ~ " as rows_added, "
      ~ table_diff._history_number(n.get('deleted', 0)) ~ " as rows_deleted, "
      ~ table_diff._history_number(n.get('modified', 0)) ~ " as rows_modified, "
      ~ table_diff._history_number(n.get('duplicate_key', 0)) ~ " as duplicate_key_rows, "
      ~ table_diff._sql_string(tojson(options)) ~ " as options, "
      ~ table_diff._sql_string(spec.get('source', '')) ~ " as source_relation, "
      ~ table_diff._sql_string(spec.get('target', '')) ~ " as target_relation, "
      ~ (spec.get('hash_spec_version') or 'null') ~ " as hash_spec_version") %}
{% endmacro %}


{% macro _history_number(value) %}
  {{ return('cast(null as bigint)' if value is none else 'cast(' ~ (value | int) ~ ' as bigint)') }}
{% endmacro %}
