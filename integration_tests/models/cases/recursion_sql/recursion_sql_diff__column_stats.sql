-- table_diff pair 'recursion_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.column_stats(
    ranges=ref('recursion_sql_diff__ranges'),
    block_hashes=ref('recursion_sql_diff__block_hashes'),
    block_split=ref('recursion_sql_diff__block_split'),
    row_diff=ref('recursion_sql_diff__row_diff')
) }}
