-- table_diff pair 'table_filter_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('table_filter_diff__ranges'),
    source=ref('table_filter__source'),
    target=ref('table_filter__target')
) }}
