{#- table_diff.schema_differences: one row per column that is missing on a side or whose types cannot
    be compared (or, with exact_types, differ at all). Decided at compile time from the catalog: no
    scan. Engine of the `schema_matches` test. -#}
{% macro schema_differences(source, target, columns=none, exclude_columns=none, exact_types=false) %}
  {% do table_diff._check_kwargs('schema_differences', kwargs, ['source', 'target', 'columns', 'exclude_columns', 'exact_types']) %}
  {% do table_diff._require_relation('schema_matches', 'model', source) %}
  {% do table_diff._require_relation('schema_matches', 'compare_to', target) %}
  {% set cols = table_diff._as_name_list('schema_matches', 'columns', columns, allow_empty=true) %}
  {% set excl = table_diff._as_name_list('schema_matches', 'exclude_columns', exclude_columns, allow_empty=true) %}
  {% if cols | length > 0 and excl | length > 0 %}
    {{ table_diff._fail('schema_matches', 'columns', cols | join(', '), "either columns or exclude_columns, not both",
        "Keep one of them.") }}
  {% endif %}
  {% if exact_types is not boolean %}
    {{ table_diff._fail('schema_matches', 'exact_types', exact_types, "true or false", "Write exact_types: true to require identical types.") }}
  {% endif %}
  {{ return(adapter.dispatch('schema_differences', 'table_diff')(source, target, cols, excl, exact_types)) }}
{% endmacro %}


{% macro default__schema_differences(source, target, columns, exclude_columns, exact_types) %}
  {% if not execute %}
    {{ return("select cast(null as string) as column_name where false") }}
  {% endif %}
  {% set src = adapter.get_columns_in_relation(source) %}
  {% set tgt = adapter.get_columns_in_relation(target) %}
  {% for rel, cols, arg in [(source, src, 'model'), (target, tgt, 'compare_to')] %}
    {% if cols | length == 0 %}
      {{ table_diff._fail('schema_matches', arg, rel, "an existing table or view", "Build it first or fix the ref()/source().") }}
    {% endif %}
  {% endfor %}
  {% set wanted = columns | map('lower') | list %}
  {% set excluded = exclude_columns | map('lower') | list %}
  {% set problems = [] %}
  {% set seen = [] %}
  {% for c in src + tgt %}
    {% set lname = c.name | lower %}
    {% if lname not in seen and (wanted | length == 0 or lname in wanted) and lname not in excluded %}
      {% do seen.append(lname) %}
      {% set s = table_diff._find_column(src, c.name) %}
      {% set t = table_diff._find_column(tgt, c.name) %}
      {% if s is none %}
        {% do problems.append([c.name, 'missing_in_model', none, t.dtype, "only in " ~ target]) %}
      {% elif t is none %}
        {% do problems.append([c.name, 'missing_in_compare_to', s.dtype, none, "only in " ~ source]) %}
      {% elif table_diff._common_type(s.dtype, t.dtype) is none %}
        {% do problems.append([c.name, 'incompatible_types', s.dtype, t.dtype, s.dtype ~ " vs " ~ t.dtype ~ " cannot be compared"]) %}
      {% elif exact_types and table_diff._canonical_type(s.dtype) != table_diff._canonical_type(t.dtype) %}
        {% do problems.append([c.name, 'type_differs', s.dtype, t.dtype, s.dtype ~ " vs " ~ t.dtype]) %}
      {% endif %}
    {% endif %}
  {% endfor %}
  {% for name in wanted %}
    {% if name not in seen %}
      {% do problems.append([name, 'missing_in_both', none, none, "listed in columns but in neither relation"]) %}
    {% endif %}
  {% endfor %}
  {% if problems | length == 0 %}
    select cast(null as string) as column_name, cast(null as string) as problem, cast(null as string) as model_type,
      cast(null as string) as compare_to_type, cast(null as string) as detail
    where false
  {% else %}
    {% for p in problems %}
    select
      {{ table_diff._sql_string(p[0]) }} as column_name,
      {{ table_diff._sql_string(p[1]) }} as problem,
      {{ table_diff._sql_string(p[2]) if p[2] else 'cast(null as string)' }} as model_type,
      {{ table_diff._sql_string(p[3]) if p[3] else 'cast(null as string)' }} as compare_to_type,
      {{ table_diff._sql_string(p[4]) }} as detail
    {{ 'union all' if not loop.last }}
    {% endfor %}
  {% endif %}
{% endmacro %}
