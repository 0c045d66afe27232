{#-
  table_diff.release_cached_views: uncache and drop the temporary views table_diff cached in this
  session (`td_cache_*`: a failing no_drift test's rows, a dense row diff's differing keys). Runs
  as the package's on-run-end hook, after every node has read its view; without it a long-lived
  session (an embedded SparkSession, a Thrift connection) keeps them in memory, and Spark's cache
  manager serves the next identical `cache table` from the stale copy instead of recomputing it.
-#}
{% macro release_cached_views() %}
  {{ return(adapter.dispatch('release_cached_views', 'table_diff')()) }}
{% endmacro %}


{% macro default__release_cached_views() %}
  {{ return('') }}
{% endmacro %}


{% macro spark__release_cached_views() %}
  {% if not execute %}
    {{ return('') }}
  {% endif %}
  {% for row in run_query("show views like 'td_cache_*'") %}
    {% if row[2] %}
      {% do table_diff.drop_cached_view(table_diff.quote_identifier(row[1])) %}
    {% endif %}
  {% endfor %}
  {{ return('') }}
{% endmacro %}


{% macro cache_view(view, sql) %}
  {{ return(adapter.dispatch('cache_view', 'table_diff')(view, sql)) }}
{% endmacro %}


{% macro default__cache_view(view, sql) %}
  {{ return(table_diff._not_implemented('cache_view')) }}
{% endmacro %}


{% macro spark__cache_view(view, sql) %}
  {#- `cache table <view> as <sql>` (eager: the query runs here), with adaptive execution free to
      coalesce the query's shuffle partitions. Spark keeps a cached plan's output partitioning
      unless spark.sql.optimizer.canChangeCachedPlanOutputPartitioning is true (false by default
      in Spark 4.3), so each shuffle of the cached query ran all spark.sql.shuffle.partitions
      (200) tasks: measured 8-16 s against 2.3-4.7 s for the same 200k-row dense key pass. The
      cached views are only ever read whole (a broadcast semi join, a count), so their
      partitioning does not matter. The session's value is restored afterwards; if the query
      fails, dbt stops the model with the error and the setting stays true for the session.
      Only on dbt-spark (session, thrift, http, odbc): Databricks SQL warehouses take `set` only
      for their own short list of parameters, not Spark SQL confs, so on the databricks adapter the
      statement runs as it is. -#}
  {% if target.type != 'spark' %}
    {% do run_query('cache table ' ~ view ~ ' as ' ~ sql) %}
    {{ return(none) }}
  {% endif %}
  {% set conf = 'spark.sql.optimizer.canChangeCachedPlanOutputPartitioning' %}
  {% set previous = run_query('set ' ~ conf).rows[0][1] %}
  {% do run_query('set ' ~ conf ~ '=true') %}
  {% do run_query('cache table ' ~ view ~ ' as ' ~ sql) %}
  {% do run_query('set ' ~ conf ~ '=' ~ previous) %}
{% endmacro %}


{% macro drop_cached_view(view) %}
  {{ return(adapter.dispatch('drop_cached_view', 'table_diff')(view)) }}
{% endmacro %}


{% macro default__drop_cached_view(view) %}
  {{ return(table_diff._not_implemented('drop_cached_view')) }}
{% endmacro %}


{% macro spark__drop_cached_view(view) %}
  {#- Release one view `cache_view` made: its cached data, then the view. -#}
  {% do run_query("uncache table if exists " ~ view) %}
  {% do run_query("drop view if exists " ~ view) %}
{% endmacro %}
