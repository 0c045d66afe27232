-- table_diff pair 'identical_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('identical_diff__ranges'),
    source=ref('identical__source'),
    target=ref('identical__target')
) }}
