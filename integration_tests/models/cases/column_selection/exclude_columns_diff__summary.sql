-- table_diff pair 'exclude_columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('exclude_columns_diff__ranges'),
    block_hashes=ref('exclude_columns_diff__block_hashes'),
    block_split=ref('exclude_columns_diff__block_split'),
    row_diff=ref('exclude_columns_diff__row_diff')
) }}
