-- table_diff pair 'nulls_lookalike_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('nulls_lookalike_diff__ranges'),
    block_split=ref('nulls_lookalike_diff__block_split'),
    source=ref('nulls_lookalike__source'),
    target=ref('nulls_lookalike__target')
) }}
