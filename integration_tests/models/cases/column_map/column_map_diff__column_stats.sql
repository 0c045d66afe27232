-- table_diff pair 'column_map_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.column_stats(
    ranges=ref('column_map_diff__ranges'),
    block_hashes=ref('column_map_diff__block_hashes'),
    block_split=ref('column_map_diff__block_split'),
    row_diff=ref('column_map_diff__row_diff')
) }}
