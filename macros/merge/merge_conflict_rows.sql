{#- table_diff.merge_conflict_rows: one row per conflicting key of a merge model (data conflicts) and
    per schema conflict of its schema model: conflict_kind ('data' | 'schema'), conflict_type, and
    `detail` (the merge row or the schema row as JSON). Engine of the `no_merge_conflicts` test. -#}
{% macro merge_conflict_rows(merge, merge_schema=none) %}
  {% do table_diff._check_kwargs('merge_conflict_rows', kwargs, ['merge', 'merge_schema']) %}
  {% do table_diff._require_relation('no_merge_conflicts', 'model', merge) %}
  {% if merge_schema is not none %}
    {% do table_diff._require_relation('no_merge_conflicts', 'merge_schema', merge_schema) %}
  {% endif %}
  {{ return(adapter.dispatch('merge_conflict_rows', 'table_diff')(merge, merge_schema)) }}
{% endmacro %}


{% macro default__merge_conflict_rows(merge, merge_schema) %}
  select 'data' as conflict_kind, m.conflict_type, to_json(struct(m.*)) as detail
  from {{ merge }} as m
  where m.merge_status = 'conflict'
  {%- if merge_schema is not none %}
  union all
  select 'schema' as conflict_kind, s.status as conflict_type, to_json(struct(s.*)) as detail
  from {{ merge_schema }} as s
  where s.schema_conflict
  {%- endif %}
{% endmacro %}
