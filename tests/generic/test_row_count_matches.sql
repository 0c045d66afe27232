{#- Fails (one row) when the row counts of `model` and `compare_to` differ by more than the tolerance. -#}
{% test row_count_matches(model, compare_to, table_filter=none, tolerance=0, tolerance_pct=none) %}
  {% do table_diff._check_kwargs('row_count_matches', kwargs, ['model', 'compare_to', 'table_filter', 'tolerance', 'tolerance_pct']) %}
  {{ table_diff.row_count_difference(model, compare_to, table_filter=table_filter, tolerance=tolerance,
      tolerance_pct=tolerance_pct) }}
{% endtest %}
