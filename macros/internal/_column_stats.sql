{#-
  What the pair's `NAME__column_stats` model and `no_drift` share to say which columns changed and
  to show a few differing rows (ADR 0021): both read a relation in the shape of a row diff (the
  pair's row diff table, or no_drift's cached rows), never a side.
-#}

{% macro _sample_rows_var(macro_name) %}
  {#- var table_diff_sample_rows: rows of each kind of change the log shows (0 = none). -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_sample_rows', 5, 0, whole=true)) }}
{% endmacro %}


{% macro _column_changes(relation, spec) %}
  {#- [[column, modified rows where it changed], ...] of a row diff, most changed first (ties in
      table order); columns that never changed are left out. -#}
  {% set names = [] %}
  {% for c in spec['columns'] %}{% do names.append(table_diff._sql_string(c['name'])) %}{% endfor %}
  {% if names | length == 0 %}{{ return([]) }}{% endif %}
  {% set rows = run_query("select td_c.c, count(*) from " ~ relation ~ " lateral view explode(changed_columns) td_c as c"
      ~ " where diff_type = 'modified' group by td_c.c"
      ~ " order by count(*) desc, array_position(array(" ~ names | join(', ') ~ "), td_c.c)").rows %}
  {% set out = [] %}
  {% for row in rows %}{% do out.append([row[0], row[1] | int]) %}{% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _column_changes_text(changes, matched_keys=none, most=5) %}
  {#- 'status 12, amount 3 (of 1000 matched keys), and 2 more columns' -#}
  {% set parts = [] %}
  {% for name, n in changes[:most] %}
    {% do parts.append(name ~ " " ~ n ~ ((" (" ~ ((100.0 * n / matched_keys) | round(2)) ~ "%)") if matched_keys else "")) %}
  {% endfor %}
  {{ return(parts | join(', ') ~ (" of " ~ matched_keys ~ " matched keys" if matched_keys is not none else "")
      ~ ((", and " ~ (changes | length - most) ~ " more") if changes | length > most else "")) }}
{% endmacro %}


{% macro _value_text(expr, type) %}
  {#- A value as the log shows it: NULL, a string quoted (so '' and 'NULL' stay apart), else Spark's cast to string. -#}
  {% if type | lower == 'string' or (type | lower).startswith('varchar') or (type | lower).startswith('char') %}
    {{ return("coalesce(concat('''', " ~ expr ~ ", ''''), 'NULL')") }}
  {% endif %}
  {{ return("coalesce(cast(" ~ expr ~ " as string), 'NULL')") }}
{% endmacro %}


{% macro _diff_samples(relation, spec, per_class) %}
  {#- The first `per_class` rows of each kind of change of a row diff, by key (then side), as
      [[diff_type, rows of that kind, 'order_id=3  status: 'a' -> 'b''], ...]. -#}
  {% if per_class == 0 %}{{ return([]) }}{% endif %}
  {% set keys, order = [], [] %}
  {% for k in spec['key'] %}
    {% set col = table_diff.quote_identifier(k['name']) %}
    {% do keys.append("concat(" ~ table_diff._sql_string(k['name'] ~ '=') ~ ", " ~ table_diff._value_text(col, k['type']) ~ ")") %}
    {% do order.append(col) %}
  {% endfor %}
  {% set cells = [] %}
  {% for c in spec['columns'] %}
    {% set s = table_diff.quote_identifier('source__' ~ c['name']) %}
    {% set t = table_diff.quote_identifier('target__' ~ c['name']) %}
    {% if table_diff._type_family(c['type']) == 'nested' %}
      {#- A nested column: the paths inside it that changed (`changed_paths`), its values cut short. -#}
      {% set n = table_diff._sql_string(c['name']) %}
      {% set label = "array_join(filter(changed_paths, td_p -> td_p = " ~ n ~ " or startswith(td_p, " ~ table_diff._sql_string(c['name'] ~ '.')
          ~ ") or startswith(td_p, " ~ table_diff._sql_string(c['name'] ~ '[') ~ ")), ', ')" %}
      {% do cells.append("if(array_contains(changed_columns, " ~ n ~ "), concat(" ~ label ~ ", ': ', left("
          ~ table_diff._value_text(s, c['source_type']) ~ ", 200), ' -> ', left(" ~ table_diff._value_text(t, c['target_type']) ~ ", 200)), null)") %}
    {% else %}
    {% do cells.append("if(array_contains(changed_columns, " ~ table_diff._sql_string(c['name']) ~ "), concat("
        ~ table_diff._sql_string(c['name'] ~ ': ') ~ ", " ~ table_diff._value_text(s, c['source_type']) ~ ", ' -> ', "
        ~ table_diff._value_text(t, c['target_type']) ~ "), null)") %}
    {% endif %}
  {% endfor %}
  {% set sql %}
    select diff_type, n, line from (
      select
        diff_type,
        count(*) over (partition by diff_type) as n,
        row_number() over (partition by diff_type order by {{ order | join(', ') }}, side) as rn,
        concat(
          concat_ws(', ', {{ keys | join(', ') }}),
          if(diff_type = 'duplicate_key', concat(' (', side, ')'), '')
          {%- if cells %},
          coalesce(concat('  ', nullif(concat_ws('; ', {{ cells | join(', ') }}), '')), ''){% endif %}
        ) as line
      from {{ relation }}
    ) as td_s
    where rn <= {{ per_class }}
    order by array_position(array('added', 'deleted', 'modified', 'duplicate_key'), diff_type), rn
  {% endset %}
  {% set out = [] %}
  {% for row in run_query(sql).rows %}{% do out.append([row[0], row[1] | int, row[2]]) %}{% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _diff_samples_text(samples, per_class) %}
  {#- Log lines: per kind, how many rows it has and its first rows by key. -#}
  {% set lines = [] %}
  {% set seen = [] %}
  {% for kind, n, line in samples %}
    {% if kind not in seen %}
      {% do seen.append(kind) %}
      {% do lines.append("  " ~ kind ~ " (" ~ n ~ (", first " ~ per_class ~ " by key" if n > per_class else "") ~ "):") %}
    {% endif %}
    {% do lines.append("    " ~ line) %}
  {% endfor %}
  {{ return(lines | join('\n')) }}
{% endmacro %}


{% macro _column_stats_sql(spec, block_hashes, block_split, row_diff) %}
  {#- One row per compared column: rows changed, matched keys and the share (NULL when partial). -#}
  {% set columns = [] %}
  {% for c in spec['columns'] %}
    {% do columns.append("named_struct('column_position', " ~ loop.index ~ ", 'column_name', " ~ table_diff._sql_string(c['name']) ~ ")") %}
  {% endfor %}
  with td_columns as (
    {%- if columns %}
    select inline(array({{ columns | join(', ') }}))
    {%- else %}
    select cast(null as int) as column_position, cast(null as string) as column_name where false
    {%- endif %}
  ),

  td_run as (
    select
      (select count_if(not selected) from {{ block_split }}) > 0
        or k.diff_rows >= {{ spec['max_diff_rows'] }} as is_partial,
      (select coalesce(sum(if(side = 'source', n_rows, 0)), 0) from {{ block_hashes }})
        - k.deleted_rows - k.duplicate_source_rows as matched_keys
    from (
      select
        count(*) as diff_rows,
        count_if(diff_type = 'deleted') as deleted_rows,
        count_if(diff_type = 'duplicate_key' and side = 'source') as duplicate_source_rows
      from {{ row_diff }}
    ) as k
  ),

  td_changes as (
    select td_c.c as column_name, count(*) as rows_changed
    from {{ row_diff }} lateral view explode(changed_columns) td_c as c
    where diff_type = 'modified'
    group by td_c.c
  )

  select
    c.column_name,
    c.column_position,
    coalesce(ch.rows_changed, 0) as rows_changed,
    if(r.is_partial, cast(null as bigint), r.matched_keys) as matched_keys,
    if(r.is_partial, cast(null as double),
      cast(coalesce(ch.rows_changed, 0) as double) / nullif(r.matched_keys, 0)) as changed_share,
    r.is_partial,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id
  from td_columns as c
  cross join td_run as r
  left join td_changes as ch on c.column_name = ch.column_name
  order by c.column_position
{% endmacro %}
