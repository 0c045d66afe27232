{#-
  The PostgreSQL dialect of a database side (ADR 0047): the SQL texts PostgreSQL runs for a side
  that is a PostgreSQL table, sent by Spark's JDBC source (`query`), so that only their result
  rows cross. Everything here writes PostgreSQL SQL; `database_*` (databases.sql) is the one
  caller. A column arrives as its `kind` (`_portable_kind`): the comparison it takes on both
  engines, decided from the common Spark type and the PostgreSQL type.
  A database of another kind is one more file that provides the same macros: `<dialect>_catalog_sql`,
  `<dialect>_value_text`, `<dialect>_key_value`, `<dialect>_bound_literal`, `<dialect>_ident`,
  `<dialect>_hash_select`, `<dialect>_leaf_expr`, `<dialect>_signature_sql`, `<dialect>_rows_sql`.
-#}

{% macro _postgres_ident(name) %}
  {{ return('"' ~ (name | string | replace('"', '""')) ~ '"') }}
{% endmacro %}


{% macro _postgres_table(table) %}
  {#- A table name as written in the JDBC table's `dbtable` (`schema.table`, already SQL). -#}
  {{ return(table) }}
{% endmacro %}


{% macro _postgres_catalog_sql(table) %}
  {#- One row per column of `table` (kind 'column': name, type as format_type writes it, the type's
      name), then its planner estimate of rows (kind 'rows', -1 never analysed) and the
      database's encoding (kind 'encoding'). Catalog only, no scan. -#}
  {%- set oid = "to_regclass(" ~ table_diff._postgres_string(table) ~ ")" -%}
  select 'column' as kind, a.attname::text as name, format_type(a.atttypid, a.atttypmod) as type, t.typname::text as base, a.attnum::int as pos
  from pg_attribute a join pg_type t on t.oid = a.atttypid
  where a.attrelid = {{ oid }} and a.attnum > 0 and not a.attisdropped
  union all
  select 'rows', null, (select reltuples::bigint::text from pg_class where oid = {{ oid }}), null, 0
  union all
  select 'encoding', null, pg_encoding_to_char(encoding)::text, null, 0 from pg_database where datname = current_database()
{%- endmacro %}


{% macro _postgres_string(value) %}
  {#- A PostgreSQL string literal (standard_conforming_strings: only quotes are doubled). -#}
  {{ return("'" ~ (value | string | replace("'", "''")) ~ "'") }}
{% endmacro %}


{% macro _postgres_value_text(kind, ref, item) %}
  {#- The canonical text of a value (ADR 0047), exactly as `_portable_value_sql` writes it in Spark:
      integers and booleans as PostgreSQL prints them, decimals at the common scale, strings as
      stored (char(n) padded to n, as JDBC reads it; uuid in lower case), dates as days and
      timestamps as microseconds since 1970-01-01 (UTC for timestamptz). -#}
  {%- if kind == 'decimal' -%}{{ return('round((' ~ ref ~ ')::numeric, ' ~ item['scale'] ~ ')::text') }}
  {%- elif kind == 'char' -%}{{ return('rpad((' ~ ref ~ ')::text, ' ~ item['length'] ~ ')') }}
  {%- elif kind == 'date' -%}{{ return('((' ~ ref ~ ') - date \'1970-01-01\')::text') }}
  {%- elif kind in ['timestamp', 'timestamp_ntz'] -%}{{ return('(extract(epoch from (' ~ ref ~ ')) * 1000000)::bigint::text') }}
  {%- endif -%}
  {{ return('(' ~ ref ~ ')::text') }}
{% endmacro %}


{% macro _postgres_key_value(kind, ref, item) %}
  {#- A key column as a value PostgreSQL orders exactly as Spark orders the typed key: strings as
      their UTF-8 bytes (Spark compares bytes; a collation would not), dates and timestamps as
      numbers, numbers as numbers. `_postgres_bound_literal` writes the bounds the same way. -#}
  {%- if kind in ['text', 'char', 'uuid'] -%}{{ return("convert_to(" ~ table_diff._postgres_value_text(kind, ref, item) ~ ", 'UTF8')") }}
  {%- elif kind == 'integer' -%}{{ return('(' ~ ref ~ ')::bigint') }}
  {%- elif kind == 'decimal' -%}{{ return('(' ~ ref ~ ')::numeric') }}
  {%- elif kind == 'boolean' -%}{{ return('(' ~ ref ~ ')::boolean') }}
  {%- endif -%}
  {{ return('(' ~ table_diff._postgres_value_text(kind, ref, item) ~ ')::bigint') }}
{% endmacro %}


{% macro _postgres_bound_literal(kind, b) %}
  {#- Spark SQL that renders a bound `b` (an expression of the typed key column of the ranges) as
      a PostgreSQL literal of the type `_postgres_key_value` gives the key (strings as hex bytea). -#}
  {%- if kind in ['text', 'char', 'uuid'] -%}{{ return("concat(\"'\\\\x\", hex(encode(" ~ b ~ ", 'UTF-8')), \"'::bytea\")") }}
  {%- elif kind == 'integer' -%}{{ return("concat(cast(" ~ b ~ " as string), '::bigint')") }}
  {%- elif kind == 'decimal' -%}{{ return("concat(cast(" ~ b ~ " as string), '::numeric')") }}
  {%- elif kind == 'boolean' -%}{{ return("concat(cast(" ~ b ~ " as string), '::boolean')") }}
  {%- elif kind == 'date' -%}{{ return("concat(cast(unix_date(" ~ b ~ ") as string), '::bigint')") }}
  {%- elif kind == 'timestamp' -%}{{ return("concat(cast(unix_micros(" ~ b ~ ") as string), '::bigint')") }}
  {%- endif -%}
  {{ return("concat(cast(timestampdiff(MICROSECOND, timestamp_ntz'1970-01-01 00:00:00', " ~ b ~ ") as string), '::bigint')") }}
{% endmacro %}


{% macro _postgres_null_literal(kind) %}
  {%- set types = {'integer': 'bigint', 'decimal': 'numeric', 'boolean': 'boolean', 'text': 'bytea', 'char': 'bytea', 'uuid': 'bytea'} -%}
  {{ return('null::' ~ types.get(kind, 'bigint')) }}
{% endmacro %}


{% macro _postgres_key_sql(key_items) %}
  {#- The key as one value PostgreSQL compares as Spark compares the key: one column as its
      `_postgres_key_value`; a composite key as a row of (is not null, value) pairs, since Spark
      orders a struct's NULL field first and PostgreSQL's row comparison orders it last. -#}
  {%- if key_items | length == 1 -%}
    {{ return(table_diff._postgres_key_value(key_items[0]['kind'], table_diff._postgres_ident(key_items[0]['stored']), key_items[0])) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for part in key_items -%}
    {%- set ref = table_diff._postgres_ident(part['stored']) -%}
    {%- do parts.extend(['(' ~ ref ~ ' is not null)', table_diff._postgres_key_value(part['kind'], ref, part)]) -%}
  {%- endfor -%}
  {{ return('row(' ~ parts | join(', ') ~ ')') }}
{% endmacro %}


{% macro _postgres_leaf_expr(key_items, bounds) %}
  {#- A row's leaf: the number of bounds <= its key (`width_bucket` over the sorted bounds), 0 for
      a NULL key or no bound: the same leaf Spark's search gives it. `bounds`: PostgreSQL
      literals in leaf order (composite: rows of (is not null, value) pairs). -#}
  {%- if not bounds -%}{{ return('0') }}{%- endif -%}
  {%- set key = table_diff._postgres_key_sql(key_items) -%}
  {{ return('coalesce(width_bucket(' ~ key ~ ', array[' ~ bounds | join(',') ~ ']), 0)') }}
{% endmacro %}


{% macro _postgres_hash_select(key_items, items) %}
  {#- Select items over a row of the table: `__td_b`, the md5 of its canonical row text (the key,
      then the compared columns; Spark: `_portable_hashes`) as bit(128), and `__td_null_key`.
      The md5 is the single element of a set-returning `unnest`, so that the subquery holding it
      is never flattened into its caller: PostgreSQL would otherwise compute it again for every
      use of `__td_b` (it has no common subexpressions), four times a row in a signature. -#}
  {%- set parts = ["'" ~ table_diff._portable_prefix() ~ "'"] -%}
  {%- for i in key_items + items -%}
    {%- set ref = table_diff._postgres_ident(i['stored']) -%}
    {%- set t = table_diff._postgres_value_text(i['kind'], ref, i) -%}
    {%- if i.get('round') is not none and i['kind'] == 'decimal' -%}
      {%- set t = 'round((' ~ ref ~ ')::numeric, ' ~ i['round'] ~ ')::text' -%}
    {%- endif -%}
    {%- if i.get('trim') -%}{%- set t = 'btrim(' ~ t ~ ', \' \')' -%}{%- endif -%}
    {%- if table_diff._portable_counted(i['kind']) -%}
      {%- do parts.append("coalesce(octet_length(" ~ t ~ ")::text || ':' || " ~ t ~ ", '-')") -%}
    {%- else -%}
      {%- do parts.append("coalesce(" ~ t ~ ", '') || ';'") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set nulls = [] -%}
  {%- for part in key_items -%}{%- do nulls.append(table_diff._postgres_ident(part['stored']) ~ ' is null') -%}{%- endfor -%}
  {{ return("unnest(array[('x' || md5(" ~ parts | join(' || ') ~ "))::bit(128)]) as __td_b, (" ~ nulls | join(' or ') ~ ") as __td_null_key") }}
{% endmacro %}


{% macro _postgres_bits(first, count, signed) %}
  {#- Bits `first` .. `first + count - 1` (1-based) of `__td_b` as an integer: 64 bits as a signed
      bigint; 32 bits as a signed int (`signed`, the high word: Spark's `h >> 32`) or as an
      unsigned bigint (the low word: Spark's `h & 0xFFFFFFFF`). -#}
  {{ return("substring(__td_b from " ~ first ~ " for " ~ count ~ ")::" ~ ('int' if signed else 'bigint')) }}
{% endmacro %}


{% macro _postgres_signature_sql(db, bounds, grouped, distinct_keys, leaves=none, sub_bounds=none) %}
  {#- Per leaf (`grouped`) or for the whole table: n_rows, n_keys, n_null_key_rows and the four
      overflow-safe sums, as Spark's `_hash_sums` computes them (high and low 32 bits apart).
      `leaves` (leaf ids): those leaves only, tested below the md5. `sub_bounds` (literals, with
      `leaves`): per part of those leaves' rows instead, a part being the number of sub-bounds at
      or below the key (`leaf_id` is the part). -#}
  {%- set key_cols = [] -%}
  {%- for part in db['key'] -%}{%- do key_cols.append(table_diff._postgres_ident(part['stored'])) -%}{%- endfor -%}
  select
    {{ ('__td_leaf' if grouped else 'null::int') }} as leaf_id,
    count(*)::bigint as n_rows,
    {{ ('count(distinct row(' ~ key_cols | join(', ') ~ '))::bigint') if distinct_keys else 'count(*)::bigint' }} as n_keys,
    count(*) filter (where __td_null_key)::bigint as n_null_key_rows,
    {%- for h in [1, 2] %}
    coalesce(sum({{ table_diff._postgres_bits(64 * h - 63, 32, true) }}), 0)::bigint as h{{ h }}_hi,
    coalesce(sum({{ table_diff._postgres_bits(64 * h - 31, 32, false) }}), 0)::bigint as h{{ h }}_lo{{ ',' if not loop.last }}
    {%- endfor %}
  from (
    select {{ key_cols | join(', ') }}, {{ table_diff._postgres_leaf_expr(db['key'], sub_bounds) if sub_bounds is not none else '__td_leaf' }} as __td_leaf,
      {{ table_diff._postgres_hash_select(db['key'], db['columns']) }}
    from (
      select *, {{ table_diff._postgres_leaf_expr(db['key'], bounds) if grouped else '0' }} as __td_leaf
      from {{ db['table'] }}
    ) as l
    {%- if leaves %}
    where __td_leaf = any(array[{{ leaves | join(',') }}]::int[])
    {%- endif %}
  ) as r
  {{ 'group by __td_leaf' if grouped }}
{%- endmacro %}


{% macro _postgres_rows_sql(db, bounds, leaves, sub_bounds=none, parts=none) %}
  {#- The rows of the leaves `leaves` (a list of leaf ids; none: every row), each column under its
      name in the diff as JDBC reads it (char(n) padded, uuid as text), with its leaf and
      fingerprint halves. The leaf test runs in PostgreSQL, so only those rows cross. With
      `sub_bounds` and `parts`: only the rows of those parts of the leaves (`_postgres_signature_sql`). -#}
  {%- set cols = [] -%}
  {%- for i in db['key'] + db['columns'] -%}
    {%- set ref = table_diff._postgres_ident(i['stored']) -%}
    {%- set v = table_diff._postgres_value_text(i['kind'], ref, i) if i['kind'] in ['char', 'uuid'] else ref -%}
    {%- do cols.append(v ~ ' as ' ~ table_diff._postgres_ident(i['name'])) -%}
  {%- endfor -%}
  select {{ cols | join(', ') }}, __td_leaf,
    {{ table_diff._postgres_bits(1, 64, false) }} as __td_h1, {{ table_diff._postgres_bits(65, 64, false) }} as __td_h2
  from (
    {#- The leaf test below the md5: only the rows it keeps are fingerprinted. -#}
    select *, {{ table_diff._postgres_hash_select(db['key'], db['columns']) }}
    from (
      select *, {{ table_diff._postgres_leaf_expr(db['key'], bounds) }} as __td_leaf
      from {{ db['table'] }}
    ) as l
    {%- if leaves is not none %}
    where __td_leaf = any(array[{{ leaves | join(',') }}]::int[])
    {%- if parts is not none %}
      and {{ table_diff._postgres_leaf_expr(db['key'], sub_bounds) }} = any(array[{{ (parts or [-1]) | join(',') }}]::int[])
    {%- endif %}
    {%- endif %}
  ) as r
{%- endmacro %}


{% macro _postgres_value_literal(kind, e) %}
  {#- Spark SQL writing the value `e` as a PostgreSQL literal of the column's own type (NULL as
      NULL): a repair script's values. Strings with quotes doubled (standard_conforming_strings),
      dates and timestamps exact from the epoch. Spark strings in double quotes: a doubled single
      quote is two adjacent literals to Spark. -#}
  {%- set q = '"' -%}
  {%- if kind in ['integer', 'decimal'] -%}{%- set v = 'cast(' ~ e ~ ' as string)' -%}
  {%- elif kind == 'boolean' -%}{%- set v = "case when " ~ e ~ " then 'true' when not " ~ e ~ " then 'false' end" -%}
  {%- elif kind == 'date' -%}{%- set v = "concat(" ~ q ~ "date '1970-01-01' + " ~ q ~ ", cast(unix_date(" ~ e ~ ") as string))" -%}
  {%- elif kind == 'timestamp' -%}
    {%- set v = "concat(" ~ q ~ "timestamptz 'epoch' + " ~ q ~ ", cast(unix_micros(" ~ e ~ ") as string), " ~ q ~ " * interval '1 microsecond'" ~ q ~ ")" -%}
  {%- elif kind == 'timestamp_ntz' -%}
    {%- set v = "concat(" ~ q ~ "timestamp 'epoch' + " ~ q ~ ", cast(timestampdiff(MICROSECOND, timestamp_ntz'1970-01-01 00:00:00', " ~ e
        ~ ") as string), " ~ q ~ " * interval '1 microsecond'" ~ q ~ ")" -%}
  {%- else -%}{%- set v = "concat(" ~ q ~ "'" ~ q ~ ", replace(" ~ e ~ ", " ~ q ~ "'" ~ q ~ ", " ~ q ~ "''" ~ q ~ "), " ~ q ~ "'" ~ q ~ ")" -%}
  {%- endif -%}
  {{ return("coalesce(" ~ v ~ ", 'NULL')") }}
{% endmacro %}
