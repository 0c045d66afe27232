-- table_diff pair 'composite_range_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('composite_range_diff__ranges'),
    block_split=ref('composite_range_diff__block_split'),
    source=ref('composite__source'),
    target=ref('composite__target')
) }}
