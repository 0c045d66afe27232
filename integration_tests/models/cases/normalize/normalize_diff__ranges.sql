-- table_diff pair 'normalize_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('normalize__source'),
    target=ref('normalize__target'),
    primary_key=['id'],
    block_count=32,
    compare_unit_size=1,
    normalize={'amt': {'round': 2}, 'price': {'round': 2}, 'ts': {'truncate': 'second'}, 'name': {'trim': true, 'lower': true}}
) }}
