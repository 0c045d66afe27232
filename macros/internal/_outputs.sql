{#-
  The package's own tables (ADR 0015): the file format they are written in, and how the
  `table_diff_table` materialization writes a Python model.

  One project var chooses the format of every table the scaffolded pipelines write,
  `table_diff_file_format`: 'auto' (the default: Delta when the session can write Delta tables,
  else parquet), 'delta' or 'parquet'. A model's own `file_format` config, when set, wins. On Delta
  a rebuild is one `create or replace` commit, so a table is never missing or half written, and
  its earlier versions stay readable (by `version as of`). On parquet the new table is written
  aside and renamed into place (ADR 0032), so a stopped build leaves the old table or the new one.
-#}

{% macro _output_file_format(macro_name='table_diff_table') %}
  {#- 'delta' or 'parquet' for the model being built (execute time: 'auto' asks the session). -#}
  {% set configured = config.get('file_format') %}
  {% set arg = "config file_format" if configured else "var table_diff_file_format" %}
  {% set raw = configured or var('table_diff_file_format', 'auto') %}
  {% set value = (raw | string | trim | lower) %}
  {% if value not in ['auto', 'delta', 'parquet'] %}
    {% set why = (" Iceberg tables live in their own catalog (ADR 0012), which dbt-spark cannot write a model to; "
        ~ "the pair's sides can be Iceberg tables all the same.") if value == 'iceberg' else "" %}
    {{ table_diff._fail(macro_name, arg, raw, "auto (Delta when the session has it, else parquet), delta or parquet",
        "Set it under vars: in dbt_project.yml or with --vars '{table_diff_file_format: auto}', or remove it to use auto." ~ why) }}
  {% endif %}
  {% if value == 'parquet' %}{{ return('parquet') }}{% endif %}
  {% set support = table_diff._session_delta_support() %}
  {% if support['available'] %}{{ return('delta') }}{% endif %}
  {% if value == 'delta' %}
    {{ table_diff._fail(macro_name, arg, raw, "a Spark session with Delta Lake (this one has " ~ support['detail'] ~ ")",
        "Give the session Delta's jars and confs (spark.jars, spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension, "
        ~ "spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog: profiles.example.yml, make lakehouse-jars), "
        ~ "or set table_diff_file_format to auto (Delta when the session has it, else parquet) or parquet.") }}
  {% endif %}
  {{ return('parquet') }}
{% endmacro %}


{% macro _session_delta_support() %}
  {#- `delta_support` asked once per dbt invocation (ADR 0038): its answer comes from the session's
      catalog and extension confs, which Spark fixes when the session starts, and every model of an
      invocation runs on the same session, so each `table_diff_table` model would otherwise send
      the same two `set` lookups. Kept in the invocation's cache (`_run_cache`). -#}
  {% set cache = table_diff._run_cache() %}
  {% if 'delta_support' not in cache %}
    {% do cache.update({'delta_support': table_diff.delta_support()}) %}
  {% endif %}
  {{ return(cache['delta_support']) }}
{% endmacro %}


{% macro _output_tblproperties(file_format) %}
  {#- The TBLPROPERTIES clause of a SQL model of `table_diff_table`: the model's own `tblproperties`
      config and, on Delta, column mapping by name (ADR 0015), which the package's tables need for
      column names Delta refuses otherwise (a merge's `ours__Unit Price`); Delta raises the table's
      reader and writer protocol versions to what that needs. Every Delta table of the package
      maps columns, whatever its names: one rule, here and in the session plugin's `write_table`
      (the Python models), which sets the same property. -#}
  {% set props = {} %}
  {% if file_format == 'delta' %}{% do props.update({'delta.columnMapping.mode': 'name'}) %}{% endif %}
  {% do props.update(config.get('tblproperties') or {}) %}
  {% set items = [] %}
  {% for key, value in props.items() %}
    {% do items.append(table_diff._sql_string(key) ~ ' = ' ~ table_diff._sql_string(value | string)) %}
  {% endfor %}
  {{ return(('tblproperties (' ~ items | join(', ') ~ ')') if items else '') }}
{% endmacro %}


{% macro _py_write_table(compiled_code, relation, file_format) %}
{#- The Python model's code followed by its write, through the session plugin's writer
    (`dbt_table_diff.session_submission.write_table`: on Delta `createOrReplace` with column
    mapping, one commit over an existing Delta table; on parquet the statement a SQL model of the
    format runs). `relation` is the model's table when Delta replaces it in place, else the name
    the materialization writes aside and renames into place (`<model>__td_new`, ADR 0032), as for
    a SQL model. The marker line tells the session
    plugin the format was chosen here and must be kept. -#}
{{ compiled_code }}
# --- table_diff_table materialization (file_format chosen by table_diff_file_format) --- #
from dbt_table_diff.session_submission import write_table as _td_write_table

dbt = dbtObj(spark.table)
df = model(dbt, spark)
_td_write_table(spark, df, "{{ relation }}", "{{ file_format }}")
{%- endmacro %}
