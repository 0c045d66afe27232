{#- Fails when `model` and `compare_to` differ: one row per added, deleted, modified or duplicate-key row.
    Limits per kind of change (max_added, max_deleted, max_modified, max_duplicate_key_rows: a count, or a
    share of the model's rows like '0.1%'; unset means 0): only the rows of a kind over its limit fail.
    dbt's warn_if / error_if apply to the rows that fail. Engine: table_diff.drift_rows. A Delta or Iceberg
    side is read at one version throughout (its current one, or `model_as_of` / `compare_to_as_of`:
    a version number or a timestamp). column_map {compare_to column: model column} compares columns
    (keys included) named differently; the rows fail under the model's names. tolerance per column
    ({'amount': {'abs': 0.01}}): values within it are equal. -#}
{% test no_drift(model, compare_to, primary_key, columns=none, exclude_columns=none, table_filter=none,
                 strategy='hash', block_count=none, block_size=none, normalize=none, max_diff_rows=none,
                 check_duplicate_keys=none, quick_check=true, keys_only=none, model_as_of=none, compare_to_as_of=none,
                 max_added=none, max_deleted=none, max_modified=none, max_duplicate_key_rows=none, column_map=none, tolerance=none) %}
  {#- The valid names come from the option schema (ADR 0039); the signature above stays explicit for
      dbt, and tests/python/test_option_schema.py checks that it names exactly the same options. -#}
  {% do table_diff._check_kwargs('no_drift', kwargs, ['model', 'compare_to'] + table_diff._option_names('no_drift')) %}
  {% set limits = {'max_added': max_added, 'max_deleted': max_deleted, 'max_modified': max_modified,
                   'max_duplicate_key_rows': max_duplicate_key_rows} %}
  {{ table_diff.drift_rows(model, compare_to, primary_key, columns=columns, exclude_columns=exclude_columns,
      table_filter=table_filter, strategy=strategy, block_count=block_count, block_size=block_size,
      normalize=normalize, max_diff_rows=max_diff_rows, check_duplicate_keys=check_duplicate_keys,
      quick_check=quick_check, keys_only=keys_only, source_as_of=model_as_of, target_as_of=compare_to_as_of,
      thresholds=(limits if (limits.values() | reject('none') | list) else none), column_map=column_map, tolerance=tolerance,
      arg_names={'macro': 'no_drift', 'source': 'model', 'target': 'compare_to'}) }}
{% endtest %}
