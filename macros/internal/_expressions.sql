{#- SQL expression builders shared by ranges, block hashes, row diff and the generic tests. -#}

{% macro _col_ref(name, alias=none) %}
  {{ return((alias ~ '.' if alias else '') ~ table_diff.quote_identifier(name)) }}
{% endmacro %}


{% macro _typed_expr(col, side, alias=none) %}
  {#- The column's value in the common comparison type (a cast only where the side differs). -#}
  {%- set ref = table_diff._col_ref(col['name'], alias) -%}
  {%- if table_diff._canonical_type(col[side ~ '_type']) != table_diff._canonical_type(col['type']) -%}
    {{ return('cast(' ~ ref ~ ' as ' ~ col['type'] ~ ')') }}
  {%- endif -%}
  {{ return(ref) }}
{% endmacro %}


{% macro _normalised_expr(col, side, alias=none) %}
  {#- Typed value with the column's normalisation rules applied (what is hashed and compared). -#}
  {%- set e = table_diff._typed_expr(col, side, alias) -%}
  {%- set rules = col.get('normalize') or {} -%}
  {%- if 'round' in rules -%}{%- set e = 'round(' ~ e ~ ', ' ~ rules['round'] ~ ')' -%}{%- endif -%}
  {%- if 'truncate' in rules -%}{%- set e = "date_trunc('" ~ rules['truncate'] ~ "', " ~ e ~ ")" -%}{%- endif -%}
  {%- if rules.get('trim') -%}{%- set e = 'trim(' ~ e ~ ')' -%}{%- endif -%}
  {%- if rules.get('lower') -%}{%- set e = 'lower(' ~ e ~ ')' -%}{%- endif -%}
  {{ return(e) }}
{% endmacro %}


{% macro _key_expr(spec, side, alias=none) %}
  {#- The key as one comparable value: the typed column, or a struct for composite keys. -#}
  {%- if spec['key'] | length == 1 -%}
    {{ return(table_diff._typed_expr(spec['key'][0], side, alias)) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for k in spec['key'] -%}
    {%- do parts.append("'k" ~ loop.index ~ "', " ~ table_diff._typed_expr(k, side, alias)) -%}
  {%- endfor -%}
  {{ return('named_struct(' ~ parts | join(', ') ~ ')') }}
{% endmacro %}


{% macro _key_type(spec) %}
  {%- if spec['key'] | length == 1 -%}{{ return(spec['key'][0]['type']) }}{%- endif -%}
  {%- set parts = [] -%}
  {%- for k in spec['key'] -%}{%- do parts.append('k' ~ loop.index ~ ':' ~ k['type']) -%}{%- endfor -%}
  {{ return('struct<' ~ parts | join(',') ~ '>') }}
{% endmacro %}


{% macro _null_key_expr(spec, alias=none) %}
  {%- set parts = [] -%}
  {%- for k in spec['key'] -%}{%- do parts.append(table_diff._col_ref(k['name'], alias) ~ ' is null') -%}{%- endfor -%}
  {{ return('(' ~ parts | join(' or ') ~ ')') }}
{% endmacro %}


{% macro _fingerprint_inputs(spec, side, alias=none) %}
  {#- Hash inputs in spec order: key columns (typed, never normalised) then compared columns. -#}
  {%- set exprs = [] -%}
  {%- for k in spec['key'] -%}{%- do exprs.append(table_diff._typed_expr(k, side, alias)) -%}{%- endfor -%}
  {%- for c in spec['columns'] -%}{%- do exprs.append(table_diff._normalised_expr(c, side, alias)) -%}{%- endfor -%}
  {{ return(exprs) }}
{% endmacro %}


{% macro _leaf_expr(spec, key_sql, leaf_count, search_steps) %}
  {#-
    Leaf (finest block) of a row, from its key alone so both sides agree. NULL keys go to leaf 0.
    hash : pmod(xxhash64(salt, key), leaf_count).
    range: the number of sorted bounds <= key: a binary search of `search_steps` halvings over
           `__td_bounds` (the bounds padded to 2^steps - 1 elements, one row of the CTE
           `td_bounds`, joined once) written as ONE `aggregate` expression: O(log B), no range
           join, and no chain of lateral aliases (each step reads the previous one twice, so an
           optimizer that inlines such a chain builds an expression of 2^steps terms).
  -#}
  {%- if spec['strategy'] == 'hash' -%}
    {{ return("pmod(xxhash64('table_diff:leaf', " ~ key_sql ~ "), " ~ leaf_count ~ ")") }}
  {%- endif -%}
  {%- if search_steps == 0 -%}{{ return('0') }}{%- endif -%}
  {%- set top = 2 ** (search_steps - 1) -%}
  {{ return("least(aggregate(sequence(0, " ~ (search_steps - 1) ~ "), 0, (p, i) -> p + if(element_at(__td_bounds, p + shiftright("
      ~ top ~ ", i)) <= " ~ key_sql ~ ", shiftright(" ~ top ~ ", i), 0)), " ~ (leaf_count - 1) ~ ")") }}
{% endmacro %}


{% macro _bounds_ctes(spec, ranges_relation, search_steps) %}
  {#- The CTE `td_bounds`: one row, the padded bounds array (range) or a placeholder (hash). -#}
  td_bounds as (
    {%- if spec['strategy'] == 'range' %}
    {{ table_diff._padded_bounds_sql(spec, ranges_relation, search_steps) }}
    {%- else %}
    select 1 as __td_one  {#- hash leaves need no bounds #}
    {%- endif %}
  )
{% endmacro %}


{% macro _search_steps(leaf_count) %}
  {#- Steps of the binary search over leaf_count - 1 bounds: smallest s with 2^s - 1 >= bounds. -#}
  {%- set ns = namespace(s=0) -%}
  {%- for i in range(40) -%}{%- if 2 ** ns.s - 1 < leaf_count - 1 -%}{%- set ns.s = ns.s + 1 -%}{%- endif -%}{%- endfor -%}
  {{ return(ns.s) }}
{% endmacro %}


{% macro _padded_bounds_sql(spec, ranges_relation, search_steps) %}
  {#- One row, one column `__td_bounds`: lower bounds of leaves 1.., in leaf order, padded. -#}
  {%- set width = 2 ** search_steps - 1 -%}
  select concat(b, array_repeat(try_element_at(b, -1), {{ width }} - size(b))) as __td_bounds
  from (
    select transform(
        array_sort(collect_list(named_struct('id', leaf_id, 'lo', lower_bound))), x -> x.lo
      ) as b
    from {{ ranges_relation }}
    where leaf_id > 0
  ) as bounds_agg
{% endmacro %}
