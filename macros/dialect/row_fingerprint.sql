{#-
  table_diff.row_fingerprint: one 64-bit hash of a row under hash spec v1.
  Typed, not string-concatenated: xxhash64 chains each argument's typed bytes into the next seed, so
  a value can never shift into its neighbour ('ab','c' vs 'a','bc'). xxhash64 skips NULL arguments,
  so a null bitmask (one bigint per 62 inputs) goes first: NULL in column 1 and a value in column 2
  never equals the reverse. -0.0 hashes as 0.0 and every NaN alike (Spark normalises both).
  Two salts ('a', 'b') give the two independent 64-bit halves of the 128-bit row fingerprint.
-#}
{% macro row_fingerprint(expressions, salt='a') %}
  {% if expressions is string or expressions is mapping or expressions is not iterable or expressions | length == 0 %}
    {{ table_diff._fail('row_fingerprint', 'expressions', expressions, "a non-empty list of SQL expressions",
        "Pass the typed, normalised column expressions in a fixed order, e.g. ['`id`', 'round(`amount`, 2)'].") }}
  {% endif %}
  {% if salt is not string or salt == '' %}
    {{ table_diff._fail('row_fingerprint', 'salt', salt, "a non-empty string", "Use 'a' or 'b' (the two halves of the 128-bit fingerprint).") }}
  {% endif %}
  {{ return(adapter.dispatch('row_fingerprint', 'table_diff')(expressions, salt)) }}
{% endmacro %}


{% macro default__row_fingerprint(expressions, salt) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.row_fingerprint: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__row_fingerprint(expressions, salt) %}
  {%- set masks = [] -%}
  {%- for chunk in expressions | batch(62) -%}
    {%- set bits = [] -%}
    {%- for e in chunk -%}
      {%- do bits.append('if(' ~ e ~ ' is null, ' ~ 2 ** loop.index0 ~ 'L, 0L)') -%}
    {%- endfor -%}
    {%- do masks.append('(' ~ bits | join(' | ') ~ ')') -%}
  {%- endfor -%}
  {{- return("xxhash64('table_diff:v" ~ table_diff._hash_spec_version() ~ ":" ~ salt ~ "', " ~ (masks + expressions) | join(', ') ~ ")") -}}
{% endmacro %}
