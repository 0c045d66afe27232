-- Negative test of the case harness: summary_matches_expected must fail, field by field, when the
-- expectation is wrong. The identical pair's summary against the row of case empty_source differs
-- in rows_source (5/0), rows_target (5/3), rows_added (0/3), is_identical (true/false) and
-- columns_compared: exactly 5 failing rows, so the test errors unless there are 5.
{{ config(warn_if='!=5', error_if='!=5') }}
{{ test_summary_matches_expected(
    model=ref('identical_diff__summary'),
    expected=ref('expected_summaries'),
    case_name='empty_source'
) }}
