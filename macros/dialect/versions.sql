{#- Table versions (Delta Lake, Apache Iceberg): which format a relation is, its current version,
    and how a query reads it at one version. What pins every pass of a run to one snapshot. -#}

{% macro table_version(relation) %}
  {{ return(adapter.dispatch('table_version', 'table_diff')(relation)) }}
{% endmacro %}


{% macro default__table_version(relation) %}
  {#- No portable notion of a table version: every side is read as it is (unpinned). -#}
  {{ return({'format': none, 'version': none}) }}
{% endmacro %}


{% macro spark__table_version(relation) %}
  {#-
    {'format': 'delta' | 'iceberg' | 'view' | the provider ('parquet', ...) | none,
     'version': the current version (Delta: the newest commit of DESCRIBE HISTORY; Iceberg: the
     snapshot id of branch main) or none (no versions, or an Iceberg table with no snapshot yet),
     'columns': the relation's column names, from the same DESCRIBE (callers that also check a
     column need not describe the table again)}.
    Metadata only: DESCRIBE TABLE EXTENDED, then the log (Delta) or a metadata table (Iceberg).
  -#}
  {% set ns = namespace(detail=false, provider=none, type=none, in_columns=true, table=none) %}
  {% set columns = [] %}
  {% for row in run_query('describe table extended ' ~ relation).rows %}
    {% set name = (row[0] or '') | trim %}
    {#- The columns come first, up to the first empty or `#` row (partitioning, details). -#}
    {% if ns.in_columns and (name == '' or name.startswith('#')) %}
      {% set ns.in_columns = false %}
    {% elif ns.in_columns %}
      {% do columns.append(name) %}
    {% endif %}
    {% if name == '# Detailed Table Information' %}
      {% set ns.detail = true %}
    {% elif ns.detail and name == 'Provider' %}
      {% set ns.provider = (row[1] or '') | trim | lower %}
    {% elif ns.detail and name == 'Type' %}
      {% set ns.type = (row[1] or '') | trim | lower %}
    {% elif ns.detail and name == 'Storage Properties' %}
      {#- A JDBC table's `dbtable` (its url and password are redacted, and not read). -#}
      {% set m = modules.re.search('[\\[ ]dbtable=(.*?)(, [A-Za-z]+=|\\]$)', (row[1] or '') | trim) %}
      {% set ns.table = m.group(1) if m else none %}
    {% endif %}
  {% endfor %}
  {% if ns.type == 'view' %}{{ return({'format': 'view', 'version': none, 'columns': columns}) }}{% endif %}
  {% if ns.provider == 'jdbc' %}{{ return({'format': 'jdbc', 'version': none, 'columns': columns, 'table': ns.table}) }}{% endif %}
  {% set version = none %}
  {% if ns.provider == 'delta' %}
    {% set version = run_query('describe history ' ~ relation ~ ' limit 1').rows[0][0] | int %}
  {% elif ns.provider == 'iceberg' %}
    {% set rows = run_query("select snapshot_id from " ~ relation ~ ".refs where name = 'main'").rows %}
    {% set version = (rows[0][0] | int) if rows | length > 0 and rows[0][0] is not none else none %}
    {#- Spark reads an Iceberg snapshot with the schema it was written with, not the table's: after a
        metadata-only commit (a column renamed, added or dropped) `VERSION AS OF` the current
        snapshot reads other columns than the table has, and two columns renamed into each other
        read swapped. Such a table has no version to pin: unless the current metadata file is the
        one that committed the snapshot, it is read as it is (unpinned). -#}
    {% if version is not none %}
      {% set commits = run_query("select count(*) from " ~ relation ~ ".metadata_log_entries where latest_snapshot_id = " ~ version).rows[0][0] | int %}
      {% if commits != 1 %}
        {% do log("table_diff: " ~ relation ~ ": its metadata changed after its current snapshot " ~ version
            ~ " (a schema change, for instance), and Spark would read that snapshot with the snapshot's columns: "
            ~ "read unpinned, as the table is now.", info=true) %}
        {% set version = none %}
      {% endif %}
    {% endif %}
  {% endif %}
  {{ return({'format': ns.provider, 'version': version, 'columns': columns}) }}
{% endmacro %}


{% macro as_of_clause(pin) %}
  {{ return(adapter.dispatch('as_of_clause', 'table_diff')(pin)) }}
{% endmacro %}


{% macro default__as_of_clause(pin) %}
  {{ return(table_diff._not_implemented('as_of_clause')) }}
{% endmacro %}


{% macro spark__as_of_clause(pin) %}
  {#- The time-travel clause after a table name for a pin ({'version': n} or {'timestamp': text}),
      '' for none: Spark's `VERSION AS OF` / `TIMESTAMP AS OF` (Delta and Iceberg alike). -#}
  {% if pin is none %}{{ return('') }}{% endif %}
  {% if pin.get('version') is not none %}{{ return('version as of ' ~ pin['version']) }}{% endif %}
  {% if pin.get('timestamp') is not none %}
    {{ return('timestamp as of ' ~ "'" ~ (pin['timestamp'] | string | replace("\\", "\\\\") | replace("'", "\\'")) ~ "'") }}
  {% endif %}
  {{ return('') }}
{% endmacro %}


{% macro query_columns(sql) %}
  {{ return(adapter.dispatch('query_columns', 'table_diff')(sql)) }}
{% endmacro %}


{% macro default__query_columns(sql) %}
  {{ return(table_diff._not_implemented('query_columns')) }}
{% endmacro %}


{% macro spark__query_columns(sql) %}
  {#- The columns (name, type) a query returns, from DESCRIBE QUERY (analysis only, no data read):
      the schema of a table at an older version, which the catalog does not describe. -#}
  {% set columns = [] %}
  {% for row in run_query('describe query ' ~ sql).rows %}
    {% do columns.append(api.Column.create(row[0], row[1])) %}
  {% endfor %}
  {{ return(columns) }}
{% endmacro %}


{% macro last_write_time(relation, info=none) %}
  {{ return(adapter.dispatch('last_write_time', 'table_diff')(relation, info)) }}
{% endmacro %}


{% macro default__last_write_time(relation, info=none) %}
  {{ return(none) }}
{% endmacro %}


{% macro spark__last_write_time(relation, info=none) %}
  {#- When `relation` was last written (a datetime, as the session returns timestamps), or none:
      Delta: its newest commit; Iceberg: when its current snapshot was made current; a file table
      (parquet, orc, ...): its newest data file's modification time (metadata only); a view, or
      an empty file table: none. `info`: its table_version, when the caller has it. -#}
  {% set info = info or table_diff.table_version(relation) %}
  {% if info['format'] == 'delta' %}
    {{ return(run_query('describe history ' ~ relation ~ ' limit 1').rows[0][1]) }}
  {% elif info['format'] == 'iceberg' %}
    {% set rows = run_query('select max(made_current_at) from ' ~ relation ~ '.history').rows %}
    {{ return(rows[0][0] if rows else none) }}
  {% elif info['format'] in [none, 'view'] %}
    {{ return(none) }}
  {% endif %}
  {% if table_diff.file_modified_at(relation) is none %}{{ return(none) }}{% endif %}
  {{ return(run_query('select max(_metadata.file_modification_time) from ' ~ relation).rows[0][0]) }}
{% endmacro %}


{% macro version_at(relation, format, at) %}
  {{ return(adapter.dispatch('version_at', 'table_diff')(relation, format, at)) }}
{% endmacro %}


{% macro default__version_at(relation, format, at) %}
  {{ return(none) }}
{% endmacro %}


{% macro spark__version_at(relation, format, at) %}
  {#- The version of a Delta or Iceberg table that was current at `at` (a datetime from
      last_write_time): the newest Delta commit, or the newest snapshot of the main branch's
      lineage, made at or before it; none when the table had none yet, or has no versions. -#}
  {% set ns = namespace(version=none, when=none) %}
  {% if format == 'delta' %}
    {% set rows = run_query('describe history ' ~ relation).rows %}
  {% elif format == 'iceberg' %}
    {% set rows = run_query('select snapshot_id, made_current_at from ' ~ relation ~ '.history where is_current_ancestor').rows %}
  {% else %}
    {{ return(none) }}
  {% endif %}
  {% for row in rows if row[1] is not none and row[1] <= at
      and (ns.when is none or row[1] > ns.when or (row[1] == ns.when and (row[0] | int) > ns.version)) %}
    {% set ns.version, ns.when = row[0] | int, row[1] %}
  {% endfor %}
  {{ return(ns.version) }}
{% endmacro %}
