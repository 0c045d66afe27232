-- table_diff pair 'max_diff_rows_sql_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('recursion__source'),
    target=ref('max_diff_rows__target'),
    primary_key=['id'],
    block_count=4,
    split_factor=2,
    compare_unit_size=5,
    max_depth=3,
    max_diff_rows=5
) }}
