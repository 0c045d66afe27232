-- table_diff pair 'duplicates_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('duplicates_diff__ranges'),
    block_hashes=ref('duplicates_diff__block_hashes'),
    block_split=ref('duplicates_diff__block_split'),
    row_diff=ref('duplicates_diff__row_diff')
) }}
