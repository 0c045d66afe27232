{#-
  table_diff.pair_output: how a model or an analysis reads a table of a pair's last complete run,
  given its summary. On Delta the summary names the version of each table it was computed from
  (ADR 0015): the result is the table at that version, so a later run that failed or was killed
  halfway (and replaced some tables but not the summary) is not seen. Without versions (parquet)
  the table as it is, after checking that it carries the summary's run id (ADR 0011): a
  half-replaced pair fails with the stale table and the rebuild command.
-#}
{% macro pair_output(summary, model) %}
  {% do table_diff._require_relation('pair_output', 'summary', summary) %}
  {% set models = ['ranges', 'block_hashes', 'block_split', 'row_diff', 'column_stats'] %}
  {% if model not in models %}
    {{ table_diff._fail('pair_output', 'model', model, "one of " ~ models | join(', '),
        "Name the pair's table without its prefix, e.g. pair_output(ref('orders_diff__summary'), 'row_diff').") }}
  {% endif %}
  {#- At parse time ref() names the calling model, not the summary: checked when it runs. -#}
  {% if execute and not (summary.identifier | lower).endswith('__summary') %}
    {{ table_diff._fail('pair_output', 'summary', summary, "a pair's summary model (NAME__summary)",
        "Pass ref('<pair>__summary').") }}
  {% endif %}
  {{ return(adapter.dispatch('pair_output', 'table_diff')(summary, model)) }}
{% endmacro %}


{% macro default__pair_output(summary, model) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.pair_output: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__pair_output(summary, model) %}
  {% set identifier = summary.identifier[:-('summary' | length)] ~ model %}
  {% set table = api.Relation.create(database=summary.database, schema=summary.schema, identifier=identifier) %}
  {% if not execute %}{{ return(table) }}{% endif %}
  {% set rebuild = "Rebuild the pair: dbt build --select +" ~ summary.identifier %}
  {% set names = adapter.get_columns_in_relation(summary) | map(attribute='name') | map('lower') | list %}
  {% set version_column = model ~ '_version' %}
  {% set rows = run_query("select run_id, " ~ (version_column if version_column in names else 'cast(null as bigint)')
      ~ " from " ~ summary).rows %}
  {% if rows | length != 1 %}
    {{ exceptions.raise_compiler_error("table_diff.pair_output: " ~ summary ~ " holds " ~ rows | length
        ~ " rows, not the one row of a pair's summary. " ~ rebuild ~ ".") }}
  {% endif %}
  {% set run, version = rows[0][0], rows[0][1] %}
  {% if version is not none %}
    {{ return((table | string) ~ ' ' ~ table_diff.as_of_clause({'version': version | int})) }}
  {% endif %}
  {% if adapter.get_relation(database=table.database, schema=table.schema, identifier=table.identifier) is none %}
    {{ exceptions.raise_compiler_error("table_diff.pair_output: " ~ table ~ " is missing: the pair's last run failed or was "
        ~ "stopped before it was built. " ~ rebuild ~ ".") }}
  {% endif %}
  {% set other = run_query("select max(run_id) from " ~ table ~ " where run_id is distinct from "
      ~ table_diff._sql_string(run)).rows[0][0] %}
  {% if other is not none %}
    {{ exceptions.raise_compiler_error("table_diff.pair_output: " ~ table ~ " belongs to run '" ~ other ~ "' but " ~ summary
        ~ " to run '" ~ run ~ "': the pair's last run failed or was stopped midway, so its tables disagree. " ~ rebuild ~ ".") }}
  {% endif %}
  {{ return(table) }}
{% endmacro %}
