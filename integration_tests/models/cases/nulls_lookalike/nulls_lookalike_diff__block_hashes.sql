-- table_diff pair 'nulls_lookalike_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('nulls_lookalike_diff__ranges'),
    source=ref('nulls_lookalike__source'),
    target=ref('nulls_lookalike__target')
) }}
