-- table_diff pair 'column_map_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('column_map_diff__ranges'),
    block_hashes=ref('column_map_diff__block_hashes'),
    block_split=ref('column_map_diff__block_split'),
    row_diff=ref('column_map_diff__row_diff'),
    column_stats=ref('column_map_diff__column_stats')
) }}
