-- table_diff pair 'range_edges_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('range_edges_diff__ranges'),
    block_split=ref('range_edges_diff__block_split'),
    source=ref('range_edges__source'),
    target=ref('range_edges__target')
) }}
