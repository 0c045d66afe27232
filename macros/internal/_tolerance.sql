{#-
  Tolerances (ADR 0024): two values of a column are equal when they differ by at most its
  tolerance. Exact inside the hash: the fingerprint takes the value's cell on a grid no wider than
  the tolerance (two values in one cell are always within it), so unchanged blocks are still
  skipped; the row diff compares the rows of mismatched leaves with the tolerance itself, so values
  within it that fall in neighbouring cells are fetched but never reported.
  Rules, as parsed by `_tolerance_option` (per column, one of):
    {'abs': <number> > 0}       numbers: |s - t| <= abs (integers and decimals exactly in decimal
                                arithmetic, floats in double)
    {'rel': <number> in [1e-9, 1)}  numbers: |s - t| <= rel * max(|s|, |t|), in double
    {'abs': '<n> <unit>'}       timestamps: |s - t| <= the duration, in microseconds (exact);
                                unit microsecond, millisecond, second, minute, hour or day (plural too)
  NULL equals only NULL, NaN only NaN, an infinity only itself (the values are first compared
  null-safely as without a tolerance, then by the difference, which is NaN or NULL for them).
-#}

{% macro _tolerance_option(macro_name, tolerance) %}
  {#- {column: rule} checked without the warehouse: {column: {'abs': n} | {'rel': n} |
      {'abs': text, 'micros': n}}. -#}
  {% if tolerance is none %}{{ return({}) }}{% endif %}
  {% set example = "Write it as tolerance={'amount': {'abs': 0.01}, 'rate': {'rel': 1e-6}, 'updated_at': {'abs': '2 seconds'}}." %}
  {% if tolerance is not mapping %}
    {{ table_diff._fail(macro_name, 'tolerance', tolerance, "a mapping of column name to a rule", example) }}
  {% endif %}
  {% set out = {} %}
  {% for col_name, rule in tolerance.items() %}
    {% if rule is not mapping or rule | length != 1 or (rule.keys() | list)[0] not in ['abs', 'rel'] %}
      {{ table_diff._fail(macro_name, 'tolerance', col_name ~ ': ' ~ rule, "one rule per column: {'abs': ...} or {'rel': ...}", example) }}
    {% endif %}
    {% set kind = (rule.keys() | list)[0] %}
    {% set value = rule[kind] %}
    {#- YAML reads 1e-6 (no dot) as text: a number written so is still a number. -#}
    {% if value is string and modules.re.match('^\\s*[0-9]*\\.?[0-9]+(e[-+]?[0-9]+)?\\s*$', value | lower) %}
      {% set value = value | trim | float %}
    {% endif %}
    {% if kind == 'abs' and value is string %}
      {% set micros = table_diff._duration_micros(value) %}
      {% if micros is none or micros <= 0 %}
        {{ table_diff._fail(macro_name, 'tolerance', col_name ~ '.abs=' ~ value, "a positive duration such as '2 seconds' (units: microsecond, millisecond, second, minute, hour, day)",
            "Write it as {'abs': '2 seconds'} for a timestamp column, or a number for a numeric column.") }}
      {% endif %}
      {% do out.update({col_name: {'abs': value, 'micros': micros}}) %}
    {% elif value is boolean or value is not number or value <= 0 or (kind == 'rel' and (value < 1e-9 or value >= 1)) %}
      {{ table_diff._fail(macro_name, 'tolerance', col_name ~ '.' ~ kind ~ '=' ~ value,
          ("a number > 0" if kind == 'abs' else "a number from 1e-9 up to (not including) 1"),
          ("An absolute tolerance is the largest difference still equal: {'abs': 0.01}." if kind == 'abs'
           else "A relative tolerance is a share of the larger value: {'rel': 1e-6} (finer than 1e-9 cannot be told from rounding).")) }}
    {% else %}
      {% do out.update({col_name: {kind: value}}) %}
    {% endif %}
  {% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _duration_micros(text) %}
  {#- '2 seconds' -> 2000000; none when not a duration. -#}
  {% set m = modules.re.match('^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(microsecond|millisecond|second|minute|hour|day)s?\\s*$', text | lower) %}
  {% if not m %}{{ return(none) }}{% endif %}
  {% set per = {'microsecond': 1, 'millisecond': 1000, 'second': 1000000, 'minute': 60000000,
                'hour': 3600000000, 'day': 86400000000}[m.group(2)] %}
  {% set micros = (m.group(1) | float) * per %}
  {% if (micros | int) != micros %}{{ return(none) }}{% endif %}
  {{ return(micros | int) }}
{% endmacro %}


{% macro _check_tolerance_type(macro_name, name, rule, common) %}
  {#- A column's tolerance against its comparison type (resolver, before any scan). -#}
  {% set fam = table_diff._type_family(common) %}
  {% set numeric = fam in ['integral', 'fractional', 'decimal'] %}
  {% set ok = ('micros' in rule and fam == 'timestamp') or ('micros' not in rule and numeric) %}
  {% if not ok %}
    {{ table_diff._fail(macro_name, 'tolerance', name ~ ' ' ~ common,
        "a number for a numeric column, a duration such as '2 seconds' for a timestamp column",
        "'" ~ name ~ "' is " ~ common ~ (("; compare it exactly (remove its tolerance), or normalise it (trim, lower) instead." if fam == 'string'
          else "; cast it to timestamp in a view to give it a duration." if fam == 'timestamp_ntz'
          else "; remove its tolerance or give the rule its type needs."))) }}
  {% endif %}
{% endmacro %}


{% macro _sql_number(value) %}
  {#- A positive number as a SQL literal without exponent ('1e-06' -> 0.000001): an exact decimal. -#}
  {% set text = value | string | lower %}
  {% if 'e' not in text %}{{ return(text) }}{% endif %}
  {% set mantissa, exponent = text.split('e')[0], text.split('e')[1] | int %}
  {% set parts = mantissa.split('.') %}
  {% set digits = parts[0] ~ (parts[1] if parts | length > 1 else '') %}
  {% set point = (parts[0] | length) + exponent %}
  {% if point <= 0 %}{{ return('0.' ~ '0' * (0 - point) ~ digits) }}{% endif %}
  {% if point >= digits | length %}{{ return(digits ~ '0' * (point - digits | length)) }}{% endif %}
  {{ return(digits[:point] ~ '.' ~ digits[point:]) }}
{% endmacro %}


{% macro _tolerance_fingerprint(col, value) %}
  {#-
    The hash inputs of a column with a tolerance, from its typed, normalised `value`:
    numbers: the cell floor(q) of q = value / (abs / 2) (abs) or of q = ln|value| / (ln(1 + rel) / 2)
    with the sign (rel): half the tolerance wide, so that the double arithmetic's rounding cannot
    put two values more than the tolerance apart in one cell. Where |q| >= 2^50 (or the value is
    NULL, NaN, an infinity, or 0 under rel) the cell is NULL and the value itself is hashed
    instead: such values are skipped only when exactly equal, still compared with the tolerance.
    timestamps: the cell of the microseconds since the epoch on a grid of the duration (exact).
  -#}
  {%- set t = col['tolerance'] -%}
  {%- if 'micros' in t -%}
    {%- set m = 'unix_micros(' ~ value ~ ')' -%}
    {{ return(['((' ~ m ~ ' - pmod(' ~ m ~ ', ' ~ t['micros'] ~ 'L)) div ' ~ t['micros'] ~ 'L)']) }}
  {%- endif -%}
  {%- set d = 'cast(' ~ value ~ ' as double)' -%}
  {%- if 'rel' in t -%}
    {%- set q = '(ln(abs(' ~ d ~ ')) / (ln(1D + ' ~ t['rel'] ~ 'D) / 2D))' -%}
  {%- else -%}
    {%- set q = '(' ~ d ~ ' / (' ~ t['abs'] ~ 'D / 2D))' -%}
  {%- endif -%}
  {%- set on_grid = 'abs(' ~ q ~ ') < 1125899906842624D' -%}
  {%- set inputs = ['if(' ~ on_grid ~ ', floor(' ~ q ~ '), null)', 'if(' ~ on_grid ~ ', null, ' ~ value ~ ')'] -%}
  {%- if 'rel' in t -%}{%- do inputs.append('signum(' ~ d ~ ')') -%}{%- endif -%}
  {{ return(inputs) }}
{% endmacro %}


{% macro _values_equal(col, s, t) %}
  {#- Whether compared values `s` and `t` (typed, normalised) are equal under the column's rules. -#}
  {%- set exact = s ~ ' <=> ' ~ t -%}
  {%- set tol = col.get('tolerance') -%}
  {%- if not tol -%}{{ return(exact) }}{%- endif -%}
  {%- if 'micros' in tol -%}
    {%- set within = 'abs(unix_micros(' ~ s ~ ') - unix_micros(' ~ t ~ ')) <= ' ~ tol['micros'] ~ 'L' -%}
  {%- elif 'rel' in tol or table_diff._type_family(col['type']) == 'fractional' -%}
    {#- In double, both values finite: Spark orders NaN above every value (NaN <= NaN holds) and
        an infinity's difference would be within an infinite bound. -#}
    {%- set sd, td = 'cast(' ~ s ~ ' as double)', 'cast(' ~ t ~ ' as double)' -%}
    {%- set bound = (tol['rel'] ~ 'D * greatest(abs(' ~ sd ~ '), abs(' ~ td ~ '))') if 'rel' in tol else (tol['abs'] ~ 'D') -%}
    {%- set within = 'abs(' ~ sd ~ ') <= 1.7976931348623157E308D and abs(' ~ td ~ ') <= 1.7976931348623157E308D and abs('
        ~ sd ~ ' - ' ~ td ~ ') <= ' ~ bound -%}
  {%- elif table_diff._type_family(col['type']) == 'integral' -%}
    {%- set within = 'abs(cast(' ~ s ~ ' as decimal(20,0)) - cast(' ~ t ~ ' as decimal(20,0))) <= ' ~ table_diff._sql_number(tol['abs']) -%}
  {%- else -%}
    {%- set within = 'abs(try_subtract(' ~ s ~ ', ' ~ t ~ ')) <= ' ~ table_diff._sql_number(tol['abs']) -%}
  {%- endif -%}
  {{ return('(' ~ exact ~ ' or coalesce(' ~ within ~ ', false))') }}
{% endmacro %}
