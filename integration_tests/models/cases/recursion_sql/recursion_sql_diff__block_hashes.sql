-- table_diff pair 'recursion_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('recursion_sql_diff__ranges'),
    source=ref('recursion__source'),
    target=ref('recursion__target')
) }}
