-- table_diff pair 'table_filter_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('table_filter_diff__ranges'),
    block_split=ref('table_filter_diff__block_split'),
    source=ref('table_filter__source'),
    target=ref('table_filter__target')
) }}
