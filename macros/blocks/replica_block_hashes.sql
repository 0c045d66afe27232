{#-
  table_diff.replica_block_hashes: one replica's block signatures in a replica set (ADR 0028): the
  rows of the set's shared block_hashes for the source and this replica, the replica's side named
  'target', so the pair's split step reads them as a pair's. Refuses shared signatures of another
  run (ADR 0011). No scan of any table.
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
  select
    if(side = 'source', 'source', 'target') as side,
    leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo, run_id, started_at
  from {{ block_hashes }}
  where side in ('source', {{ table_diff._sql_string(spec['replica']['side']) }})
{% endmacro %}
