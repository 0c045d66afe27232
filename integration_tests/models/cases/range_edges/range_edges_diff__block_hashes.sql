-- table_diff pair 'range_edges_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('range_edges_diff__ranges'),
    source=ref('range_edges__source'),
    target=ref('range_edges__target')
) }}
