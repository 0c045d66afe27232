-- table_diff pair 'empty_source_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('empty_source_diff__ranges'),
    source=ref('empty_sides__empty'),
    target=ref('empty_sides__rows')
) }}
