-- table_diff pair 'recursion_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('recursion__source'),
    target=ref('recursion__target'),
    primary_key=['id'],
    block_count=2,
    split_factor=2,
    compare_unit_size=5,
    max_depth=3
) }}
