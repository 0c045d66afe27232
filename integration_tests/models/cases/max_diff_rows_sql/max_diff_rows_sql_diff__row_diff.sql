-- table_diff pair 'max_diff_rows_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('max_diff_rows_sql_diff__ranges'),
    block_split=ref('max_diff_rows_sql_diff__block_split'),
    source=ref('recursion__source'),
    target=ref('max_diff_rows__target')
) }}
