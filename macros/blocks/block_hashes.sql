{#-
  table_diff.block_hashes: the one full pass over each side. Per leaf and side: row count, distinct
  keys (with check_duplicate_keys, so duplicates are found even where both sides agree; otherwise
  n_keys = n_rows and the row diff finds duplicates in mismatched blocks), NULL-key rows,
  and the overflow-safe sums of both 64-bit row hashes (high and low 32 bits summed separately:
  exact up to 2^31 rows per leaf, under ANSI on or off). Coarser block signatures are sums of these,
  so the split step needs no further scan.
-#}
{% macro block_hashes(ranges, source, target) %}
  {% do table_diff._require_relation('block_hashes', 'ranges', ranges) %}
  {% do table_diff._require_relation('block_hashes', 'source', source) %}
  {% do table_diff._require_relation('block_hashes', 'target', target) %}
  {{ return(adapter.dispatch('block_hashes', 'table_diff')(ranges, source, target)) }}
{% endmacro %}


{% macro default__block_hashes(ranges, source, target) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.block_hashes: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__block_hashes(ranges, source, target) %}
  {% if not execute %}
    {{ return("select 'source' as side, 0 as leaf_id") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('block_hashes', ranges) %}
  {% set leaf_count = run_query("select count(*) from " ~ ranges).rows[0][0] | int %}
  with
  {{ table_diff._block_hashes_ctes(spec, source, target, ranges, table_diff._leaf_plan(spec, ranges, leaf_count)) }}
  select * from source_blocks
  union all
  select * from target_blocks
{% endmacro %}


{% macro _block_hashes_ctes(spec, source, target, ranges, plan) %}
  {#- CTEs `td_bounds`, `<side>_leafed` (rows with their leaf), `<side>_blocks` (per-leaf signatures).
      `plan`: how rows find their leaf (`_leaf_plan`). -#}
  {{ table_diff._bounds_ctes(spec, ranges, plan) }},
  {% for side, relation in [('source', source), ('target', target)] %}
  {{ side }}_leafed as (
    select {{ table_diff._leaf_hint(plan) }}
      r.*,
      {{ table_diff._leaf_expr(spec, '__td_k', plan) }} as __td_leaf,
      {%- set inputs = table_diff._fingerprint_inputs(spec, side) %}
      {{ table_diff.row_fingerprint(inputs, 'a') }} as __td_h1,
      {{ table_diff.row_fingerprint(inputs, 'b') }} as __td_h2
    from (
      select *, {{ table_diff._key_expr(spec, side) }} as __td_k
      from {{ relation }}
      {{ table_diff._where(spec) }}
    ) as r
    {{ table_diff._leaf_join(plan, 'td_bounds', 'r.__td_k') }}
  ),

  {{ side }}_blocks as (
    select
      '{{ side }}' as side,
      cast(__td_leaf as int) as leaf_id,
      count(*) as n_rows,
      {#- Distinct keys cost a shuffle of every key: only when asked. Otherwise duplicates are
          found by the row diff, in the blocks whose signatures differ. -#}
      {{ "count(distinct named_struct('k', __td_k))" if spec.get('check_duplicate_keys') else 'count(*)' }} as n_keys,
      count_if({{ table_diff._null_key_expr(spec) }}) as n_null_key_rows,
      {{ table_diff._hash_sums() }}
    from {{ side }}_leafed
    group by __td_leaf
  ){{ ',' if loop.first }}
  {% endfor %}
{% endmacro %}


{% macro _hash_sums() %}
  {#- The signature sums over `__td_h1` / `__td_h2`: high and low 32 bits summed separately, exact
      up to 2^31 rows under ANSI on or off. Shared by the block signatures and no_drift's
      whole-table signature, so both compare exactly the same quantities. -#}
  sum(shiftright(__td_h1, 32)) as h1_hi,
      sum(__td_h1 & 4294967295) as h1_lo,
      sum(shiftright(__td_h2, 32)) as h2_hi,
      sum(__td_h2 & 4294967295) as h2_lo
{%- endmacro %}
