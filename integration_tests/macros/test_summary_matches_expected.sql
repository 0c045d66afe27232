{#-
  Generic test: a pair's one-row summary model agrees with its row of the expected_summaries seed
  (column case_name). Every expected cell that is not empty is asserted null-safely; an empty cell
  is not asserted (used for counts that are only lower bounds in a partial result).
  columns_compared is compared as the '|'-joined list. One failing row per field that differs,
  plus one when the summary or the expected row is not exactly one row.
-#}
{% test summary_matches_expected(model, expected, case_name) %}
{{ summary_field_checks(model, expected, case_name,
    fields=['rows_source', 'rows_target', 'rows_added', 'rows_deleted', 'rows_modified',
            'duplicate_key_rows', 'null_key_rows_source', 'null_key_rows_target',
            'is_identical', 'is_partial'],
    optional_list_fields=['columns_compared']) }}
{% endtest %}
