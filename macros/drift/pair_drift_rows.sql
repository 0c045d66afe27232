{#-
  table_diff.pair_drift_rows: the failing rows of a pair that was built, read from its outputs at no
  cost (no scan of either side): the rows of its row diff whose kind is over its limit (every row
  without limits), or one row saying why the result cannot be trusted (partial, a side written
  during the run, outputs of two different runs). The generic test `pair_matches` on
  `NAME__summary` calls it: a `dbt build` of the pair then fails with the diff already built.
-#}
{% macro pair_drift_rows(summary, row_diff, thresholds=none) %}
  {% do table_diff._require_relation('pair_drift_rows', 'summary', summary) %}
  {% do table_diff._require_relation('pair_drift_rows', 'row_diff', row_diff) %}
  {% set limits = table_diff._check_thresholds('pair_matches', thresholds) %}
  {{ return(adapter.dispatch('pair_drift_rows', 'table_diff')(summary, row_diff, limits)) }}
{% endmacro %}


{% macro default__pair_drift_rows(summary, row_diff, limits) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.pair_drift_rows: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__pair_drift_rows(summary, row_diff, limits) %}
  {% if not execute %}{{ return("select 'added' as diff_type") }}{% endif %}
  {% set rows = run_query("select status, rows_added, rows_deleted, rows_modified, duplicate_key_rows, rows_source, run_id,"
      ~ " source_relation, target_relation from " ~ summary).rows %}
  {% if rows | length != 1 %}
    {{ table_diff._fail('pair_matches', 'model', summary, "a pair's summary with its one row",
        "Build the pair first: dbt build --select +" ~ summary.identifier) }}
  {% endif %}
  {% set s = rows[0] %}
  {% set label = s[7] ~ " vs " ~ s[8] %}
  {% set other = run_query("select max(run_id) from " ~ row_diff ~ " where run_id is distinct from " ~ table_diff._sql_string(s[6])).rows[0][0] %}
  {% set problem = none %}
  {% if other is not none %}
    {% set problem = row_diff ~ " holds run " ~ other ~ ", the summary run " ~ s[6] ~ ": a run stopped between them; rebuild the pair" %}
  {% elif s[0] != 'complete' %}
    {% set problem = "the pair's last run is " ~ s[0] ~ ("" if s[0] != 'partial' else " (max_diff_rows cut it short)")
        ~ ": its counts are not a verdict; rebuild the pair" ~ (" when writes to its sides have stopped" if s[0] == 'changed_during_run' else " with a larger max_diff_rows") %}
  {% endif %}
  {% if problem %}
    {% do log("table_diff.pair_matches: " ~ label ~ ": FAIL: " ~ problem ~ ".", info=true) %}
    select {{ table_diff._sql_string(problem) }} as problem
  {% else %}
    {% set counts = {'added': s[1] | int, 'deleted': s[2] | int, 'modified': s[3] | int, 'duplicate_key': s[4] | int} %}
    {% if limits %}
      {% set over = table_diff._over_thresholds(limits, counts, s[5] | int) %}
    {% else %}
      {% set over = {} %}
      {% for kind, n in counts.items() %}{% if n > 0 %}{% do over.update({kind: kind ~ ": " ~ n}) %}{% endif %}{% endfor %}
    {% endif %}
    {% do log("table_diff.pair_matches: " ~ label ~ ": " ~ (("DIFFER: " ~ (over.values() | join('; '))
        ~ (" (limits " ~ table_diff._limits_text(limits) ~ ")" if limits else "")
        ~ "; added = only in the target, deleted = only in the source. The rows are in " ~ row_diff ~ ".") if over
        else ("within limits (" ~ table_diff._limits_text(limits) ~ ")" if (counts.values() | sum) > 0 else "identical")), info=true) %}
    select * from {{ row_diff }}
    where {{ table_diff._in_list('diff_type', over.keys() | list) }}
  {% endif %}
{% endmacro %}
