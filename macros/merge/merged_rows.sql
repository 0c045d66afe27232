{#-
  table_diff.merged_rows: the `NAME__merged` model of a three-way merge, the merged table over the
  key and the merged columns in the candidates' (merged) types:
  (ours rows, after table_filter, whose key is not a candidate, cast to the merged types; columns
  ours lacks are NULL) union all (the resolved candidate rows: theirs, ours or cell by cell).
  Conflicting keys keep ours; a key stored more than once on a side is not a candidate here, so its
  ours rows are copied as they are. Unchanged rows are copied from ours, never joined to base or
  theirs: reads the candidates once and ours once (a null-safe anti join on the key). With a
  schema conflict in `schema` (on_schema_conflict='report') the result is empty.
-#}
{% macro merged_rows(candidates, ours, schema=none, table_filter=none) %}
  {% do table_diff._check_kwargs('merged_rows', kwargs, ['candidates', 'ours', 'schema', 'table_filter']) %}
  {% do table_diff._require_relation('merged_rows', 'candidates', candidates) %}
  {% do table_diff._require_relation('merged_rows', 'ours', ours) %}
  {% if schema is not none %}{% do table_diff._require_relation('merged_rows', 'schema', schema) %}{% endif %}
  {% if table_filter is not none and (table_filter is not string or table_filter | trim == '') %}
    {{ table_diff._fail('merged_rows', 'table_filter', table_filter, "a SQL boolean expression as a non-empty string",
        "Pass the merge candidates' table_filter (the same string), or leave it out.") }}
  {% endif %}
  {% if execute %}
    {% do table_diff._merged_rows_inputs(candidates, ours, schema, table_filter) %}
  {% endif %}
  {{ return(adapter.dispatch('merged_rows', 'table_diff')(candidates, ours, schema, table_filter)) }}
{% endmacro %}


{% macro default__merged_rows(candidates, ours, schema, table_filter) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merged_rows: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merged_rows(candidates, ours, schema, table_filter) %}
  {% if not execute %}{{ return("select cast(null as string) as td_placeholder") }}{% endif %}
  {% set inputs = table_diff._merged_rows_inputs(candidates, ours, schema, table_filter) %}
  {% set shape, ours_names = inputs['shape'], inputs['ours_names'] %}
  {% set types = shape['types'] %}
  {% set q = table_diff.quote_identifier %}
  with td_classified as (
    select * from {{ table_diff._merge_classified(candidates, shape) }} as c
  ),
  td_resolved as (
    select
      {{ table_diff._merge_key_list(shape) }}
      {%- for col in shape['columns'] %},
      {%- set o, t, b = q('ours__' ~ col), q('theirs__' ~ col), q('base__' ~ col) %}
      case when td_merged_from = 'theirs' then {{ t }} when td_merged_from = 'ours' then {{ o }}
        {%- if shape['resolutions'] %}
        {%- if col in shape['resolved'] %}
        when exists(td_resolutions, r -> r.column_name = {{ table_diff._sql_string(col) }}) then {{ q('resolved__' ~ col) }}
        {%- endif %}
        when td_merged_from = 'resolved' and not td_in_base then {{ o }}
        {%- endif %}
        when array_contains(theirs_changed, {{ table_diff._sql_string(col) }}) then {{ t }}
        when array_contains(ours_changed, {{ table_diff._sql_string(col) }}) then {{ o }}
        else {{ b }} end as {{ q(col) }}
      {%- endfor %}
    from td_classified
    where td_merged_from is not null
  ),
  td_candidate_keys as (
    select
      {%- for k in shape['key'] %}
      {{ q(k) }} as __td_ck{{ loop.index }}{{ ',' if not loop.last }}
      {%- endfor %}
    from td_classified
    where merge_status != 'duplicate_key'
  ),
  td_kept as (
    {#- Ours' rows whose key is not a candidate, in the merged types (null-safe anti join). -#}
    select
      {%- for k in shape['key'] %}
      cast(o.{{ q(ours_names[k | lower]) }} as {{ types[k] }}) as {{ q(k) }},
      {%- endfor %}
      {%- for col in shape['columns'] %}
      {%- if col | lower in ours_names %}
      cast(o.{{ q(ours_names[col | lower]) }} as {{ types['ours__' ~ col] }}) as {{ q(col) }}
      {%- else %}
      cast(null as {{ types['ours__' ~ col] }}) as {{ q(col) }}
      {%- endif %}{{ ',' if not loop.last }}
      {%- endfor %}
    from (select * from {{ ours }} {{ ('where ' ~ table_diff._filter_predicate(table_filter)) if table_filter }}) as o
    left anti join td_candidate_keys as c
      on {% for k in shape['key'] %}cast(o.{{ q(ours_names[k | lower]) }} as {{ types[k] }}) <=> c.__td_ck{{ loop.index }}{{ ' and ' if not loop.last }}{% endfor %}
  )
  select * from (
    select * from td_kept
    union all
    select * from td_resolved
  ) as m
  {#- A reported schema conflict merges no data. #}
  {% if schema is not none -%}
  where not exists (select 1 from {{ schema }} as s where s.schema_conflict)
  {%- endif %}
{% endmacro %}


{% macro _merged_rows_inputs(candidates, ours, schema, table_filter) %}
  {#- Execute-time checks of merged_rows' relations; returns {'shape': the candidates' shape,
      'ours_names': {lower-case name: ours' column name}}. -#}
  {% set shape = table_diff._merge_candidate_layout('merged_rows', candidates) %}
  {% set ours_names = {} %}
  {% for c in adapter.get_columns_in_relation(ours) %}{% do ours_names.update({c.name | lower: c.name}) %}{% endfor %}
  {% set missing = [] %}
  {% for k in shape['key'] if k | lower not in ours_names %}{% do missing.append(k) %}{% endfor %}
  {% if missing %}
    {{ table_diff._fail('merged_rows', 'ours', ours, "a relation with the merge's key column(s) " ~ shape['key'] | join(', '),
        ("It does not exist or was not built yet. " if ours_names | length == 0 else "It lacks " ~ missing | join(', ') ~ ". ")
        ~ "Pass the ours the candidates model was built from (the same ref() or source()).") }}
  {% endif %}
  {% if schema is not none %}
    {% do table_diff._merge_require_columns('merged_rows', 'schema', schema, ['column_name', 'schema_conflict'],
        'table_diff.merge_schema_table', "Pass the merge's schema model, ref('<merge>__merge_schema'), or leave schema out.") %}
  {% endif %}
  {% do table_diff._check_table_filter('merged_rows', table_filter, [ours]) %}
  {{ return({'shape': shape, 'ours_names': ours_names}) }}
{% endmacro %}
