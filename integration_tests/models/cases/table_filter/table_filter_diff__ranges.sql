-- table_diff pair 'table_filter_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('table_filter__source'),
    target=ref('table_filter__target'),
    primary_key=['id'],
    table_filter='in_scope'
) }}
