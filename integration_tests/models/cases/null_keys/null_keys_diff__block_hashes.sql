-- table_diff pair 'null_keys_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('null_keys_diff__ranges'),
    source=ref('null_keys__source'),
    target=ref('null_keys__target')
) }}
