-- Negative test of the merge case harness: merge_summary_matches_expected must fail, field by
-- field, when the expectation is wrong. Case schema_added's summary against the row of case
-- schema_converge differs in theirs_only (2/1), convergent (0/1), cell_merged (1/0), conflict
-- (0/1), update_update (0/1) and is_clean (true/false): exactly 6 failing rows.
{{ config(warn_if='!=6', error_if='!=6') }}
{{ test_merge_summary_matches_expected(
    model=ref('schema_added_merge__merge_summary'),
    expected=ref('expected_merge_summaries'),
    case_name='schema_converge'
) }}
