-- Negative test of the merge case harness: rows_match_expected must fail when the model's columns
-- are not the expected ones. Case schema_added's merged table (id, name, score, tag) against case
-- schema_converge's (id, name, qty, price, flag): exactly one 'column list differs' row.
{{ config(warn_if='!=1', error_if='!=1') }}
{{ test_rows_match_expected(
    model=ref('schema_added_merge__merged'),
    expected=ref('schema_converge__expected_merged')
) }}
