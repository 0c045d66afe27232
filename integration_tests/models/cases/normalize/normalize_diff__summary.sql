-- table_diff pair 'normalize_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
{{ table_diff.diff_summary(
    ranges=ref('normalize_diff__ranges'),
    block_hashes=ref('normalize_diff__block_hashes'),
    block_split=ref('normalize_diff__block_split'),
    row_diff=ref('normalize_diff__row_diff')
) }}
