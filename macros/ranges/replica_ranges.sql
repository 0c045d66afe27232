{#-
  table_diff.replica_ranges: one replica's ranges in a replica set (ADR 0028). The set's shared
  ranges (key_ranges with a list of targets) hold one leaf layout, planned from one sample, and
  each replica's own pair spec; this model is those leaves with the replica's spec and the same run
  id, so the replica's block_split, row_diff, column_stats and summary are the pair's models,
  unchanged. No scan of any table.
-#}
{% macro replica_ranges(ranges, replica) %}
  {% do table_diff._require_relation('replica_ranges', 'ranges', ranges) %}
  {% if replica is not string or replica | trim == '' %}
    {{ table_diff._fail('replica_ranges', 'replica', replica, "the name of one replica of the set (its table's name)",
        "Write it as replica='orders_eu'.") }}
  {% endif %}
  {{ return(adapter.dispatch('replica_ranges', 'table_diff')(ranges, replica)) }}
{% endmacro %}


{% macro default__replica_ranges(ranges, replica) %}
  {% if not execute %}
    {{ return("select 0 as leaf_id, 0 as block_id, cast(null as string) as lower_bound, cast(null as string) as upper_bound, '' as spec, '' as run_id") }}
  {% endif %}
  {% set shared = table_diff._spec_from_ranges('replica_ranges', ranges) %}
  {% set entry = table_diff._replica_of('replica_ranges', 'ranges', ranges, shared, replica) %}
  {% set spec = entry['spec'] %}
  {% do spec.update({'layout': shared['layout'], 'run_id': shared['run_id'], 'ranges': this | string, 'track_layout': none, 'quick_check_planned': false,
      'quick_check_decided': false, 'leaves_of': none, 'leaves_kept': false,
      'compare_unit_size': table_diff._layout_compare_unit(spec, shared['layout']),
      'replica': {'name': entry['name'], 'side': entry['side'], 'ranges': ranges | string}}) %}
  select
    leaf_id,
    block_id,
    lower_bound,
    upper_bound,
    {{ table_diff._sql_string(tojson(spec)) }} as spec,
    run_id
  from {{ ranges }}
{% endmacro %}
