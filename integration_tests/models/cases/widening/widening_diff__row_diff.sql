-- table_diff pair 'widening_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('widening_diff__ranges'),
    block_split=ref('widening_diff__block_split'),
    source=ref('widening__source'),
    target=ref('widening__target')
) }}
