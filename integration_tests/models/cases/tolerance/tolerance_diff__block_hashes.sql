-- table_diff pair 'tolerance_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('tolerance_diff__ranges'),
    source=ref('tolerance__source'),
    target=ref('tolerance__target')
) }}
