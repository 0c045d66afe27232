-- table_diff pair 'empty_source_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('empty_source_diff__ranges'),
    block_hashes=ref('empty_source_diff__block_hashes'),
    block_split=ref('empty_source_diff__block_split'),
    row_diff=ref('empty_source_diff__row_diff')
) }}
