-- table_diff pair 'empty_target_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('empty_target_diff__ranges'),
    block_split=ref('empty_target_diff__block_split'),
    source=ref('empty_sides__rows'),
    target=ref('empty_sides__empty')
) }}
