{#-
  Generic test `table_diff.pair_matches`, on a pair's `NAME__summary` (`table-diff scaffold pair
  ... --test` writes it): fails with the pair's differing rows, read from its row diff (no scan of
  either side), or with one row when the last run was partial, saw a side written during the run,
  or left outputs of two runs. The limits are no_drift's (a count, or a share of the source's rows
  such as '0.1%'; unset = 0).
-#}
{% test pair_matches(model, row_diff, max_added=none, max_deleted=none, max_modified=none, max_duplicate_key_rows=none) %}
  {% do table_diff._check_kwargs('pair_matches', kwargs, ['model', 'row_diff', 'max_added', 'max_deleted', 'max_modified',
      'max_duplicate_key_rows']) %}
  {% set limits = {'max_added': max_added, 'max_deleted': max_deleted, 'max_modified': max_modified,
                   'max_duplicate_key_rows': max_duplicate_key_rows} %}
  {{ table_diff.pair_drift_rows(model, row_diff,
      thresholds=(limits if (limits.values() | reject('none') | list) else none)) }}
{% endtest %}
