{#- A table's log (Delta Lake) or snapshot metadata (Iceberg): what changed between two versions,
    read from the commits themselves, so a changes track (ADR 0022, ADR 0029) needs no file listing
    and no guess from sizes or modification times. -#}

{% macro table_log(relation, pin, key=none) %}
  {{ return(adapter.dispatch('table_log', 'table_diff')(relation, pin, key)) }}
{% endmacro %}


{% macro default__table_log(relation, pin, key=none) %}
  {#- No portable log: the track lists files instead (`file_identity`). -#}
  {{ return(none) }}
{% endmacro %}


{% macro spark__table_log(relation, pin, key=none) %}
  {#-
    What reading a Delta table's log needs, from DESCRIBE DETAIL (metadata only): {'id': the
    table's id (a table dropped and created again under its name gets a new one), 'location', 'version':
    the pinned version the run reads, 'partitions': [{'name', 'type'}] of the partition columns whose
    log values cast back exactly (string, integral, date, boolean; none under column mapping, whose
    log names columns physically), 'key': `key` ({'name', 'type'}: the first key column, in this
    side's type) when the log's statistics bound it exactly (an integral or date column with a
    plain name, no column mapping), else none}. None for a side that is not a Delta table read at
    its current, pinned version.
  -#}
  {% if pin is none or pin.get('format') not in ['delta', 'iceberg'] or pin.get('version') is none or pin.get('explicit') %}
    {{ return(none) }}
  {% endif %}
  {% if pin['format'] == 'iceberg' %}
    {#- Iceberg (ADR 0029): the table's uuid, from its current metadata file (a table dropped and
        created again gets a new one; 'unknown' when that file does not read as one JSON line). -#}
    {% set latest = run_query('select file from ' ~ relation ~ '.metadata_log_entries order by timestamp desc limit 1').rows %}
    {% set ns = namespace(uuid=none) %}
    {% if latest | length == 1 and latest[0][0] %}
      {% set found = run_query("select max(get_json_object(value, '$.table-uuid')) from text."
          ~ table_diff.quote_identifier(latest[0][0] | string)).rows %}
      {% set ns.uuid = found[0][0] if found | length == 1 else none %}
    {% endif %}
    {{ return({'format': 'iceberg', 'id': (ns.uuid or 'unknown') | string, 'location': none, 'version': pin['version'] | int,
               'key': none, 'partitions': [], 'relation': relation}) }}
  {% endif %}
  {% set detail = run_query('describe detail ' ~ relation) %}
  {% set row = detail.rows[0] %}
  {% set names = detail.column_names %}
  {% set d = {} %}
  {% for n in names %}{% do d.update({n: row[loop.index0]}) %}{% endfor %}
  {#- Arrays and maps come back as JSON text through some connections, as objects through others. -#}
  {% set properties = d.get('properties') or {} %}
  {% if properties is string %}{% set properties = fromjson(properties) %}{% endif %}
  {% set partition_columns = d.get('partitionColumns') or [] %}
  {% if partition_columns is string %}{% set partition_columns = fromjson(partition_columns) %}{% endif %}
  {% set mapped = (properties.get('delta.columnMapping.mode') or 'none') | lower != 'none' %}
  {% set types = {} %}
  {% for c in adapter.get_columns_in_relation(relation) %}{% do types.update({c.name | lower: c.dtype | lower}) %}{% endfor %}
  {% set partitions = [] %}
  {% for name in partition_columns %}
    {% set t = types.get(name | lower) %}
    {% if not mapped and t in ['string', 'tinyint', 'smallint', 'int', 'bigint', 'date', 'boolean'] %}
      {% do partitions.append({'name': name, 'type': t}) %}
    {% endif %}
  {% endfor %}
  {% set bounded = key is not none and not mapped and modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', key['name'])
      and table_diff._type_family(key['type']) in ['integral', 'date'] %}
  {{ return({'format': 'delta', 'id': d['id'] | string, 'location': d['location'] | string, 'version': pin['version'] | int,
             'key': key if bounded else none,
             'partitions': partitions if partitions | length == partition_columns | length else []}) }}
{% endmacro %}


{% macro table_log_changes(log, since, max_versions) %}
  {{ return(adapter.dispatch('table_log_changes', 'table_diff')(log, since, max_versions)) }}
{% endmacro %}


{% macro default__table_log_changes(log, since, max_versions) %}
  {{ return(table_diff._not_implemented('table_log_changes')) }}
{% endmacro %}


{% macro spark__table_log_changes(log, since, max_versions) %}
  {#-
    The data files a Delta table gained and lost from version `since` (exclusive) to the log's
    pinned version (inclusive), from the commit files `_delta_log/<version>.json` of those versions
    only: {'reason': none, or why the log cannot answer (then nothing may be reused), 'hash': paths
    of files present at the pinned version that a commit added (a deletion vector added to a file
    is a remove and an add of its path: it is hashed again), 'drop': paths a commit removed (their
    stored signatures go), 'where': a predicate that holds on every row of the files to hash and
    lets Delta skip others (their partitions; their key ranges from the log's statistics), or none,
    'versions': how many commits were read}. Paths are as `_metadata.file_path` shows them (the
    table's location, then the log's URL-encoded relative path). The log cannot answer when a
    commit changed the table's metadata or protocol (a schema change can change what an unchanged
    file reads as), when the commits were cleaned up (`delta.logRetentionDuration`), or when more
    than `max_versions` commits were made.
  -#}
  {% if log.get('format') == 'iceberg' %}{{ return(table_diff._iceberg_changes(log, since, max_versions)) }}{% endif %}
  {% set until = log['version'] %}
  {% set out = {'reason': none, 'hash': [], 'drop': [], 'where': none, 'versions': until - since} %}
  {% if until == since %}{{ return(out) }}{% endif %}
  {% if until < since %}
    {% do out.update({'reason': 'the stored version ' ~ since ~ ' is newer than the current ' ~ until}) %}
    {{ return(out) }}
  {% endif %}
  {% if until - since > max_versions %}
    {% do out.update({'reason': (until - since) ~ ' commits since the stored version ' ~ since
        ~ ' (more than table_diff_track_max_versions = ' ~ max_versions ~ ')'}) %}
    {{ return(out) }}
  {% endif %}
  {% set files = [] %}
  {% for v in range(since + 1, until + 1) %}{% do files.append('%020d' | format(v)) %}{% endfor %}
  {% set glob = log['location'] ~ '/_delta_log/' ~ (('{' ~ files | join(',') ~ '}') if files | length > 1 else files[0]) ~ '.json' %}
  {% set actions %}
    select
      cast(regexp_extract(_metadata.file_name, '^([0-9]+)[.]json$', 1) as bigint) as version,
      from_json(value, 'struct<add: struct<path: string, partitionValues: map<string, string>, stats: string>, remove: struct<path: string>, metaData: struct<id: string>, protocol: struct<minReaderVersion: int>>') as a
    from text.{{ table_diff.quote_identifier(glob) }}
  {% endset %}
  {% set error = table_diff.explain_error('select count(*) from (' ~ actions ~ ')') %}
  {% if error %}
    {% do out.update({'reason': 'the Delta log of versions ' ~ (since + 1) ~ '..' ~ until ~ ' cannot be read (' ~ error ~ ')'}) %}
    {{ return(out) }}
  {% endif %}
  {% set sql %}
    with actions as ({{ actions }}),
    touched as (
      select version, coalesce(a.add.path, a.remove.path) as path, a.add is not null as is_add,
             to_json(a.add.partitionValues) as partition_values,
             {%- set k = (log['key'] or {}).get('name') %}
             {{ ("get_json_object(a.add.stats, '$.minValues." ~ k ~ "')") if k else 'cast(null as string)' }} as key_min,
             {{ ("get_json_object(a.add.stats, '$.maxValues." ~ k ~ "')") if k else 'cast(null as string)' }} as key_max,
             {{ ("get_json_object(a.add.stats, '$.nullCount." ~ k ~ "')") if k else 'cast(null as string)' }} as key_nulls
      from actions where a.add is not null or a.remove is not null
    ),
    last as (
      select path, max(version) as version, bool_or(not is_add) as removed from touched group by path
    ),
    files as (
      select t.path, bool_or(t.is_add) as present, max(t.partition_values) as partition_values, max(m.removed) as removed,
             max(t.key_min) as key_min, max(t.key_max) as key_max, max(t.key_nulls) as key_nulls
      from touched as t join last as m on t.path = m.path and t.version = m.version
      group by t.path
    )
    select 'file' as what, path, present, removed, partition_values, key_min, key_max, key_nulls, cast(null as bigint) as n from files
    union all
    select 'versions', null, null, null, null, null, null, null, count(distinct version) from actions
    union all
    select 'metadata', null, null, null, null, null, null, null, count_if(a.metaData is not null or a.protocol is not null) from actions
  {% endset %}
  {% set paths = {'hash': [], 'drop': []} %}
  {% set tuples, ranges = [], [] %}
  {% for what, path, present, removed, partition_values, key_min, key_max, key_nulls, n in run_query(sql).rows %}
    {% if what == 'versions' and (n | int) != until - since %}
      {% do out.update({'reason': 'the Delta log no longer holds every commit since the stored version ' ~ since
          ~ ' (' ~ n ~ ' of ' ~ (until - since) ~ ' found: cleaned up after delta.logRetentionDuration)'}) %}
    {% elif what == 'metadata' and (n | int) > 0 %}
      {% do out.update({'reason': "the table's metadata or protocol changed since the stored version " ~ since
          ~ " (a schema change, for instance, can change what an unchanged file reads as)"}) %}
    {% elif what == 'file' %}
      {% set full = path if ':' in path.split('/')[0] else log['location'] ~ '/' ~ path %}
      {% if removed %}{% do out['drop'].append(full) %}{% endif %}
      {% if present %}
        {% do out['hash'].append(full) %}
        {% if partition_values not in tuples %}{% do tuples.append(partition_values) %}{% endif %}
        {% do ranges.append([key_min, key_max, key_nulls]) %}
      {% endif %}
    {% endif %}
  {% endfor %}
  {% if out['reason'] is none and out['hash'] %}
    {% set terms = [table_diff._partition_predicate(log['partitions'], tuples), table_diff._key_ranges_predicate(log['key'], ranges)] %}
    {% do out.update({'where': terms | reject('none') | join(' and ') or none}) %}
  {% endif %}
  {{ return(out) }}
{% endmacro %}


{% macro _key_ranges_predicate(key, ranges) %}
  {#- A predicate on the key column `key` ({'name', 'type'}, integral or date) that holds on every row
      of files whose keys lie in `ranges` ([min, max, NULL count] as the Delta log's statistics
      write them), NULL keys included where a file may hold any, so that Delta's data skipping opens only files whose statistics overlap
      them: overlapping ranges merged. None without a key, or when a file has no bounds. -#}
  {% if key is none or not ranges %}{{ return(none) }}{% endif %}
  {% set family = table_diff._type_family(key['type']) %}
  {% set pattern = '-?[0-9]{1,19}' if family == 'integral' else '[0-9]{4}-[0-9]{2}-[0-9]{2}' %}
  {% set bounds = [] %}
  {% set ns = namespace(nulls=false) %}
  {% for lo, hi, nulls in ranges %}
    {#- A file whose statistics do not count its NULL keys may hold some. -#}
    {% if nulls is none or not modules.re.fullmatch('[0-9]+', nulls | string) or (nulls | int) > 0 %}{% set ns.nulls = true %}{% endif %}
    {% if lo is none and hi is none and nulls is not none and modules.re.fullmatch('[0-9]+', nulls | string) and (nulls | int) > 0 %}
      {#- Every key of the file is NULL: no range. -#}
    {% elif lo is none or hi is none or not modules.re.fullmatch(pattern, lo | string) or not modules.re.fullmatch(pattern, hi | string) %}
      {{ return(none) }}
    {% else %}
      {% do bounds.append([(lo | int) if family == 'integral' else lo | string, (hi | int) if family == 'integral' else hi | string]) %}
    {% endif %}
  {% endfor %}
  {% set merged = [] %}
  {% for lo, hi in bounds | sort(attribute='0') %}
    {% if merged and lo <= merged[-1][1] %}
      {% set last = merged.pop() %}
      {% do merged.append([last[0], [last[1], hi] | max]) %}
    {% else %}
      {% do merged.append([lo, hi]) %}
    {% endif %}
  {% endfor %}
  {% set k = table_diff.quote_identifier(key['name']) %}
  {% set terms = [k ~ ' is null'] if ns.nulls else [] %}
  {% for lo, hi in merged %}
    {% do terms.append(k ~ ' between cast(' ~ table_diff._sql_string(lo) ~ ' as ' ~ key['type'] ~ ') and cast('
        ~ table_diff._sql_string(hi) ~ ' as ' ~ key['type'] ~ ')') %}
  {% endfor %}
  {{ return(('(' ~ terms | join(' or ') ~ ')') if terms else 'false') }}
{% endmacro %}


{% macro _iceberg_changes(log, since, max_versions) %}
  {#-
    What an Iceberg table's rows did from snapshot `since` (exclusive) to the log's pinned snapshot
    (ADR 0029): {'reason': none, or why the stored signatures cannot be brought forward (then the
    side is hashed whole), 'from': none when nothing changed, else a FROM item over the table's
    changelog (its `changes` metadata table between the two snapshots: the rows of the data files
    added and removed in between, each labelled INSERT or DELETE), 'sign': +1 / -1 per changelog
    row, 'versions': how many snapshots, 'hash': [], 'drop': []}. From the `snapshots` and
    `metadata_log_entries` metadata tables only. The changelog cannot answer when the stored
    snapshot expired or is not an ancestor of the pinned one (a rollback), when more than
    `max_versions` snapshots were made, when the schema changed in between (an unchanged file can
    read differently), or when any snapshot from the stored one on carries delete files (a
    merge-on-read delete changes a file's live rows without removing it: the changelog scan
    refuses them, and would count a removed file's already deleted rows).
  -#}
  {% set until = log['version'] %}
  {% set out = {'reason': none, 'hash': [], 'drop': [], 'where': none, 'from': none, 'sign': none, 'versions': 0} %}
  {% if until == since %}{{ return(out) }}{% endif %}
  {% set rel = log['relation'] %}
  {% set snapshots = {} %}
  {% for id, parent, deletes in run_query("select snapshot_id, parent_id, summary['total-delete-files'] from " ~ rel ~ ".snapshots").rows %}
    {% do snapshots.update({id | int: {'parent': (parent | int) if parent is not none else none, 'deletes': deletes}}) %}
  {% endfor %}
  {% if since not in snapshots %}
    {% do out.update({'reason': 'the stored snapshot ' ~ since ~ ' is no longer in the table (expired by expire_snapshots, or another table)'}) %}
    {{ return(out) }}
  {% endif %}
  {#- The pinned snapshot's ancestors back to the stored one. -#}
  {% set chain = [until] %}
  {% for _ in range(max_versions + 1) %}
    {% set parent = (snapshots.get(chain[-1]) or {}).get('parent') %}
    {% if chain[-1] != since and parent is not none %}{% do chain.append(parent) %}{% endif %}
  {% endfor %}
  {% if chain | length - 1 > max_versions %}
    {% do out.update({'reason': 'more than ' ~ max_versions ~ ' snapshots since the stored snapshot ' ~ since
        ~ ' (table_diff_track_max_versions = ' ~ max_versions ~ ')'}) %}
    {{ return(out) }}
  {% elif chain[-1] != since %}
    {% do out.update({'reason': 'the stored snapshot ' ~ since ~ ' is not an ancestor of the current ' ~ until ~ ' (a rollback, or its history expired)'}) %}
    {{ return(out) }}
  {% endif %}
  {% do out.update({'versions': chain | length - 1}) %}
  {% for id in chain %}
    {% set deletes = (snapshots.get(id) or {}).get('deletes') %}
    {% if out['reason'] is none and (deletes is none or (deletes | string) != '0') %}
      {% do out.update({'reason': 'snapshot ' ~ id ~ ' has delete files (merge-on-read deletes or updates), which the changelog cannot read'}) %}
    {% endif %}
  {% endfor %}
  {% if out['reason'] %}{{ return(out) }}{% endif %}
  {% set schemas = run_query("select count(distinct latest_schema_id), count_if(latest_snapshot_id = " ~ since ~ ") from " ~ rel
      ~ ".metadata_log_entries where latest_snapshot_id in (" ~ chain | join(', ') ~ ")").rows[0] %}
  {% if (schemas[1] | int) == 0 %}
    {% do out.update({'reason': 'the metadata log no longer holds the stored snapshot ' ~ since ~ ' (write.metadata.previous-versions-max): its schema is unknown'}) %}
  {% elif (schemas[0] | int) != 1 %}
    {% do out.update({'reason': 'the schema changed since the stored snapshot ' ~ since ~ ' (an unchanged file can read differently)'}) %}
  {% else %}
    {% do out.update({'from': rel ~ ".changes with ('start-snapshot-id' = '" ~ since ~ "', 'end-snapshot-id' = '" ~ until ~ "')",
                      'sign': "if(_change_type = 'DELETE', cast(-1 as bigint), cast(1 as bigint))"}) %}
    {% set error = table_diff.explain_error('select count(*) from ' ~ out['from']) %}
    {% if error %}
      {% do out.update({'reason': 'the changelog of snapshots ' ~ since ~ '..' ~ until ~ ' cannot be read (' ~ error ~ ')', 'from': none, 'sign': none}) %}
    {% endif %}
  {% endif %}
  {{ return(out) }}
{% endmacro %}
