-- Negative test of the merge case harness: rows_match_expected must fail, row by row, when the
-- expectation is wrong. Case schema_added's merge rows (keys 1-5) against case schema_converge's
-- expected merge rows (keys 1, 2, 4, 5, 6): no row is alike, so 5 'unexpected' and 5 'missing'
-- rows; the test errors unless there are exactly 10.
{{ config(warn_if='!=10', error_if='!=10') }}
{{ test_rows_match_expected(
    model=ref('schema_added_merge__merge'),
    expected=ref('schema_converge__expected_merge'),
    array_columns=['ours_changed', 'theirs_changed']
) }}
