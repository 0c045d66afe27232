{#-
  table_diff.row_diff: rows that differ, fetched only from the compare units the split step kept.
  Keys match null-safely. A key present more than once on either side is reported as
  `duplicate_key` (each such row once, with the side it came from; never joined, so no cross
  product). Otherwise: `added` (only in target), `deleted` (only in source), `modified` (one row,
  `changed_columns` in table order, `source__<col>` / `target__<col>` for every compared column).
  Values are compared after the pair's normalisation; the output shows the stored values.
-#}
{% macro row_diff(ranges, block_split, source, target) %}
  {% do table_diff._require_relation('row_diff', 'ranges', ranges) %}
  {% do table_diff._require_relation('row_diff', 'block_split', block_split) %}
  {% do table_diff._require_relation('row_diff', 'source', source) %}
  {% do table_diff._require_relation('row_diff', 'target', target) %}
  {{ return(adapter.dispatch('row_diff', 'table_diff')(ranges, block_split, source, target)) }}
{% endmacro %}


{% macro default__row_diff(ranges, block_split, source, target) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.row_diff: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__row_diff(ranges, block_split, source, target) %}
  {% if not execute %}
    {{ return("select 'added' as diff_type") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('row_diff', ranges) %}
  {% do table_diff._require_run('row_diff', 'block_split', block_split, spec) %}
  {% set leaf_count = run_query("select count(*) from " ~ ranges).rows[0][0] | int %}
  {% set leaves_query = "select explode(sequence(leaf_lo, leaf_hi)) as leaf_id from " ~ block_split ~ " where selected" %}
  {% set sel = run_query("select (select count(*) from " ~ block_split ~ " where selected), count(distinct leaf_id) from ("
      ~ leaves_query ~ ") as l").rows[0] %}
  {% set units, selected_leaves = sel[0] | int, sel[1] | int %}
  {% if units == 0 %}
    {#- Nothing differs (or nothing was selected): no scan at all, an empty table of the right shape. -#}
    {{ table_diff._row_diff_select(spec, none) }}
  {% else %}
  {#- Every leaf selected: no row needs its leaf, so none is looked up (nothing joined). -#}
  {% set plan = table_diff._leaf_plan(spec, ranges, leaf_count) if selected_leaves < leaf_count
      else {'kind': 'none', 'leaf_count': leaf_count} %}
  {% set key_filter = table_diff._selected_key_ranges(spec, ranges, leaves_query) if selected_leaves < leaf_count else none %}
  {% set keys_view = table_diff._cache_differing_keys(spec, source, target, ranges, plan, leaves_query, selected_leaves, key_filter) %}
  with
  {{ table_diff._block_hashes_ctes(spec, source, target, ranges, plan) }},
  td_leaves as ({{ leaves_query }}),
  {{ table_diff._row_diff_ctes(spec, table_diff._leaf_filter_cte(selected_leaves, leaf_count), keys_view, key_filter) }}
  {{ table_diff._row_diff_select(spec, 'td_diff') }}
  {% endif %}
{% endmacro %}


{% macro _dense_leaf_share(macro_name='row_diff') %}
  {#- Share of leaves selected from which the row diff first finds the differing keys on a narrow
      (key, row hash) projection, then fetches only their rows. Default 0.5: at 10M rows and 1%
      drift (every leaf selected) the row diff took 40 s this way against 45 s joining the full
      rows; with few leaves selected the full-row join of those leaves reads less (ADR 0007). The
      var `table_diff_dense_leaf_share` overrides it (0 = always, 2 = never); the property test
      runs every path. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_dense_leaf_share', 0.5, 0)) }}
{% endmacro %}


{% macro _broadcast_key_limit(macro_name='row_diff') %}
  {#- Most differing keys the row fetch broadcasts; above it, the full rows are joined as usual.
      The var `table_diff_broadcast_key_limit` overrides it. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_broadcast_key_limit', 1000000, 0, whole=true)) }}
{% endmacro %}


{% macro _key_range_limit(macro_name='row_diff') %}
  {#- Most runs of contiguous selected leaves the row fetch also states as key-range
      predicates (ADR 0010); var `table_diff_key_range_limit`, 0 = never. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_key_range_limit', 8, 0, whole=true)) }}
{% endmacro %}


{% macro _selected_key_ranges(spec, ranges, leaves_query) %}
  {#-
    The selected leaves as a predicate on the key's first column, or none: one term per run of
    contiguous selected leaves. Leaf i holds lower_bound <= key < upper_bound (leaf 0 also every
    NULL key); a composite key compares as a struct whose NULL fields sort first, so a run's keys
    have their first column between the run's bounds' first columns, both included, or NULL when
    the run is open below or a bound's first column is NULL. Implied by the leaf filter, so it
    changes no result; stated with plain literals of the column's type so that Spark pushes it to
    the parquet reader, which skips row groups (and prunes partitions) whose key statistics miss
    every range: on a table stored in key order, or partitioned by its first key column, with drift
    in a few key ranges (a replica behind on its newest keys, a reloaded day), the fetch reads
    those parts only. Strategy range only, a first key column whose literals render exactly
    (`_key_bound_literal`), and at most `_key_range_limit()` runs (a long disjunction defeats code
    generation: ADR 0008 amendment).
  -#}
  {% set limit = table_diff._key_range_limit() %}
  {% set first = spec['key'][0] %}
  {% set family = table_diff._type_family(first['type']) %}
  {% if limit == 0 or spec['strategy'] != 'range' or not table_diff._key_bound_sql(family, 'b') %}
    {{ return(none) }}
  {% endif %}
  {% set composite = spec['key'] | length > 1 %}
  {% set field = '.k1' if composite else '' %}
  {% set runs = run_query(
      "select min(leaf_id), " ~ table_diff._key_bound_sql(family, 'min_by(lower_bound, leaf_id)' ~ field) ~ ","
      ~ " " ~ table_diff._key_bound_sql(family, 'max_by(upper_bound, leaf_id)' ~ field) ~ ","
      ~ " max_by(upper_bound, leaf_id) is null"
      ~ " from (select r.leaf_id, r.lower_bound, r.upper_bound,"
      ~ " r.leaf_id - row_number() over (order by r.leaf_id) as run"
      ~ " from " ~ ranges ~ " as r left semi join (" ~ leaves_query ~ ") as l on r.leaf_id = l.leaf_id) as x"
      ~ " group by run order by 1 limit " ~ (limit + 1)).rows %}
  {% if runs | length == 0 or runs | length > limit %}
    {{ return(none) }}
  {% endif %}
  {% set column = '__td_k' ~ field %}
  {% set terms = [] %}
  {% for first_leaf, lower, upper, open_above in runs %}
    {% set lo = table_diff._key_bound_literal(first, lower) if first_leaf | int > 0 else none %}
    {% set hi = table_diff._key_bound_literal(first, upper) if not open_above else none %}
    {% if (first_leaf | int > 0 and lower is not none and lo is none) or (not open_above and upper is not none and hi is none) %}
      {#- A bound that does not render exactly: no predicate at all (it is only an optimisation). -#}
      {{ return(none) }}
    {% endif %}
    {% if not open_above and upper is none %}
      {#- A composite bound whose first column is NULL: the run's keys all have it NULL. -#}
      {% do terms.append(column ~ ' is null') %}
    {% else %}
      {% set parts = ([column ~ ' >= ' ~ lo] if lo else []) + ([column ~ (' <= ' if composite else ' < ') ~ hi] if hi else []) %}
      {% set within = parts | join(' and ') if parts else 'true' %}
      {% do terms.append((column ~ ' is null or ' ~ within) if lo is none else within) %}
    {% endif %}
  {% endfor %}
  {{ return('(' ~ terms | join(') or (') ~ ')') }}
{% endmacro %}


{% macro _key_bound_sql(family, value_sql) %}
  {#- A key bound as an exact string for `_key_bound_literal` (prefixed with 'x' so that the result
      table keeps it a string), or none for a type without an exact literal here (floats, whose NaN
      and -0.0 parquet statistics do not order like Spark; booleans; binary; timestamp_ntz). -#}
  {%- set text = {
      'integral': 'cast(' ~ value_sql ~ ' as string)',
      'decimal': 'cast(' ~ value_sql ~ ' as string)',
      'date': 'cast(unix_date(' ~ value_sql ~ ') as string)',
      'timestamp': 'cast(unix_micros(' ~ value_sql ~ ') as string)',
      'string': 'hex(' ~ value_sql ~ ')',
  }.get(family) -%}
  {{ return(("concat('x', " ~ text ~ ")") if text else none) }}
{% endmacro %}


{% macro _key_bound_literal(col, text) %}
  {#- The SQL literal of a key bound rendered by `_key_bound_sql`, in the column's type, or none when
      the text is not what that query renders (then no predicate is stated). -#}
  {%- if text is none or not (text ~ '').startswith('x') -%}{{ return(none) }}{%- endif -%}
  {%- set v = (text ~ '')[1:] -%}
  {%- set family = table_diff._type_family(col['type']) -%}
  {%- set re = modules.re -%}
  {%- if family == 'integral' and re.fullmatch('-?[0-9]{1,19}', v) -%}
    {{ return('cast(' ~ table_diff._bigint(v) ~ ' as ' ~ col['type'] ~ ')') }}
  {%- elif family == 'decimal' and re.fullmatch('-?[0-9]{1,38}(\\.[0-9]{1,38})?', v) -%}
    {{ return('cast((' ~ v ~ 'BD) as ' ~ col['type'] ~ ')') }}
  {%- elif family == 'date' and re.fullmatch('-?[0-9]{1,10}', v) -%}
    {{ return('date_from_unix_date(' ~ v ~ ')') }}
  {%- elif family == 'timestamp' and re.fullmatch('-?[0-9]{1,19}', v) -%}
    {{ return('timestamp_micros(' ~ table_diff._bigint(v) ~ ')') }}
  {%- elif family == 'string' and re.fullmatch('([0-9A-F]{2})*', v) -%}
    {{ return("cast(X'" ~ v ~ "' as string)") }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}


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


{% macro _cache_differing_keys(spec, source, target, ranges_from, plan, leaves_query, selected_leaves, key_filter=none) %}
  {#-
    Dense drift (`selected_leaves` at least `_dense_leaf_share()` of `leaf_count`; otherwise none,
    and nothing runs): one narrow pass (key, row hash, per-key row count; one shuffle of a few
    bytes per row) finds the keys whose rows differ in the selected leaves, cached in a temporary
    view (released by the package's on-run-end hook). Returns the view's name, or none when more
    than `_broadcast_key_limit()` keys differ (the view is released at once and the rows are
    joined in full, as for sparse drift).
    `ranges_from`: the ranges as a FROM item (a relation, or `(query) as name`); `leaves_query`: a
    query of the selected `leaf_id`s; `key_filter`: the same leaves as key ranges, or none
    (`_selected_key_ranges`). The view's query has no WITH clause on purpose: Spark does not
    substitute a cached view defined with CTEs into a query that has its own (the row diff's), and
    would silently recompute the narrow pass once per side.
  -#}
  {% set leaf_count = plan['leaf_count'] %}
  {% if selected_leaves < leaf_count * table_diff._dense_leaf_share() %}
    {{ return(none) }}
  {% endif %}
  {%- set filtered = table_diff._leaf_filter_cte(selected_leaves, leaf_count) is not none -%}
  {% set keys_sql %}
    select distinct coalesce(s.__td_jk, t.__td_jk) as __td_jk
    {%- for side, relation in [('source', source), ('target', target)] %}
    {{ 'from' if loop.first else 'full outer join' }} (
      select
        __td_jk,
        __td_h1,
        count(*) over (
          partition by __td_jk order by __td_jk rows between unbounded preceding and unbounded following
        ) as __td_n
      from (
        select {{ table_diff._leaf_hint(plan) if filtered }}
          {{ table_diff._narrow_key(spec, '__td_k') }} as __td_jk,
          {{ table_diff.row_fingerprint(table_diff._fingerprint_inputs(spec, side), 'a') }} as __td_h1
        from (
          select *, {{ table_diff._key_expr(spec, side) }} as __td_k
          from {{ relation }}
          {{ table_diff._where(spec) }}
        ) as r
        {%- if filtered %}
        {{ table_diff._leaf_join(plan, '(' ~ table_diff._leaf_table_sql(spec, ranges_from, plan) ~ ')', 'r.__td_k') }}
        where {{ table_diff._leaf_expr(spec, '__td_k', plan) }} in ({{ leaves_query }})
        {%- if key_filter %}
          and ({{ key_filter }})
        {%- endif %}
        {%- endif %}
      ) as x
    ) as {{ 's' if loop.first else 't' }}
    {%- endfor %}
      on s.__td_jk = t.__td_jk and s.__td_n = 1 and t.__td_n = 1
    where s.__td_jk is null or t.__td_jk is null or s.__td_h1 != t.__td_h1
  {% endset %}
  {% set view = 'td_cache_keys_' ~ local_md5(source ~ target ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff._cache_view(view, keys_sql) %}
  {% set n = run_query("select count(*) from " ~ view).rows[0][0] | int %}
  {% do log("table_diff: " ~ source ~ " vs " ~ target ~ ": " ~ n ~ " keys differ (found on the key/hash projection of the selected leaves)", info=false) %}
  {% if n > table_diff._broadcast_key_limit() %}
    {% do run_query("uncache table if exists " ~ view) %}
    {% do run_query("drop view if exists " ~ view) %}
    {{ return(none) }}
  {% endif %}
  {{ return(view) }}
{% endmacro %}


{% macro _row_diff_ctes(spec, leaves_cte, keys_relation=none, key_filter=none) %}
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
    by both; stated so that the parquet reader can skip row groups).
  -#}
  {%- set composite = spec['key'] | length > 1 -%}
  {%- for side in ['source', 'target'] %}
  td_{{ side }}_rows as (
    select
      __td_k,
      __td_jk,
      {%- for c in spec['columns'] %}
      {%- set v = table_diff._normalised_expr(c, side) %}
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
      select /*+ broadcast(td_dk) */ x.*, named_struct('k', x.__td_k) as __td_jk
      from {{ side }}_leafed as x
      left semi join {{ keys_relation }} as td_dk on {{ table_diff._narrow_key(spec, 'x.__td_k') }} <=> td_dk.__td_jk
      {%- if key_filter %}
      where ({{ key_filter }})
      {%- endif %}
      {%- else %}
      select *, named_struct('k', __td_k) as __td_jk
      from {{ side }}_leafed
      {%- if leaves_cte %}
      where __td_leaf in (select leaf_id from {{ leaves_cte }})
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
        if({{ table_diff._joined_value(c, 'source', 's', loop.index) }} <=> {{ table_diff._joined_value(c, 'target', 't', loop.index) }}, null, {{ table_diff._sql_string(c['name']) }}),
        {%- endfor %}
        cast(null as string)
      )) as __td_changed
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
        {{ 'and ' if not loop.first }}{{ table_diff._joined_value(c, 'source', 's', loop.index) }} <=> {{ table_diff._joined_value(c, 'target', 't', loop.index) }}
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
                  "if(__td_sn is null or __td_tn is null, cast(array() as array<string>), __td_changed)", true, true) }},
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
      changed_columns
      {%- for c in spec['columns'] %},
      s{{ loop.index }} as __td_s{{ loop.index }},
      t{{ loop.index }} as __td_t{{ loop.index }}
      {%- endfor %}
    from td_emitted
  )
{% endmacro %}


{% macro _joined_value(col, side, alias, index) %}
  {#- A compared column of `td_<side>_rows` as compared: normalised (`__td_v<i>`) where that differs from the stored value (`__td_r<i>`). -#}
  {{ return(alias ~ '.__td_' ~ ('v' if table_diff._normalised_expr(col, side) != table_diff._col_ref(col['name']) else 'r') ~ index) }}
{% endmacro %}


{% macro _row_diff_out(spec, diff_type, side, changed, src, tgt) %}
  {#- One output row of the row diff as a struct (all branches share its type): source values from
      `__td_s<i>` when `src`, target values from `__td_t<i>` when `tgt`, NULLs of the side's type otherwise. -#}
  named_struct(
    'diff_type', {{ diff_type }}, 'side', {{ side }}, 'changed_columns', {{ changed }}
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
    {{ 'changed_columns' if diff_cte else 'cast(null as array<string>)' }} as changed_columns
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
