{#- The size estimate that plans a pair's layout, from the optimizer's statistics (no scan). -#}

{% macro estimated_rows(relation, spec, from_item=none) %}
  {{ return(adapter.dispatch('estimated_rows', 'table_diff')(relation, spec, from_item)) }}
{% endmacro %}


{% macro default__estimated_rows(relation, spec, from_item=none) %}
  {#- No portable statistics: 'unknown', so `_estimate_sides` counts the rows once. -#}
  {{ return('unknown') }}
{% endmacro %}


{% macro spark__estimated_rows(relation, spec, from_item=none) %}
  {#-
    Rows of a relation from the optimizer's statistics (EXPLAIN COST): the catalog rowCount after
    ANALYZE TABLE, else file bytes / an estimated row width; none without statistics; 'unknown'
    when Spark cannot size it. Only plans the layout: every count the diff reports is exact, and a
    wrong estimate costs speed, never correctness.
    A partitioned table without statistics reports Spark's `spark.sql.defaultSizeInBytes` (8 EiB)
    unless a filter on a partition column makes Spark list its files: so the plan is explained
    again with an always-true filter on the first partition column (metadata only, no scan).
    Failing that (a view over such a table): 'unknown' (`_estimate_sides` decides).
    `from_item`: what the run reads (the relation at its pinned version), when not the relation.
  -#}
  {% set from_item = from_item or relation %}
  {% set est = table_diff._explained_rows("select * from " ~ from_item, spec) %}
  {% if est != 'unknown' %}{{ return(est) }}{% endif %}
  {% set partition_column = table_diff._first_partition_column(relation) %}
  {% if not partition_column %}{{ return('unknown') }}{% endif %}
  {% set p = table_diff.quote_identifier(partition_column) %}
  {{ return(table_diff._explained_rows("select * from " ~ from_item ~ " where " ~ p ~ " is null or " ~ p ~ " is not null", spec)) }}
{% endmacro %}


{% macro _explained_rows(sql, spec) %}
  {#- Rows `sql` returns by its EXPLAIN COST statistics, none without statistics, or 'unknown' when
      the size is Spark's default for a relation it cannot size (8 EiB, Long.MaxValue bytes). -#}
  {% set size = table_diff._explained_size(sql) %}
  {% if size['rows'] is not none %}{{ return([size['rows'], 1] | max) }}{% endif %}
  {% if size['unsized'] %}{{ return('unknown') }}{% endif %}
  {% if size['bytes'] is none %}{{ return(none) }}{% endif %}
  {% set bytes = size['bytes'] %}
  {% set ns = namespace(width=0) %}
  {% for c in spec['key'] + spec['columns'] %}{% set ns.width = ns.width + table_diff._type_width(c['type']) %}{% endfor %}
  {#- Parquet stores a row in roughly half its in-memory width. -#}
  {{ return([(bytes / [ns.width / 2, 4] | max) | int, 1] | max) }}
{% endmacro %}


{% macro _first_partition_column(relation) %}
  {#- The first partition column of a table (DESCRIBE TABLE's "# Partition Information"), or none. -#}
  {% set ns = namespace(in_partitions=false, found=none) %}
  {% for row in run_query("describe table " ~ relation).rows %}
    {% set name = (row[0] or '') | trim %}
    {% if name == '# Partition Information' %}
      {% set ns.in_partitions = true %}
    {% elif ns.in_partitions and ns.found is none and name and not name.startswith('#') %}
      {% set ns.found = name %}
    {% endif %}
  {% endfor %}
  {{ return(ns.found) }}
{% endmacro %}
