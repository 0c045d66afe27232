-- table_diff pair 'max_diff_rows_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.column_stats(
    ranges=ref('max_diff_rows_sql_diff__ranges'),
    block_hashes=ref('max_diff_rows_sql_diff__block_hashes'),
    block_split=ref('max_diff_rows_sql_diff__block_split'),
    row_diff=ref('max_diff_rows_sql_diff__row_diff')
) }}
