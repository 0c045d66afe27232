{#- Fails with one row per conflicting key of a `NAME__merge` model and per schema conflict of its
    `NAME__merge_schema` model (optional). Engine: table_diff.merge_conflict_rows. -#}
{% test no_merge_conflicts(model, merge_schema=none) %}
  {% do table_diff._check_kwargs('no_merge_conflicts', kwargs, ['model', 'merge_schema']) %}
  {{ table_diff.merge_conflict_rows(model, merge_schema=merge_schema) }}
{% endtest %}
