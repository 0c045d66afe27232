-- table_diff pair 'max_diff_rows_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- The split step in SQL (--split sql): runs on any target, the Thrift Server too.
{{ table_diff.block_split(
    ranges=ref('max_diff_rows_sql_diff__ranges'),
    block_hashes=ref('max_diff_rows_sql_diff__block_hashes')
) }}
