{#- Questions the warehouse answers without reading data: is a SQL statement valid, which file
    holds a row (for the concurrent-write check of ADR 0011), can the session write Delta tables
    (for the package's own tables, ADR 0015). -#}

{% macro explain_error(sql) %}
  {{ return(adapter.dispatch('explain_error', 'table_diff')(sql)) }}
{% endmacro %}


{% macro default__explain_error(sql) %}
  {{ return(table_diff._not_implemented('explain_error')) }}
{% endmacro %}


{% macro spark__explain_error(sql) %}
  {#-
    The analysed plan of `sql`, no data read. `explain execute immediate '<sql>'` (not a plain
    `explain <sql>`): the inner statement is parsed during analysis, so a syntax error comes back,
    like an unknown column or a type error, as output rows ("Error occurred during query planning: "
    then Spark's message and the plan) instead of raising with the position in the compiled SQL.
    Returns Spark's first line of the error, without the exception class, SQLSTATE and position
    noise, or none when the statement is valid.
  -#}
  {% set res = run_query('explain execute immediate ' ~ table_diff._sql_string(sql)) %}
  {% set lines = [] %}
  {% for row in res.rows %}{% do lines.extend((row[0] | string).split('\n')) %}{% endfor %}
  {% set text = lines | join('\n') %}
  {% set marker = 'Error occurred during query planning:' %}
  {% if marker not in text %}{{ return(none) }}{% endif %}
  {% set ns = namespace(reason='') %}
  {% for line in text.split(marker, 1)[1].split('\n') %}
    {% if ns.reason == '' and line | trim != '' %}{% set ns.reason = line | trim %}{% endif %}
  {% endfor %}
  {% set reason = modules.re.sub('^[a-zA-Z0-9_.]*(Exception|Error): ', '', ns.reason) %}
  {% set reason = modules.re.sub('\\s*SQLSTATE: [0-9A-Z]+.*$', '', reason) %}
  {{ return(modules.re.sub('[;.]?\\s*$', '', reason)) }}
{% endmacro %}


{% macro file_modified_at(relation) %}
  {{ return(adapter.dispatch('file_modified_at', 'table_diff')(relation)) }}
{% endmacro %}


{% macro default__file_modified_at(relation) %}
  {#- No portable way to ask: the write check is skipped (and logged) for every relation. -#}
  {{ return(none) }}
{% endmacro %}


{% macro spark__file_modified_at(relation) %}
  {#- `_metadata.file_modification_time` when `relation` exposes `_metadata` (file sources:
      parquet, Delta, ORC, ...), else none. Asked with EXPLAIN, which reports an analysis error as
      text instead of raising, and reads no data. -#}
  {% set plan = run_query("explain select _metadata.file_modification_time from " ~ relation).rows %}
  {% if plan | length > 0 and not (plan[0][0] | string).startswith('Error occurred') %}
    {{ return('_metadata.file_modification_time') }}
  {% endif %}
  {{ return(none) }}
{% endmacro %}


{% macro file_identity(relation, format) %}
  {{ return(adapter.dispatch('file_identity', 'table_diff')(relation, format)) }}
{% endmacro %}


{% macro default__file_identity(relation, format) %}
  {#- No portable way to ask: a changes track re-hashes every side whole (and says why). -#}
  {{ return(none) }}
{% endmacro %}


{% macro spark__file_identity(relation, format) %}
  {#- What identifies the data file a row was read from, without reading data (ADR 0019):
      {'path', 'size', 'modified': SQL expressions over `_metadata`; 'selectable': whether a filter
      on the path makes Spark open only those files}. Parquet (and other plain file sources) prune
      files by a `_metadata.file_path IN (...)` filter; Delta's file index does not (it reads every
      file and filters the rows), so there the track saves the grouping, not the read;
      'first_row': a predicate true on the first row of each file, where the format numbers its
      rows (parquet's `_metadata.row_index`), else none. None without
      `_metadata` (a view, Iceberg, a non-file source). -#}
  {% if table_diff.file_modified_at(relation) is none %}{{ return(none) }}{% endif %}
  {{ return({'path': '_metadata.file_path', 'size': '_metadata.file_size',
             'modified': '_metadata.file_modification_time', 'selectable': format not in ['delta'],
             'first_row': '_metadata.row_index = 0' if format == 'parquet' else none}) }}
{% endmacro %}


{% macro delta_support() %}
  {{ return(adapter.dispatch('delta_support', 'table_diff')()) }}
{% endmacro %}


{% macro default__delta_support() %}
  {#- No portable way to ask: the package's tables stay plain (parquet or the warehouse's default). -#}
  {{ return({'available': false, 'detail': "adapter '" ~ adapter.type() ~ "' has no Delta check"}) }}
{% endmacro %}


{% macro spark__delta_support() %}
  {#-
    Whether this session can create and time-travel Delta tables in its session catalog (the
    package's own tables live there): Delta's catalog is `spark_catalog` and Delta's SQL extension
    is loaded, as Delta requires (without them `create table ... using delta` fails). Two `SET`
    lookups of the session's conf: no table is read, and the answer is the session's, not the
    profile's (a conf from spark-defaults.conf counts too). {'available': bool, 'detail': text}.
  -#}
  {% set catalog = run_query('set spark.sql.catalog.spark_catalog').rows[0][1] | string %}
  {% set extensions = run_query('set spark.sql.extensions').rows[0][1] | string %}
  {% set available = 'DeltaCatalog' in catalog and 'DeltaSparkSessionExtension' in extensions %}
  {{ return({'available': available,
      'detail': 'spark.sql.catalog.spark_catalog = ' ~ catalog ~ ', spark.sql.extensions = ' ~ extensions}) }}
{% endmacro %}


{% macro databricks__delta_support() %}
  {#- Delta is the platform's own table format (dbt-databricks' default file_format). Not run here. -#}
  {{ return({'available': true, 'detail': 'Databricks'}) }}
{% endmacro %}
