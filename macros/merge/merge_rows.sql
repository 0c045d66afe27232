{#-
  table_diff.merge_rows: the `NAME__merge` model of a three-way merge, one row per changed key of
  the candidates (unchanged keys and keys stored twice on a side left out): key columns,
  merge_status (ours_only, theirs_only, convergent, cell_merged, conflict; resolved with the
  Python classification's policies), conflict_type (update_update, update_delete, delete_update,
  insert_insert, for a conflict or the conflict a policy resolved; NULL otherwise), ours_changed
  and theirs_changed. The classification is `_merge_classified` (ADR 0027), or the merge's
  classified model when `candidates` is that (ADR 0040); reads it once.
-#}
{% macro merge_rows(candidates) %}
  {% do table_diff._check_kwargs('merge_rows', kwargs, ['candidates']) %}
  {% do table_diff._require_relation('merge_rows', 'candidates', candidates) %}
  {% if execute %}{% do table_diff._merge_candidate_layout('merge_rows', candidates) %}{% endif %}
  {{ return(adapter.dispatch('merge_rows', 'table_diff')(candidates)) }}
{% endmacro %}


{% macro default__merge_rows(candidates) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_rows: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_rows(candidates) %}
  {% if not execute %}{{ return("select cast(null as string) as merge_status") }}{% endif %}
  {% set shape = table_diff._merge_candidate_layout('merge_rows', candidates) %}
  select {{ table_diff._merge_key_list(shape) }}, merge_status, conflict_type, ours_changed, theirs_changed
  from {{ table_diff._merge_classified(candidates, shape) }} as c
  where merge_status not in ('unchanged', 'duplicate_key')
{% endmacro %}
