-- table_diff pair 'value_types_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('value_types_diff__ranges'),
    source=ref('value_types__source'),
    target=ref('value_types__target')
) }}
