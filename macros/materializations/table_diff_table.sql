{#-
  materialized='table_diff_table': the table materialization of the package's own models (the
  scaffolded pair and merge pipelines, ADR 0015). dbt-spark's `table`, with the file format chosen
  at run time by the project var `table_diff_file_format` ('auto': Delta when the session has it,
  else parquet; 'delta'; 'parquet'; a model's own `file_format` config wins) instead of at parse
  time, when no session exists to ask:

  - Delta over an existing Delta table: `create or replace table ... using delta as ...`, for a
    Python model `createOrReplace` through the session plugin's writer (Spark runs it as the same
    statement): one commit. Every Delta table of the package maps columns by name
    (`delta.columnMapping.mode`), so user column names with a space or a comma (a merge's
    `ours__Unit Price`) are written as they are. Until it lands, readers see
    the previous version; after it, the previous versions stay readable by `version as of`. A
    build killed at any point leaves the table whole.
  - Otherwise (parquet, or a change of format): dbt-spark's drop, then create. A build killed
    between the two leaves no table (ADR 0011 makes that visible to every reader).

  The format is resolved before anything is dropped, so 'delta' on a session without Delta fails
  with the table untouched. Hooks, grants and persist_docs as in dbt-spark's `table`; the
  partition, clustering, location, options, tblproperties (beside column mapping on Delta) and
  comment configs go into the DDL of a SQL model as there. Model contracts are not supported.
-#}
{% materialization table_diff_table, adapter='spark', supported_languages=['sql', 'python'] %}
  {%- set language = model['language'] -%}
  {%- set identifier = model['alias'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set file_format = table_diff._output_file_format() -%}

  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {%- set target_relation = api.Relation.create(identifier=identifier, schema=schema, database=database, type='table') -%}

  {{ run_hooks(pre_hooks) }}

  {#- Replace in place only Delta over Delta: a parquet table cannot be replaced atomically, and a
      change of format needs a new table. -#}
  {%- set in_place = file_format == 'delta' and old_relation is not none
      and old_relation.type == 'table' and old_relation.is_delta -%}
  {% if old_relation is not none and not in_place %}
    {{ adapter.drop_relation(old_relation) }}
  {% endif %}

  {%- call statement('main', language=language) -%}
    {%- if language == 'sql' -%}
      {{ 'create or replace table' if file_format == 'delta' else 'create table' }} {{ target_relation }}
      using {{ file_format }}
      {{ options_clause() }}
      {{ table_diff._output_tblproperties(file_format) }}
      {{ partition_cols(label="partitioned by") }}
      {{ clustered_cols(label="clustered by") }}
      {{ location_clause() }}
      {{ comment_clause() }}
      as
      {{ compiled_code }}
    {%- else -%}
      {{ table_diff._py_write_table(compiled_code, target_relation, file_format) }}
    {%- endif -%}
  {%- endcall -%}

  {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
