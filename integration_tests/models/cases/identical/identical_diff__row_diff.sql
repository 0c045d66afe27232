-- table_diff pair 'identical_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('identical_diff__ranges'),
    block_split=ref('identical_diff__block_split'),
    source=ref('identical__source'),
    target=ref('identical__target')
) }}
