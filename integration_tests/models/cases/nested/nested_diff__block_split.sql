-- table_diff pair 'nested_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table_diff_table') }}
-- The split step in SQL (--split sql): runs on any target, the Thrift Server too.
{{ table_diff.block_split(
    ranges=ref('nested_diff__ranges'),
    block_hashes=ref('nested_diff__block_hashes')
) }}
