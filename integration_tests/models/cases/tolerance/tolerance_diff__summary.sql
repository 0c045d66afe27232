-- table_diff pair 'tolerance_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('tolerance_diff__ranges'),
    block_hashes=ref('tolerance_diff__block_hashes'),
    block_split=ref('tolerance_diff__block_split'),
    row_diff=ref('tolerance_diff__row_diff'),
    column_stats=ref('tolerance_diff__column_stats')
) }}
