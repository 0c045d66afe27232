{#-
  materialized='table_diff_history': the materialization of the package model
  `table_diff_run_history` (ADR 0036). The table is a log the package's hooks append to; building
  the model only makes sure it is there as declared: created when absent, in the format the
  package's tables have (chosen at run time, which dbt's `incremental` cannot do: its format is
  fixed at parse time), and an existing table completed with the columns a newer version of the
  package added (`on_schema_change: append_new_columns`). It never drops, rewrites or empties the
  table, with `--full-refresh` too: a history is not rebuilt from anything.
-#}
{% materialization table_diff_history, adapter='spark' %}
  {%- set target_relation = api.Relation.create(identifier=model['alias'], schema=schema, database=database, type='table') -%}
  {{ run_hooks(pre_hooks) }}
  {%- set relation = table_diff._history_ensure() -%}
  {% call statement('main') %}
    select 1 as ensured
  {% endcall %}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
