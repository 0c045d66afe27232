{#-
  The table diff_changes leaves: `<schema>.table_diff_changes`, one row per model of the last run,
  replaced by each run (dropped, then written whole in one statement) and stamped with its run id,
  which `table-diff changes` checks when it reads it. Counts are NULL where they do not apply (a
  new model has no production rows; a keyless diff has no modified rows); the lists are JSON.
-#}

{% macro _changes_columns() %}
  {#- [name, type] of the results table, in order. -#}
  {{ return([['run_id', 'string'], ['position', 'int'], ['model_id', 'string'], ['model', 'string'],
             ['change', 'string'], ['status', 'string'], ['diffed', 'boolean'], ['note', 'string'],
             ['current_relation', 'string'], ['production_relation', 'string'], ['primary_key', 'string'],
             ['rows_current', 'bigint'], ['rows_production', 'bigint'], ['added', 'bigint'], ['deleted', 'bigint'],
             ['modified', 'bigint'], ['duplicate_key_rows', 'bigint'], ['partial', 'boolean'],
             ['schema_changes', 'string'], ['column_changes', 'string'], ['samples', 'string'], ['seconds', 'double'],
             ['inputs', 'string'], ['production_written_at', 'string']]) }}
{% endmacro %}


{% macro _changes_literal(value, type) %}
  {% if value is none %}{{ return('cast(null as ' ~ type ~ ')') }}{% endif %}
  {% if type == 'boolean' %}{{ return('true' if value else 'false') }}{% endif %}
  {% if type in ['int', 'bigint', 'double'] %}{{ return('cast(' ~ value ~ ' as ' ~ type ~ ')') }}{% endif %}
  {% if value is not string %}{{ return(table_diff._sql_string(tojson(value))) }}{% endif %}
  {{ return(table_diff._sql_string(value)) }}
{% endmacro %}


{% macro _changes_write(results, run_id, schema) %}
  {#- Replace the results table with `results` (mappings by column name); returns its name. -#}
  {% set relation = table_diff.quote_identifier(schema) ~ '.' ~ table_diff.quote_identifier('table_diff_changes') %}
  {% set columns = table_diff._changes_columns() %}
  {% set rows = [] %}
  {% for r in results %}
    {% set items = [] %}
    {% for name, type in columns %}
      {% set value = run_id if name == 'run_id' else r.get(name) %}
      {% do items.append(table_diff._changes_literal(value, type) ~ ' as ' ~ table_diff.quote_identifier(name)) %}
    {% endfor %}
    {% do rows.append('select ' ~ items | join(', ')) %}
  {% endfor %}
  {% if not rows %}
    {% set items = [] %}
    {% for name, type in columns %}{% do items.append('cast(null as ' ~ type ~ ') as ' ~ table_diff.quote_identifier(name)) %}{% endfor %}
    {% do rows.append('select ' ~ items | join(', ') ~ ' where false') %}
  {% endif %}
  {% do run_query('create schema if not exists ' ~ table_diff.quote_identifier(schema)) %}
  {% do run_query('drop table if exists ' ~ relation) %}
  {% do run_query('create table ' ~ relation ~ ' using parquet as\n' ~ rows | join('\nunion all\n')) %}
  {{ return(relation) }}
{% endmacro %}
