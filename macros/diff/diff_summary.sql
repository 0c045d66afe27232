{#-
  table_diff.diff_summary: one row per pipeline run of a pair: rows per side, blocks total and
  mismatched, added / deleted / modified / duplicate-key / NULL-key counts, whether max_diff_rows
  was reached (the result is then partial), the columns compared, the hash spec version, the run id.
-#}
{% macro diff_summary(ranges, block_hashes, block_split, row_diff) %}
  {% do table_diff._require_relation('diff_summary', 'ranges', ranges) %}
  {% do table_diff._require_relation('diff_summary', 'block_hashes', block_hashes) %}
  {% do table_diff._require_relation('diff_summary', 'block_split', block_split) %}
  {% do table_diff._require_relation('diff_summary', 'row_diff', row_diff) %}
  {{ return(adapter.dispatch('diff_summary', 'table_diff')(ranges, block_hashes, block_split, row_diff)) }}
{% endmacro %}


{% macro default__diff_summary(ranges, block_hashes, block_split, row_diff) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.diff_summary: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__diff_summary(ranges, block_hashes, block_split, row_diff) %}
  {% if not execute %}
    {{ return("select 0 as rows_source") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('diff_summary', ranges) %}
    {% set names = [] %}
  {% for c in spec['columns'] %}{% do names.append(table_diff._sql_string(c['name'])) %}{% endfor %}
  {% set keys = [] %}
  {% for k in spec['key'] %}{% do keys.append(table_diff._sql_string(k['name'])) %}{% endfor %}
  with layout as (
    select count(distinct block_id) as blocks_total, count(*) as leaves_total
    from {{ ranges }}
  ),

  hashes as (
    select
      coalesce(sum(if(side = 'source', n_rows, 0)), 0) as rows_source,
      coalesce(sum(if(side = 'target', n_rows, 0)), 0) as rows_target,
      coalesce(sum(if(side = 'source', n_null_key_rows, 0)), 0) as null_key_rows_source,
      coalesce(sum(if(side = 'target', n_null_key_rows, 0)), 0) as null_key_rows_target
    from {{ block_hashes }}
  ),

  units as (
    select
      count(distinct level0_block_id) as blocks_mismatched,
      count(*) as units_mismatched,
      coalesce(sum(leaf_hi - leaf_lo + 1), 0) as leaves_in_units,
      count_if(not selected) as units_skipped
    from {{ block_split }}
  ),

  diffs as (
    select
      count_if(diff_type = 'added') as rows_added,
      count_if(diff_type = 'deleted') as rows_deleted,
      count_if(diff_type = 'modified') as rows_modified,
      count_if(diff_type = 'duplicate_key') as duplicate_key_rows,
      count(*) as diff_rows
    from {{ row_diff }}
  )

  select
    {{ table_diff._sql_string(spec['source']) }} as source_relation,
    {{ table_diff._sql_string(spec['target']) }} as target_relation,
    hashes.rows_source,
    hashes.rows_target,
    layout.blocks_total,
    units.blocks_mismatched,
    layout.leaves_total,
    units.units_mismatched,
    diffs.rows_added,
    diffs.rows_deleted,
    diffs.rows_modified,
    diffs.duplicate_key_rows,
    hashes.null_key_rows_source,
    hashes.null_key_rows_target,
    {{ spec['max_diff_rows'] }} as max_diff_rows,
    (units.units_skipped > 0 or diffs.diff_rows >= {{ spec['max_diff_rows'] }}) as max_diff_rows_reached,
    (units.units_skipped > 0 or diffs.diff_rows >= {{ spec['max_diff_rows'] }}) as is_partial,
    (diffs.diff_rows = 0 and units.units_mismatched = 0) as is_identical,
    array({{ keys | join(', ') }}) as key_columns,
    cast(array({{ names | join(', ') }}) as array<string>) as columns_compared,
    {{ 'true' if spec.get('keys_only', names | length == 0) else 'false' }} as keys_only,
    {{ table_diff._sql_string(spec['strategy']) }} as strategy,
    {{ spec['hash_spec_version'] }} as hash_spec_version,
    {{ table_diff._sql_string(invocation_id) }} as run_id,
    current_timestamp() as generated_at
  from layout cross join hashes cross join units cross join diffs
{% endmacro %}
