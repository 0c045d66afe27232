-- table_diff pair 'composite_range_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('composite__source'),
    target=ref('composite__target'),
    primary_key=['k_str', 'k_int', 'k_date'],
    strategy='range',
    block_count=3,
    split_factor=2,
    compare_unit_size=2
) }}
