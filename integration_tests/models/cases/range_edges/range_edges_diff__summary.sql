-- table_diff pair 'range_edges_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('range_edges_diff__ranges'),
    block_hashes=ref('range_edges_diff__block_hashes'),
    block_split=ref('range_edges_diff__block_split'),
    row_diff=ref('range_edges_diff__row_diff')
) }}
