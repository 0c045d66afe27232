-- table_diff pair 'value_types_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('value_types_diff__ranges'),
    block_split=ref('value_types_diff__block_split'),
    source=ref('value_types__source'),
    target=ref('value_types__target')
) }}
