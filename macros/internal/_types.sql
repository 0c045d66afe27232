{#- Type handling for comparisons: the common type two sides are compared in, and what we support. -#}

{% macro _canonical_type(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {#- A nested type keeps its field names as stored: `struct<A:int>` and `struct<a:int>` differ. -#}
  {%- if table_diff._is_nested_type(t) -%}{{ return(data_type | string | trim) }}{%- endif -%}
  {%- set aliases = {'integer': 'int', 'long': 'bigint', 'short': 'smallint', 'byte': 'tinyint',
                     'real': 'float', 'bool': 'boolean', 'text': 'string'} -%}
  {%- if t in aliases -%}{{ return(aliases[t]) }}{%- endif -%}
  {%- if t.startswith('varchar') or t.startswith('char') -%}{{ return('string') }}{%- endif -%}
  {%- if t == 'decimal' or t == 'numeric' -%}{{ return('decimal(10,0)') }}{%- endif -%}
  {%- if t.startswith('numeric(') -%}{{ return('decimal(' ~ t[8:]) }}{%- endif -%}
  {{ return(t | replace(' ', '')) }}
{% endmacro %}


{% macro _type_family(data_type) %}
  {#- integral | fractional | decimal | string | boolean | date | timestamp | timestamp_ntz | binary | nested | unsupported -#}
  {%- set t = table_diff._canonical_type(data_type) -%}
  {%- if table_diff._is_nested_type(t) -%}{{ return('nested') }}
  {%- elif t in ['tinyint', 'smallint', 'int', 'bigint'] -%}{{ return('integral') }}
  {%- elif t in ['float', 'double'] -%}{{ return('fractional') }}
  {%- elif t.startswith('decimal(') -%}{{ return('decimal') }}
  {%- elif t == 'string' -%}{{ return('string') }}
  {%- elif t == 'boolean' -%}{{ return('boolean') }}
  {%- elif t == 'date' -%}{{ return('date') }}
  {%- elif t == 'timestamp' or t == 'timestamp_ltz' -%}{{ return('timestamp') }}
  {%- elif t == 'timestamp_ntz' -%}{{ return('timestamp_ntz') }}
  {%- elif t == 'binary' -%}{{ return('binary') }}
  {%- else -%}{{ return('unsupported') }}
  {%- endif -%}
{% endmacro %}


{% macro _decimal_parts(data_type) %}
  {#- (precision, scale) of a decimal or of an integral type seen as a decimal. -#}
  {%- set t = table_diff._canonical_type(data_type) -%}
  {%- set integral = {'tinyint': 3, 'smallint': 5, 'int': 10, 'bigint': 20} -%}
  {%- if t in integral -%}{{ return([integral[t], 0]) }}{%- endif -%}
  {%- set inner = t[8:-1].split(',') -%}
  {{ return([inner[0] | int, (inner[1] | int) if inner | length > 1 else 0]) }}
{% endmacro %}


{% macro _common_type(left_type, right_type) %}
  {#- The type both sides are cast to before hashing and comparing, or none when not comparable. -#}
  {%- set l = table_diff._canonical_type(left_type) -%}
  {%- set r = table_diff._canonical_type(right_type) -%}
  {%- set lf = table_diff._type_family(l) -%}
  {%- set rf = table_diff._type_family(r) -%}
  {%- if lf == 'unsupported' or rf == 'unsupported' -%}{{ return(none) }}{%- endif -%}
  {%- if l == r -%}{{ return(l) }}{%- endif -%}
  {%- set ranks = ['tinyint', 'smallint', 'int', 'bigint'] -%}
  {%- if lf == 'integral' and rf == 'integral' -%}
    {{ return(ranks[[ranks.index(l), ranks.index(r)] | max]) }}
  {%- elif lf in ['integral', 'fractional', 'decimal'] and rf in ['integral', 'fractional', 'decimal'] -%}
    {%- if lf == 'fractional' or rf == 'fractional' -%}{{ return('double') }}{%- endif -%}
    {%- set lp = table_diff._decimal_parts(l) -%}
    {%- set rp = table_diff._decimal_parts(r) -%}
    {%- set scale = [lp[1], rp[1]] | max -%}
    {%- set digits = [lp[0] - lp[1], rp[0] - rp[1]] | max -%}
    {%- set precision = [digits + scale, 38] | min -%}
    {{ return('decimal(' ~ precision ~ ',' ~ [scale, precision] | min ~ ')') }}
  {%- elif [lf, rf] | sort == ['date', 'timestamp'] -%}
    {{ return('timestamp') }}
  {%- elif lf == rf and lf in ['string', 'boolean', 'binary', 'timestamp'] -%}
    {{ return(l) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}


{% macro _type_width(data_type) %}
  {#- Rough in-memory bytes of a value (Spark's defaultSize), for size estimates only. -#}
  {%- set f = table_diff._type_family(data_type) -%}
  {%- set widths = {'integral': 8, 'fractional': 8, 'decimal': 16, 'string': 20, 'boolean': 1,
                    'date': 4, 'timestamp': 8, 'timestamp_ntz': 8, 'binary': 100, 'nested': 200, 'unsupported': 50} -%}
  {{ return(widths[f]) }}
{% endmacro %}


{% macro _is_nested_type(data_type) %}
  {#- An array, map, struct or variant (compared through `nested_value`, ADR 0041). -#}
  {%- set t = data_type | string | trim | lower -%}
  {{ return(t.startswith('array<') or t.startswith('map<') or t.startswith('struct<') or t == 'variant') }}
{% endmacro %}


{% macro _split_type_list(text) %}
  {#- `a:int,b:map<string,int>,c:decimal(10,2)` -> its top-level items (commas inside <>, () or
      backticks stay; a doubled backtick inside a quoted name toggles twice). -#}
  {%- set parts = [] -%}
  {%- set ns = namespace(depth=0, cur='', quoted=false) -%}
  {%- for ch in text -%}
    {%- if ch == '`' -%}{%- set ns.quoted = not ns.quoted -%}
    {%- elif ns.quoted -%}
    {%- elif ch in '<(' -%}{%- set ns.depth = ns.depth + 1 -%}{%- elif ch in '>)' -%}{%- set ns.depth = ns.depth - 1 -%}{%- endif -%}
    {%- if ch == ',' and ns.depth == 0 and not ns.quoted -%}{%- do parts.append(ns.cur) -%}{%- set ns.cur = '' -%}
    {%- else -%}{%- set ns.cur = ns.cur ~ ch -%}{%- endif -%}
  {%- endfor -%}
  {%- do parts.append(ns.cur) -%}
  {{ return(parts) }}
{% endmacro %}


{% macro _parse_type(data_type) %}
  {#-
    A type string as Spark's `typeof` writes it (`array<struct<x:int,y:map<string,double>>>`) as a
    tree: {'kind': 'array', 'element': tree}, {'kind': 'map', 'key': tree, 'value': tree},
    {'kind': 'struct', 'fields': [[name, tree], ...]}, {'kind': 'variant'}, or {'kind': 'scalar',
    'type': canonical type, 'family': family}; none when a part is not understood (a field name
    holding ':', ',', '<', '>' or '`', which Spark's `typeof` writes unquoted, or an unsupported
    leaf type). Field names in backticks (`_type_ddl`'s output) are read quoted.
  -#}
  {%- set t = data_type | string | trim -%}
  {%- set lt = t | lower -%}
  {%- if lt == 'variant' -%}{{ return({'kind': 'variant'}) }}{%- endif -%}
  {%- if lt.startswith('array<') and lt.endswith('>') -%}
    {%- set e = table_diff._parse_type(t[6:-1]) -%}
    {{ return(none if e is none else {'kind': 'array', 'element': e}) }}
  {%- endif -%}
  {%- if lt.startswith('map<') and lt.endswith('>') -%}
    {%- set kv = table_diff._split_type_list(t[4:-1]) -%}
    {%- if kv | length != 2 -%}{{ return(none) }}{%- endif -%}
    {%- set k, v = table_diff._parse_type(kv[0]), table_diff._parse_type(kv[1]) -%}
    {{ return(none if k is none or v is none else {'kind': 'map', 'key': k, 'value': v}) }}
  {%- endif -%}
  {%- if lt.startswith('struct<') and lt.endswith('>') -%}
    {%- set fields = [] -%}
    {%- for item in table_diff._split_type_list(t[7:-1]) -%}
      {%- set m = modules.re.match('^`((?:[^`]|``)*)`:(.*)$', item, modules.re.S) -%}
      {%- if m -%}
        {%- set name, rest = m.group(1) | replace('``', '`'), m.group(2) -%}
      {%- else -%}
        {%- set cut = item.find(':') -%}
        {%- set name, rest = (item[:cut], item[cut + 1:]) if cut > 0 else (none, '') -%}
      {%- endif -%}
      {%- set f = table_diff._parse_type(rest) if name is not none else none -%}
      {%- if f is none -%}{{ return(none) }}{%- endif -%}
      {%- do fields.append([name, f]) -%}
    {%- endfor -%}
    {{ return({'kind': 'struct', 'fields': fields}) }}
  {%- endif -%}
  {%- set family = table_diff._type_family(t) -%}
  {%- if family in ['unsupported', 'nested'] -%}{{ return(none) }}{%- endif -%}
  {{ return({'kind': 'scalar', 'type': table_diff._canonical_type(t), 'family': family}) }}
{% endmacro %}


{% macro _nested_tree(data_type) %}
  {#- `_parse_type` of a nested column's type, parsed once per dbt invocation. -#}
  {%- set cache = table_diff._run_cache() -%}
  {%- set key = 'nested_tree:' ~ data_type -%}
  {%- if key not in cache -%}{%- do cache.update({key: table_diff._parse_type(data_type)}) -%}{%- endif -%}
  {{ return(cache[key]) }}
{% endmacro %}


{% macro _nested_has_map(tree) %}
  {#- Whether a map or a variant is anywhere inside (their equality needs the canonical text). -#}
  {%- if tree['kind'] in ['map', 'variant'] -%}{{ return(true) }}
  {%- elif tree['kind'] == 'array' -%}{{ return(table_diff._nested_has_map(tree['element'])) }}
  {%- elif tree['kind'] == 'struct' -%}
    {%- for f in tree['fields'] -%}
      {%- if table_diff._nested_has_map(f[1]) -%}{{ return(true) }}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(false) }}
{% endmacro %}


{% macro _type_ddl(tree) %}
  {#- A parsed type as SQL, every struct field name quoted (`struct<`Unit Price`:int>`): the type
      string a nested column's items carry, so that `cast(null as <type>)` parses whatever the
      names (Spark's `typeof` leaves them unquoted). -#}
  {%- if tree['kind'] == 'scalar' -%}{{ return(tree['type']) }}
  {%- elif tree['kind'] == 'variant' -%}{{ return('variant') }}
  {%- elif tree['kind'] == 'array' -%}{{ return('array<' ~ table_diff._type_ddl(tree['element']) ~ '>') }}
  {%- elif tree['kind'] == 'map' -%}{{ return('map<' ~ table_diff._type_ddl(tree['key']) ~ ',' ~ table_diff._type_ddl(tree['value']) ~ '>') }}
  {%- endif -%}
  {%- set fields = [] -%}
  {%- for name, f in tree['fields'] -%}
    {%- do fields.append('`' ~ name | replace('`', '``') ~ '`:' ~ table_diff._type_ddl(f)) -%}
  {%- endfor -%}
  {{ return('struct<' ~ fields | join(',') ~ '>') }}
{% endmacro %}
