{#- Fails when `model` and `compare_to` differ: one row per added, deleted, modified or duplicate-key row.
    Thresholds through dbt's warn_if / error_if. Engine: table_diff.drift_rows. A Delta or Iceberg
    side is read at one version throughout (its current one, or `model_as_of` / `compare_to_as_of`:
    a version number or a timestamp). -#}
{% test no_drift(model, compare_to, primary_key, columns=none, exclude_columns=none, table_filter=none,
                 strategy='hash', block_count=none, block_size=none, normalize=none, max_diff_rows=none,
                 check_duplicate_keys=none, quick_check=true, keys_only=none, model_as_of=none, compare_to_as_of=none) %}
  {% do table_diff._check_kwargs('no_drift', kwargs, ['model', 'compare_to', 'primary_key', 'columns', 'exclude_columns',
      'table_filter', 'strategy', 'block_count', 'block_size', 'normalize', 'max_diff_rows', 'check_duplicate_keys',
      'quick_check', 'keys_only', 'model_as_of', 'compare_to_as_of']) %}
  {{ table_diff.drift_rows(model, compare_to, primary_key, columns=columns, exclude_columns=exclude_columns,
      table_filter=table_filter, strategy=strategy, block_count=block_count, block_size=block_size,
      normalize=normalize, max_diff_rows=max_diff_rows, check_duplicate_keys=check_duplicate_keys,
      quick_check=quick_check, keys_only=keys_only, source_as_of=model_as_of, target_as_of=compare_to_as_of,
      arg_names={'macro': 'no_drift', 'source': 'model', 'target': 'compare_to'}) }}
{% endtest %}
