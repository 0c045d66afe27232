{#- The changes track's state (ADR 0019): a leaf layout that stays put between runs, and the
    previous run's per-file signatures, checked before anything is reused. -#}

{% macro _track_building() %}
  {#- The track writes its layout and moves its state only when models are built, never for
      `dbt compile`, `docs generate` or `show`. -#}
  {{ return(execute and flags.WHICH in ['run', 'build', 'retry']) }}
{% endmacro %}


{% macro _track_options_id(spec) %}
  {#- Every option that changes which leaf a row falls in, or its fingerprint: when one changes, no
      stored signature can be reused. -#}
  {% set stable = {} %}
  {% for k in ['source', 'target', 'key', 'columns', 'table_filter', 'strategy', 'block_count', 'block_size',
               'split_factor', 'compare_unit_size', 'max_depth', 'keys_only', 'hash_spec_version'] %}
    {% do stable.update({k: spec.get(k)}) %}
  {% endfor %}
  {{ return(local_md5(tojson(stable, sort_keys=true))) }}
{% endmacro %}


{% macro _sibling(relation, suffix) %}
  {{ return(relation.incorporate(path={'identifier': relation.identifier ~ suffix}, type='table')) }}
{% endmacro %}


{% macro _existing(relation) %}
  {{ return(adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier)) }}
{% endmacro %}


{% macro _track_layout(spec, source, target) %}
  {#-
    The leaf layout of a tracked pair, kept in `<ranges>__layout` (leaf_id, lower_bound, and the
    options and layout ids): planned and sampled on the first run, then reused as long as the
    options that shape it stay the same, so that a file's stored signature stays valid. Re-planned
    (and the whole track re-hashed) on `--full-refresh`, on a change of options, or when the stored
    layout is incomplete. Returns {'leaves_sql', 'layout', 'layout_id', 'replanned': reason or none}.
  -#}
  {% set rel = table_diff._sibling(this, '__layout') %}
  {% set options_id = table_diff._track_options_id(spec) %}
  {% set existing = table_diff._existing(rel) %}
  {% set ns = namespace(reason=none) %}
  {% if flags.FULL_REFRESH %}
    {% set ns.reason = 'full refresh (--full-refresh)' %}
  {% elif existing is none %}
    {% set ns.reason = 'first run' %}
  {% else %}
    {% set row = run_query("select max(options_id), max(layout_id), max(layout), count(*), max(n_leaves), count(distinct layout_id) from " ~ existing).rows[0] %}
    {% if row[3] == 0 or row[0] != options_id %}
      {% set ns.reason = 'options changed (key, columns, normalize, table_filter or layout options)' %}
    {% elif (row[3] | int) != (row[4] | int) or (row[5] | int) != 1 %}
      {% set ns.reason = 'the stored layout is incomplete (a run was stopped while writing it)' %}
    {% else %}
      {{ return({'leaves_sql': 'select leaf_id, lower_bound from ' ~ existing, 'layout': fromjson(row[2]),
                 'layout_id': row[1], 'replanned': none}) }}
    {% endif %}
  {% endif %}
  {% set plan = table_diff._plan_pair(spec, source, target) %}
  {% set layout = plan['layout'] %}
  {% set layout_id = options_id ~ ':' ~ invocation_id %}
  {% if spec['strategy'] == 'hash' %}
    {% set leaves = "select leaf_id, cast(null as " ~ table_diff._key_type(spec) ~ ") as lower_bound from (select explode(sequence(0, "
        ~ (layout['leaf_count'] - 1) ~ ")) as leaf_id) as leaves" %}
  {% else %}
    {% set leaves = table_diff._range_leaves_sql(spec, plan['larger'], plan['larger_side'], layout) %}
  {% endif %}
  {% if not table_diff._track_building() %}
    {{ return({'leaves_sql': leaves, 'layout': layout, 'layout_id': layout_id, 'replanned': ns.reason}) }}
  {% endif %}
  {% do log("table_diff.key_ranges: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": changes track: new leaf layout ("
      ~ ns.reason ~ "); every file of both sides is hashed once more.", info=true) %}
  {% if existing is not none %}{% do adapter.drop_relation(existing) %}{% endif %}
  {% do run_query(create_table_as(false, rel,
      "select leaf_id, lower_bound, " ~ table_diff._sql_string(options_id) ~ " as options_id, "
      ~ table_diff._sql_string(layout_id) ~ " as layout_id, " ~ table_diff._sql_string(tojson(layout))
      ~ " as layout, count(*) over () as n_leaves from (" ~ leaves ~ ") as l")) %}
  {{ return({'leaves_sql': 'select leaf_id, lower_bound from ' ~ rel, 'layout': layout, 'layout_id': layout_id,
             'replanned': ns.reason}) }}
{% endmacro %}


{% macro _track_previous(spec) %}
  {#-
    The previous run's file signatures, or why there are none to reuse: {'relation': the table to
    read them from or none, 'reason': none or why every file is hashed again}. On Delta (the table
    is Delta and the package writes Delta: ADR 0015) the new state replaces the old in one commit,
    `create or replace table <this> ... as select` reading the old version of itself, so the track
    advances in one commit and a stopped run leaves the old state whole under the model's name.
    Otherwise, when building, this model's table is first renamed `<this>__prev` (metadata only),
    so the new state can be written under the model's name while the old one is read; a run
    stopped after the rename leaves the old state there, and the next run reads it. A state is
    trusted only when whole (its row count equals the count it recorded, one run wrote it) and on
    the current layout.
  -#}
  {% set prev = table_diff._sibling(this, '__prev') %}
  {% set current, old = table_diff._existing(this), table_diff._existing(prev) %}
  {% set ns = namespace(rel=current or old) %}
  {% set in_place = current is not none and current.type == 'table' and current.is_delta
      and table_diff._output_file_format() == 'delta' %}
  {% if table_diff._track_building() and current is not none %}
    {% if old is not none %}{% do adapter.drop_relation(old) %}{% endif %}
    {% if not in_place %}
      {% do adapter.rename_relation(current, prev) %}
      {% set ns.rel = prev %}
    {% endif %}
  {% endif %}
  {% set replanned = spec['track_layout']['replanned'] %}
  {% if replanned %}{{ return({'relation': none, 'reason': 'new leaf layout: ' ~ replanned}) }}{% endif %}
  {% if ns.rel is none %}{{ return({'relation': none, 'reason': 'first run'}) }}{% endif %}
  {% set row = run_query("select count(*), max(state_rows), count(distinct run_id), max(layout_id) from " ~ ns.rel).rows[0] %}
  {% if (row[0] | int) == 0 or (row[0] | int) != (row[1] | int) or (row[2] | int) != 1 %}
    {{ return({'relation': none, 'reason': 'the stored signatures are incomplete (a run was stopped while writing them)'}) }}
  {% endif %}
  {% if row[3] != spec['track_layout']['id'] %}
    {{ return({'relation': none, 'reason': 'the stored signatures belong to another leaf layout'}) }}
  {% endif %}
  {#- Per side read through its log (ADR 0022): the table and version the stored signatures were
      computed at, when the state records them (states written before that read as unrecorded). -#}
  {% set logs = {} %}
  {% set stored_columns = adapter.get_columns_in_relation(ns.rel) | map(attribute='name') | map('lower') | list %}
  {% if 'side_version' in stored_columns %}
    {% for side, table_id, n_ids, version, n_versions in run_query("select side, max(side_table_id), count(distinct side_table_id), max(side_version), count(distinct side_version) from "
        ~ ns.rel ~ " group by side").rows %}
      {% if (n_ids | int) == 1 and (n_versions | int) == 1 %}
        {% do logs.update({side: {'table_id': table_id, 'version': version | int}}) %}
      {% endif %}
    {% endfor %}
  {% endif %}
  {{ return({'relation': ns.rel, 'reason': none, 'logs': logs, 'has_partition': 'file_partition' in stored_columns}) }}
{% endmacro %}


{% macro _track_changes(spec, sides, previous, max_files) %}
  {#-
    Which files to hash and which stored signatures to drop, per side of `sides` ({side: {relation,
    identity}}), from one listing query joined once with the stored identities: each file's path,
    size and modification time, read from the first row of each file where the format numbers its
    rows (parquet, no table_filter: a filter on the row index, no grouping: about a quarter of a
    hashing pass), else with its live row count after table_filter (a Delta deletion vector lowers
    the count of a file it touches, so a delete that rewrites no file is still seen; a file with no
    row passing the filter is not listed). Reads no data column (the filter's columns with a
    table_filter). Returns {side: {'hash': [paths], 'drop': [paths], 'files': n, 'reason': none or
    why the whole side is hashed}}.
  -#}
  {% set parts = [] %}
  {% for side, s in sides.items() %}
    {% set i = s['identity'] %}
    {% set head = "select '" ~ side ~ "' as side, " ~ i['path'] ~ " as file_path, " ~ i['size'] ~ " as file_size, "
        ~ i['modified'] ~ " as file_modified, " %}
    {% set from_side = " from " ~ table_diff._side_from(spec, side, s['relation']) %}
    {% if i.get('first_row') and not spec['table_filter'] %}
      {% do parts.append(head ~ "cast(null as bigint) as file_rows" ~ from_side ~ " where " ~ i['first_row']) %}
    {% else %}
      {% do parts.append(head ~ "count(*) as file_rows" ~ from_side ~ " " ~ table_diff._where(spec) ~ " group by 1, 2, 3, 4") %}
    {% endif %}
  {% endfor %}
  {% set sql %}
    with listing as ({{ parts | join(' union all ') }}),
    stored as (
      select distinct side, file_path, file_size, file_modified, file_rows from {{ previous }}
      where {{ table_diff._in_list('side', sides.keys() | list) }}
    )
    select
      case
        when l.file_path is null then 'drop'
        when p.file_path is null then 'hash'
        when l.file_size <=> p.file_size and l.file_modified <=> p.file_modified
             and (l.file_rows is null or l.file_rows = p.file_rows) then 'same'
        else 'change'
      end as kind,
      coalesce(l.side, p.side) as side,
      coalesce(l.file_path, p.file_path) as file_path
    from listing as l full outer join stored as p on l.side = p.side and l.file_path = p.file_path
  {% endset %}
  {% set out = {} %}
  {% for side in sides %}{% do out.update({side: {'hash': [], 'drop': [], 'files': 0, 'reason': none}}) %}{% endfor %}
  {% for kind, side, path in run_query(sql).rows %}
    {% set o = out[side] %}
    {% if kind != 'drop' %}{% do o.update({'files': o['files'] + 1}) %}{% endif %}
    {% if kind in ['hash', 'change'] %}{% do o['hash'].append(path) %}{% endif %}
    {% if kind in ['drop', 'change'] %}{% do o['drop'].append(path) %}{% endif %}
  {% endfor %}
  {% for side, o in out.items() %}
    {% if (o['hash'] | length) + (o['drop'] | length) > max_files %}
      {% do o.update({'reason': (o['hash'] | length) ~ ' files changed (more than table_diff_track_max_files = ' ~ max_files ~ ')'}) %}
    {% endif %}
  {% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _partition_predicate(partitions, tuples) %}
  {#- A predicate that holds on the rows of the partitions `tuples` (each a JSON object of partition
      column values, a missing or null value meaning NULL) of a table partitioned by `partitions`
      ([{'name', 'type'}], types whose text casts back exactly: `table_log`), so that the engine opens
      those partitions only; none without partitions, tuples, or with a tuple not known. -#}
  {% if not partitions or not tuples or none in tuples %}{{ return(none) }}{% endif %}
  {% set ors = [] %}
  {% for t in tuples | unique %}
    {% set values = fromjson(t) %}
    {% set ands = [] %}
    {% for p in partitions %}
      {% set v = values.get(p['name']) %}
      {% do ands.append(table_diff.quote_identifier(p['name']) ~ ' <=> cast('
          ~ ('null' if v is none else table_diff._sql_string(v)) ~ ' as ' ~ p['type'] ~ ')') %}
    {% endfor %}
    {% do ors.append('(' ~ ands | join(' and ') ~ ')') %}
  {% endfor %}
  {{ return('(' ~ ors | join(' or ') ~ ')') }}
{% endmacro %}


{% macro _partition_values_expr(partitions) %}
  {#- Per row, its partition values as the JSON object `_partition_predicate` reads (a NULL value
      is left out), or none for an unpartitioned side. -#}
  {% if not partitions %}{{ return(none) }}{% endif %}
  {% set fields = [] %}
  {% for p in partitions %}
    {% do fields.append(table_diff._sql_string(p['name']) ~ ', ' ~ table_diff.quote_identifier(p['name'])) %}
  {% endfor %}
  {{ return('to_json(named_struct(' ~ fields | join(', ') ~ '))') }}
{% endmacro %}


{% macro _in_list(expr, values) %}
  {#- `expr in ('a', 'b')`, or false for no values. -#}
  {% if values | length == 0 %}{{ return('false') }}{% endif %}
  {% set quoted = [] %}
  {% for v in values %}{% do quoted.append(table_diff._sql_string(v)) %}{% endfor %}
  {{ return(expr ~ ' in (' ~ quoted | join(', ') ~ ')') }}
{% endmacro %}


{% macro _track_option(macro_name, track, opts, source_as_of, target_as_of) %}
  {#- A pair's `track`: true or false (the default, also for none), and what it cannot be combined
      with: distinct-key counts do not add up over files, and a fixed version never changes. -#}
  {% if track is none %}{{ return(false) }}{% endif %}
  {% if track is not boolean %}
    {{ table_diff._fail(macro_name, 'track', track, "true or false",
        "track=true keeps per-file signatures between runs and re-hashes only the files that changed.") }}
  {% endif %}
  {% if track and opts.get('check_duplicate_keys') %}
    {{ table_diff._fail(macro_name, 'track', track, "track without check_duplicate_keys",
        "Distinct keys per leaf do not add up over files. Remove check_duplicate_keys (the row diff still finds duplicate keys in every block that differs), or track=false.") }}
  {% endif %}
  {% if track and opts.get('column_map') %}
    {{ table_diff._fail(macro_name, 'track', track, "track without column_map",
        "The track reads the target's files by their stored column names. Diff a view of the target that renames its columns with track=false, or remove column_map.") }}
  {% endif %}
  {% if track and (source_as_of is not none or target_as_of is not none) %}
    {{ table_diff._fail(macro_name, 'track', track, "track without source_as_of / target_as_of",
        "A side read at a fixed version never changes, so there is nothing to track: remove the as_of options, or track=false.") }}
  {% endif %}
  {{ return(track) }}
{% endmacro %}


{% macro _track_summary_sql(file_hashes) %}
  {#- One row: what the changes track reused and hashed this run (all NULL for a pair without one).
      Per side: why it was hashed whole (NULL when only changed files were), files and bytes hashed
      and reused; over both sides: leaves whose signature took a new contribution, and the rest. -#}
  {% set sides = ['source', 'target'] %}
  {% if file_hashes is none %}
    select
      {%- for side in sides %}
      cast(null as string) as track_hashed_whole_{{ side }},
      {%- for what in ['files_hashed', 'files_reused', 'bytes_hashed', 'bytes_reused'] %}
      cast(null as bigint) as track_{{ what }}_{{ side }},
      {%- endfor %}
      {%- endfor %}
      cast(null as bigint) as track_leaves_recomputed,
      cast(null as bigint) as track_leaves_reused
  {% else %}
    select
      {%- for side in sides %}
      max(if(f.side = '{{ side }}', f.why, null)) as track_hashed_whole_{{ side }},
      count_if(f.side = '{{ side }}' and f.rehashed and f.file_path is not null) as track_files_hashed_{{ side }},
      count_if(f.side = '{{ side }}' and not f.rehashed and f.file_path is not null) as track_files_reused_{{ side }},
      coalesce(sum(if(f.side = '{{ side }}' and f.rehashed, f.file_size, 0)), 0) as track_bytes_hashed_{{ side }},
      coalesce(sum(if(f.side = '{{ side }}' and not f.rehashed, f.file_size, 0)), 0) as track_bytes_reused_{{ side }},
      {%- endfor %}
      max(l.recomputed) as track_leaves_recomputed,
      max(l.reused) as track_leaves_reused
    from (
      select side, file_path, max(file_size) as file_size, bool_or(rehashed) as rehashed, max(hashed_whole_because) as why
      from {{ file_hashes }}
      group by side, file_path
    ) as f
    cross join (
      select count_if(rehashed) as recomputed, count_if(not rehashed) as reused
      from (select side, leaf_id, bool_or(rehashed) as rehashed from {{ file_hashes }} group by side, leaf_id) as x
    ) as l
  {% endif %}
{% endmacro %}


{% macro _track_fetch_files(spec, file_hashes, leaves_query, relations) %}
  {#- The row fetch of a tracked pair: per side, the data files that hold a row of a selected leaf,
      from this run's `file_hashes` (a file with no row in a leaf has no row for it there), as a
      predicate on the file's path. A side is not filtered ('where' none) when it has no file
      identity or more such files than `table_diff_track_max_files`. Rows read are the same as
      without it (the leaf filter follows); on parquet, only those files are opened. -#}
  {% do table_diff._require_run('row_diff', 'file_hashes', file_hashes, spec) %}
  {% set max_files = var('table_diff_track_max_files', 1000) | int %}
  {% set found = {'source': [], 'target': []} %}
  {% set partitions = {'source': [], 'target': []} %}
  {% set unknown = [] %}
  {% for side, path, partition in run_query("select distinct side, file_path, file_partition from " ~ file_hashes ~ " where leaf_id in (" ~ leaves_query ~ ")").rows %}
    {% if path is none %}{% do unknown.append(side) %}{% else %}{% do found[side].append(path) %}{% do partitions[side].append(partition) %}{% endif %}
  {% endfor %}
  {% set files = {} %}
  {% for side in ['source', 'target'] %}
    {% set identity = table_diff.file_identity(relations[side], spec['pins'][side]['format']) %}
    {% set usable = identity is not none and side not in unknown and found[side] | length <= max_files %}
    {% set i = identity or {'path': 'cast(null as string)', 'size': 'cast(null as bigint)', 'modified': 'cast(null as timestamp)'} %}
    {% set where = table_diff._in_list(i['path'], found[side]) if usable else none %}
    {#- Delta does not prune by path: name the files' partitions too (ADR 0022). -#}
    {% set side_log = table_diff.table_log(relations[side], spec['pins'][side]) if usable and not i['selectable'] else none %}
    {% set in_partitions = table_diff._partition_predicate(side_log['partitions'], partitions[side]) if side_log else none %}
    {% if where and in_partitions %}{% set where = where ~ ' and ' ~ in_partitions %}{% endif %}
    {% do files.update({side: {'path': i['path'], 'size': i['size'], 'modified': i['modified'], 'where': where}}) %}
    {% if usable %}
      {% do log("table_diff.row_diff: " ~ spec[side] ~ ": " ~ found[side] | length ~ " data files hold the selected leaves (changes track)"
          ~ ("; read from their partitions only" if in_partitions else ""), info=true) %}
    {% endif %}
  {% endfor %}
  {{ return(files) }}
{% endmacro %}
