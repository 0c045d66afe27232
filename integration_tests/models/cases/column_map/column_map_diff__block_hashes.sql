-- table_diff pair 'column_map_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('column_map_diff__ranges'),
    source=ref('column_map__source'),
    target=ref('column_map__target')
) }}
