{#-
  table_diff.column_stats: one row per compared column of a pair (ADR 0021): in how many modified
  rows it changed (`rows_changed`), the pair's matched keys (keys stored exactly once on each side,
  NULL keys included: the unchanged and the modified ones) and the share of them that changed in
  this column. Read from the row diff and the block counts: no scan of either side. A partial run
  (max_diff_rows) has `is_partial` true, `matched_keys` and `changed_share` NULL, and
  `rows_changed` only a lower bound. Logs the most changed columns and the first rows of each kind
  of change by key (var table_diff_sample_rows, default 5). Refuses inputs of another run (ADR 0011).
-#}
{% macro column_stats(ranges, block_hashes, block_split, row_diff) %}
  {% do table_diff._require_relation('column_stats', 'ranges', ranges) %}
  {% do table_diff._require_relation('column_stats', 'block_hashes', block_hashes) %}
  {% do table_diff._require_relation('column_stats', 'block_split', block_split) %}
  {% do table_diff._require_relation('column_stats', 'row_diff', row_diff) %}
  {% set per_class = table_diff._sample_rows_var('column_stats') %}
  {{ return(adapter.dispatch('column_stats', 'table_diff')(ranges, block_hashes, block_split, row_diff, per_class)) }}
{% endmacro %}


{% macro default__column_stats(ranges, block_hashes, block_split, row_diff, per_class=5) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.column_stats: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__column_stats(ranges, block_hashes, block_split, row_diff, per_class=5) %}
  {% if not execute %}
    {{ return("select cast(null as string) as column_name") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('column_stats', ranges) %}
  {#- One query (ADR 0045) reads the inputs' run ids (ADR 0011) and every number of the model,
      which its statement then writes as they are: the log, what the on-call engineer reads
      first, is built from the same numbers. -#}
  {% set runs = [['block_hashes', block_hashes, none, none], ['block_split', block_split, none, none], ['row_diff', row_diff, none, none]] %}
  {% do table_diff._require_run_columns('column_stats', runs, spec) %}
  {% set facts = table_diff._column_stats_facts(spec, block_hashes, block_split, row_diff) %}
  {% do table_diff._fail_on_other_runs('column_stats', runs, spec, facts['others']) %}
  {% set sql = table_diff._column_stats_sql(spec, facts) %}
  {#- Most changed first; ties in table order (the sort is stable). -#}
  {% set changes = [] %}
  {% for c in spec['columns'] %}
    {% set n = facts['rows_changed'].get(loop.index, 0) %}
    {% if n > 0 %}{% do changes.append([c['name'], n]) %}{% endif %}
  {% endfor %}
  {% set changes = changes | sort(attribute=1, reverse=true) %}
  {% set partial = facts['is_partial'] %}
  {% set samples = table_diff._diff_samples(row_diff, spec, per_class) %}
  {% if changes or samples %}
    {% do log("table_diff.column_stats: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": "
        ~ ((("changed columns: " if not partial else "changed columns (partial, at least): ")
            ~ table_diff._column_changes_text(changes, none if partial else facts['matched_keys'])) if changes else "no column changed")
        ~ (("; first rows of each kind:\n" ~ table_diff._diff_samples_text(samples, per_class)) if samples else "."), info=true) %}
  {% endif %}
  {{ sql }}
{% endmacro %}
