-- table_diff pair 'tolerance_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('tolerance_diff__ranges'),
    block_split=ref('tolerance_diff__block_split'),
    source=ref('tolerance__source'),
    target=ref('tolerance__target')
) }}
