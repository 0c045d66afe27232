{#- Type handling for comparisons: the common type two sides are compared in, and what we support. -#}

{% macro _canonical_type(data_type) %}
  {%- set t = (data_type | string | trim | lower) -%}
  {%- set aliases = {'integer': 'int', 'long': 'bigint', 'short': 'smallint', 'byte': 'tinyint',
                     'real': 'float', 'bool': 'boolean', 'text': 'string'} -%}
  {%- if t in aliases -%}{{ return(aliases[t]) }}{%- endif -%}
  {%- if t.startswith('varchar') or t.startswith('char') -%}{{ return('string') }}{%- endif -%}
  {%- if t == 'decimal' or t == 'numeric' -%}{{ return('decimal(10,0)') }}{%- endif -%}
  {%- if t.startswith('numeric(') -%}{{ return('decimal(' ~ t[8:]) }}{%- endif -%}
  {{ return(t | replace(' ', '')) }}
{% endmacro %}


{% macro _type_family(data_type) %}
  {#- integral | fractional | decimal | string | boolean | date | timestamp | timestamp_ntz | binary | unsupported -#}
  {%- set t = table_diff._canonical_type(data_type) -%}
  {%- if t in ['tinyint', 'smallint', 'int', 'bigint'] -%}{{ return('integral') }}
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
                    'date': 4, 'timestamp': 8, 'timestamp_ntz': 8, 'binary': 100, 'unsupported': 50} -%}
  {{ return(widths[f]) }}
{% endmacro %}
