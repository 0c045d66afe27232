{#- Signatures shared by the pair's block pass (blocks/), no_drift (drift/) and the row diff's fetch
    (diff/): the per-leaf CTEs, the whole-table signature and the overflow-safe sums they compare. -#}

{% macro _whole_signature_sql(spec, source, target=none, sides=none) %}
  {#- One row per side shaped like a leaf's (`leaf_id` NULL) over the whole filtered table: one
      ungrouped pass. The pair's quick check and no_drift's both compare exactly these. An empty
      side has n_rows 0 and sums 0. `sides` ([[side, relation], ...]) instead of source and
      target: a replica set's source and replicas (ADR 0028). -#}
  {%- for side, relation in sides or [('source', source), ('target', target)] %}
    {{ 'union all' if not loop.first }}
    {% if side in (spec.get('databases') or {}) %}
    {#- A database side: the database computes the same row (ADR 0047). #}
    select '{{ side }}' as side, cast(null as int) as leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo
    from {{ table_diff._database_signatures(spec, side) }}
    {%- else %}
    select
      '{{ side }}' as side,
      cast(null as int) as leaf_id,
      count(*) as n_rows,
      count(*) as n_keys,
      count_if(__td_null_key) as n_null_key_rows,
      {{ table_diff._hash_sums(empty_as_zero=true) }}
    from (
      {%- set inputs = table_diff._fingerprint_inputs(spec, side) %}
      {%- set h = table_diff._row_hashes(spec, side) %}
      select
        {{ table_diff._null_key_expr(spec) }} as __td_null_key,
        {{ h[0] }} as __td_h1,
        {{ h[1] }} as __td_h2
      from {{ table_diff._side_from(spec, side, relation) }}
      {{ table_diff._where(spec) }}
    ) as r
    {%- endif %}
  {%- endfor %}
{%- endmacro %}


{% macro _block_hashes_ctes(spec, source, target, ranges, plan, files=none, database_leaves=none, database_ranges=none) %}
  {#- A pair's block CTEs: `_side_blocks_ctes` of its source and target. The rows of some leaves of
      a pair with a database side: `_database_fetch_ctes` (only `<side>_leafed`). -#}
  {% if database_leaves %}
    {{ return(table_diff._database_fetch_ctes(spec, {'source': source, 'target': target}, database_ranges or ranges, plan, database_leaves)) }}
  {% endif %}
  {{ return(table_diff._side_blocks_ctes(spec, [['source', source], ['target', target]], ranges, plan, files, database_leaves, database_ranges)) }}
{% endmacro %}


{% macro _side_blocks_ctes(spec, relations, ranges, plan, files=none, database_leaves=none, database_ranges=none) %}
  {#- CTEs `td_bounds`, `<side>_leafed` (rows with their leaf), `<side>_blocks` (per-leaf signatures)
      for each [side, relation] of `relations`: two for a pair, three for a merge (ADR 0014), all on
      one leaf layout. `plan`: how rows find their leaf (`_leaf_plan`).
      `files` (the changes track, ADR 0019): {side: {'path', 'size', 'modified': expressions, 'where':
      a predicate on them or none, 'partition': optional, the row's partition values as JSON (ADR
      0022), 'from': optional, a FROM item read instead of the side (an Iceberg changelog, ADR
      0029), 'sign': optional, an expression +1 / -1 per row of it (a row deleted counts
      negatively: signatures are sums)}}: signatures per leaf and data file, of the files it
      selects. A database side's CTEs read what its database computed (`_database_blocks_ctes`,
      ADR 0047); `database_leaves`: the leaves whose rows it sends (none: no row is read);
      `database_ranges`: the ranges as a FROM item a query can read, when `ranges` is a CTE. -#}
  {{ table_diff._bounds_ctes(spec, ranges, plan) }},
  {% for side, relation in relations %}
  {%- if side in (spec.get('databases') or {}) %}
  {{ table_diff._database_blocks_ctes(spec, side, database_ranges or ranges, database_leaves) }}{{ ',' if not loop.last }}
  {%- else %}
  {{ side }}_leafed as (
    select {{ table_diff._leaf_hint(plan) }}
      r.*,
      {{ table_diff.leaf_expr(spec, '__td_k', plan) }} as __td_leaf,
      {%- set h = table_diff._row_hashes(spec, side) %}
      {{ h[0] }} as __td_h1,
      {{ h[1] }} as __td_h2
    from (
      select *, {{ table_diff._key_expr(spec, side) }} as __td_k
      {%- if files %}
        , {{ files[side]['path'] }} as __td_file, {{ files[side]['size'] }} as __td_file_size,
        {{ files[side]['modified'] }} as __td_file_modified,
        {{ files[side].get('partition') or 'cast(null as string)' }} as __td_file_partition,
        {{ files[side].get('sign') or 'cast(1 as bigint)' }} as __td_sign
      {%- endif %}
      from {{ files[side]['from'] if files and files[side].get('from') else table_diff._side_from(spec, side, relation) }}
      {{ table_diff._where(spec) }}
      {%- if files and files[side]['where'] %}
      {{ 'and' if spec['table_filter'] else 'where' }} {{ files[side]['where'] }}
      {%- endif %}
    ) as r
    {{ table_diff.leaf_join(plan, 'td_bounds', 'r.__td_k') }}
  ),

  {{ side }}_blocks as (
    select
      '{{ side }}' as side,
      {%- if files %}
      __td_file as file_path, __td_file_size as file_size, __td_file_modified as file_modified,
      __td_file_partition as file_partition,
      {%- endif %}
      cast(__td_leaf as int) as leaf_id,
      {%- set signed = files and files[side].get('sign') %}
      {{ 'sum(__td_sign)' if signed else 'count(*)' }} as n_rows,
      {#- Distinct keys cost a shuffle of every key: only when asked. Otherwise duplicates are
          found by the row diff, in the blocks whose signatures differ. -#}
      {{ "count(distinct named_struct('k', __td_k))" if spec.get('check_duplicate_keys') else ('sum(__td_sign)' if signed else 'count(*)') }} as n_keys,
      {{ ('sum(if(' ~ table_diff._null_key_expr(spec) ~ ', __td_sign, cast(0 as bigint)))') if signed
         else ('count_if(' ~ table_diff._null_key_expr(spec) ~ ')') }} as n_null_key_rows,
      {{ table_diff._hash_sums(sign='__td_sign' if signed else none) }}
    from {{ side }}_leafed
    group by __td_leaf{{ ', __td_file, __td_file_size, __td_file_modified, __td_file_partition' if files }}
  ){{ ',' if not loop.last }}
  {%- endif %}
  {% endfor %}
{% endmacro %}


{% macro _hash_sums(empty_as_zero=false, sign=none) %}
  {#- The signature sums over `__td_h1` / `__td_h2`: high and low 32 bits summed separately, exact
      up to 2^31 rows under ANSI on or off. Shared by the block signatures and no_drift's
      whole-table signature, so both compare exactly the same quantities. `sign`: an expression
      +1 / -1 per row that each half is multiplied by (a changelog's deleted rows, ADR 0029). -#}
  {%- set sums = [] -%}
  {%- for h in ['h1', 'h2'] -%}
    {%- set high, low = table_diff.hash_halves('__td_' ~ h) -%}
    {%- if sign %}{% set high, low = '(' ~ high ~ ') * ' ~ sign, '(' ~ low ~ ') * ' ~ sign %}{% endif -%}
    {%- do sums.extend([(h ~ '_hi', high), (h ~ '_lo', low)]) -%}
  {%- endfor -%}
  {%- for name, expr in sums %}
      {{ ('coalesce(sum(' ~ expr ~ '), 0)') if empty_as_zero else ('sum(' ~ expr ~ ')') }} as {{ name }}{{ ',' if not loop.last }}
  {%- endfor %}
{%- endmacro %}
