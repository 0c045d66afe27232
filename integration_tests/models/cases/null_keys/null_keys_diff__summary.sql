-- table_diff pair 'null_keys_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('null_keys_diff__ranges'),
    block_hashes=ref('null_keys_diff__block_hashes'),
    block_split=ref('null_keys_diff__block_split'),
    row_diff=ref('null_keys_diff__row_diff')
) }}
