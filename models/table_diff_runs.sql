{{ config(
    materialized='view',
    enabled=var('table_diff_history', true),
    schema=var('table_diff_history_schema', none),
) }}
{{ table_diff._history_model_guard('view') }}
{{ table_diff._history_runs_select(ref('table_diff_run_history')) }}
