{#- Fails with one row per column missing on a side or with types that cannot be compared. -#}
{% test schema_matches(model, compare_to, columns=none, exclude_columns=none, exact_types=false) %}
  {% do table_diff._check_kwargs('schema_matches', kwargs, ['model', 'compare_to', 'columns', 'exclude_columns', 'exact_types']) %}
  {{ table_diff.schema_differences(model, compare_to, columns=columns, exclude_columns=exclude_columns,
      exact_types=exact_types) }}
{% endtest %}
