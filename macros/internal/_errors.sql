{#-
  Shared guards. Message shape (STYLE.md):
  "table_diff.<macro>: invalid <arg> '<value>'. Expected ... ." then one sentence on how to fix it.
  Private helpers: never dispatched, called by the public macros before any dispatch or scan.
-#}

{% macro _fail(macro_name, arg, value, expected, fix) %}
  {{ exceptions.raise_compiler_error(
      "table_diff." ~ macro_name ~ ": invalid " ~ arg ~ " '" ~ value ~ "'. Expected " ~ expected ~ ". " ~ fix
  ) }}
{% endmacro %}


{% macro _require_relation(macro_name, arg, value) %}
  {#- A dbt Relation (ref(), source(), this, api.Relation.create(...)). -#}
  {% if value is none or value is string or value.identifier is not defined %}
    {{ table_diff._fail(macro_name, arg, value, "a relation such as ref('orders') or source('replica', 'orders')",
        "Pass the relation object itself, not a quoted name.") }}
  {% endif %}
{% endmacro %}


{% macro _positive_int_or_none(macro_name, arg, value, minimum=1) %}
  {% if value is none %}{{ return(none) }}{% endif %}
  {% if value is string or value is boolean or value is not number or (value | int) != value or value < minimum %}
    {{ table_diff._fail(macro_name, arg, value, "a whole number >= " ~ minimum,
        "Set " ~ arg ~ " to a whole number of at least " ~ minimum ~ " or leave it out to use the default.") }}
  {% endif %}
  {{ return(value | int) }}
{% endmacro %}


{% macro _as_name_list(macro_name, arg, value, allow_empty=false) %}
  {#- Accept 'a' or ['a', 'b']; return a list of non-empty strings. -#}
  {% if value is none %}{{ return([]) }}{% endif %}
  {% set items = [value] if value is string else value %}
  {% if items is mapping or items is not iterable %}
    {{ table_diff._fail(macro_name, arg, value, "a column name or a list of column names",
        "Write it as " ~ arg ~ "='order_id' or " ~ arg ~ "=['order_id', 'region'].") }}
  {% endif %}
  {% set out = [] %}
  {% for item in items %}
    {% if item is not string or item | trim == '' %}
      {{ table_diff._fail(macro_name, arg, value, "column names as non-empty strings",
          "Remove the empty or non-text entry from " ~ arg ~ ".") }}
    {% endif %}
    {% do out.append(item | trim) %}
  {% endfor %}
  {% if not allow_empty and out | length == 0 %}
    {{ table_diff._fail(macro_name, arg, value, "at least one column name",
        "Name the column(s) that identify a row, e.g. " ~ arg ~ "=['order_id'].") }}
  {% endif %}
  {{ return(out) }}
{% endmacro %}


{% macro _number_var(macro_name, name, default, minimum, whole=false) %}
  {#- A tuning var (dbt_project.yml `vars:` or `--vars`): a number >= minimum (a whole one when
      `whole`), else the standard error naming the var. Numeric strings are accepted. -#}
  {% set raw = var(name, default) %}
  {% set value = none %}
  {% if raw is number and raw is not boolean %}
    {% set value = raw %}
  {% elif raw is string and modules.re.fullmatch('\\s*[0-9]+(\\.[0-9]+)?\\s*', raw) %}
    {% set value = (raw | float) if '.' in raw else (raw | int) %}
  {% endif %}
  {% if value is none or value < minimum or (whole and (value | int) != value) %}
    {{ table_diff._fail(macro_name, 'var ' ~ name, raw, ("a whole number" if whole else "a number") ~ " >= " ~ minimum,
        "Set it under vars: in dbt_project.yml or with --vars '{" ~ name ~ ": " ~ default ~ "}', or remove it to use the default (" ~ default ~ ").") }}
  {% endif %}
  {{ return((value | int) if whole else (value | float)) }}
{% endmacro %}


{% macro _filter_predicate(table_filter) %}
  {#-
    The one place a table_filter enters SQL: `true and (` + newline + the filter + newline + `)`.
    The filter on lines of its own: a trailing `-- comment` ends at the newline and cannot swallow
    the closing parenthesis or the SQL after it. The leading `true` keeps Spark's parser on the
    where clause with ANSI off (it would read `from t where (flag)` as the alias `where`).
  -#}
  {{ return('true and (\n' ~ table_filter ~ '\n)') }}
{% endmacro %}


{% macro _check_table_filter(macro_name, table_filter, relations, from_items=none) %}
  {#- Check a table_filter against each relation before any scan (execute time only): the plan of
      `select 1 from <rel> where <filter>` (`explain_error`: no data read). Fails with the
      warehouse's reason. `from_items` {relation: FROM item}: a side read another way than by its
      name (through a column_map's projection), checked as it is read. -#}
  {% if table_filter is none %}{{ return(none) }}{% endif %}
  {% for rel in relations %}
    {% set reason = table_diff.explain_error('select 1 from ' ~ (from_items or {}).get(rel | string, rel) ~ ' where ' ~ table_diff._filter_predicate(table_filter)) %}
    {% if reason is not none %}
      {{ exceptions.raise_compiler_error(
          "table_diff." ~ macro_name ~ ": invalid table_filter '" ~ table_filter ~ "' on " ~ rel ~ ": " ~ reason
          ~ ". Expected a SQL boolean expression over columns of every side; it is applied as `where (<table_filter>)` to "
          ~ relations | join(', ') ~ ". Fix the expression (try `select count(*) from " ~ rel ~ " where <table_filter>`), or leave table_filter out.") }}
    {% endif %}
  {% endfor %}
{% endmacro %}


{% macro _check_kwargs(macro_name, kwargs, valid) %}
  {#- Unknown keyword arguments (collected in `kwargs` by a macro whose body names it): the first
      one fails with the valid names and, when one is close, a suggestion. -#}
  {% for name in kwargs %}
    {% set ns = namespace(best=none, dist=999) %}
    {% for v in valid %}
      {% set d = table_diff._edit_distance(name | lower, v) %}
      {% if d < ns.dist %}{% set ns.best = v %}{% set ns.dist = d %}{% endif %}
    {% endfor %}
    {% set close = ns.best is not none and ns.dist <= [2, (name | length) // 3] | max %}
    {{ table_diff._fail(macro_name, 'argument', name, "one of " ~ valid | join(', '),
        ("Did you mean '" ~ ns.best ~ "'?") if close else "Fix the name or remove the argument.") }}
  {% endfor %}
{% endmacro %}


{% macro _edit_distance(a, b) %}
  {#- Levenshtein distance (insert, delete, substitute: 1 each) of two short strings. -#}
  {% set ns = namespace(prev=range((b | length) + 1) | list) %}
  {% for i in range(1, (a | length) + 1) %}
    {% set cur = [i] %}
    {% for j in range(1, (b | length) + 1) %}
      {% do cur.append([ns.prev[j] + 1, cur[j - 1] + 1, ns.prev[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)] | min) %}
    {% endfor %}
    {% set ns.prev = cur %}
  {% endfor %}
  {{ return(ns.prev[b | length]) }}
{% endmacro %}
