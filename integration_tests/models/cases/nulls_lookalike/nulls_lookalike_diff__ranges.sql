-- table_diff pair 'nulls_lookalike_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('nulls_lookalike__source'),
    target=ref('nulls_lookalike__target'),
    primary_key=['id'],
    block_count=32,
    compare_unit_size=1
) }}
