{#- A table's log (Delta Lake): which data files were added and removed between two versions, read
    from the commits themselves, so a changes track (ADR 0022) needs no file listing and no guess
    from sizes or modification times. -#}

{% macro table_log(relation, pin) %}
  {{ return(adapter.dispatch('table_log', 'table_diff')(relation, pin)) }}
{% endmacro %}


{% macro default__table_log(relation, pin) %}
  {#- No portable log: the track lists files instead (`file_identity`). -#}
  {{ return(none) }}
{% endmacro %}


{% macro spark__table_log(relation, pin) %}
  {#-
    What reading a Delta table's log needs, from DESCRIBE DETAIL (metadata only): {'id': the
    table's id (a table dropped and created again under its name gets a new one), 'location', 'version':
    the pinned version the run reads, 'partitions': [{'name', 'type'}] of the partition columns whose
    log values cast back exactly (string, integral, date, boolean; none under column mapping, whose
    log names columns physically)}. None for a side that is not a Delta table read at its current,
    pinned version.
  -#}
  {% if pin is none or pin.get('format') != 'delta' or pin.get('version') is none or pin.get('explicit') %}
    {{ return(none) }}
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
  {{ return({'id': d['id'] | string, 'location': d['location'] | string, 'version': pin['version'] | int,
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
    stored signatures go), 'where': a predicate that selects the partitions of the files to hash, or none,
    'versions': how many commits were read}. Paths are as `_metadata.file_path` shows them (the
    table's location, then the log's URL-encoded relative path). The log cannot answer when a
    commit changed the table's metadata or protocol (a schema change can change what an unchanged
    file reads as), when the commits were cleaned up (`delta.logRetentionDuration`), or when more
    than `max_versions` commits were made.
  -#}
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
      from_json(value, 'struct<add: struct<path: string, partitionValues: map<string, string>>, remove: struct<path: string>, metaData: struct<id: string>, protocol: struct<minReaderVersion: int>>') as a
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
             to_json(a.add.partitionValues) as partition_values
      from actions where a.add is not null or a.remove is not null
    ),
    last as (
      select path, max(version) as version, bool_or(not is_add) as removed from touched group by path
    ),
    files as (
      select t.path, bool_or(t.is_add) as present, max(t.partition_values) as partition_values, max(m.removed) as removed
      from touched as t join last as m on t.path = m.path and t.version = m.version
      group by t.path
    )
    select 'file' as what, path, present, removed, partition_values, cast(null as bigint) as n from files
    union all
    select 'versions', null, null, null, null, count(distinct version) from actions
    union all
    select 'metadata', null, null, null, null, count_if(a.metaData is not null or a.protocol is not null) from actions
  {% endset %}
  {% set paths = {'hash': [], 'drop': []} %}
  {% set tuples = [] %}
  {% for what, path, present, removed, partition_values, n in run_query(sql).rows %}
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
      {% endif %}
    {% endif %}
  {% endfor %}
  {% if out['reason'] is none and out['hash'] %}
    {% do out.update({'where': table_diff._partition_predicate(log['partitions'], tuples)}) %}
  {% endif %}
  {{ return(out) }}
{% endmacro %}
