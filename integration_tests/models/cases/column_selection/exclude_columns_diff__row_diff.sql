-- table_diff pair 'exclude_columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('exclude_columns_diff__ranges'),
    block_split=ref('exclude_columns_diff__block_split'),
    source=ref('column_selection__source'),
    target=ref('column_selection__target')
) }}
