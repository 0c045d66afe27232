-- table_diff pair 'widening_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('widening_diff__ranges'),
    block_hashes=ref('widening_diff__block_hashes'),
    block_split=ref('widening_diff__block_split'),
    row_diff=ref('widening_diff__row_diff')
) }}
