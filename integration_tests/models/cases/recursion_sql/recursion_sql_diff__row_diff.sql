-- table_diff pair 'recursion_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('recursion_sql_diff__ranges'),
    block_split=ref('recursion_sql_diff__block_split'),
    source=ref('recursion__source'),
    target=ref('recursion__target')
) }}
