{#-
  materialized='table_diff_table': the table materialization of the package's own models (the
  scaffolded pair and merge pipelines, ADR 0015). dbt-spark's `table`, with the file format chosen
  at run time by the project var `table_diff_file_format` ('auto': Delta when the session has it,
  else parquet; 'delta'; 'parquet'; a model's own `file_format` config wins) instead of at parse
  time, when no session exists to ask, and with the old table kept until the new one is whole:

  - Delta over an existing Delta table: `create or replace table ... using delta as ...`, for a
    Python model `createOrReplace` through the session plugin's writer (Spark runs it as the same
    statement): one commit. Every Delta table of the package maps columns by name
    (`delta.columnMapping.mode`), so user column names with a space or a comma (a merge's
    `ours__Unit Price`) are written as they are. Until it lands, readers see
    the previous version; after it, the previous versions stay readable by `version as of`. A
    build killed at any point leaves the table whole.
  - With no table under the name: written there directly (Delta: `create or replace`).
  - Otherwise (parquet, or a change of format), by rename (ADR 0032): the new table is written
    aside as `<name>__td_new`; only when that create succeeded is the old table renamed
    `<name>__td_old`, the new one renamed `<name>`, and the old one dropped. A rename is one
    metastore call (a managed table's folder moves with it), so a build killed while writing
    leaves the old table whole under its name, and one killed after the renames the new one.
    The name is empty only between the two renames; a build killed there leaves both tables
    aside, and readers report the table missing until the next build of the model, which first
    puts the old table back under its name. Every build first drops what a killed build left
    (`__td_new`, and `__td_old` beside a table in place) before it writes.
  - A model with a `location_root` config: dbt-spark's drop, then create (its folder is named
    after the model, so a second table cannot be written beside it). A build killed between the
    two leaves no table (ADR 0011 makes that visible to every reader).

  The format is resolved before anything is dropped, so 'delta' on a session without Delta fails
  with the table untouched. Hooks, grants and persist_docs as in dbt-spark's `table`, applied to
  the table under the model's name once it is in place; the partition, clustering, location,
  options, tblproperties (beside column mapping on Delta) and comment configs go into the DDL of a
  SQL model as there (the comment survives the rename). Model contracts are not supported.
-#}
{% materialization table_diff_table, adapter='spark', supported_languages=['sql', 'python'] %}
  {%- set language = model['language'] -%}
  {%- set identifier = model['alias'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set file_format = table_diff._output_file_format() -%}

  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {%- set target_relation = api.Relation.create(identifier=identifier, schema=schema, database=database, type='table') -%}
  {%- set new_relation = table_diff._sibling(target_relation, '__td_new') -%}

  {{ run_hooks(pre_hooks) }}

  {#- What a killed build left: a new table not swapped in is dropped; an old table renamed aside
      goes back under the model's name when nothing is there (killed between the two renames),
      else it is dropped (killed before its drop). -#}
  {%- set aside = table_diff._existing(table_diff._sibling(target_relation, '__td_old')) -%}
  {% if aside is not none and old_relation is none %}
    {% do log("table_diff_table: " ~ target_relation ~ " was missing and " ~ aside
        ~ " held its previous table (a build was stopped between its two renames): put back.", info=true) %}
    {% do adapter.rename_relation(aside, target_relation.incorporate(type=aside.type)) %}
    {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {% elif aside is not none %}
    {% do adapter.drop_relation(aside) %}
  {% endif %}
  {%- set leftover = table_diff._existing(new_relation) -%}
  {% if leftover is not none %}{% do adapter.drop_relation(leftover) %}{% endif %}

  {#- Replace in place only Delta over Delta (one commit). Otherwise write aside and rename, except
      under a location_root (the folder is the model's name): drop, then create. -#}
  {%- set in_place = file_format == 'delta' and old_relation is not none
      and old_relation.type == 'table' and old_relation.is_delta -%}
  {#- With no table under the name there is nothing to keep: the table is written there directly
      (on Delta by `create or replace`, one commit, as a replace in place). -#}
  {%- set by_rename = not in_place and old_relation is not none and config.get('location_root') is none -%}
  {% if old_relation is not none and not in_place and not by_rename %}
    {{ adapter.drop_relation(old_relation) }}
  {% endif %}
  {%- set write_relation = new_relation if by_rename else target_relation -%}

  {%- call statement('main', language=language) -%}
    {%- if language == 'sql' -%}
      {{ 'create or replace table' if file_format == 'delta' and not by_rename else 'create table' }} {{ write_relation }}
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
      {{ table_diff._py_write_table(compiled_code, write_relation, file_format) }}
    {%- endif -%}
  {%- endcall -%}

  {% if by_rename %}
    {#- The new table is whole: swap it in. Between the two renames the name is empty (see above). -#}
    {% do adapter.cache_added(new_relation) %}
    {#- by_rename implies a table under the name (a first build writes there directly). -#}
    {%- set old_aside = old_relation.incorporate(path={'identifier': identifier ~ '__td_old'}) -%}
    {% do adapter.rename_relation(old_relation, old_aside) %}
    {% do adapter.rename_relation(new_relation, target_relation) %}
    {% do adapter.drop_relation(old_aside) %}
  {% endif %}

  {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
