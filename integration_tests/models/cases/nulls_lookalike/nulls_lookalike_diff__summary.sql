-- table_diff pair 'nulls_lookalike_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('nulls_lookalike_diff__ranges'),
    block_hashes=ref('nulls_lookalike_diff__block_hashes'),
    block_split=ref('nulls_lookalike_diff__block_split'),
    row_diff=ref('nulls_lookalike_diff__row_diff')
) }}
