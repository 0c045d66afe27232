{#- What the catalog and the optimizer know about a relation, read without scanning it: the cost
    preview's inputs (macros/preview/). EXPLAIN and DESCRIBE only; a partitioned table's files are
    listed (metadata) when a partition filter is explained. -#}

{% macro relation_statistics(relation, spec, from_item=none, columns=none) %}
  {{ return(adapter.dispatch('relation_statistics', 'table_diff')(relation, spec, from_item, columns)) }}
{% endmacro %}


{% macro default__relation_statistics(relation, spec, from_item=none, columns=none) %}
  {#- No portable catalog statistics: everything unknown. -#}
  {{ return({'format': none, 'stats_rows': none, 'stats_bytes': none, 'plan_bytes': none, 'plan_rows': none,
             'partition_columns': [], 'column_stats': {}}) }}
{% endmacro %}


{% macro spark__relation_statistics(relation, spec, from_item=none, columns=none) %}
  {#-
    {'format', 'stats_rows', 'stats_bytes', 'plan_bytes', 'plan_rows', 'partition_columns', 'column_stats'}:
    - stats_rows / stats_bytes: DESCRIBE TABLE EXTENDED's `Statistics` (`N bytes, M rows` after
      ANALYZE TABLE). A row count of 0 beside a non-zero size is not trusted (a table created by
      CTAS records `0 rows` until it is analyzed): none.
    - plan_bytes / plan_rows: EXPLAIN COST's sizeInBytes and rowCount of what the run reads
      (`from_item`, the relation at its pinned version); rowCount shows only with
      spark.sql.cbo.enabled or spark.sql.cbo.planStats.enabled. A partitioned table without
      statistics is explained again with an always-true partition filter (files listed, none read),
      as `estimated_rows` does; bytes none when Spark cannot size it (8 EiB, its default).
    - column_stats: {column: {distinct_count, num_nulls, avg_col_len, max_col_len}} for `columns`
      (DESCRIBE TABLE EXTENDED t col), only where ANALYZE TABLE ... FOR COLUMNS left them.
  -#}
  {% set re = modules.re %}
  {% set ns = namespace(section='columns', format=none, type=none, stats=none) %}
  {% set partition_columns = [] %}
  {% for row in run_query("describe table extended " ~ relation).rows %}
    {% set name = (row[0] or '') | trim %}
    {% set value = (row[1] or '') | trim %}
    {% if name == '# Partition Information' %}{% set ns.section = 'partitions' %}
    {% elif name == '# Partitioning' %}{% set ns.section = 'transforms' %}
    {% elif name == '# Detailed Table Information' %}{% set ns.section = 'detail' %}
    {% elif name == '# col_name' %}{#- the header row of a section: stays in it -#}
    {% elif name.startswith('#') or not name %}{% set ns.section = 'other' if ns.section in ['partitions', 'transforms'] else ns.section %}
    {% elif ns.section == 'partitions' and name and name not in partition_columns %}{% do partition_columns.append(name) %}
    {#- A DSv2 table (Delta, Iceberg): `Part 0 | day` or a transform such as `days(ts)`, `bucket(16, id)`. -#}
    {% elif ns.section == 'transforms' and name.startswith('Part ') and value and value not in partition_columns %}{% do partition_columns.append(value) %}
    {% elif ns.section == 'detail' and name == 'Provider' %}{% set ns.format = value | lower %}
    {% elif ns.section == 'detail' and name == 'Type' %}{% set ns.type = value | lower %}
    {% elif ns.section == 'detail' and name == 'Statistics' %}{% set ns.stats = value %}
    {% endif %}
  {% endfor %}
  {% set m = re.search('([0-9]+) bytes(, ([0-9]+) rows)?', ns.stats or '') %}
  {% set stats_bytes = (m.group(1) | int) if m else none %}
  {% set stats_rows = (m.group(3) | int) if m and m.group(3) is not none else none %}
  {% if stats_rows == 0 and (stats_bytes or 0) > 0 %}{% set stats_rows = none %}{% endif %}
  {% set size = table_diff._explained_size("select * from " ~ (from_item or relation)) %}
  {% set plain = table_diff._plain_columns(partition_columns) %}
  {% if size['bytes'] is none and plain %}
    {% set p = table_diff.quote_identifier(plain[0]) %}
    {% set size = table_diff._explained_size("select * from " ~ (from_item or relation) ~ " where " ~ p ~ " is null or " ~ p ~ " is not null") %}
  {% endif %}
  {% set column_stats = {} %}
  {% for c in (columns or []) if stats_rows is not none and ns.type != 'view' %}
    {% set cs = {} %}
    {% for row in run_query("describe table extended " ~ relation ~ " " ~ table_diff.quote_identifier(c)).rows %}
      {% if row[0] in ['distinct_count', 'num_nulls', 'avg_col_len', 'max_col_len'] and re.fullmatch('[0-9]+', (row[1] or '') | string) %}
        {% do cs.update({row[0]: row[1] | int}) %}
      {% endif %}
    {% endfor %}
    {% if cs %}{% do column_stats.update({c: cs}) %}{% endif %}
  {% endfor %}
  {{ return({'format': 'view' if ns.type == 'view' else ns.format, 'stats_rows': stats_rows, 'stats_bytes': stats_bytes,
             'plan_bytes': size['bytes'], 'plan_rows': size['rows'], 'partition_columns': partition_columns,
             'column_stats': column_stats}) }}
{% endmacro %}


{% macro filter_pruning(relation, table_filter, partition_columns, from_item=none) %}
  {{ return(adapter.dispatch('filter_pruning', 'table_diff')(relation, table_filter, partition_columns, from_item)) }}
{% endmacro %}


{% macro default__filter_pruning(relation, table_filter, partition_columns, from_item=none) %}
  {{ return({'partition_filters': none, 'partitions_total': none, 'partitions_read': none}) }}
{% endmacro %}


{% macro spark__filter_pruning(relation, table_filter, partition_columns, from_item=none) %}
  {#-
    Whether `table_filter` prunes partitions of `relation`, from two EXPLAINs (no data read):
    {'partition_filters': the file scan's PartitionFilters with the filter (text; '' when none;
    none when the plan has no file scan to tell, e.g. an Iceberg table's batch scan), and
    'partitions_total' / 'partitions_read': the paths of the file index with an always-true
    partition filter and with the table filter (a catalog table's partitions, listed from the
    metastore), none where the index does not list partitions (Delta, Iceberg, a view)}.
  -#}
  {% set from_item = from_item or relation %}
  {% set filtered = table_diff._explained_scan("select * from " ~ from_item ~ " where " ~ table_diff._filter_predicate(table_filter)) %}
  {% set total = none %}
  {% set plain = table_diff._plain_columns(partition_columns) %}
  {% if plain %}
    {% set p = table_diff.quote_identifier(plain[0]) %}
    {% set total = table_diff._explained_scan("select * from " ~ from_item ~ " where " ~ p ~ " is null or " ~ p ~ " is not null")['paths'] %}
  {% endif %}
  {{ return({'partition_filters': filtered['partition_filters'], 'partitions_total': total,
             'partitions_read': filtered['paths'] if total is not none and filtered['partition_filters'] else total}) }}
{% endmacro %}


{% macro _explained_scan(sql) %}
  {#- The first file scan of `sql`'s plan: {'partition_filters': text, '' when empty, none without
      a file scan; 'paths': the paths of its InMemoryFileIndex (pruned partitions), or none}. -#}
  {% set res = run_query("explain " ~ sql) %}
  {% set plan = res.rows[0][0] if res is not none and res.rows | length > 0 else '' %}
  {% set re = modules.re %}
  {% set f = re.search('PartitionFilters: \\[(.*?)\\], PushedFilters', plan) %}
  {% set paths = re.search('Location: InMemoryFileIndex\\(([0-9]+) paths\\)', plan) %}
  {{ return({'partition_filters': (f.group(1) | trim) if f else none, 'paths': (paths.group(1) | int) if paths else none}) }}
{% endmacro %}


{% macro _explained_size(sql) %}
  {#- {'bytes', 'rows', 'unsized'} of `sql` by its EXPLAIN COST statistics (sizeInBytes, rowCount);
      bytes none without statistics or, with `unsized` true, at Spark's default for a relation it
      cannot size (8 EiB, Long.MaxValue bytes). -#}
  {% set res = run_query("explain cost " ~ sql) %}
  {% set plan = res.rows[0][0] if res is not none and res.rows | length > 0 else '' %}
  {% set re = modules.re %}
  {% set rc = re.search('rowCount=([0-9.Ee+-]+)', plan) %}
  {% set m = re.search('sizeInBytes=([0-9.Ee+-]+)\\s*([KMGTPE]i)?B', plan) %}
  {% set units = {none: 1, 'Ki': 1024, 'Mi': 1024 ** 2, 'Gi': 1024 ** 3, 'Ti': 1024 ** 4, 'Pi': 1024 ** 5, 'Ei': 1024 ** 6} %}
  {% set bytes = ((m.group(1) | float) * units[m.group(2)]) if m else none %}
  {% set unsized = bytes is not none and bytes >= 2 ** 62 %}
  {{ return({'bytes': none if bytes is none or unsized else bytes, 'unsized': unsized,
             'rows': ((rc.group(1) | float) | int) if rc else none}) }}
{% endmacro %}


{% macro _plain_columns(partition_columns) %}
  {#- The partition columns that are plain names (not transforms such as `days(ts)`). -#}
  {% set out = [] %}
  {% for c in partition_columns if modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', c) %}{% do out.append(c) %}{% endfor %}
  {{ return(out) }}
{% endmacro %}
