{#-
  table_diff.merge_violations: the `NAME__merge_violations` model of a three-way merge, the rows of
  the merged table that break a constraint: key columns and `violation`. `constraints` are SQL
  boolean expressions over the merged columns; like SQL CHECK, a row violates one when it is
  false (NULL passes). The key must also stay non-NULL ('key not null', per row) and unique
  ('unique key', one row per stored row of a repeated key). Reads `merged` twice (the row checks
  and a count per key).
-#}
{% macro merge_violations(merged, primary_key, constraints=none) %}
  {% do table_diff._check_kwargs('merge_violations', kwargs, ['merged', 'primary_key', 'constraints']) %}
  {% do table_diff._require_relation('merge_violations', 'merged', merged) %}
  {% set key = table_diff._as_name_list('merge_violations', 'primary_key', primary_key) %}
  {% set checks = table_diff._merge_constraint_list(constraints) %}
  {% if execute %}{% do table_diff._merge_violations_inputs(merged, key, checks) %}{% endif %}
  {{ return(adapter.dispatch('merge_violations', 'table_diff')(merged, key, checks)) }}
{% endmacro %}


{% macro default__merge_violations(merged, primary_key, constraints) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.merge_violations: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__merge_violations(merged, primary_key, constraints) %}
  {% set keys = [] %}
  {% for k in primary_key %}{% do keys.append(table_diff.quote_identifier(k)) %}{% endfor %}
  {% set checks = ["if(" ~ keys | join(' is null or ') ~ " is null, 'key not null', cast(null as string))"] %}
  {% for e in constraints %}
    {#- The expression on lines of its own: a trailing `-- comment` ends there. -#}
    {% do checks.append("if(coalesce(not (\n" ~ e ~ "\n), false), " ~ table_diff._sql_string(e) ~ ", cast(null as string))") %}
  {% endfor %}
  select {{ keys | join(', ') }}, violation
  from (
    select {{ keys | join(', ') }}, explode(filter(array(
      {{ checks | join(',\n      ') }}
    ), x -> x is not null)) as violation
    from {{ merged }}
  ) as r
  union all
  select {{ keys | join(', ') }}, 'unique key' as violation
  from (
    select {{ keys | join(', ') }}, count(*) over (partition by {{ keys | join(', ') }}) as __td_n
    from {{ merged }}
  ) as u
  where __td_n > 1
{% endmacro %}


{% macro _merge_constraint_list(constraints, macro_name='merge_violations') %}
  {#- Parse/compile time: constraints as a list of non-empty strings (none = [], a string = one). -#}
  {% if constraints is none %}{{ return([]) }}{% endif %}
  {% set items = [constraints] if constraints is string else constraints %}
  {% if items is mapping or items is not iterable %}
    {{ table_diff._fail(macro_name, 'constraints', constraints, "a list of SQL boolean expressions over the merged columns",
        "Write it as constraints=['amount >= 0', \"status in ('open', 'closed')\"], or leave it out.") }}
  {% endif %}
  {% for e in items if e is not string or e | trim == '' %}
    {{ table_diff._fail(macro_name, 'constraints', constraints, "SQL boolean expressions as non-empty strings, e.g. 'amount >= 0'",
        "Remove the empty or non-text entry from constraints.") }}
  {% endfor %}
  {{ return(items | list) }}
{% endmacro %}


{% macro _merge_violations_inputs(merged, key, constraints) %}
  {#- Execute time: `merged` has the key columns, and each constraint is a valid boolean
      expression over it (its plan, no data read). -#}
  {% do table_diff._merge_require_columns('merge_violations', 'merged', merged, key | map('lower') | list,
      'table_diff.merged_rows', "Pass the merge's merged model, ref('<merge>__merged'), and primary_key as in the merge's candidates.") %}
  {% for e in constraints %}
    {% set reason = table_diff.explain_error('select 1 from ' ~ merged ~ ' where coalesce(not (\n' ~ e ~ '\n), false)') %}
    {% if reason is not none %}
      {{ exceptions.raise_compiler_error("table_diff.merge_violations: invalid constraints entry '" ~ e ~ "' on " ~ merged ~ ": "
          ~ reason ~ ". Expected a SQL boolean expression over the merged columns, e.g. 'amount >= 0'. "
          ~ "Fix it (try `select count(*) from " ~ merged ~ " where not (<constraint>)`) or remove it from constraints (--constraint of table-diff scaffold merge).") }}
    {% endif %}
  {% endfor %}
{% endmacro %}
