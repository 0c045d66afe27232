{#-
  Nested columns (arrays, maps, structs, variant) compared exactly (ADR 0041). A nested value is
  compared, and hashed into the row fingerprint, as one canonical string: the value rebuilt with
  every map as its entries sorted by key, every float -0.0 as 0.0, timestamps and dates as exact
  numbers, written by `to_json` with NULL fields kept. The value's type is fixed by the column, so
  the text is a complete, typed encoding: a NULL element, a NULL field, an empty array and a NULL
  array all write differently, and array order is kept. Spark's own `hash`/`xxhash64` of a nested
  value are never used: they skip NULL elements and fields and refuse maps.
  Where two values differ, `nested_changed_paths` names the leaves and containers that differ.
-#}

{% macro nested_value(expr, tree) %}
  {{ return(adapter.dispatch('nested_value', 'table_diff')(expr, tree)) }}
{% endmacro %}


{% macro default__nested_value(expr, tree) %}
  {{ return(table_diff._not_implemented('nested_value')) }}
{% endmacro %}


{% macro spark__nested_value(expr, tree) %}
  {#- The canonical text of a nested value (NULL for a NULL value). -#}
  {%- if tree['kind'] == 'variant' -%}{{ return('to_json(' ~ expr ~ ')') }}{%- endif -%}
  {{ return("to_json(" ~ table_diff._nested_canonical(expr, tree, 0) ~ ", map('ignoreNullFields', 'false'))") }}
{% endmacro %}


{% macro nested_comparable(expr, tree) %}
  {{ return(adapter.dispatch('nested_comparable', 'table_diff')(expr, tree)) }}
{% endmacro %}


{% macro default__nested_comparable(expr, tree) %}
  {{ return(table_diff._not_implemented('nested_comparable')) }}
{% endmacro %}


{% macro spark__nested_comparable(expr, tree) %}
  {#- A nested value that `<=>` compares by the rules: maps as entry arrays sorted by key and
      variants as text (Spark compares neither), the rest as `<=>` already treats it. -#}
  {{ return(table_diff._nested_canonical(expr, tree, 0)) }}
{% endmacro %}


{% macro nested_hashable(expr, tree) %}
  {{ return(adapter.dispatch('nested_hashable', 'table_diff')(expr, tree)) }}
{% endmacro %}


{% macro default__nested_hashable(expr, tree) %}
  {{ return(table_diff._not_implemented('nested_hashable')) }}
{% endmacro %}


{% macro spark__nested_hashable(expr, tree) %}
  {#- A nested value as a canonical typed structure that `xxhash64` hashes exactly (what the row
      fingerprint takes for a nested column; NULL for a NULL value). xxhash64 chains the typed
      values of arrays and structs but skips NULLs and cannot take maps, so every level states
      what it skips: an array its element count and, per element, whether it is NULL; a struct
      whether each field is NULL; a map its entry count and its entries sorted by key (each value's
      NULL flag too). Given the type, the chain of hashed values then decodes to one value: no two
      values hash alike but by a collision of the 64-bit hash itself. Far cheaper than writing
      the value's text (`nested_value`): no string is built per row.
      Where the value needs no rebuilding per element (no float or double inside, no map inside
      an array), its JSON text instead (`_nested_json_ready`): `to_json` is compiled code, the
      structure above runs a lambda per element, and the text costs half as much. The text is
      exact too: every NULL written (`ignoreNullFields` off), strings escaped, decimals in their
      scale, dates and timestamps with era, microseconds and offset in UTC, maps as their entries
      sorted by key. -#}
  {% set ready = table_diff._nested_json_ready(expr, tree) %}
  {% if ready is not none %}
    {{ return('to_json(' ~ ready ~ ", map('ignoreNullFields', 'false', 'timeZone', 'UTC', 'dateFormat', 'yyyy-MM-dd G', "
        ~ "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSSXXX G', 'timestampNTZFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS G'))") }}
  {% endif %}
  {{ return(table_diff._nested_hashable(expr, tree, 0)) }}
{% endmacro %}


{% macro _nested_json_ready(expr, tree) %}
  {#- `expr` as `to_json` writes it exactly without a lambda, or none: a float or double anywhere
      (-0.0 and NaN payloads need rebuilding), a variant, a map inside an array or under another
      map (sorting its entries would take a lambda per element). A map elsewhere becomes its
      entries sorted by key (`sort_array(map_entries(...))`); the rest is written as stored. -#}
  {%- if tree['kind'] == 'scalar' -%}
    {{ return(none if tree['family'] == 'fractional' else expr) }}
  {%- elif tree['kind'] == 'variant' -%}
    {{ return(none) }}
  {%- elif tree['kind'] == 'array' -%}
    {%- set inner = table_diff._nested_json_ready('__td_j', tree['element']) -%}
    {{ return(expr if inner == '__td_j' else none) }}
  {%- elif tree['kind'] == 'map' -%}
    {%- for part in [tree['key'], tree['value']] -%}
      {%- if table_diff._nested_json_ready('__td_j', part) != '__td_j' -%}{{ return(none) }}{%- endif -%}
    {%- endfor -%}
    {{ return('sort_array(map_entries(' ~ expr ~ '))') }}
  {%- endif -%}
  {%- set items, ns = [], namespace(rebuilt=false) -%}
  {%- for name, field in tree['fields'] -%}
    {%- set f = expr ~ '.' ~ table_diff.quote_identifier(name) -%}
    {%- set r = table_diff._nested_json_ready(f, field) -%}
    {%- if r is none -%}{{ return(none) }}{%- endif -%}
    {%- if r != f -%}{%- set ns.rebuilt = true -%}{%- endif -%}
    {%- do items.append(table_diff._sql_string(name) ~ ', ' ~ r) -%}
  {%- endfor -%}
  {{ return(('if(' ~ expr ~ ' is null, null, named_struct(' ~ items | join(', ') ~ '))') if ns.rebuilt else expr) }}
{% endmacro %}


{% macro _nested_hashable(expr, tree, depth) %}
  {%- set x = '__td_h' ~ depth -%}
  {%- if tree['kind'] in ['scalar', 'variant'] -%}
    {{ return(table_diff._nested_canonical(expr, tree, depth)) }}
  {%- elif tree['kind'] == 'array' -%}
    {{ return('if(' ~ expr ~ ' is null, null, named_struct(' ~ "'n', size(" ~ expr ~ "), 'e', transform(" ~ expr ~ ', ' ~ x
        ~ " -> named_struct('z', " ~ x ~ " is null, 'v', " ~ table_diff._nested_hashable(x, tree['element'], depth + 1) ~ '))))') }}
  {%- elif tree['kind'] == 'map' -%}
    {{ return('if(' ~ expr ~ ' is null, null, named_struct(' ~ "'n', size(" ~ expr ~ "), 'e', array_sort(transform(map_entries(" ~ expr ~ '), ' ~ x
        ~ " -> named_struct('k', " ~ table_diff._nested_hashable(x ~ '.key', tree['key'], depth + 1) ~ ", 'z', " ~ x ~ ".value is null, 'v', "
        ~ table_diff._nested_hashable(x ~ '.value', tree['value'], depth + 1) ~ ')))))') }}
  {%- endif -%}
  {%- set flags, items = [], [] -%}
  {%- for name, field in tree['fields'] -%}
    {%- set f = expr ~ '.' ~ table_diff.quote_identifier(name) -%}
    {%- do flags.append(f ~ ' is null') -%}
    {%- do items.append("'f" ~ loop.index ~ "', " ~ table_diff._nested_hashable(f, field, depth + 1)) -%}
  {%- endfor -%}
  {{ return('if(' ~ expr ~ " is null, null, named_struct('z', array(" ~ flags | join(', ') ~ '), ' ~ items | join(', ') ~ '))') }}
{% endmacro %}


{% macro _nested_needs_rebuild(tree) %}
  {#- Whether `to_json` of the stored value would not already be canonical. -#}
  {%- if tree['kind'] == 'scalar' -%}
    {{ return(tree['family'] in ['fractional', 'timestamp', 'timestamp_ntz', 'date']) }}
  {%- elif tree['kind'] == 'array' -%}
    {{ return(table_diff._nested_needs_rebuild(tree['element'])) }}
  {%- elif tree['kind'] == 'struct' -%}
    {%- for f in tree['fields'] -%}
      {%- if table_diff._nested_needs_rebuild(f[1]) -%}{{ return(true) }}{%- endif -%}
    {%- endfor -%}
    {{ return(false) }}
  {%- endif -%}
  {{ return(true) }}
{% endmacro %}


{% macro _nested_canonical(expr, tree, depth) %}
  {#- The value rebuilt canonically (no map left: maps are sorted entry arrays), for `to_json`. -#}
  {%- if not table_diff._nested_needs_rebuild(tree) -%}{{ return(expr) }}{%- endif -%}
  {%- set x = '__td_x' ~ depth -%}
  {%- if tree['kind'] == 'variant' -%}{{ return('to_json(' ~ expr ~ ')') }}
  {%- elif tree['kind'] == 'scalar' -%}
    {%- set f = tree['family'] -%}
    {%- if f == 'fractional' -%}{{ return('if(' ~ expr ~ ' = 0, cast(0 as ' ~ tree['type'] ~ '), ' ~ expr ~ ')') }}
    {%- elif f == 'timestamp' -%}{{ return('unix_micros(' ~ expr ~ ')') }}
    {%- elif f == 'timestamp_ntz' -%}{{ return('cast(' ~ expr ~ ' as string)') }}
    {%- else -%}{{ return('unix_date(' ~ expr ~ ')') }}
    {%- endif -%}
  {%- elif tree['kind'] == 'array' -%}
    {{ return('transform(' ~ expr ~ ', ' ~ x ~ ' -> ' ~ table_diff._nested_canonical(x, tree['element'], depth + 1) ~ ')') }}
  {%- elif tree['kind'] == 'map' -%}
    {{ return('array_sort(transform(map_entries(' ~ expr ~ '), ' ~ x ~ " -> named_struct('k', "
        ~ table_diff._nested_canonical(x ~ '.key', tree['key'], depth + 1) ~ ", 'v', "
        ~ table_diff._nested_canonical(x ~ '.value', tree['value'], depth + 1) ~ ')))') }}
  {%- endif -%}
  {%- set items = [] -%}
  {%- for name, field in tree['fields'] -%}
    {%- do items.append(table_diff._sql_string(name) ~ ', ' ~ table_diff._nested_canonical(expr ~ '.' ~ table_diff.quote_identifier(name), field, depth + 1)) -%}
  {%- endfor -%}
  {{ return('if(' ~ expr ~ ' is null, null, named_struct(' ~ items | join(', ') ~ '))') }}
{% endmacro %}


{% macro nested_changed_paths(source_expr, target_expr, tree, name) %}
  {{ return(adapter.dispatch('nested_changed_paths', 'table_diff')(source_expr, target_expr, tree, name)) }}
{% endmacro %}


{% macro default__nested_changed_paths(source_expr, target_expr, tree, name) %}
  {{ return(table_diff._not_implemented('nested_changed_paths')) }}
{% endmacro %}


{% macro spark__nested_changed_paths(source_expr, target_expr, tree, name) %}
  {#- array<string>: the sorted paths (`items[3].price`, `attrs['color']`, `payload.customer.id`)
      at which two values of column `name` differ. Each value is flattened to its (path, text)
      pairs: a leaf's value, and a marker per container (NULL, or present); the paths of the pairs
      found on one side only differ. Minimal: a path under another reported path is left out (a
      NULL struct against a present one is `payload`, not also each of its fields). -#}
  {%- set s = table_diff._nested_pairs(source_expr, tree, table_diff._sql_string(name), 0) -%}
  {%- set t = table_diff._nested_pairs(target_expr, tree, table_diff._sql_string(name), 0) -%}
  {{ return('array_sort(array_distinct(transform(array_union(array_except(' ~ s ~ ', ' ~ t ~ '), array_except('
      ~ t ~ ', ' ~ s ~ ')), __td_p -> __td_p.p)))') }}
{% endmacro %}


{% macro minimal_paths(paths_expr) %}
  {{ return(adapter.dispatch('minimal_paths', 'table_diff')(paths_expr)) }}
{% endmacro %}


{% macro default__minimal_paths(paths_expr) %}
  {{ return(table_diff._not_implemented('minimal_paths')) }}
{% endmacro %}


{% macro spark__minimal_paths(paths_expr) %}
  {#- The paths of `paths_expr` (a column: it is read once per path) with no ancestor among them. -#}
  {{ return('filter(' ~ paths_expr ~ ', __td_p -> not exists(' ~ paths_expr ~ ', __td_q -> length(__td_p) > length(__td_q)'
      ~ ' and startswith(__td_p, __td_q) and substr(__td_p, length(__td_q) + 1, 1) in (\'.\', \'[\')))') }}
{% endmacro %}


{% macro _nested_pairs(expr, tree, path, depth) %}
  {#- array<struct<p: string, v: string>>: the (path, text) pairs of a value (`path`: SQL string). -#}
  {%- set x = '__td_y' ~ depth -%}
  {%- set i = '__td_i' ~ depth -%}
  {%- if tree['kind'] in ['scalar', 'variant'] -%}
    {%- set leaf = table_diff._nested_canonical(expr, tree, depth) -%}
    {{ return(table_diff._nested_pair(path, 'to_json(array(' ~ leaf ~ '))')) }}
  {%- endif -%}
  {%- if tree['kind'] == 'array' -%}
    {%- set inner = 'flatten(transform(' ~ expr ~ ', (' ~ x ~ ', ' ~ i ~ ') -> '
        ~ table_diff._nested_pairs(x, tree['element'], 'concat(' ~ path ~ ", '[', cast(" ~ i ~ " as string), ']')", depth + 1) ~ '))' -%}
    {%- set mark = "'['" -%}
  {%- elif tree['kind'] == 'map' -%}
    {%- set key_tree = tree['key'] -%}
    {%- if key_tree['kind'] == 'scalar' and key_tree['family'] == 'string' -%}
      {#- `\` and `'` escaped: the key reads as one string literal, and no key's path is a
          prefix of another key's (`minimal_paths` compares paths as text). -#}
      {%- set label = "concat('''', replace(replace(" ~ x ~ ".key, '\\\\', '\\\\\\\\'), '''', '\\\\'''), '''')" -%}
    {%- elif key_tree['kind'] == 'scalar' -%}
      {%- set label = 'cast(' ~ x ~ '.key as string)' -%}
    {%- else -%}
      {%- set label = table_diff.nested_value(x ~ '.key', key_tree) -%}
    {%- endif -%}
    {%- set inner = 'flatten(transform(map_entries(' ~ expr ~ '), ' ~ x ~ ' -> '
        ~ table_diff._nested_pairs(x ~ '.value', tree['value'], 'concat(' ~ path ~ ", '[', " ~ label ~ ", ']')", depth + 1) ~ '))' -%}
    {%- set mark = "'{}'" -%}
  {%- else -%}
    {%- set parts = [] -%}
    {%- for name, field in tree['fields'] -%}
      {%- set shown = name if modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', name) else '`' ~ name | replace('`', '``') ~ '`' -%}
      {%- do parts.append(table_diff._nested_pairs(expr ~ '.' ~ table_diff.quote_identifier(name), field,
          'concat(' ~ path ~ ', ' ~ table_diff._sql_string('.' ~ shown) ~ ')', depth + 1)) -%}
    {%- endfor -%}
    {%- set inner = 'concat(' ~ parts | join(', ') ~ ')' -%}
    {%- set mark = "'{'" -%}
  {%- endif -%}
  {{ return('if(' ~ expr ~ ' is null, ' ~ table_diff._nested_pair(path, "'null'") ~ ', concat(' ~ table_diff._nested_pair(path, mark) ~ ', ' ~ inner ~ '))') }}
{% endmacro %}


{% macro _nested_pair(path, text) %}
  {{ return("array(named_struct('p', " ~ path ~ ", 'v', " ~ text ~ "))") }}
{% endmacro %}


{% macro exact_column_types(from_sql, names) %}
  {{ return(adapter.dispatch('exact_column_types', 'table_diff')(from_sql, names)) }}
{% endmacro %}


{% macro default__exact_column_types(from_sql, names) %}
  {{ return(table_diff._not_implemented('exact_column_types')) }}
{% endmacro %}


{% macro spark__exact_column_types(from_sql, names) %}
  {#- {name: type} of columns of `from_sql` as `typeof` writes them: whole, where `describe`
      shortens a struct of more than 25 fields to "... N more fields". Analysis only: the relation
      is joined filtered to nothing, so no file is read. -#}
  {%- set items = [] -%}
  {%- for n in names -%}{%- do items.append('typeof(td_x.' ~ table_diff.quote_identifier(n) ~ ')') -%}{%- endfor -%}
  {%- set row = run_query('select ' ~ items | join(', ') ~ ' from (select 1 as td_one) as td_d left join (select * from '
      ~ from_sql ~ ' where false) as td_x on true').rows[0] -%}
  {%- set types = {} -%}
  {%- for n in names -%}{%- do types.update({n: row[loop.index0]}) -%}{%- endfor -%}
  {{ return(types) }}
{% endmacro %}
