{#-
  table_diff.merge_schema: the schema phase of a three-way merge, decided at compile time from the
  warehouse's column lists (no scan). Returns a list with one entry per non-key column of base,
  ours or theirs (minus exclude_columns / outside columns), in table order:
  {column_name, status, base_type, ours_type, theirs_type, merged_type, schema_conflict, reason}.
  status: unchanged | added_ours | added_theirs | added_both | dropped_ours | dropped_theirs |
  dropped_both | type_changed_ours | type_changed_theirs | type_changed_both | type_conflict.
  Returns [] at parse time.
-#}
{% macro merge_schema(base, ours, theirs, primary_key, columns=none, exclude_columns=none, normalize=none) %}
  {% do table_diff._check_kwargs('merge_schema', kwargs, ['base', 'ours', 'theirs', 'primary_key', 'columns', 'exclude_columns', 'normalize']) %}
  {% for arg, rel in [('base', base), ('ours', ours), ('theirs', theirs)] %}
    {% do table_diff._require_relation('merge_schema', arg, rel) %}
  {% endfor %}
  {% do table_diff._merge_check_options('merge_schema', primary_key, columns, exclude_columns, none, normalize,
      none, 'error') %}
  {{ return(adapter.dispatch('merge_schema', 'table_diff')(base, ours, theirs, primary_key, columns, exclude_columns, normalize)) }}
{% endmacro %}


{% macro default__merge_schema(base, ours, theirs, primary_key, columns, exclude_columns, normalize) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_schema: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
  {{ return([]) }}
{% endmacro %}


{% macro spark__merge_schema(base, ours, theirs, primary_key, columns, exclude_columns, normalize) %}
  {% if not execute %}{{ return([]) }}{% endif %}
  {% set opts = table_diff._merge_check_options('merge_schema', primary_key, columns, exclude_columns, none, normalize,
      none, 'error') %}
  {{ return(table_diff._merge_resolve('merge_schema', base, ours, theirs, opts)['schema']) }}
{% endmacro %}
