-- table_diff pair 'identical_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('identical_diff__ranges'),
    block_hashes=ref('identical_diff__block_hashes'),
    block_split=ref('identical_diff__block_split'),
    row_diff=ref('identical_diff__row_diff')
) }}
