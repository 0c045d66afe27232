-- table_diff pair 'composite_hash_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('composite_hash_diff__ranges'),
    block_split=ref('composite_hash_diff__block_split'),
    source=ref('composite__source'),
    target=ref('composite__target')
) }}
