{#-
  table_diff.file_hashes: the changes track of a pair (`track: true`, ADR 0019). Per side, data
  file and leaf: the file's identity (path, size, modification time, live rows after table_filter)
  and its contribution to the leaf's signature. Signatures are sums over rows, so a leaf's signature
  is the sum over the files present now: a file whose identity is unchanged since the last run
  keeps its stored contribution and is not read; a new or changed file is hashed; a file that is
  gone drops out. The pair's block_hashes is then a sum over this table, with no scan.

  An Iceberg side (ADR 0029) keeps one row per leaf (no file path): its stored signature plus the
  signed sums of its changelog since the stored snapshot (rows inserted add, rows deleted
  subtract), summed again per leaf.

  Exact first: a side is hashed whole, and the summary says why, on the first run, on a new leaf
  layout (options changed, `--full-refresh`), when the stored state is incomplete (a stopped run)
  or belongs to another layout, when the side exposes no file identity and no snapshots (a view,
  a non-file source), when its log or snapshots cannot prove what changed, or when more files
  changed than `table_diff_track_max_files`.
-#}
{% macro file_hashes(ranges, source, target) %}
  {% do table_diff._require_relation('file_hashes', 'ranges', ranges) %}
  {% do table_diff._require_relation('file_hashes', 'source', source) %}
  {% do table_diff._require_relation('file_hashes', 'target', target) %}
  {{ return(adapter.dispatch('file_hashes', 'table_diff')(ranges, source, target)) }}
{% endmacro %}


{% macro default__file_hashes(ranges, source, target) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.file_hashes: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__file_hashes(ranges, source, target) %}
  {% if not execute %}
    {{ return("select 'source' as side, cast(null as string) as file_path, 0 as leaf_id") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('file_hashes', ranges) %}
  {% if not spec.get('track') %}
    {{ table_diff._fail('file_hashes', 'ranges', ranges, "the ranges model of a pair with track: true",
        "Add track=true to the pair's key_ranges call (table-diff scaffold pair ... --track), or remove this model.") }}
  {% endif %}
  {% do table_diff._require_pair_side('file_hashes', 'source', source, spec) %}
  {% do table_diff._require_pair_side('file_hashes', 'target', target, spec) %}
  {% set started_at = table_diff._run_started_at() %}
  {% set previous = table_diff._track_previous(spec) %}
  {% set relations = {'source': source, 'target': target} %}
  {% set max_files = var('table_diff_track_max_files', 1000) | int %}

  {#- Per side: its file identity, and either the files to hash and the stored rows to drop, or
      the reason it is hashed whole. -#}
  {% set max_versions = var('table_diff_track_max_versions', 1000) | int %}
  {% set sides, plans = {}, {} %}
  {% for side in ['source', 'target'] %}
    {% set identity = table_diff.file_identity(relations[side], spec['pins'][side]['format']) %}
    {% set key = spec['key'][0] %}
    {% set side_log = table_diff.table_log(relations[side], spec['pins'][side], {'name': key['name'], 'type': key[side ~ '_type']})
        if identity is not none or spec['pins'][side]['format'] == 'iceberg' else none %}
    {% set stored = (previous.get('logs') or {}).get(side) %}
    {% set iceberg = side_log is not none and side_log['format'] == 'iceberg' %}
    {% do plans.update({side: {'identity': identity, 'log': side_log, 'reason': previous['reason'], 'hash': none, 'drop': [],
                               'files': none, 'where': none, 'versions': none, 'iceberg': iceberg, 'from': none, 'sign': none}}) %}
    {% if identity is none and side_log is none %}
      {% do plans[side].update({'reason': 'no file identity (a view, an Iceberg table read unpinned: its metadata changed after its current snapshot, or another non-file source): hashed whole'}) %}
    {% elif previous['relation'] is none %}
      {#- Nothing stored to reuse: hashed whole, for previous['reason']. -#}
    {% elif iceberg and stored is none %}
      {% do plans[side].update({'reason': 'the stored signatures name no snapshot of this Iceberg table (it was read unpinned, or by an older version)'}) %}
    {% elif side_log is not none and stored is not none and stored['table_id'] != side_log['id'] and 'unknown' not in [stored['table_id'], side_log['id']] %}
      {% do plans[side].update({'reason': 'another table than the stored signatures were computed from (dropped and created again)'}) %}
    {% elif side_log is not none and stored is not none %}
      {#- The table's log names the files added and removed since the stored version (ADR 0022). -#}
      {% set change = table_diff.table_log_changes(side_log, stored['version'], max_versions) %}
      {% if change['reason'] %}
        {% do plans[side].update({'reason': change['reason']}) %}
      {% elif iceberg %}
        {#- Its changelog since the stored snapshot, added to the stored signatures (ADR 0029). -#}
        {% do plans[side].update({'hash': [], 'drop': [], 'from': change['from'], 'sign': change['sign'],
                                  'versions': [stored['version'], side_log['version'], change['versions']]}) %}
      {% elif (change['hash'] | length) + (change['drop'] | length) > max_files %}
        {% do plans[side].update({'reason': (change['hash'] | length) ~ ' files changed (more than table_diff_track_max_files = ' ~ max_files ~ ')'}) %}
      {% else %}
        {% do plans[side].update({'hash': change['hash'], 'drop': change['drop'], 'where': change['where'],
                                  'versions': [stored['version'], side_log['version']]}) %}
      {% endif %}
    {% else %}
      {% do sides.update({side: {'relation': relations[side], 'identity': identity}}) %}
    {% endif %}
  {% endfor %}
  {% if sides %}
    {% set changes = table_diff._track_changes(spec, sides, previous['relation'], max_files) %}
    {% for side, change in changes.items() %}
      {% if change['reason'] %}
        {% do plans[side].update({'reason': change['reason']}) %}
      {% else %}
        {% do plans[side].update({'hash': change['hash'], 'drop': change['drop'], 'files': change['files']}) %}
      {% endif %}
    {% endfor %}
  {% endif %}

  {% set files, keep = {}, [] %}
  {% for side in ['source', 'target'] %}
    {% set p = plans[side] %}
    {% set i = p['identity'] or {'path': 'cast(null as string)', 'size': 'cast(null as bigint)', 'modified': 'cast(null as timestamp)', 'selectable': false} %}
    {% set where = none if p['hash'] is none else table_diff._in_list(i['path'], p['hash']) %}
    {% if where and p['where'] %}{% set where = where ~ ' and ' ~ p['where'] %}{% endif %}
    {#- An Iceberg side with a changelog reads all of it (`where` false when nothing changed). -#}
    {% if p['from'] %}{% set where = none %}{% endif %}
    {% do files.update({side: {'path': i['path'], 'size': i['size'], 'modified': i['modified'], 'where': where,
        'partition': table_diff._partition_values_expr(p['log']['partitions'] if p['log'] else none),
        'from': p['from'], 'sign': p['sign']}}) %}
    {% if p['hash'] is not none %}
      {#- A file hashed now never keeps a stored signature too, whatever the listing or log said. -#}
      {% do keep.append("(side = '" ~ side ~ "' and not " ~ table_diff._in_list('file_path', (p['drop'] + p['hash']) | unique | list) ~ ")") %}
    {% endif %}
    {% if p['hash'] is none %}
      {% set said = "hashed whole (" ~ p['reason'] ~ ")" %}
    {% elif p['iceberg'] and not p['from'] %}
      {% set said = "no snapshot since the stored snapshot " ~ p['versions'][0] ~ " (its metadata): nothing to read" %}
    {% elif p['iceberg'] %}
      {% set said = "from the changelog of snapshots " ~ p['versions'][0] ~ " (exclusive).." ~ p['versions'][1] ~ " (" ~ p['versions'][2]
          ~ " snapshots): the rows of the data files they added hashed and those they removed subtracted" %}
    {% elif p['versions'] is not none and p['versions'][0] == p['versions'][1] %}
      {% set said = "no commit since the stored version " ~ p['versions'][0] ~ " (its Delta log): nothing to hash" %}
    {% elif p['versions'] is not none %}
      {% set said = "from the Delta log of versions " ~ (p['versions'][0] + 1) ~ ".." ~ p['versions'][1] ~ ": " ~ p['hash'] | length
          ~ " files to hash, " ~ (p['drop'] | length) ~ " files' stored signatures dropped"
          ~ ("" if p['hash'] | length == 0 else (" (Delta opens only the files their partitions and key ranges may hold)" if p['where'] else " (Spark reads every file to find these rows: no partition or key range the log can name)")) %}
    {% else %}
      {% set said = p['hash'] | length ~ " of " ~ p['files'] ~ " files to hash, " ~ (p['drop'] | length) ~ " stored signatures dropped"
          ~ ("" if i['selectable'] or p['hash'] | length == 0 else " (a Delta table: Spark reads every file to find these rows)") %}
    {% endif %}
    {% do log("table_diff.file_hashes: " ~ spec[side] ~ ": " ~ said ~ ".", info=true) %}
  {% endfor %}

  {% set leaf_count = run_query("select count(*) from " ~ ranges).rows[0][0] | int %}
  {% set cols = 'file_path, file_size, file_modified, file_partition, leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo' %}
  {#- A state written before `file_partition` (ADR 0022) reads it as unknown. -#}
  {% set stored_cols = cols if previous.get('has_partition') else cols | replace('file_partition', 'cast(null as string) as file_partition') %}
  select
    u.side, u.file_path, u.file_size, u.file_modified, u.file_partition,
    sum(u.n_rows) over (partition by u.side, u.file_path) as file_rows,
    u.leaf_id, u.n_rows, u.n_keys, u.n_null_key_rows, u.h1_hi, u.h1_lo, u.h2_hi, u.h2_lo,
    u.rehashed,
    case u.side
      {%- for side in ['source', 'target'] %}
      when '{{ side }}' then {{ table_diff._sql_string(plans[side]['reason']) if plans[side]['hash'] is none else 'cast(null as string)' }}
      {%- endfor %}
    end as hashed_whole_because,
    case u.side
      {%- for side in ['source', 'target'] %}
      when '{{ side }}' then {{ table_diff._sql_string(plans[side]['log']['id']) if plans[side]['log'] else 'cast(null as string)' }}
      {%- endfor %}
    end as side_table_id,
    case u.side
      {%- for side in ['source', 'target'] %}
      when '{{ side }}' then {{ ('cast(' ~ plans[side]['log']['version'] ~ ' as bigint)') if plans[side]['log'] else 'cast(null as bigint)' }}
      {%- endfor %}
    end as side_version,
    count(*) over () as state_rows,
    {{ table_diff._sql_string(spec['track_layout']['id']) }} as layout_id,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    timestamp {{ table_diff._sql_string(started_at) }} as started_at
  from (
    {#- Summed per (file, leaf): a no-op for files (each is hashed or kept, never both), the
        stored signature plus its changelog's signed sums for an Iceberg side; a leaf left
        with no row is dropped. -#}
    select
      c.side, c.file_path, c.file_size, c.file_modified, c.file_partition, c.leaf_id,
      sum(c.n_rows) as n_rows, sum(c.n_keys) as n_keys, sum(c.n_null_key_rows) as n_null_key_rows,
      sum(c.h1_hi) as h1_hi, sum(c.h1_lo) as h1_lo, sum(c.h2_hi) as h2_hi, sum(c.h2_lo) as h2_lo,
      bool_or(c.rehashed) as rehashed
    from (
      with
      {{ table_diff._side_blocks_ctes(spec, [['source', source], ['target', target]], ranges,
          table_diff._leaf_plan(spec, ranges, leaf_count), files=files) }}
      select side, {{ cols }}, true as rehashed from source_blocks
      union all
      select side, {{ cols }}, true as rehashed from target_blocks
      {%- if keep %}
      union all
      select side, {{ stored_cols }}, false as rehashed from {{ previous['relation'] }}
      where {{ keep | join(' or ') }}
      {%- endif %}
    ) as c
    group by c.side, c.file_path, c.file_size, c.file_modified, c.file_partition, c.leaf_id
    having sum(c.n_rows) <> 0 or sum(c.h1_hi) <> 0 or sum(c.h1_lo) <> 0 or sum(c.h2_hi) <> 0 or sum(c.h2_lo) <> 0
  ) as u
{% endmacro %}
