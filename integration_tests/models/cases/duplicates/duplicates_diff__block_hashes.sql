-- table_diff pair 'duplicates_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('duplicates_diff__ranges'),
    source=ref('duplicates__source'),
    target=ref('duplicates__target')
) }}
