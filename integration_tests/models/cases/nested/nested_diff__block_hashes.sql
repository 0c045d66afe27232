-- table_diff pair 'nested_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table_diff_table') }}
{{ table_diff.block_hashes(
    ranges=ref('nested_diff__ranges'),
    source=ref('nested__source'),
    target=ref('nested__target')
) }}
