{#-
  Generic test: a merge's one-row `<name>__merge_summary` agrees with its row of the expected seed
  (column case_name). Counts and is_clean are asserted null-safely wherever the expected cell is
  not empty (an empty cell is not asserted: counts that depend on the hash layout). The list
  fields schema_conflict_columns and constraints are always asserted, '|'-joined (an empty cell
  is the empty list). One failing row per field that differs, plus one when the summary or the
  expected row is not exactly one row.
-#}
{% test merge_summary_matches_expected(model, expected, case_name) %}
{{ summary_field_checks(model, expected, case_name,
    fields=['keys_checked', 'unchanged', 'ours_only', 'theirs_only', 'convergent', 'cell_merged',
            'conflict', 'update_update', 'update_delete', 'delete_update', 'insert_insert',
            'duplicate_keys', 'changed_keys', 'schema_conflicts', 'constraint_violations',
            'is_clean'],
    list_fields=['schema_conflict_columns', 'constraints']) }}
{% endtest %}
