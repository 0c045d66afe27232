-- table_diff pair 'normalize_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.row_diff(
    ranges=ref('normalize_diff__ranges'),
    block_split=ref('normalize_diff__block_split'),
    source=ref('normalize__source'),
    target=ref('normalize__target')
) }}
