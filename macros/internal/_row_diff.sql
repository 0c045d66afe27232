{#- The row fetch shared by the pair's row diff (diff/) and no_drift (drift/): the dense path's
    differing keys, the CTEs that pair the rows of selected leaves, the output shape (its tuning vars:
    `_fetch_tuning.sql`). -#}

{% macro _leaf_filter_cte(selected_leaves, leaf_count) %}
  {#- The CTE of selected leaves rows are filtered by, or none when every leaf is selected: then no
      row needs its leaf (the leaf search is the dearest expression of the pass). -#}
  {{ return(none if selected_leaves >= leaf_count else 'td_leaves') }}
{% endmacro %}


{% macro _narrow_key(spec, key_sql) %}
  {#- The key as the dense path's narrow pass joins it: a single key column raw (a NULL key never
      matches, so its rows always count as differing and are fetched by a null-safe semi join);
      a composite key as a struct, whose equality is null-safe field by field. Sorting and hashing
      a raw bigint is far cheaper than a struct (ADR 0007). -#}
  {{ return(key_sql if spec['key'] | length == 1 else "named_struct('k', " ~ key_sql ~ ")") }}
{% endmacro %}


{% macro _narrow_key_parts(spec) %}
  {#- The narrow pass's join columns, [{'name', 'expr'}] over the row's `__td_k`: a single key
      raw (`__td_jk`: a NULL key never matches, so its rows always count as differing); a
      composite key as two columns per key column, its value or a constant of its type when NULL
      (`__td_j<i>`), and whether it is NULL (`__td_z<i>`): equal pairs are exactly null-safe equal
      values, and the window and the join partition by plain columns. -#}
  {% if spec['key'] | length == 1 %}
    {{ return([{'name': '__td_jk', 'expr': '__td_k'}]) }}
  {% endif %}
  {% set parts = [] %}
  {% for k in spec['key'] %}
    {% set field = '__td_k.k' ~ loop.index %}
    {% do parts.append({'name': '__td_j' ~ loop.index, 'expr': 'coalesce(' ~ field ~ ', ' ~ table_diff._key_constant(k['type']) ~ ')'}) %}
    {% do parts.append({'name': '__td_z' ~ loop.index, 'expr': field ~ ' is null'}) %}
  {% endfor %}
  {{ return(parts) }}
{% endmacro %}


{% macro _key_constant(data_type) %}
  {#- A non-NULL literal of a key column's type, for `_narrow_key_parts` (its value does not matter). -#}
  {%- set family = table_diff._type_family(data_type) -%}
  {%- set literal = {'string': "''", 'boolean': 'false', 'date': "date'1970-01-01'",
      'timestamp': "timestamp'1970-01-01 00:00:00'", 'timestamp_ntz': "timestamp_ntz'1970-01-01 00:00:00'",
      'binary': "X''"}.get(family, '0') -%}
  {{ return('cast(' ~ literal ~ ' as ' ~ data_type ~ ')') }}
{% endmacro %}


{% macro _narrow_key_from_parts(spec, parts) %}
  {#- The key of a row of the narrow join (aliases s, t), in `_narrow_key`'s shape. -#}
  {% if spec['key'] | length == 1 %}
    {{ return('coalesce(s.__td_jk, t.__td_jk)') }}
  {% endif %}
  {% set fields = [] %}
  {% for k in spec['key'] %}
    {% set j, z = '__td_j' ~ loop.index, '__td_z' ~ loop.index %}
    {% do fields.append("'k" ~ loop.index ~ "', if(coalesce(s." ~ z ~ ", t." ~ z ~ "), cast(null as " ~ k['type'] ~ "), coalesce(s." ~ j ~ ", t." ~ j ~ "))") %}
  {% endfor %}
  {{ return("named_struct('k', named_struct(" ~ fields | join(', ') ~ "))") }}
{% endmacro %}


{% macro _cache_differing_keys(spec, source, target, ranges_from, plan, leaves_query, selected_leaves, key_filter=none, files=none, selected_rows=none) %}
  {#-
    Dense drift (`_takes_narrow_pass`: `selected_leaves` at least `_dense_leaf_share()` of
    `leaf_count`, or half of it with at least `_dense_rows()` `selected_rows`; otherwise none,
    and nothing runs): one narrow pass (key, row hash, per-key row count; one shuffle of a few
    bytes per row) finds the keys whose rows differ in the selected leaves, cached in a temporary
    view (released by the package's on-run-end hook). Returns the view's name, or none when more
    than `_broadcast_key_limit()` keys differ (the view is released at once and the rows are
    joined in full, as for sparse drift).
    `ranges_from`: the ranges as a FROM item (a relation, or `(query) as name`); `leaves_query`: a
    query of the selected `leaf_id`s; `key_filter`: the same leaves as key ranges, or none
    (`_selected_key_ranges`); `files`: with a changes track, the data files that hold the selected
    leaves, per side (`_track_fetch_files`), or none. The view's query has no WITH clause on purpose: Spark does not
    substitute a cached view defined with CTEs into a query that has its own (the row diff's), and
    would silently recompute the narrow pass once per side.
  -#}
  {% set leaf_count = plan['leaf_count'] %}
  {#- A database side sends the rows of the selected leaves only, at any share (ADR 0047). -#}
  {% if not table_diff._takes_narrow_pass(spec, selected_leaves, leaf_count, selected_rows) %}
    {{ return(none) }}
  {% endif %}
  {%- set filtered = table_diff._leaf_filter_cte(selected_leaves, leaf_count) is not none -%}
  {#- The key as plain null-safe columns (`_narrow_key_parts`; a struct sorts about a third
      slower, ADR 0033), rebuilt in `_narrow_key`'s shape for the fetch's semi join. -#}
  {%- set parts = table_diff._narrow_key_parts(spec) -%}
  {% set keys_sql %}
    select distinct {{ table_diff._narrow_key_from_parts(spec, parts) }} as __td_jk
    {%- for side, relation in [('source', source), ('target', target)] %}
    {{ 'from' if loop.first else 'full outer join' }} (
      select
        {%- for p in parts %}
        {{ p['name'] }},
        {%- endfor %}
        __td_h1,
        count(*) over (partition by {{ parts | map(attribute='name') | join(', ') }}) as __td_n
      from (
        select {{ table_diff._leaf_hint(plan) if filtered }}
          {%- for p in parts %}
          {{ p['expr'] }} as {{ p['name'] }},
          {%- endfor %}
          {{ table_diff._row_hashes(spec, side)[0] }} as __td_h1
        from (
          select *, {{ table_diff._key_expr(spec, side) }} as __td_k
          from {{ table_diff._side_from(spec, side, relation) }}
          {{ table_diff._where(spec) }}
          {%- if files and files[side]['where'] %}
          {{ 'and' if spec['table_filter'] else 'where' }} {{ files[side]['where'] }}
          {%- endif %}
        ) as r
        {%- if filtered %}
        {{ table_diff.leaf_join(plan, '(' ~ table_diff.leaf_table_sql(spec, ranges_from, plan) ~ ')', 'r.__td_k') }}
        where {{ table_diff.leaf_expr(spec, '__td_k', plan) }} in ({{ leaves_query }})
        {%- if key_filter %}
          and ({{ key_filter }})
        {%- endif %}
        {%- endif %}
      ) as x
    ) as {{ 's' if loop.first else 't' }}
    {%- endfor %}
      on {% for p in parts %}s.{{ p['name'] }} = t.{{ p['name'] }} and {% endfor %}s.__td_n = 1 and t.__td_n = 1
    {#- Unmatched: a key on one side only, stored more than once, or with another row hash. #}
    where s.__td_n is null or t.__td_n is null or s.__td_h1 != t.__td_h1
  {% endset %}
  {% set view = 'td_cache_keys_' ~ local_md5(source ~ target ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff.cache_view(view, keys_sql) %}
  {% set n = run_query("select count(*) from " ~ view).rows[0][0] | int %}
  {% do log("table_diff: " ~ source ~ " vs " ~ target ~ ": " ~ n ~ " keys differ (found on the key/hash projection of the selected leaves)", info=false) %}
  {% if n > table_diff._broadcast_key_limit() %}
    {% do table_diff.drop_cached_view(view) %}
    {{ return(none) }}
  {% endif %}
  {{ return(view) }}
{% endmacro %}


{% macro _row_diff_ctes(spec, leaves_cte, keys_relation=none, key_filter=none, cell_filter=none) %}
  {#-
    Needs `<side>_leafed` CTEs; defines `td_diff` with every differing row, unordered.
    `leaves_cte`: the CTE of the selected leaves, or none when every leaf is selected.
    Each side's rows of the selected leaves (one scan each; a column's normalised value travels
    only when it differs from the stored one) get their key's row count and a row number (one
    window per side, partitioned by the key), then a null-safe full outer join on the key pairs them. Keys stored once on both sides are
    added / deleted / compared column by column. A key stored more than once on a side is reported
    row by row (`duplicate_key`): such rows only join a side that holds the key once, so the join
    never multiplies duplicates, and the single row is emitted once (next to row number 1).
    One `inline` emits up to three output rows per joined row, so no CTE is read twice.
    Keys join as `named_struct('k', key)`: struct equality is null-safe field by field, and the
    window and the join then share one hash partitioning (`<=>` would shuffle every row twice).
    With `keys_relation` (the differing keys, from `_cache_differing_keys`) only rows with those
    keys are fetched, by a broadcast semi join instead of the leaf search. `key_filter`: the
    selected leaves as key ranges (`_selected_key_ranges`), added to either filter (it is implied
    by both; stated so that the parquet reader can skip row groups). `cell_filter`: instead of
    `leaves_cte`, a row's grid cell, kept when in the CTE `td_cells` (the pair's row diff, ADR 0030).
  -#}
  {%- set composite = spec['key'] | length > 1 -%}
  {%- for side in ['source', 'target'] %}
  td_{{ side }}_rows as (
    select
      __td_k,
      __td_jk,
      {%- for c in spec['columns'] %}
      {%- set v = table_diff._compared_expr(c, side) %}
      {%- if v != table_diff._col_ref(c['name']) %}
      {{ v }} as __td_v{{ loop.index }},
      {%- endif %}
      {{ table_diff._col_ref(c['name']) }} as __td_r{{ loop.index }},
      {%- endfor %}
      count(*) over (
        partition by __td_jk order by __td_jk rows between unbounded preceding and unbounded following
      ) as __td_n,
      row_number() over (partition by __td_jk order by __td_jk) as __td_rn
    from (
      {%- if keys_relation %}
      select {{ table_diff.broadcast_hint(['td_dk']) }} x.*, named_struct('k', x.__td_k) as __td_jk
      from {{ side }}_leafed as x
      left semi join {{ keys_relation }} as td_dk on {{ table_diff._narrow_key(spec, 'x.__td_k') }} <=> td_dk.__td_jk
      {%- if key_filter %}
      where ({{ key_filter }})
      {%- endif %}
      {%- else %}
      select *, named_struct('k', __td_k) as __td_jk
      from {{ side }}_leafed
      {%- if leaves_cte or cell_filter %}
      where {{ ('__td_leaf in (select leaf_id from ' ~ leaves_cte ~ ')') if leaves_cte else (cell_filter ~ ' in (select __td_c from td_cells)') }}
      {%- if key_filter %}
        and ({{ key_filter }})
      {%- endif %}
      {%- endif %}
      {%- endif %}
    ) as x
  ),
  {% endfor %}

  td_joined as (
    select
      coalesce(s.__td_k, t.__td_k) as __td_k,
      s.__td_n as __td_sn,
      t.__td_n as __td_tn,
      s.__td_rn as __td_srn,
      t.__td_rn as __td_trn,
      array_compact(array(
        {%- for c in spec['columns'] %}
        if({{ table_diff._values_equal(c, table_diff._joined_value(c, 'source', 's', loop.index), table_diff._joined_value(c, 'target', 't', loop.index)) }}, null, {{ table_diff._sql_string(c['name']) }}),
        {%- endfor %}
        cast(null as string)
      )) as __td_changed
      {%- for c in spec['columns'] %}
      {%- if table_diff._type_family(c['type']) == 'nested' %},
      {#- (not a loop filter: `loop.index` must count every column, as `__td_r<i>` does) #}
      if({{ table_diff._values_equal(c, table_diff._joined_value(c, 'source', 's', loop.index), table_diff._joined_value(c, 'target', 't', loop.index)) }}, null,
        {{ table_diff.nested_changed_paths('s.__td_r' ~ loop.index, 't.__td_r' ~ loop.index, table_diff._nested_tree(c['type']), c['name']) }}) as __td_ps{{ loop.index }}
      {%- endif %}
      {%- endfor %}
      {%- for c in spec['columns'] %},
      s.__td_r{{ loop.index }} as __td_s{{ loop.index }},
      t.__td_r{{ loop.index }} as __td_t{{ loop.index }}
      {%- endfor %}
    from td_source_rows as s
    full outer join td_target_rows as t
      on s.__td_jk = t.__td_jk and (s.__td_n = 1 or t.__td_n = 1)
    {#- Rows stored once on both sides with every value equal emit nothing: drop them before
        the output arrays are built (at dense drift nearly every joined row is one). #}
    where s.__td_n is null or t.__td_n is null or s.__td_n > 1 or t.__td_n > 1
      or not (
        {%- for c in spec['columns'] %}
        {{ 'and ' if not loop.first }}{{ table_diff._values_equal(c, table_diff._joined_value(c, 'source', 's', loop.index), table_diff._joined_value(c, 'target', 't', loop.index)) }}
        {%- else %}
        true
        {%- endfor %}
      )
  ),


  td_emitted as (
    select
      __td_k,
      inline(array_compact(array(
        if(
          coalesce(__td_sn, 0) <= 1 and coalesce(__td_tn, 0) <= 1
          and (__td_sn is null or __td_tn is null or size(__td_changed) > 0),
          {{ table_diff._row_diff_out(spec, "case when __td_sn is null then 'added' when __td_tn is null then 'deleted' else 'modified' end",
                  "case when __td_sn is null then 'target' when __td_tn is null then 'source' else 'both' end",
                  "if(__td_sn is null or __td_tn is null, cast(array() as array<string>), __td_changed)", true, true,
                  "if(__td_sn is null or __td_tn is null, cast(array() as array<string>), " ~ table_diff._changed_paths_expr(spec) ~ ")") }},
          null
        ),
        if(
          __td_sn > 1 or (__td_sn = 1 and __td_tn > 1 and __td_trn = 1),
          {{ table_diff._row_diff_out(spec, "'duplicate_key'", "'source'", "cast(array() as array<string>)", true, false) }},
          null
        ),
        if(
          __td_tn > 1 or (__td_tn = 1 and __td_sn > 1 and __td_srn = 1),
          {{ table_diff._row_diff_out(spec, "'duplicate_key'", "'target'", "cast(array() as array<string>)", false, true) }},
          null
        )
      )))
    from td_joined
  ),

  td_diff as (
    select
      {%- for k in spec['key'] %}
      {{ ('__td_k.k' ~ loop.index) if composite else '__td_k' }} as __td_key{{ loop.index }},
      {%- endfor %}
      diff_type,
      side,
      changed_columns,
      changed_paths
      {%- for c in spec['columns'] %},
      s{{ loop.index }} as __td_s{{ loop.index }},
      t{{ loop.index }} as __td_t{{ loop.index }}
      {%- endfor %}
    from td_emitted
  )
{% endmacro %}


{% macro _joined_value(col, side, alias, index) %}
  {#- A compared column of `td_<side>_rows` as compared (`_compared_expr`: `__td_v<i>`) where that differs from the stored value (`__td_r<i>`). -#}
  {{ return(alias ~ '.__td_' ~ ('v' if table_diff._compared_expr(col, side) != table_diff._col_ref(col['name']) else 'r') ~ index) }}
{% endmacro %}


{% macro _changed_paths_limit(macro_name='row_diff') %}
  {#- Most `changed_paths` a row diff row lists (var `table_diff_changed_paths_limit`). -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_changed_paths_limit', 20, 1, whole=true)) }}
{% endmacro %}


{% macro _changed_paths_expr(spec) %}
  {#- A modified row's `changed_paths` in `td_emitted`: per changed column in table order, its name
      (a flat column) or the minimal paths inside it that differ (a nested one, `__td_ps<i>`),
      cut to `_changed_paths_limit()`. -#}
  {%- set parts = [] -%}
  {%- set ns = namespace(nested=false) -%}
  {%- for c in spec['columns'] -%}
    {%- if table_diff._type_family(c['type']) == 'nested' -%}
      {%- set ns.nested = true -%}
      {%- do parts.append('coalesce(' ~ table_diff.minimal_paths('__td_ps' ~ loop.index) ~ ', cast(array() as array<string>))') -%}
    {%- else -%}
      {%- set n = table_diff._sql_string(c['name']) -%}
      {%- do parts.append('if(array_contains(__td_changed, ' ~ n ~ '), array(' ~ n ~ '), cast(array() as array<string>))') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set all = ('concat(' ~ parts | join(', ') ~ ')') if ns.nested else '__td_changed' -%}
  {{ return('slice(' ~ all ~ ', 1, ' ~ table_diff._changed_paths_limit() ~ ')') }}
{% endmacro %}


{% macro _row_diff_out(spec, diff_type, side, changed, src, tgt, paths="cast(array() as array<string>)") %}
  {#- One output row of the row diff as a struct (all branches share its type): source values from
      `__td_s<i>` when `src`, target values from `__td_t<i>` when `tgt`, NULLs of the side's type otherwise. -#}
  named_struct(
    'diff_type', {{ diff_type }}, 'side', {{ side }}, 'changed_columns', {{ changed }}, 'changed_paths', {{ paths }}
    {%- for c in spec['columns'] %},
    's{{ loop.index }}', {{ ('__td_s' ~ loop.index) if src else ('cast(null as ' ~ c['source_type'] ~ ')') }},
    't{{ loop.index }}', {{ ('__td_t' ~ loop.index) if tgt else ('cast(null as ' ~ c['target_type'] ~ ')') }}
    {%- endfor %}
  )
{% endmacro %}


{% macro _row_diff_select(spec, diff_cte) %}
  {#- Final projection with user-facing names; `diff_cte` none = an empty table of the same shape. -#}
  select
    {%- for k in spec['key'] %}
    {{ ('__td_key' ~ loop.index) if diff_cte else ('cast(null as ' ~ k['type'] ~ ')') }} as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    {{ 'diff_type' if diff_cte else 'cast(null as string)' }} as diff_type,
    {{ 'side' if diff_cte else 'cast(null as string)' }} as side,
    {{ 'changed_columns' if diff_cte else 'cast(null as array<string>)' }} as changed_columns,
    {{ 'changed_paths' if diff_cte else 'cast(null as array<string>)' }} as changed_paths
    {%- for c in spec['columns'] %},
    {{ ('__td_s' ~ loop.index) if diff_cte else ('cast(null as ' ~ c['source_type'] ~ ')') }} as {{ table_diff.quote_identifier('source__' ~ c['name']) }},
    {{ ('__td_t' ~ loop.index) if diff_cte else ('cast(null as ' ~ c['target_type'] ~ ')') }} as {{ table_diff.quote_identifier('target__' ~ c['name']) }}
    {%- endfor %}
    {%- if spec.get('run_id') %},
    {#- A pair's row diff (not no_drift's rows): stamped with the pair's run (ADR 0011). -#}
    {{ table_diff._sql_string(spec['run_id']) }} as run_id
    {%- endif %}
  {% if diff_cte %}
  from {{ diff_cte }}
  order by
    {%- for k in spec['key'] %} __td_key{{ loop.index }},{% endfor %} diff_type, side
  limit {{ spec['max_diff_rows'] }}
  {% else %}
  where false
  {% endif %}
{% endmacro %}
