-- table_diff pair 'nested_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table_diff_table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('nested__source'),
    target=ref('nested__target'),
    primary_key=['id'],
    block_count=4,
    compare_unit_size=2
) }}
