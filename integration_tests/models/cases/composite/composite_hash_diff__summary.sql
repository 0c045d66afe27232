-- table_diff pair 'composite_hash_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('composite_hash_diff__ranges'),
    block_hashes=ref('composite_hash_diff__block_hashes'),
    block_split=ref('composite_hash_diff__block_split'),
    row_diff=ref('composite_hash_diff__row_diff')
) }}
