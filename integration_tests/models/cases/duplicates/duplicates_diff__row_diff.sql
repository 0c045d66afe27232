-- table_diff pair 'duplicates_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('duplicates_diff__ranges'),
    block_split=ref('duplicates_diff__block_split'),
    source=ref('duplicates__source'),
    target=ref('duplicates__target')
) }}
