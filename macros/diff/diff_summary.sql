{#-
  table_diff.diff_summary: one row per pipeline run of a pair: rows per side, blocks total and
  mismatched, added / deleted / modified / duplicate-key / NULL-key counts, whether max_diff_rows
  was reached (the result is then partial), the columns compared, the hash spec version, the run id,
  whether a side was written while the pair ran, and the run's status (complete / partial /
  changed_during_run), each side's format and the version every pass read (Delta, Iceberg), and
  the version of each other table of the pair it was computed from (`<model>_version`, on Delta:
  the pair's commit record, ADR 0015). Refuses inputs of another run (ADR 0011), the pair's column
  stats included when given: the summary is built last, so a run stopped before it leaves the last
  run's summary, which readers then find stale (parquet) or read at its versions (Delta).
-#}
{% macro diff_summary(ranges, block_hashes, block_split, row_diff, file_hashes=none, column_stats=none) %}
  {% do table_diff._require_relation('diff_summary', 'ranges', ranges) %}
  {% do table_diff._require_relation('diff_summary', 'block_hashes', block_hashes) %}
  {% do table_diff._require_relation('diff_summary', 'block_split', block_split) %}
  {% do table_diff._require_relation('diff_summary', 'row_diff', row_diff) %}
  {% if column_stats is not none %}
    {% do table_diff._require_relation('diff_summary', 'column_stats', column_stats) %}
  {% endif %}
  {{ return(adapter.dispatch('diff_summary', 'table_diff')(ranges, block_hashes, block_split, row_diff, file_hashes, column_stats)) }}
{% endmacro %}


{% macro default__diff_summary(ranges, block_hashes, block_split, row_diff, file_hashes=none, column_stats=none) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.diff_summary: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__diff_summary(ranges, block_hashes, block_split, row_diff, file_hashes=none, column_stats=none) %}
  {% if not execute %}
    {{ return("select 0 as rows_source") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('diff_summary', ranges) %}
  {#- The summary is the pair's commit record (ADR 0015): it names the version of each other table
      it was computed from (Delta; none without versions) and reads each at that version, so a
      reader that follows the names sees exactly this run, even after a later run was killed
      halfway. -#}
  {% set inputs = {'ranges': ranges, 'block_hashes': block_hashes, 'block_split': block_split, 'row_diff': row_diff} %}
  {% if column_stats is not none %}{% do inputs.update({'column_stats': column_stats}) %}{% endif %}
  {% set described = {} %}
  {% set versions = table_diff._pair_table_versions(inputs, described) %}
  {% if 'column_stats' not in versions %}{% do versions.update({'column_stats': none}) %}{% endif %}
  {% set at = {} %}
  {% for name, relation in inputs.items() %}
    {% do at.update({name: (relation | string) ~ ((' ' ~ table_diff.as_of_clause({'version': versions[name]})) if versions[name] is not none else '')}) %}
  {% endfor %}
  {#- The changes track is state kept between runs, not a result the summary records by version: read as it is. -#}
  {% do at.update({'file_hashes': file_hashes | string}) %}
  {#- One run (ADR 0011): every input carries the run id the ranges model started. Checked in one
      query, on the columns the version lookup above described (ADR 0038). -#}
  {% set runs = [] %}
  {% for arg, relation in [('block_hashes', block_hashes), ('block_split', block_split), ('row_diff', row_diff)]
        + ([('file_hashes', file_hashes)] if file_hashes is not none else [])
        + ([('column_stats', column_stats)] if column_stats is not none else []) %}
    {% do runs.append([arg, relation, at[arg], described.get(arg)]) %}
  {% endfor %}
  {% do table_diff._require_runs('diff_summary', runs, spec) %}
  {% set run = run_query("select (select count(*) from " ~ at['block_split'] ~ " where selected),"
      ~ " (select cast(max(started_at) as string) from " ~ at['block_hashes'] ~ "),"
      ~ " (select coalesce(sum(if(side = 'source', n_rows, 0)), 0) from " ~ at['block_hashes'] ~ "),"
      ~ " (select coalesce(sum(if(side = 'target', n_rows, 0)), 0) from " ~ at['block_hashes'] ~ ")").rows[0] %}
  {#- A side written while the pair ran: only a run that read rows again after the block pass can
      mix two states of a table (the block pass reads both sides in one query). -#}
  {% set changed = {'source': false, 'target': false} %}
  {% if (run[0] | int) > 0 %}
    {% do changed.update(table_diff._changed_sides('diff_summary', spec,
        {'source': spec['source'], 'target': spec['target']}, {'source': run[2], 'target': run[3]}, run[1])) %}
  {% endif %}
  {% set moved_sides = [] %}
  {% for side in ['source', 'target'] %}{% if changed[side] is true %}{% do moved_sides.append(spec[side]) %}{% endif %}{% endfor %}
  {% set moved = moved_sides | length > 0 %}
  {% set moved_sql = 'true' if moved else 'false' %}
  {% if moved %}
    {% do log("table_diff.diff_summary: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": "
        ~ (moved_sides | join(' and ')) ~ " changed while the pair ran "
        ~ "(rows or data files differ from the block pass): the result mixes two states of the table and is "
        ~ "marked status = 'changed_during_run'. Run the pair again when writes to it have stopped.", info=true) %}
  {% endif %}
  {% set names = [] %}
  {% for c in spec['columns'] %}{% do names.append(table_diff._sql_string(c['name'])) %}{% endfor %}
  {% set keys = [] %}
  {% for k in spec['key'] %}{% do keys.append(table_diff._sql_string(k['name'])) %}{% endfor %}
  with layout as (
    select count(distinct block_id) as blocks_total, count(*) as leaves_total
    from {{ at['ranges'] }}
  ),

  hashes as (
    select
      coalesce(sum(if(side = 'source', n_rows, 0)), 0) as rows_source,
      coalesce(sum(if(side = 'target', n_rows, 0)), 0) as rows_target,
      coalesce(sum(if(side = 'source', n_null_key_rows, 0)), 0) as null_key_rows_source,
      coalesce(sum(if(side = 'target', n_null_key_rows, 0)), 0) as null_key_rows_target
    from {{ at['block_hashes'] }}
  ),

  units as (
    select
      count(distinct level0_block_id) as blocks_mismatched,
      count(*) as units_mismatched,
      coalesce(sum(leaf_hi - leaf_lo + 1), 0) as leaves_in_units,
      count_if(not selected) as units_skipped
    from {{ at['block_split'] }}
  ),

  track as (
    {{ table_diff._track_summary_sql(file_hashes) }}
  ),
  diffs as (
    select
      count_if(diff_type = 'added') as rows_added,
      count_if(diff_type = 'deleted') as rows_deleted,
      count_if(diff_type = 'modified') as rows_modified,
      count_if(diff_type = 'duplicate_key') as duplicate_key_rows,
      count(*) as diff_rows
    from {{ at['row_diff'] }}
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
    {#- With a tolerance, values within it in neighbouring cells make a unit mismatch whose rows
        are all equal (ADR 0024): no differing row is then the answer. -#}
    (diffs.diff_rows = 0 and {{ 'true' if spec['columns'] | selectattr('tolerance') | list else 'units.units_mismatched = 0' }}
      and not {{ moved_sql }} and not (units.units_skipped > 0)) as is_identical,
    {%- for side in ['source', 'target'] %}
    {{ 'cast(null as boolean)' if changed[side] is none else ('true' if changed[side] else 'false') }} as {{ side }}_changed_during_run,
    {%- endfor %}
    case
      when {{ moved_sql }} then 'changed_during_run'
      when units.units_skipped > 0 or diffs.diff_rows >= {{ spec['max_diff_rows'] }} then 'partial'
      else 'complete'
    end as status,
    array({{ keys | join(', ') }}) as key_columns,
    cast(array({{ names | join(', ') }}) as array<string>) as columns_compared,
    {{ table_diff._sql_string(tojson(spec['column_map'], sort_keys=true)) if spec.get('column_map') else 'cast(null as string)' }} as column_map,
    {{ 'true' if spec.get('keys_only', names | length == 0) else 'false' }} as keys_only,
    {{ table_diff._sql_string(spec['strategy']) }} as strategy,
    {{ spec['hash_spec_version'] }} as hash_spec_version,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    {%- for name in ['ranges', 'block_hashes', 'block_split', 'row_diff', 'column_stats'] %}
    cast({{ versions[name] if versions[name] is not none else 'null' }} as bigint) as {{ name }}_version,
    {%- endfor %}
    {%- for side in ['source', 'target'] %}
    {%- set pin = spec['pins'][side] %}
    {%- set version = pin['version'] if pin['version'] is not none else pin['timestamp'] %}
    {{ table_diff._sql_string(pin['format']) if pin['format'] else 'cast(null as string)' }} as {{ side }}_format,
    {{ table_diff._sql_string(version) if version is not none else 'cast(null as string)' }} as {{ side }}_version,
    {%- endfor %}
    track.*,
    current_timestamp() as generated_at
  from layout cross join hashes cross join units cross join diffs cross join track
{% endmacro %}
