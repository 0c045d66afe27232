-- Negative test of the case harness: diff_matches_expected must fail, row by row, when the
-- expectation is wrong. The identical pair reports no rows, compared with the 15 rows expected of
-- range_edges: exactly 15 'missing from row_diff' rows, so the test errors unless there are 15.
{{ config(warn_if='!=15', error_if='!=15') }}
{{ test_diff_matches_expected(
    model=ref('identical_diff__row_diff'),
    expected=ref('range_edges__expected'),
    key_columns=['id']
) }}
