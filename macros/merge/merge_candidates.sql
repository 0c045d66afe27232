{#-
  table_diff.merge_candidates: the rows of every key that changed on either side of a three-way
  merge, read at a cost that grows with the changes, not the tables. It runs on the pair's engine
  (ADR 0014): the pair's resolver for three sides, and the pair's block signatures on one leaf
  layout for all three (strategy 'hash' by default, as no_drift; 'range' samples keys of the
  largest side); per leaf and side a row count and the 128-bit fingerprint sums (first read);
  rows are fetched only from leaves where base differs from ours or from theirs (second read,
  pruned to those leaves) and full outer joined null-safely on the key.
  Output, one row per key of a fetched leaf (unchanged keys of those leaves included):
  key columns, td_in_base / td_in_ours / td_in_theirs, td_duplicate_key (a key stored more than
  once on a side: one row, no values, never joined), ours_changed / theirs_changed (columns whose
  value differs from base, table order; all columns for an insert or delete), ours_theirs_differ,
  and base__<col> / ours__<col> / theirs__<col> in the merged type for every merged column.
  Values are compared after normalisation; NULL = NULL, NULL != ''.
-#}
{% macro merge_candidates(base, ours, theirs, primary_key, columns=none, exclude_columns=none, table_filter=none,
                          normalize=none, leaf_count=none, on_schema_conflict='error', strategy=none) %}
  {% do table_diff._check_kwargs('merge_candidates', kwargs, ['base', 'ours', 'theirs', 'primary_key', 'columns', 'exclude_columns', 'table_filter',
      'normalize', 'leaf_count', 'on_schema_conflict', 'strategy']) %}
  {% for arg, rel in [('base', base), ('ours', ours), ('theirs', theirs)] %}
    {% do table_diff._require_relation('merge_candidates', arg, rel) %}
  {% endfor %}
  {% do table_diff._merge_check_options('merge_candidates', primary_key, columns, exclude_columns, table_filter,
      normalize, leaf_count, on_schema_conflict, strategy) %}
  {{ return(adapter.dispatch('merge_candidates', 'table_diff')(base, ours, theirs, primary_key, columns,
      exclude_columns, table_filter, normalize, leaf_count, on_schema_conflict, strategy)) }}
{% endmacro %}


{% macro default__merge_candidates(base, ours, theirs, primary_key, columns, exclude_columns, table_filter, normalize,
                                   leaf_count, on_schema_conflict, strategy) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_candidates: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_candidates(base, ours, theirs, primary_key, columns, exclude_columns, table_filter, normalize,
                                 leaf_count, on_schema_conflict, strategy) %}
  {% if not execute %}
    {{ return("select cast(null as boolean) as td_in_base") }}
  {% endif %}
  {% set opts = table_diff._merge_check_options('merge_candidates', primary_key, columns, exclude_columns,
      table_filter, normalize, leaf_count, on_schema_conflict, strategy) %}
  {% set resolved = table_diff._merge_resolve('merge_candidates', base, ours, theirs, opts) %}
  {% set spec = resolved['spec'] %}
  {% if resolved['conflicts'] | length > 0 %}
    {% if on_schema_conflict == 'error' %}
      {% do table_diff._merge_raise_conflicts('merge_candidates', resolved) %}
    {% endif %}
    {{ return(table_diff._merge_candidates_empty(spec)) }}
  {% endif %}
  {{ return(table_diff._merge_candidates_sql(spec, {'base': base, 'ours': ours, 'theirs': theirs})) }}
{% endmacro %}
