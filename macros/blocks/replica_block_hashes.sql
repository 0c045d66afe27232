{#-
  table_diff.replica_block_hashes: one replica's block signatures in a replica set (ADR 0028): the
  rows of the set's shared block_hashes for the source and this replica, the replica's side named
  'target', so the pair's split step reads them as a pair's; when the replica took the quick check
  and the source was grouped into leaves (for another replica), the source's whole-table row is the
  sum of its leaves' (0 when it has none). Refuses shared signatures of another run (ADR 0011). No scan of any table.
-#}
{% macro replica_block_hashes(ranges, block_hashes) %}
  {% do table_diff._require_relation('replica_block_hashes', 'ranges', ranges) %}
  {% do table_diff._require_relation('replica_block_hashes', 'block_hashes', block_hashes) %}
  {{ return(adapter.dispatch('replica_block_hashes', 'table_diff')(ranges, block_hashes)) }}
{% endmacro %}


{% macro default__replica_block_hashes(ranges, block_hashes) %}
  {% if not execute %}
    {{ return("select 'source' as side, 0 as leaf_id") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('replica_block_hashes', ranges) %}
  {% if not spec.get('replica') %}
    {{ table_diff._fail('replica_block_hashes', 'ranges', ranges, "a replica's ranges (table_diff.replica_ranges)",
        "Pass ref('<set>__<replica>__ranges'); a pair's own block_hashes is table_diff.block_hashes.") }}
  {% endif %}
  {% do table_diff._require_run('replica_block_hashes', 'block_hashes', block_hashes, spec) %}
  {% set side = table_diff._sql_string(spec['replica']['side']) %}
  {#- This replica took the quick check while the source was grouped into leaves for the others:
      the source's whole-table signature is the sum of its leaves' (every row is in one leaf). -#}
  {% set whole = run_query("select count_if(side = " ~ side ~ " and leaf_id is null), count_if(side = 'source' and leaf_id is null)"
      ~ " from " ~ block_hashes).rows[0] %}
  {% if (whole[0] | int) > 0 and (whole[1] | int) == 0 %}
  select
    'source' as side, cast(null as int) as leaf_id,
    {%- for c in ['n_rows', 'n_keys', 'n_null_key_rows', 'h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
    coalesce(sum({{ c }}), 0) as {{ c }},
    {%- endfor %}
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    (select min(started_at) from {{ block_hashes }} where side = {{ side }}) as started_at
  from {{ block_hashes }}
  where side = 'source'
  union all
  select 'target' as side, leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo, run_id, started_at
  from {{ block_hashes }}
  where side = {{ side }}
  {% else %}
  select
    if(side = 'source', 'source', 'target') as side,
    leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo, run_id, started_at
  from {{ block_hashes }}
  where side in ('source', {{ side }})
  {% endif %}
{% endmacro %}
