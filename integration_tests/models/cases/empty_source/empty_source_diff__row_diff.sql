-- table_diff pair 'empty_source_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('empty_source_diff__ranges'),
    block_split=ref('empty_source_diff__block_split'),
    source=ref('empty_sides__empty'),
    target=ref('empty_sides__rows')
) }}
