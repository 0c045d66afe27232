-- table_diff pair 'duplicates_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('duplicates__source'),
    target=ref('duplicates__target'),
    primary_key=['id'],
    block_count=3,
    split_factor=2,
    compare_unit_size=1,
    check_duplicate_keys=true
) }}
