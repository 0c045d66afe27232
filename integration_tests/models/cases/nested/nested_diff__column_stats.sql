-- table_diff pair 'nested_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.column_stats(
    ranges=ref('nested_diff__ranges'),
    block_hashes=ref('nested_diff__block_hashes'),
    block_split=ref('nested_diff__block_split'),
    row_diff=ref('nested_diff__row_diff')
) }}
