-- table_diff pair 'columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.block_hashes(
    ranges=ref('columns_diff__ranges'),
    source=ref('column_selection__source'),
    target=ref('column_selection__target')
) }}
