-- table_diff pair 'tolerance_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('tolerance__source'),
    target=ref('tolerance__target'),
    primary_key=['id'],
    block_count=4,
    compare_unit_size=1,
    tolerance={'amount': {'abs': 0.01}, 'price': {'abs': 0.01}, 'ts': {'abs': '2 seconds'}, 'rate': {'rel': 1e-06}}
) }}
