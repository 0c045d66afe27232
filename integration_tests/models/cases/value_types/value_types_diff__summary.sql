-- table_diff pair 'value_types_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('value_types_diff__ranges'),
    block_hashes=ref('value_types_diff__block_hashes'),
    block_split=ref('value_types_diff__block_split'),
    row_diff=ref('value_types_diff__row_diff')
) }}
