-- table_diff pair 'recursion_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('recursion_diff__ranges'),
    source=ref('recursion__source'),
    target=ref('recursion__target')
) }}
