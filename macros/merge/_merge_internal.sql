{#-
  Private helpers of the three-way merge (never dispatched). A merge is two pair diffs that share
  a base (ADR 0014): its sides are resolved by the pair's resolver (`_resolve_sides`, three sides
  instead of two), hashed by the pair's block code (`_side_blocks_ctes`, one leaf layout planned
  like a pair's), and only the rows of leaves where ours or theirs differs from base are fetched.
  Every key and column item carries `base_type`, `ours_type` and `theirs_type` (none where the
  side lacks the column), the common comparison `type`, and here the `merged_type`, so the shared
  expression builders (`_typed_expr`, `_normalised_expr`, `_key_expr`) work with side = 'base' |
  'ours' | 'theirs'.
-#}

{% macro _merge_sides() %}{{ return(['base', 'ours', 'theirs']) }}{% endmacro %}


{% macro _merge_check_options(macro_name, primary_key, columns, exclude_columns, table_filter, normalize,
                              leaf_count, on_schema_conflict, strategy=none) %}
  {#- Parse/compile-time argument checks shared by every public merge macro: the pair's checks
      (`_check_options`), with `strategy` 'hash' by default as no_drift's (one query, no ranges
      table), and `leaf_count` (a fixed number of leaves: the layout's level 0, no levels below). -#}
  {% set leaves = table_diff._positive_int_or_none(macro_name, 'leaf_count', leaf_count) %}
  {% set opts = table_diff._check_options(macro_name, primary_key, columns, exclude_columns, table_filter,
      strategy or 'hash', leaves, none, none, none, 0 if leaves else none, none, normalize) %}
  {% do opts.update({'leaf_count': leaves}) %}
  {% if on_schema_conflict not in ['error', 'report'] %}
    {{ table_diff._fail(macro_name, 'on_schema_conflict', on_schema_conflict, "'error' or 'report'",
        "Use 'error' (the default) to stop the build on a schema conflict, or 'report' to list it in the summary and merge no data.") }}
  {% endif %}
  {% do opts.update({'on_schema_conflict': on_schema_conflict}) %}
  {{ return(opts) }}
{% endmacro %}


{% macro _merge_column_status(b, o, t) %}
  {#- Schema status of one column from its canonical types per side (none = absent). -#}
  {#- Returns [status, merged_type or none, conflict reason or none]. -#}
  {% if b is not none and o is not none and t is not none %}
    {% if o == b and t == b %}{{ return(['unchanged', b, none]) }}
    {% elif t == b %}{{ return(['type_changed_ours', o, none]) }}
    {% elif o == b %}{{ return(['type_changed_theirs', t, none]) }}
    {% elif o == t %}{{ return(['type_changed_both', o, none]) }}
    {% else %}{{ return(['type_conflict', none, 'type changed from ' ~ b ~ ' to ' ~ o ~ ' in ours and to ' ~ t ~ ' in theirs']) }}
    {% endif %}
  {% elif b is not none and o is not none %}
    {% if o == b %}{{ return(['dropped_theirs', none, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'type changed from ' ~ b ~ ' to ' ~ o ~ ' in ours and column dropped in theirs']) }}
  {% elif b is not none and t is not none %}
    {% if t == b %}{{ return(['dropped_ours', none, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'column dropped in ours and type changed from ' ~ b ~ ' to ' ~ t ~ ' in theirs']) }}
  {% elif b is not none %}
    {{ return(['dropped_both', none, none]) }}
  {% elif o is not none and t is not none %}
    {% if o == t %}{{ return(['added_both', o, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'added as ' ~ o ~ ' in ours and as ' ~ t ~ ' in theirs']) }}
  {% elif o is not none %}
    {{ return(['added_ours', o, none]) }}
  {% else %}
    {{ return(['added_theirs', t, none]) }}
  {% endif %}
{% endmacro %}


{% macro _merge_resolve(macro_name, base, ours, theirs, opts) %}
  {#-
    Warehouse checks (execute time): the schema phase. The pair's resolver checks the key, the
    options, the types and the filter on all three sides; a column may be missing from some sides.
    Returns {'schema': [per-column entries in table order], 'conflicts': [entries with
    schema_conflict], 'spec': merge spec}.
  -#}
  {% set resolved = table_diff._resolve_sides(macro_name, [['base', base, 'base'], ['ours', ours, 'ours'],
      ['theirs', theirs, 'theirs']], opts, partial_columns=true) %}
  {% set key = [] %}
  {% for k in resolved['key'] %}{% do key.append(dict(k, merged_type=k['type'])) %}{% endfor %}
  {% set schema = [] %}
  {% set conflicts = [] %}
  {% set compared = [] %}
  {% for c in resolved['columns'] %}
    {% set canon = {} %}
    {% for side in table_diff._merge_sides() %}
      {% set t = c[side ~ '_type'] %}
      {% do canon.update({side: table_diff._canonical_type(t) if t is not none else none}) %}
    {% endfor %}
    {% set st = table_diff._merge_column_status(canon['base'], canon['ours'], canon['theirs']) %}
    {% set entry = {'column_name': c['name'], 'status': st[0], 'base_type': c['base_type'], 'ours_type': c['ours_type'],
                    'theirs_type': c['theirs_type'], 'merged_type': st[1], 'schema_conflict': st[2] is not none,
                    'reason': st[2]} %}
    {% if st[1] is not none and c['type'] is none %}
      {#- Values are compared in the common type of the sides that have the column: none, a conflict. -#}
      {% do entry.update({'status': 'type_conflict', 'merged_type': none, 'schema_conflict': true,
          'reason': 'types ' ~ ([c['base_type'], c['ours_type'], c['theirs_type']] | reject('none') | join(', ')) ~ ' (base, ours, theirs) cannot be compared'}) %}
    {% elif st[1] is not none %}
      {% do compared.append(dict(c, merged_type=st[1])) %}
    {% endif %}
    {% do schema.append(entry) %}
    {% if entry['schema_conflict'] %}{% do conflicts.append(entry) %}{% endif %}
  {% endfor %}

  {% set spec = {'base': base | string, 'ours': ours | string, 'theirs': theirs | string, 'key': key,
                 'columns': compared, 'table_filter': opts['table_filter'], 'strategy': opts['strategy'],
                 'block_count': opts['block_count'], 'block_size': opts['block_size'],
                 'split_factor': opts['split_factor'], 'compare_unit_size': opts['compare_unit_size'],
                 'max_depth': opts['max_depth'], 'leaf_count': opts['leaf_count'],
                 'on_schema_conflict': opts['on_schema_conflict']} %}
  {{ return({'schema': schema, 'conflicts': conflicts, 'spec': spec}) }}
{% endmacro %}


{% macro _merge_raise_conflicts(macro_name, resolved) %}
  {#- on_schema_conflict = 'error': one message naming the tables, every conflicting column and the fix. -#}
  {% set spec = resolved['spec'] %}
  {% set parts = [] %}
  {% for e in resolved['conflicts'] %}{% do parts.append("'" ~ e['column_name'] ~ "' (" ~ e['reason'] ~ ")") %}{% endfor %}
  {{ exceptions.raise_compiler_error(
      "table_diff." ~ macro_name ~ ": schema conflict between ours " ~ spec['ours'] ~ " and theirs " ~ spec['theirs']
      ~ " (base " ~ spec['base'] ~ ") on column(s) " ~ parts | join('; ') ~ ". No data was merged. "
      ~ "Give the column one type on both sides (cast it in a view), or leave it out with exclude_columns, "
      ~ "or set on_schema_conflict='report' to list the conflict in the merge summary instead of failing.") }}
{% endmacro %}


{% macro _merge_value_expr(col, side, normalised) %}
  {#- A side's value: normalised in the comparison type, or raw in the merged type; NULL when absent. -#}
  {%- if col[side ~ '_type'] is none -%}
    {{ return('cast(null as ' ~ (col['type'] if normalised else col['merged_type']) ~ ')') }}
  {%- endif -%}
  {%- if normalised -%}{{ return(table_diff._normalised_expr(col, side)) }}{%- endif -%}
  {%- set ref = table_diff._col_ref(col['name']) -%}
  {%- if table_diff._canonical_type(col[side ~ '_type']) != table_diff._canonical_type(col['merged_type']) -%}
    {{ return('cast(' ~ ref ~ ' as ' ~ col['merged_type'] ~ ')') }}
  {%- endif -%}
  {{ return(ref) }}
{% endmacro %}


{% macro _merge_candidates_sql(spec, relations) %}
  {#-
    The pair's passes for three sides (ADR 0014). Planned like a pair's from the largest side
    (`_plan_sides`; hash leaves by default, or key ranges sampled from the largest side).
    1. Leaf pass (a query run here): per leaf and side a row count and the 128-bit signature
       sums, base's computed once for both comparisons; the leaves where ours or theirs differs
       from base. None: the candidates are empty and nothing else is read.
    2. Dense changes (at least `_dense_leaf_share` of the leaves, the pair's var, never by default for the merge, ADR 0007):
       one narrow pass (key and row hashes of the three sides in those leaves, one shuffle of a
       few bytes per row) finds the keys that are not one identical row on every side, cached
       (`_merge_changed_keys`); up to `_broadcast_key_limit()` of them are broadcast to the fetch,
       so only their rows are read in full and shuffled.
    3. The fetch (the model's query): the rows of the changed leaves (or of the changed keys) of
       the three sides in one union, then one group by on the key: presence counts per side and
       each side's values (a key stored more than once on a side is set apart, never paired).
  -#}
  {%- set sides = table_diff._merge_sides() -%}
  {%- set side_relations = [] -%}
  {%- for side in sides %}{% do side_relations.append([side, relations[side]]) %}{% endfor -%}
  {%- set plan = table_diff._plan_sides(spec, side_relations) -%}
  {%- set layout = plan['layout'] -%}
  {%- set leaf_count = layout['leaf_count'] -%}
  {#- The ranges are a CTE here, as in no_drift: no query can inspect them, so search or hash leaves. -#}
  {%- set leaf_plan = table_diff._leaf_plan(spec, none, leaf_count, introspect=false) -%}
  {%- set ranges_sql = table_diff._range_leaves_sql(spec, plan['larger'], plan['larger_side'], layout)
      if spec['strategy'] == 'range' else none -%}
  {%- set leaf_ctes -%}
    {% if ranges_sql -%}
    td_ranges as ({{ ranges_sql }}),
    {% endif -%}
    {{ table_diff._side_blocks_ctes(spec, side_relations, 'td_ranges', leaf_plan) }},
    td_diff_leaves as (
      {#- A leaf is unchanged only when all three sides have it with identical signatures. -#}
      select leaf_id from (
        {% for side in sides %}
        select leaf_id, n_rows, h1_hi, h1_lo, h2_hi, h2_lo from {{ side }}_blocks
        {{ 'union all' if not loop.last }}
        {% endfor %}
      ) as s
      group by leaf_id
      having count(*) != 3
        or count(distinct named_struct('n', n_rows, 'a', h1_hi, 'b', h1_lo, 'c', h2_hi, 'd', h2_lo)) > 1
    )
  {%- endset -%}
  {#- A view (or an ephemeral model) is computed when it is read, so nothing may be decided now:
      one query with the leaf pass inside, the rows of the changed leaves joined to it. A table
      runs the leaf pass now and fetches only what it found. -#}
  {%- set live = config.get('materialized', 'view') in ['view', 'ephemeral'] -%}
  {%- set keys_view, leaves, ranges_from = none, none, none -%}
  {%- if not live -%}
    {%- set sig = run_query("with " ~ leaf_ctes ~ " select count(*), coalesce(array_join(collect_list(cast(leaf_id as string)), ','), '') from td_diff_leaves").rows[0] -%}
    {%- set changed_leaves = sig[0] | int -%}
    {%- if changed_leaves == 0 -%}
      {%- do log("table_diff.merge_candidates: " ~ spec['base'] ~ " / " ~ spec['ours'] ~ " / " ~ spec['theirs']
          ~ ": no leaf changed (" ~ leaf_count ~ " " ~ spec['strategy'] ~ " leaves): no row is fetched.", info=true) -%}
      {{ return(table_diff._merge_candidates_empty(spec)) }}
    {%- endif -%}
    {%- set ranges_from = ('(' ~ ranges_sql ~ ') as td_ranges') if ranges_sql else none -%}
    {%- set leaves = sig[1] if changed_leaves < leaf_count else none -%}
    {%- set keys_view = table_diff._merge_changed_keys(spec, relations, leaf_plan, ranges_from, leaves)
        if changed_leaves >= leaf_count * table_diff._dense_leaf_share('merge_candidates', 2) else none -%}
    {%- do log("table_diff.merge_candidates: " ~ spec['base'] ~ " / " ~ spec['ours'] ~ " / " ~ spec['theirs'] ~ ": "
        ~ changed_leaves ~ " of " ~ leaf_count ~ " " ~ spec['strategy'] ~ " leaves changed; fetching the rows of "
        ~ ("the changed keys" if keys_view else "those leaves") ~ ".", info=true) -%}
  {%- endif -%}
  with
  {% if live -%}
  {{ leaf_ctes }},
  {% endif -%}
  td_fetched as (
    select {{ table_diff.broadcast_hint(['d'] if live else (['c'] if keys_view else [])) }} u.*
    from (
      {% for side in sides %}
      select
        {{ loop.index0 }} as __td_side,
        __td_k,
        {%- if live %}
        __td_leaf,
        {%- endif %}
        {%- for k in spec['key'] %}
        {{ table_diff._typed_expr(k, side) }} as __td_key{{ loop.index }},
        {%- endfor %}
        named_struct('p', true
          {%- for c in spec['columns'] %},
          'v{{ loop.index }}', {{ table_diff._merge_value_expr(c, side, true) }},
          'r{{ loop.index }}', {{ table_diff._merge_value_expr(c, side, false) }}
          {%- endfor %}
        ) as __td_vals
      from {{ (side ~ '_leafed') if live else table_diff._merge_side_rows(spec, side, relations[side], leaf_plan, ranges_from, leaves) }}
      {{ 'union all' if not loop.last }}
      {% endfor %}
    ) as u
    {% if live %}
    {#- ONE inner join after the union (a semi join would be pushed into each branch, repeating the leaf pass per side). #}
    inner join td_diff_leaves as d on u.__td_leaf = d.leaf_id
    {% elif keys_view %}
    {#- The changed keys, broadcast (a cached view, so the semi join may be pushed into each branch). #}
    left semi join {{ keys_view }} as c on named_struct('k', u.__td_k) = c.__td_jk
    {% endif %}
  ),
  td_grouped as (
    {#- Null-safe "full outer join" of the three sides as one group by on the key: no cross product. -#}
    select
      {%- for k in spec['key'] %}
      first(__td_key{{ loop.index }}) as __td_key{{ loop.index }},
      {%- endfor %}
      {%- for side in sides %}
      count_if(__td_side = {{ loop.index0 }}) as __td_n{{ side[0] }},
      first(if(__td_side = {{ loop.index0 }}, __td_vals, null), true) as {{ side[0] }},
      {%- endfor %}
      count(*) as __td_n
    from td_fetched
    group by __td_k
  ),
  td_joined as (
    select
      *,
      __td_nb > 1 or __td_no > 1 or __td_nt > 1 as __td_dup,
      {%- for pair in [('b', 'o', 'ours_changed'), ('b', 't', 'theirs_changed'), ('o', 't', 'ours_theirs_differ')] %}
      case
        when __td_n{{ pair[0] }} = 0 and __td_n{{ pair[1] }} = 0 then cast(array() as array<string>)
        when __td_n{{ pair[0] }} = 0 or __td_n{{ pair[1] }} = 0 then cast(array(
          {%- for c in spec['columns'] %}{{ table_diff._sql_string(c['name']) }}{{ ', ' if not loop.last }}{% endfor -%}
        ) as array<string>)
        else filter(array(
          {%- for c in spec['columns'] %}
          if({{ pair[0] }}.v{{ loop.index }} <=> {{ pair[1] }}.v{{ loop.index }}, null, {{ table_diff._sql_string(c['name']) }}),
          {%- endfor %}
          cast(null as string)
        ), x -> x is not null)
      end as {{ pair[2] }}
      {%- if not loop.last %},{% endif %}
      {%- endfor %}
    from td_grouped
  )
  select
    {%- for k in spec['key'] %}
    __td_key{{ loop.index }} as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    {%- for side in sides %}
    not __td_dup and __td_n{{ side[0] }} > 0 as td_in_{{ side }},
    {%- endfor %}
    __td_dup as td_duplicate_key,
    {%- for a in ['ours_changed', 'theirs_changed', 'ours_theirs_differ'] %}
    if(__td_dup, cast(array() as array<string>), {{ a }}) as {{ a }}
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
    {%- for c in spec['columns'] %}
    {%- set i = loop.index %}
    {%- for side in sides %},
    if(__td_dup, null, {{ side[0] }}.r{{ i }}) as {{ table_diff.quote_identifier(side ~ '__' ~ c['name']) }}
    {%- endfor %}
    {%- endfor %}
  from td_joined
{% endmacro %}


{% macro _merge_side_rows(spec, side, relation, plan, ranges_from, leaves) %}
  {#- A FROM item: the side's filtered rows with their key `__td_k`, only those of the `leaves`
      (a comma list of leaf ids; none = every leaf, and no leaf is computed). -#}
  {%- set rows = '(select *, ' ~ table_diff._key_expr(spec, side) ~ ' as __td_k from ' ~ table_diff._side_from(spec, side, relation) ~ ' '
      ~ table_diff._where(spec) ~ ')' -%}
  {%- if leaves is none -%}{{ return(rows ~ ' as r') }}{%- endif -%}
  {%- set joined = table_diff.leaf_join(plan, '(' ~ table_diff.leaf_table_sql(spec, ranges_from, plan) ~ ')', 'r.__td_k') -%}
  {{ return('(select r.* from ' ~ rows ~ ' as r ' ~ joined ~ ' where ' ~ table_diff.leaf_expr(spec, 'r.__td_k', plan)
      ~ ' in (' ~ leaves ~ ')) as r') }}
{% endmacro %}


{% macro _merge_changed_keys(spec, relations, plan, ranges_from, leaves) %}
  {#- Dense changes: the keys of the changed leaves that are not exactly one row with identical row
      hashes on every side (a change on either side, an insert, a delete or a duplicate key), from
      one narrow pass, cached in a temporary view (`__td_jk`, the key as a struct, whose equality is
      null-safe) released by the on-run-end hook. Returns the view, or none when more than
      `_broadcast_key_limit()` keys changed (then the rows of the changed leaves are fetched). The
      view's query has no WITH clause (see `_cache_differing_keys`). -#}
  {% set keys_sql %}
    select named_struct('k', __td_k) as __td_jk
    from (
      {% for side in table_diff._merge_sides() %}
      {%- set inputs = table_diff._fingerprint_inputs(spec, side) %}
      select
        {{ loop.index0 }} as __td_side,
        __td_k,
        named_struct('a', {{ table_diff.row_fingerprint(inputs, 'a') }}, 'b', {{ table_diff.row_fingerprint(inputs, 'b') }}) as __td_h
      from {{ table_diff._merge_side_rows(spec, side, relations[side], plan, ranges_from, leaves) }}
      {{ 'union all' if not loop.last }}
      {% endfor %}
    ) as x
    group by __td_k
    having not (count_if(__td_side = 0) = 1 and count_if(__td_side = 1) = 1 and count_if(__td_side = 2) = 1
      and min(__td_h) = max(__td_h))
  {% endset %}
  {% set view = 'td_cache_merge_keys_' ~ local_md5(spec['base'] ~ spec['ours'] ~ spec['theirs'] ~ invocation_id
      ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff.cache_view(view, keys_sql) %}
  {% set n = run_query("select count(*) from " ~ view).rows[0][0] | int %}
  {% do log("table_diff.merge_candidates: " ~ n ~ " keys changed (found on the key/hash projection of the changed leaves)", info=true) %}
  {% if n > table_diff._broadcast_key_limit('merge_candidates') %}
    {% do table_diff.drop_cached_view(view) %}
    {{ return(none) }}
  {% endif %}
  {{ return(view) }}
{% endmacro %}


{% macro _merge_candidates_empty(spec) %}
  {#- The candidates' shape with no rows and no scan (schema conflict reported, on_schema_conflict='report'). -#}
  select
    {%- for k in spec['key'] %}
    cast(null as {{ k['type'] }}) as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    cast(null as boolean) as td_in_base, cast(null as boolean) as td_in_ours, cast(null as boolean) as td_in_theirs,
    cast(null as boolean) as td_duplicate_key,
    cast(null as array<string>) as ours_changed, cast(null as array<string>) as theirs_changed,
    cast(null as array<string>) as ours_theirs_differ
    {%- for c in spec['columns'] %},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('base__' ~ c['name']) }},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('ours__' ~ c['name']) }},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('theirs__' ~ c['name']) }}
    {%- endfor %}
  where false
{% endmacro %}
