-- table_diff pair 'columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('columns_diff__ranges'),
    block_hashes=ref('columns_diff__block_hashes'),
    block_split=ref('columns_diff__block_split'),
    row_diff=ref('columns_diff__row_diff')
) }}
