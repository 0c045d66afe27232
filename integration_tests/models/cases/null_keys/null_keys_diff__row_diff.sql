-- table_diff pair 'null_keys_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('null_keys_diff__ranges'),
    block_split=ref('null_keys_diff__block_split'),
    source=ref('null_keys__source'),
    target=ref('null_keys__target')
) }}
