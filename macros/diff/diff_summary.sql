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
  {#- One run (ADR 0011): every input carries the run id the ranges model started. The run ids and
      every number the summary holds are read in one query below (ADR 0045), on the columns the
      version lookup above described (ADR 0038). -#}
  {% set runs = [] %}
  {% for arg, relation in [('block_hashes', block_hashes), ('block_split', block_split), ('row_diff', row_diff)]
        + ([('file_hashes', file_hashes)] if file_hashes is not none else [])
        + ([('column_stats', column_stats)] if column_stats is not none else []) %}
    {% do runs.append([arg, relation, at[arg], described.get(arg)]) %}
  {% endfor %}
  {% do table_diff._require_run_columns('diff_summary', runs, spec) %}
  {% set run = table_diff._summary_facts(spec, at, runs) %}
  {% do table_diff._fail_on_other_runs('diff_summary', runs, spec, run['others']) %}
  {#- A side written while the pair ran: only a run that read rows again after the block pass can
      mix two states of a table (the block pass reads both sides in one query). -#}
  {% set changed = {'source': false, 'target': false} %}
  {% if run['units_selected'] > 0 %}
    {% do changed.update(table_diff._changed_sides('diff_summary', spec,
        {'source': spec['source'], 'target': spec['target']}, {'source': run['rows_source'], 'target': run['rows_target']}, run['started_at'],
        {'block_hashes': block_hashes, 'block_split': block_split, 'ranges': ranges})) %}
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
  {#- The numbers read above, written as they are: the model's own statement reads no table but the
      changes track's (ADR 0045). -#}
  with layout as (
    select {{ table_diff._bigints(run, ['blocks_total', 'leaves_total']) }}
  ),

  hashes as (
    select {{ table_diff._bigints(run, ['rows_source', 'rows_target', 'null_key_rows_source', 'null_key_rows_target']) }}
  ),

  units as (
    select {{ table_diff._bigints(run, ['blocks_mismatched', 'units_mismatched', 'leaves_in_units', 'units_skipped']) }}
  ),

  diffs as (
    select {{ table_diff._bigints(run, ['rows_added', 'rows_deleted', 'rows_modified', 'duplicate_key_rows', 'diff_rows']) }}
  ),

  track as (
    {{ table_diff._track_summary_sql(file_hashes) }}
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


{% macro _summary_facts(spec, at, runs) %}
  {#- Every count the summary holds, when the block pass started and how many units the row fetch
      read, and each input's other run ids (`_other_run_sql`), in one aggregate over the pair's
      tables side by side (ADR 0045): one scan of each and one exchange, where a query per table
      (or one subquery per table) costs a job or more each. `at` {name: from item}, `runs` the
      summary's `_require_runs` inputs. Returns {name: int, 'started_at': string, 'others':
      {index in runs: run id}}. -#}
  {% set tags = {'ranges': 0, 'block_hashes': 1, 'block_split': 2, 'row_diff': 3, 'file_hashes': 4, 'column_stats': 5} %}
  {% set sql %}
    select
      count_if(td_t = 0) as leaves_total,
      size(collect_set(if(td_t = 0, td_a, null))) as blocks_total,
      {%- for side in ['source', 'target'] %}
      coalesce(sum(if(td_t = 1 and td_s = '{{ side }}', td_a, 0)), 0) as rows_{{ side }},
      coalesce(sum(if(td_t = 1 and td_s = '{{ side }}', td_b, 0)), 0) as null_key_rows_{{ side }},
      {%- endfor %}
      cast(max(if(td_t = 1, td_ts, null)) as string) as started_at,
      size(collect_set(if(td_t = 2, td_a, null))) as blocks_mismatched,
      count_if(td_t = 2) as units_mismatched,
      coalesce(sum(if(td_t = 2, td_b, 0)), 0) as leaves_in_units,
      count_if(td_t = 2 and not td_sel) as units_skipped,
      count_if(td_t = 2 and td_sel) as units_selected,
      {%- for kind, name in [('added', 'rows_added'), ('deleted', 'rows_deleted'), ('modified', 'rows_modified'), ('duplicate_key', 'duplicate_key_rows')] %}
      count_if(td_t = 3 and td_s = '{{ kind }}') as {{ name }},
      {%- endfor %}
      count_if(td_t = 3) as diff_rows
      {%- for arg, relation, from_item, known in runs %},
      {{ table_diff._other_run_sql(spec, 'td_run', 'td_t = ' ~ tags[arg]) }} as other_{{ loop.index0 }}
      {%- endfor %}
    from (
      select 0 as td_t, cast(null as string) as td_s, cast(block_id as bigint) as td_a, cast(null as bigint) as td_b,
        cast(null as boolean) as td_sel, cast(null as timestamp) as td_ts, cast(null as string) as td_run
      from {{ at['ranges'] }}
      union all
      select 1, side, n_rows, n_null_key_rows, null, started_at, run_id from {{ at['block_hashes'] }}
      union all
      select 2, null, level0_block_id, leaf_hi - leaf_lo + 1, selected, null, run_id from {{ at['block_split'] }}
      union all
      select 3, diff_type, null, null, null, null, run_id from {{ at['row_diff'] }}
      {%- for arg, relation, from_item, known in runs if arg in ['file_hashes', 'column_stats'] %}
      union all
      select {{ tags[arg] }}, null, null, null, null, null, run_id from {{ from_item or relation }}
      {%- endfor %}
    ) as td_facts
  {% endset %}
  {% set result = run_query(sql) %}
  {% set row = result.rows[0] %}
  {% set facts = {'others': {}} %}
  {% for name in result.column_names %}
    {% set value = row[loop.index0] %}
    {% if name.startswith('other_') %}
      {% if value is not none %}{% do facts['others'].update({name[6:] | int: value}) %}{% endif %}
    {% elif name == 'started_at' %}
      {% do facts.update({name: value}) %}
    {% else %}
      {% do facts.update({name: value | int}) %}
    {% endif %}
  {% endfor %}
  {{ return(facts) }}
{% endmacro %}


{% macro _bigints(values, names) %}
  {#- `cast(12 as bigint) as name, ...` for the named integers of `values`. -#}
  {% set out = [] %}
  {% for name in names %}{% do out.append("cast(" ~ (values[name] | int) ~ " as bigint) as " ~ name) %}{% endfor %}
  {{ return(out | join(', ')) }}
{% endmacro %}
