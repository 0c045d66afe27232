{#-
  Seed loader for the integration tests (overrides dbt-spark's spark__load_csv_rows; the root
  project wins dbt's dispatch). dbt-spark with `method: session` formats every binding as
  '<value>', so an empty CSV cell (None) arrives as the text 'None' in string columns, and
  datetimes are cut to milliseconds. The case matrix needs NULL strings (NULL key components,
  '' vs NULL) and microseconds, so this version renders each value as a SQL literal instead:
  NULL for empty cells, full microseconds, strings escaped. Same batches, same casts to the pinned
  +column_types.
-#}
{% macro spark__load_csv_rows(model, agate_table) %}
  {% set batch_size = get_batch_size() %}
  {% set column_override = model['config'].get('column_types', {}) %}
  {% set types = [] %}
  {% for col_name in agate_table.column_names %}
    {% do types.append(column_override.get(col_name, adapter.convert_type(agate_table, loop.index0))) %}
  {% endfor %}
  {% set statements = [] %}
  {% for chunk in agate_table.rows | batch(batch_size) %}
    {% set sql %}
      insert into {{ this.render() }} values
      {% for row in chunk -%}
        ({%- for value in row -%}
          cast({{ _seed_literal(value) }} as {{ types[loop.index0] }}){{ ',' if not loop.last }}
        {%- endfor -%}){{ ',' if not loop.last }}
      {% endfor %}
    {% endset %}
    {% do adapter.add_query(sql, abridge_sql_log=True) %}
    {% if loop.first %}{% do statements.append(sql) %}{% endif %}
  {% endfor %}
  {{ return(statements[0]) }}
{% endmacro %}


{% macro _seed_literal(value) %}
  {#- One agate cell as a Spark SQL literal. -#}
  {%- if value is none -%}
    {{ return('null') }}
  {%- elif value is boolean -%}
    {{ return('true' if value else 'false') }}
  {%- elif value is number -%}
    {{ return("'" ~ value ~ "'") }}
  {%- elif value.hour is defined -%}
    {{ return("'" ~ value.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'") }}
  {%- elif value.isoformat is defined -%}
    {{ return("'" ~ value.isoformat() ~ "'") }}
  {%- else -%}
    {{ return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") }}
  {%- endif -%}
{% endmacro %}
