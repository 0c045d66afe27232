{#- Fails with one row per conflicting key of a `NAME__merge` model and per schema conflict of its
    `NAME__merge_schema` model (optional). Engine: table_diff.merge_conflict_rows. -#}
{% test no_merge_conflicts(model, merge_schema=none) %}
  {{ table_diff.merge_conflict_rows(model, merge_schema=merge_schema) }}
{% endtest %}
