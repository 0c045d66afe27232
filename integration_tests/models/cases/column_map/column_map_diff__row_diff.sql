-- table_diff pair 'column_map_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('column_map_diff__ranges'),
    block_split=ref('column_map_diff__block_split'),
    source=ref('column_map__source'),
    target=ref('column_map__target')
) }}
