-- table_diff pair 'nested_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.row_diff(
    ranges=ref('nested_diff__ranges'),
    block_split=ref('nested_diff__block_split'),
    source=ref('nested__source'),
    target=ref('nested__target')
) }}
