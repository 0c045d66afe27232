-- table_diff pair 'columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('columns_diff__ranges'),
    block_split=ref('columns_diff__block_split'),
    source=ref('column_selection__source'),
    target=ref('column_selection__target')
) }}
