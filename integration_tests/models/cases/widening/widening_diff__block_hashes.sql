-- table_diff pair 'widening_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('widening_diff__ranges'),
    source=ref('widening__source'),
    target=ref('widening__target')
) }}
