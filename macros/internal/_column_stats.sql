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


{% macro _column_stats_facts(spec, block_hashes, block_split, row_diff) %}
  {#- What a pair's column statistics are computed from, with each input's other run ids
      (`_other_run_sql`), in one grouped aggregate over the three tables side by side (ADR 0045):
      {'rows_changed': {column position: modified rows where it changed}, 'matched_keys',
      'is_partial', 'others': {0 block_hashes, 1 block_split, 2 row_diff: run id}}. Matched keys
      are the source's rows less the deleted and the source's duplicate-key rows (keys stored
      exactly once on each side, NULL keys included); a run is partial when a unit was skipped or
      the row diff reached max_diff_rows. Rows grouped by (table, what): columns by position, never
      by name (a column named `true` or `1e3` would come back from the query as a value). -#}
  {% set names = [] %}
  {% for c in spec['columns'] %}{% do names.append(table_diff._sql_string(c['name'])) %}{% endfor %}
  {% set sql %}
    select td_t, td_k, count(*) as n, coalesce(sum(td_n), 0) as total, {{ table_diff._other_run_sql(spec, 'td_run') }} as other
    from (
      select 0 as td_t, if(side = 'source', 1, 0) as td_k, cast(n_rows as bigint) as td_n, run_id as td_run from {{ block_hashes }}
      union all
      select 1, if(selected, 1, 0), null, run_id from {{ block_split }}
      union all
      select 2, case diff_type when 'deleted' then 1 when 'duplicate_key' then if(side = 'source', 2, 3) else 0 end, null, run_id
      from {{ row_diff }}
      {%- if names %}
      union all
      select 3, array_position(array({{ names | join(', ') }}), td_c.c), null, run_id
      from {{ row_diff }} lateral view explode(changed_columns) td_c as c
      where diff_type = 'modified'
      {%- endif %}
    ) as td_facts
    group by td_t, td_k
  {% endset %}
  {% set n = {} %}
  {% set total = {} %}
  {% set others = {} %}
  {% set changed = {} %}
  {% for row in run_query(sql).rows %}
    {% set t, k = row[0] | int, row[1] | int %}
    {% do n.update({(t, k): row[2] | int}) %}
    {% do total.update({(t, k): row[3] | int}) %}
    {% if row[4] is not none and t < 3 %}{% do others.update({t: row[4]}) %}{% endif %}
    {% if t == 3 %}{% do changed.update({k: row[2] | int}) %}{% endif %}
  {% endfor %}
  {% set diff_rows = n.get((2, 0), 0) + n.get((2, 1), 0) + n.get((2, 2), 0) + n.get((2, 3), 0) %}
  {{ return({
      'rows_changed': changed,
      'matched_keys': total.get((0, 1), 0) - n.get((2, 1), 0) - n.get((2, 2), 0),
      'is_partial': n.get((1, 0), 0) > 0 or diff_rows >= spec['max_diff_rows'],
      'others': others}) }}
{% endmacro %}


{% macro _column_stats_sql(spec, facts) %}
  {#- One row per compared column, in table order: rows changed, matched keys and the share (NULL
      when partial), from `_column_stats_facts`, written as they are (ADR 0045). -#}
  {% set partial = 'true' if facts['is_partial'] else 'false' %}
  {% set matched = "cast(" ~ ('null' if facts['is_partial'] else facts['matched_keys']) ~ " as bigint)" %}
  {% set columns = [] %}
  {% for c in spec['columns'] %}
    {% set changed = facts['rows_changed'].get(loop.index, 0) %}
    {% do columns.append("named_struct('column_name', " ~ table_diff._sql_string(c['name']) ~ ", 'column_position', " ~ loop.index
        ~ ", 'rows_changed', cast(" ~ changed ~ " as bigint), 'matched_keys', " ~ matched
        ~ ", 'changed_share', " ~ ("cast(null as double)" if facts['is_partial'] else
            ("cast(" ~ changed ~ " as double) / nullif(" ~ matched ~ ", 0)"))
        ~ ", 'is_partial', " ~ partial ~ ", 'run_id', " ~ table_diff._sql_string(spec['run_id']) ~ ")") %}
  {% endfor %}
  {%- if columns %}
  select inline(array({{ columns | join(', ') }}))
  {%- else %}
  select cast(null as string) as column_name, cast(null as int) as column_position, cast(null as bigint) as rows_changed,
    cast(null as bigint) as matched_keys, cast(null as double) as changed_share, cast(null as boolean) as is_partial,
    cast(null as string) as run_id
  where false
  {%- endif %}
{% endmacro %}
