{#-
  table_diff.merge_schema_table: the schema phase as a model (one row per column, see
  merge_schema). With on_schema_conflict='error' (default) a conflict fails the model with a
  message naming the tables, the columns and the fix; with 'report' the conflicts are rows with
  schema_conflict = true, and the merge summary lists them.
-#}
{% macro merge_schema_table(base, ours, theirs, primary_key, columns=none, exclude_columns=none, normalize=none,
                            on_schema_conflict='error') %}
  {% do table_diff._check_kwargs('merge_schema_table', kwargs, ['base', 'ours', 'theirs', 'primary_key', 'columns', 'exclude_columns', 'normalize',
      'on_schema_conflict']) %}
  {% for arg, rel in [('base', base), ('ours', ours), ('theirs', theirs)] %}
    {% do table_diff._require_relation('merge_schema_table', arg, rel) %}
  {% endfor %}
  {% do table_diff._merge_check_options('merge_schema_table', primary_key, columns, exclude_columns, none, normalize,
      none, on_schema_conflict) %}
  {{ return(adapter.dispatch('merge_schema_table', 'table_diff')(base, ours, theirs, primary_key, columns,
      exclude_columns, normalize, on_schema_conflict)) }}
{% endmacro %}


{% macro default__merge_schema_table(base, ours, theirs, primary_key, columns, exclude_columns, normalize, on_schema_conflict) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_schema_table: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_schema_table(base, ours, theirs, primary_key, columns, exclude_columns, normalize, on_schema_conflict) %}
  {% set names = ['column_name', 'status', 'base_type', 'ours_type', 'theirs_type', 'merged_type', 'reason'] %}
  {% if not execute %}
    {{ return("select cast(null as string) as column_name, cast(null as boolean) as schema_conflict") }}
  {% endif %}
  {% set opts = table_diff._merge_check_options('merge_schema_table', primary_key, columns, exclude_columns, none,
      normalize, none, on_schema_conflict) %}
  {% set resolved = table_diff._merge_resolve('merge_schema_table', base, ours, theirs, opts) %}
  {% if resolved['conflicts'] | length > 0 and on_schema_conflict == 'error' %}
    {% do table_diff._merge_raise_conflicts('merge_schema_table', resolved) %}
  {% endif %}
  {% set rows = resolved['schema'] if resolved['schema'] | length > 0 else [none] %}
  {% for e in rows %}
  select
    cast({{ loop.index }} as int) as position,
    {%- for n in names %}
    {{ table_diff._sql_string(e[n]) if e is not none and e[n] is not none else 'cast(null as string)' }} as {{ n }},
    {%- endfor %}
    {{ 'true' if e is not none and e['schema_conflict'] else 'false' }} as schema_conflict
  {{ 'where false' if e is none }}
  {{ 'union all' if not loop.last }}
  {% endfor %}
{% endmacro %}
