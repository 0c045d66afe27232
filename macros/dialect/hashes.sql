{#- The hash idioms of the algorithm besides the row fingerprint: a key's bucket, and the two
    32-bit halves of a 64-bit hash that the signatures sum without overflow. -#}

{% macro hash_bucket(key_sql, buckets, salt) %}
  {{ return(adapter.dispatch('hash_bucket', 'table_diff')(key_sql, buckets, salt)) }}
{% endmacro %}


{% macro default__hash_bucket(key_sql, buckets, salt) %}
  {{ return(table_diff._not_implemented('hash_bucket')) }}
{% endmacro %}


{% macro spark__hash_bucket(key_sql, buckets, salt) %}
  {#- 0 .. buckets - 1 from the key's salted 64-bit hash (the same on both sides of a pair). -#}
  {{ return("pmod(xxhash64(" ~ table_diff._sql_string(salt) ~ ", " ~ key_sql ~ "), " ~ buckets ~ ")") }}
{% endmacro %}


{% macro hash_halves(hash_sql) %}
  {{ return(adapter.dispatch('hash_halves', 'table_diff')(hash_sql)) }}
{% endmacro %}


{% macro default__hash_halves(hash_sql) %}
  {{ return(table_diff._not_implemented('hash_halves')) }}
{% endmacro %}


{% macro spark__hash_halves(hash_sql) %}
  {#- [high, low]: the signed high 32 bits and the unsigned low 32 bits of a bigint hash. Summed
      apart they stay exact up to 2^31 rows, under ANSI on or off. -#}
  {{ return(['shiftright(' ~ hash_sql ~ ', 32)', hash_sql ~ ' & 4294967295']) }}
{% endmacro %}
