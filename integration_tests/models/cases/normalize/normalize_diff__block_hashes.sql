-- table_diff pair 'normalize_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('normalize_diff__ranges'),
    source=ref('normalize__source'),
    target=ref('normalize__target')
) }}
