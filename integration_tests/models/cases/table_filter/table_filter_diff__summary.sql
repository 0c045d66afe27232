-- table_diff pair 'table_filter_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('table_filter_diff__ranges'),
    block_hashes=ref('table_filter_diff__block_hashes'),
    block_split=ref('table_filter_diff__block_split'),
    row_diff=ref('table_filter_diff__row_diff')
) }}
