-- table_diff pair 'empty_target_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('empty_target_diff__ranges'),
    source=ref('empty_sides__rows'),
    target=ref('empty_sides__empty')
) }}
