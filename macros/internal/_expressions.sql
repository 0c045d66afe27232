{#- SQL expression builders shared by ranges, block hashes, row diff and the generic tests. -#}

{% macro _col_ref(name, alias=none) %}
  {{ return((alias ~ '.' if alias else '') ~ table_diff.quote_identifier(name)) }}
{% endmacro %}


{% macro _typed_expr(col, side, alias=none) %}
  {#- The column's value in the common comparison type (a cast only where the side differs); a
      typed NULL on a side without the column (a merge's added or dropped column). -#}
  {%- if col.get(side ~ '_type') is none -%}{{ return('cast(null as ' ~ col['type'] ~ ')') }}{%- endif -%}
  {%- set ref = table_diff._col_ref(col['name'], alias) -%}
  {%- if table_diff._canonical_type(col[side ~ '_type']) != table_diff._canonical_type(col['type']) -%}
    {{ return('cast(' ~ ref ~ ' as ' ~ col['type'] ~ ')') }}
  {%- endif -%}
  {{ return(ref) }}
{% endmacro %}


{% macro _normalised_expr(col, side, alias=none) %}
  {#- Typed value with the column's normalisation rules applied (what is hashed and compared); a
      nested column's canonical typed structure (`nested_hashable`: no rule applies to it). -#}
  {%- set e = table_diff._typed_expr(col, side, alias) -%}
  {%- if table_diff._type_family(col['type']) == 'nested' -%}
    {{ return(table_diff.nested_hashable(e, table_diff._nested_tree(col['type']))) }}
  {%- endif -%}
  {%- set rules = col.get('normalize') or {} -%}
  {%- if 'round' in rules -%}{%- set e = 'round(' ~ e ~ ', ' ~ rules['round'] ~ ')' -%}{%- endif -%}
  {%- if 'truncate' in rules -%}{%- set e = "date_trunc('" ~ rules['truncate'] ~ "', " ~ e ~ ")" -%}{%- endif -%}
  {%- if rules.get('trim') -%}{%- set e = 'trim(' ~ e ~ ')' -%}{%- endif -%}
  {%- if rules.get('lower') -%}{%- set e = 'lower(' ~ e ~ ')' -%}{%- endif -%}
  {{ return(e) }}
{% endmacro %}


{% macro _compared_expr(col, side, alias=none) %}
  {#- What the row diff compares with `<=>`: the normalised value, except a nested value, compared
      as stored: Spark's `<=>` on arrays and structs already is the rule (NULL elements and fields
      by position, NaN = NaN, -0.0 = 0.0, [] apart from NULL), so the full-row join carries no
      hash structure; with a map or variant inside (which Spark cannot compare), its canonical
      rebuild (`nested_comparable`: maps as sorted entries, variants as text) (ADR 0041). -#}
  {%- if table_diff._type_family(col['type']) == 'nested' -%}
    {%- set tree = table_diff._nested_tree(col['type']) -%}
    {%- set e = table_diff._typed_expr(col, side, alias) -%}
    {{ return(table_diff.nested_comparable(e, tree) if table_diff._nested_has_map(tree) else e) }}
  {%- endif -%}
  {{ return(table_diff._normalised_expr(col, side, alias)) }}
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
  {#- Hash inputs in spec order: key columns (typed, never normalised) then compared columns (a
      column with a tolerance: its cell, `_tolerance_fingerprint`). -#}
  {%- set exprs = [] -%}
  {%- for k in spec['key'] -%}{%- do exprs.append(table_diff._typed_expr(k, side, alias)) -%}{%- endfor -%}
  {%- for c in spec['columns'] -%}
    {%- if c.get('tolerance') -%}
      {%- do exprs.extend(table_diff._tolerance_fingerprint(c, table_diff._normalised_expr(c, side, alias))) -%}
    {%- else -%}
      {%- do exprs.append(table_diff._normalised_expr(c, side, alias)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(exprs) }}
{% endmacro %}


{% macro _leaf_plan(spec, ranges, leaf_count, introspect=true) %}
  {#-
    How a row finds its leaf (ADR 0008), decided once per model from the ranges table:
    hash  : no table, `hash_bucket(key, leaf_count)`.
    grid  : strategy range, a key whose first column is integral (the common surrogate key, or
            `(order_id, line)`): the first column's cell on a uniform grid over the bounds' span
            (`(clamp(k1) - base) div width`, exact bigint arithmetic: the span is checked to
            stay below 2^61) is equi-joined, as a broadcast, to `td_bounds`: one row per cell
            with the leaf of the cell's first key and the few bounds inside the cell (at most 8,
            `inside`), compared with the whole key. A sum of comparisons, all compiled code:
            measured 2.08x the floor against 2.21x for the search (10M rows, 4096 leaves;
            ADR 0008 amendment: the grouping, not the lookup, is most of the rest); on a
            composite key the search's lambda runs interpreted, 4x the grid (ADR 0020).
            `composite`: bounds whose first column equals a cell's start are inside the cell
            (compared whole), and no bound may have a NULL first column.
    search: any other key: a binary search over the padded bounds (`leaf_expr`).
    `introspect` false (ranges given as a CTE, as no_drift does): search or hash, no query.
    Both exact ways give every key the same leaf, so models of one pair may differ in the way.
    A fourth kind, {'kind': 'none'}, is for a query that needs no leaf (every leaf selected): the
    leaf reads 0 and nothing is joined.
  -#}
  {% if spec['strategy'] == 'hash' %}
    {{ return({'kind': 'hash', 'leaf_count': leaf_count}) }}
  {% endif %}
  {% set search = {'kind': 'search', 'leaf_count': leaf_count, 'steps': table_diff._search_steps(leaf_count)} %}
  {% if not introspect or leaf_count < 2
        or table_diff._type_family(spec['key'][0]['type']) != 'integral' %}
    {{ return(search) }}
  {% endif %}
  {#- The bounds of one run's ranges never change: block_hashes and row_diff of the run read the
      same two answers, so the second model of one invocation takes them from the run cache. -#}
  {% set memo_key = ('leaf_plan ' ~ ranges ~ ' ' ~ spec['run_id'] ~ ' ' ~ leaf_count) if spec.get('run_id') else none %}
  {% set memo = table_diff._run_cache() %}
  {% if memo_key and memo_key in memo %}{{ return(memo[memo_key]) }}{% endif %}
  {% set composite = spec['key'] | length > 1 %}
  {% set first = 'lower_bound.k1' if composite else 'lower_bound' %}
  {% set span = run_query("select min(" ~ first ~ "), max(" ~ first ~ "), count_if(" ~ first ~ " is null) from "
      ~ ranges ~ " where leaf_id > 0").rows[0] %}
  {% if span[0] is none or span[2] | int > 0 %}{{ return(table_diff._remember(memo, memo_key, search)) }}{% endif %}
  {% set high = span[1] | int %}
  {% set base = (span[0] | int) - 1 %}
  {% if base <= -(2 ** 63) or high - base > 2 ** 61 %}{{ return(table_diff._remember(memo, memo_key, search)) }}{% endif %}
  {% set cells = [leaf_count * 4, 65536] | min %}
  {% set width = [(high - base + cells - 1) // cells, 1] | max %}
  {% set cell = "(cast(" ~ first ~ " as bigint) - " ~ table_diff.bigint_literal(base) ~ ") div " ~ width ~ "L" %}
  {% set inside = run_query("select coalesce(max(n), 0) from (select count(*) as n from " ~ ranges
      ~ " where leaf_id > 0 and cast(" ~ first ~ " as bigint) " ~ (">=" if composite else ">") ~ " " ~ table_diff.bigint_literal(base) ~ " + (" ~ cell ~ ") * " ~ width
      ~ "L group by " ~ cell ~ ") as c").rows[0][0] | int %}
  {% if inside > 8 %}{{ return(table_diff._remember(memo, memo_key, search)) }}{% endif %}
  {{ return(table_diff._remember(memo, memo_key, {'kind': 'grid', 'leaf_count': leaf_count, 'base': base, 'high': high, 'width': width,
             'last_cell': (high - base) // width, 'inside': inside, 'composite': composite,
             'bound_type': table_diff._key_type(spec)})) }}
{% endmacro %}


{% macro _remember(memo, key, value) %}
  {#- `value`, kept in the dict `memo` under `key` (none: not kept). -#}
  {% if key %}{% do memo.update({key: value}) %}{% endif %}
  {{ return(value) }}
{% endmacro %}


{% macro _leaf_hint(plan) %}
  {#- The select hint that keeps the grid join a broadcast (a sort-merge join of the grid costs 3x). -#}
  {%- set names = ['td_g'] if plan['kind'] == 'grid' else [] -%}
  {{ return(table_diff.broadcast_hint(names)) }}
{% endmacro %}


{% macro _bounds_ctes(spec, ranges_relation, plan) %}
  {#- The CTE `td_bounds`: the grid, the padded bounds array (search) or a placeholder (hash). -#}
  td_bounds as (
    {{ table_diff.leaf_table_sql(spec, ranges_relation, plan) }}
  )
{% endmacro %}


{% macro _search_steps(leaf_count) %}
  {#- Steps of the binary search over leaf_count - 1 bounds: smallest s with 2^s - 1 >= bounds. -#}
  {%- set ns = namespace(s=0) -%}
  {%- for i in range(40) -%}{%- if 2 ** ns.s - 1 < leaf_count - 1 -%}{%- set ns.s = ns.s + 1 -%}{%- endif -%}{%- endfor -%}
  {{ return(ns.s) }}
{% endmacro %}
