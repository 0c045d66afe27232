-- table_diff pair 'composite_hash_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('composite_hash_diff__ranges'),
    source=ref('composite__source'),
    target=ref('composite__target')
) }}
