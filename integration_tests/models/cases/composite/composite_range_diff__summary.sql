-- table_diff pair 'composite_range_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('composite_range_diff__ranges'),
    block_hashes=ref('composite_range_diff__block_hashes'),
    block_split=ref('composite_range_diff__block_split'),
    row_diff=ref('composite_range_diff__row_diff')
) }}
