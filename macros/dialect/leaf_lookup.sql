{#-
  How a row finds its leaf, in the SQL of the dialect. `_leaf_plan` (internal/_expressions.sql)
  decides the way once per model (ADR 0008) and returns the plan these blocks read:
  {'kind': 'hash' | 'grid' | 'search' | 'none', 'leaf_count', and per kind 'steps' (search) or
  'base', 'high', 'width', 'last_cell', 'inside' (grid)}. `leaf_table_sql` is the relation
  `leaf_join` joins to each row (by `td_bounds` or as a parenthesised query), `leaf_expr` the
  leaf it then reads. Both ways of one model give every key the same leaf.
-#}

{% macro bigint_literal(value) %}
  {{ return(adapter.dispatch('bigint_literal', 'table_diff')(value)) }}
{% endmacro %}


{% macro default__bigint_literal(value) %}
  {#- Portable: a cast (in parentheses, so that a negative one reads safely after `-`). -#}
  {{ return('(cast(' ~ value ~ ' as bigint))') }}
{% endmacro %}


{% macro spark__bigint_literal(value) %}
  {#- A bigint literal in parentheses (a negative one reads safely after `-`). -#}
  {{ return('(' ~ value ~ 'L)') }}
{% endmacro %}


{% macro broadcast_hint(relations) %}
  {{ return(adapter.dispatch('broadcast_hint', 'table_diff')(relations)) }}
{% endmacro %}


{% macro default__broadcast_hint(relations) %}
  {#- A hint only speeds a plan up: none where there is no portable one. -#}
  {{ return('') }}
{% endmacro %}


{% macro spark__broadcast_hint(relations) %}
  {#- `/*+ broadcast(a, b) */` for the relations (aliases) given, '' for none. -#}
  {{ return(('/*+ broadcast(' ~ relations | join(', ') ~ ') */') if relations else '') }}
{% endmacro %}


{% macro leaf_expr(spec, key_sql, plan) %}
  {{ return(adapter.dispatch('leaf_expr', 'table_diff')(spec, key_sql, plan)) }}
{% endmacro %}


{% macro default__leaf_expr(spec, key_sql, plan) %}
  {{ return(table_diff._not_implemented('leaf_expr')) }}
{% endmacro %}


{% macro spark__leaf_expr(spec, key_sql, plan) %}
  {#-
    Leaf (finest block) of a row, from its key alone so both sides agree. NULL keys go to leaf 0.
    hash  : `hash_bucket(key, leaf_count, 'table_diff:leaf')`.
    grid  : the joined cell row `td_g` (see `leaf_join`): its first leaf plus the bounds inside
            the cell that are <= key (a missing bound is NULL and counts 0); no cell row (NULL
            key) is leaf 0.
    search: the number of sorted bounds <= key: a binary search of `steps` halvings over
            `__td_bounds` (the bounds padded to 2^steps - 1 elements, one row of the CTE
            `td_bounds`, joined once) written as ONE `aggregate` expression: O(log B), no range
            join, and no chain of lateral aliases (each step reads the previous one twice, so an
            optimizer that inlines such a chain builds an expression of 2^steps terms).
  -#}
  {%- if plan['kind'] == 'none' -%}
    {{ return('0') }}
  {%- elif plan['kind'] == 'hash' -%}
    {{ return(table_diff.hash_bucket(key_sql, plan['leaf_count'], 'table_diff:leaf')) }}
  {%- elif plan['kind'] == 'grid' -%}
    {%- set terms = ['td_g.__td_first'] -%}
    {%- for j in range(plan['inside']) -%}
      {%- do terms.append('if(' ~ key_sql ~ ' >= td_g.__td_nb' ~ (j + 1) ~ ', 1, 0)') -%}
    {%- endfor -%}
    {{ return('coalesce(' ~ terms | join(' + ') ~ ', 0)') }}
  {%- endif -%}
  {%- set search_steps = plan['steps'] -%}
  {%- if search_steps == 0 -%}{{ return('0') }}{%- endif -%}
  {%- set top = 2 ** (search_steps - 1) -%}
  {{ return("least(aggregate(sequence(0, " ~ (search_steps - 1) ~ "), 0, (p, i) -> p + if(element_at(__td_bounds, p + shiftright("
      ~ top ~ ", i)) <= " ~ key_sql ~ ", shiftright(" ~ top ~ ", i), 0)), " ~ (plan['leaf_count'] - 1) ~ ")") }}
{% endmacro %}


{% macro leaf_join(plan, table, key_sql) %}
  {{ return(adapter.dispatch('leaf_join', 'table_diff')(plan, table, key_sql)) }}
{% endmacro %}


{% macro default__leaf_join(plan, table, key_sql) %}
  {{ return(table_diff._not_implemented('leaf_join')) }}
{% endmacro %}


{% macro spark__leaf_join(plan, table, key_sql) %}
  {#- The FROM clause continuation that gives rows what `leaf_expr` reads: `table` is the bounds
      relation (`td_bounds`, or a parenthesised query of `leaf_table_sql`); nothing for hash. -#}
  {%- if plan['kind'] in ['hash', 'none'] -%}{{ return('') }}{%- endif -%}
  {%- if plan['kind'] == 'grid' -%}
    {{ return('left join ' ~ table ~ ' as td_g on td_g.__td_c = ' ~ table_diff.grid_cell(plan, key_sql)) }}
  {%- endif -%}
  {{ return('cross join ' ~ table ~ (' as td_bounds' if table != 'td_bounds' else '')) }}
{% endmacro %}


{% macro grid_cell(plan, key_sql) %}
  {{ return(adapter.dispatch('grid_cell', 'table_diff')(plan, key_sql)) }}
{% endmacro %}


{% macro default__grid_cell(plan, key_sql) %}
  {{ return(table_diff._not_implemented('grid_cell')) }}
{% endmacro %}


{% macro spark__grid_cell(plan, key_sql) %}
  {#- A key's cell on a grid plan: its first column clamped to the bounds' span, in cells of
      `width` from `base` (exact bigint arithmetic); NULL for a NULL first column. -#}
  {%- set first = '(' ~ key_sql ~ ').k1' if plan.get('composite') else key_sql -%}
  {{ return('((least(greatest(cast(' ~ first ~ ' as bigint), ' ~ table_diff.bigint_literal(plan['base']) ~ '), '
      ~ table_diff.bigint_literal(plan['high']) ~ ') - ' ~ table_diff.bigint_literal(plan['base']) ~ ') div ' ~ plan['width'] ~ 'L)') }}
{% endmacro %}


{% macro leaf_table_sql(spec, ranges_from, plan) %}
  {{ return(adapter.dispatch('leaf_table_sql', 'table_diff')(spec, ranges_from, plan)) }}
{% endmacro %}


{% macro default__leaf_table_sql(spec, ranges_from, plan) %}
  {{ return(table_diff._not_implemented('leaf_table_sql')) }}
{% endmacro %}


{% macro spark__leaf_table_sql(spec, ranges_from, plan) %}
  {#- What `leaf_join` joins. `ranges_from`: the ranges as a FROM item. -#}
  {%- if plan['kind'] == 'grid' -%}
    {{ return(table_diff._grid_sql(ranges_from, plan)) }}
  {%- elif plan['kind'] == 'search' -%}
    {{ return(table_diff._padded_bounds_sql(spec, ranges_from, plan['steps'])) }}
  {%- endif -%}
  {{ return('select 1 as __td_one') }}
{% endmacro %}


{% macro _grid_sql(ranges_from, plan) %}
  {#-
    One row per grid cell c (0 .. last_cell; cell c starts at base + c * width): `__td_first`, the
    number of bounds <= the cell's start (bounds of earlier cells, and one equal to the start), and
    `__td_nb1..` the bounds strictly inside the cell, ascending (NULL where fewer). A composite
    key's cell is its first column's (`plan['composite']`): a bound whose first column equals the
    cell's start may still exceed a key of that first column, so every bound of the cell is
    inside it, compared whole, and `__td_first` counts the earlier cells' bounds only.
    Every cell comes from a union with the cell sequence (a NULL bound, counted by nothing), so no
    join is needed: one aggregate over at most leaves + 65536 rows, then one running sum.
  -#}
  {%- set base, w = table_diff.bigint_literal(plan['base']), plan['width'] ~ 'L' -%}
  {%- set composite = plan.get('composite', false) -%}
  {%- set first = 'lower_bound.k1' if composite else 'lower_bound' -%}
  select
    c as __td_c,
    cast(
      coalesce(sum(n) over (order by c rows between unbounded preceding and 1 preceding), 0) + at_start as int
    ) as __td_first
    {%- for j in range(plan['inside']) %},
    try_element_at(inside, {{ j + 1 }}) as __td_nb{{ j + 1 }}
    {%- endfor %}
  from (
    select
      c,
      count(b) as n,
      {%- if composite %}
      0 as at_start,
      array_sort(collect_list(b)) as inside
      {%- else %}
      count_if(b = {{ base }} + c * {{ w }}) as at_start,
      array_sort(collect_list(if(b > {{ base }} + c * {{ w }}, b, null))) as inside
      {%- endif %}
    from (
      select (cast({{ first }} as bigint) - {{ base }}) div {{ w }} as c,
        {{ 'lower_bound' if composite else 'cast(lower_bound as bigint)' }} as b
      from {{ ranges_from }}
      where leaf_id > 0
      union all
      select explode(sequence(0L, {{ plan['last_cell'] }}L)) as c,
        cast(null as {{ plan['bound_type'] if composite else 'bigint' }}) as b
    ) as cell_bounds
    group by c
  ) as cells
{%- endmacro %}


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
