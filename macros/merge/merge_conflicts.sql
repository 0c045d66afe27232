{#-
  table_diff.merge_conflicts: the `NAME__conflicts` model of a three-way merge, one row per
  conflicting key: key columns, conflict_type, in_base / in_ours / in_theirs, and base__ / ours__ /
  theirs__ values of every merged column (the merged table keeps ours for these keys). Reads the
  candidates once. Given the classified model of a merge with resolution policies (ADR 0040), the
  keys policies resolved too, with `resolved` (boolean) and `resolutions` (one struct per resolved
  cell: column_name, policy, base, ours, theirs, chosen, as strings; empty for a conflict).
  (merge_conflict_rows is the engine of the no_merge_conflicts test, over the merge model: one
  JSON row per data or schema conflict.)
-#}
{% macro merge_conflicts(candidates) %}
  {% do table_diff._check_kwargs('merge_conflicts', kwargs, ['candidates']) %}
  {% do table_diff._require_relation('merge_conflicts', 'candidates', candidates) %}
  {% if execute %}{% do table_diff._merge_candidate_layout('merge_conflicts', candidates) %}{% endif %}
  {{ return(adapter.dispatch('merge_conflicts', 'table_diff')(candidates)) }}
{% endmacro %}


{% macro default__merge_conflicts(candidates) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_conflicts: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_conflicts(candidates) %}
  {% if not execute %}{{ return("select cast(null as string) as conflict_type") }}{% endif %}
  {% set shape = table_diff._merge_candidate_layout('merge_conflicts', candidates) %}
  select
    {{ table_diff._merge_key_list(shape) }},
    conflict_type,
    td_in_base as in_base,
    td_in_ours as in_ours,
    td_in_theirs as in_theirs
    {%- for col in shape['columns'] %}
    {%- for side in ['base', 'ours', 'theirs'] %},
    {{ table_diff.quote_identifier(side ~ '__' ~ col) }}
    {%- endfor %}
    {%- endfor %}
    {%- if shape['resolutions'] %},
    merge_status = 'resolved' as resolved,
    td_resolutions as resolutions
    {%- endif %}
  from {{ table_diff._merge_classified(candidates, shape) }} as c
  where merge_status {{ "in ('conflict', 'resolved')" if shape['resolutions'] else "= 'conflict'" }}
{% endmacro %}
