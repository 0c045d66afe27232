{#-
  table_diff.merge_summary: the `NAME__merge_summary` model of a three-way merge, one row of counts
  from the candidates (not from the conflicts model): keys_checked (keys whose rows were read in
  full: those of the changed leaves, or with dense changes only the changed keys, so `unchanged`
  counts only the unchanged keys that shared a leaf with a change), one count per merge status and
  conflict type, duplicate_keys, changed_keys (bigint each), schema_conflicts (int) and
  schema_conflict_columns (array<string>, in column order) from the schema model,
  constraint_violations (bigint: the violations model's rows, NULL without one), constraints
  (array<string>) and is_clean (no conflict, duplicate key, schema conflict or violation). Given
  the classified model of a merge with resolution policies (ADR 0040), also resolved (keys) and
  resolved_cells, after is_clean; conflict counts are of the keys left in conflict.
-#}
{% macro merge_summary(candidates, schema=none, violations=none, constraints=none) %}
  {% do table_diff._check_kwargs('merge_summary', kwargs, ['candidates', 'schema', 'violations', 'constraints']) %}
  {% do table_diff._require_relation('merge_summary', 'candidates', candidates) %}
  {% if schema is not none %}{% do table_diff._require_relation('merge_summary', 'schema', schema) %}{% endif %}
  {% if violations is not none %}{% do table_diff._require_relation('merge_summary', 'violations', violations) %}{% endif %}
  {% set checks = table_diff._merge_constraint_list(constraints, 'merge_summary') %}
  {% if execute %}
    {% do table_diff._merge_candidate_layout('merge_summary', candidates) %}
    {% if schema is not none %}
      {% do table_diff._merge_require_columns('merge_summary', 'schema', schema, ['position', 'column_name', 'schema_conflict'],
          'table_diff.merge_schema_table', "Pass the merge's schema model, ref('<merge>__merge_schema'), or leave schema out.") %}
    {% endif %}
    {% if violations is not none %}
      {% do table_diff._merge_require_columns('merge_summary', 'violations', violations, ['violation'],
          'table_diff.merge_violations', "Pass the merge's violations model, ref('<merge>__merge_violations'), or leave violations out.") %}
    {% endif %}
  {% endif %}
  {{ return(adapter.dispatch('merge_summary', 'table_diff')(candidates, schema, violations, checks)) }}
{% endmacro %}


{% macro default__merge_summary(candidates, schema, violations, constraints) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_summary: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_summary(candidates, schema, violations, constraints) %}
  {% if not execute %}{{ return("select cast(null as bigint) as keys_checked") }}{% endif %}
  {% set shape = table_diff._merge_candidate_layout('merge_summary', candidates) %}
  {% set statuses, types = table_diff._merge_statuses(), table_diff._merge_conflict_types() %}
  {% set q = table_diff.quote_identifier %}
  {% set changed = statuses | reject('equalto', 'unchanged') | map('string') | list %}
  {% if shape['resolutions'] %}{% set changed = changed + ['resolved'] %}{% endif %}
  with td_counts as (
    select
      cast(count(*) as bigint) as keys_checked,
      {%- for s in statuses %}
      cast(count_if(merge_status = '{{ s }}') as bigint) as {{ q(s) }},
      {%- endfor %}
      {%- for t in types %}
      cast(count_if(merge_status = 'conflict' and conflict_type = '{{ t }}') as bigint) as {{ q(t) }},
      {%- endfor %}
      {%- if shape['resolutions'] %}
      cast(count_if(merge_status = 'resolved') as bigint) as resolved,
      cast(coalesce(sum(size(td_resolutions)), 0) as bigint) as resolved_cells,
      {%- endif %}
      cast(count_if(merge_status = 'duplicate_key') as bigint) as duplicate_keys
    from {{ table_diff._merge_classified(candidates, shape) }} as c
  ),
  td_schema as (
    {%- if schema is not none %}
    select
      cast(count(*) as int) as schema_conflicts,
      cast(transform(array_sort(collect_list(named_struct('p', position, 'c', column_name))), x -> x.c)
        as array<string>) as schema_conflict_columns
    from {{ schema }}
    where schema_conflict
    {%- else %}
    select cast(0 as int) as schema_conflicts, cast(array() as array<string>) as schema_conflict_columns
    {%- endif %}
  ),
  td_violations as (
    {%- if violations is not none %}
    select cast(count(*) as bigint) as constraint_violations from {{ violations }}
    {%- else %}
    select cast(null as bigint) as constraint_violations
    {%- endif %}
  )
  select
    n.keys_checked,
    {%- for s in statuses + types %}
    n.{{ q(s) }},
    {%- endfor %}
    n.duplicate_keys,
    cast({% for s in changed %}n.{{ q(s) }}{{ ' + ' if not loop.last }}{% endfor %} as bigint) as changed_keys,
    s.schema_conflicts,
    s.schema_conflict_columns,
    v.constraint_violations,
    cast(array({% for e in constraints %}{{ table_diff._sql_string(e) }}{{ ', ' if not loop.last }}{% endfor %}) as array<string>) as constraints,
    n.{{ q('conflict') }} = 0 and n.duplicate_keys = 0 and s.schema_conflicts = 0 and coalesce(v.constraint_violations, 0) = 0
      as is_clean
    {%- if shape['resolutions'] %},
    n.resolved,
    n.resolved_cells
    {%- endif %}
  from td_counts as n cross join td_schema as s cross join td_violations as v
{% endmacro %}
