-- table_diff pair 'exclude_columns_diff', written by `table-diff scaffold pair`.
{{ config(materialized='table') }}
-- Options of the pair live here; downstream models read them from this table.
{{ table_diff.key_ranges(
    source=ref('column_selection__source'),
    target=ref('column_selection__target'),
    primary_key=['id'],
    exclude_columns=['c']
) }}
