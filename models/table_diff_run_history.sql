{{ config(
    materialized='table_diff_history',
    enabled=var('table_diff_history', true),
    schema=var('table_diff_history_schema', none),
    full_refresh=false,
) }}
{{ table_diff._history_model_guard('table_diff_history') }}
{#- Filled by the package's hooks (record_history_start, record_history); this body only declares
    the columns and their types (ADR 0036). -#}
{{ table_diff._history_empty_select() }}
