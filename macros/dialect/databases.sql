{#-
  The seam of a database side (ADR 0047): what the rest of the package asks of the database a
  side lives in, by its dialect (`db['dialect']`, from the JDBC URL of its connection). Each
  returns text the database runs (or, for `database_bound_literal`, Spark SQL that writes the
  database's literals). PostgreSQL is macros/dialect/postgres.sql; another database is one more
  file of `_<dialect>_*` macros and one branch in each macro here.
-#}

{% macro _database_dialect(dialect, name) %}
  {% if dialect != 'postgres' %}
    {{ exceptions.raise_compiler_error("table_diff." ~ name ~ ": no database dialect '" ~ dialect ~ "' (PostgreSQL is the one a side can be today, ADR 0047).") }}
  {% endif %}
{% endmacro %}


{% macro database_catalog_sql(dialect, table) %}
  {% do table_diff._database_dialect(dialect, 'database_catalog_sql') %}
  {{ return(table_diff._postgres_catalog_sql(table)) }}
{% endmacro %}


{% macro database_bound_literal(dialect, kind, bound_sql) %}
  {% do table_diff._database_dialect(dialect, 'database_bound_literal') %}
  {{ return(table_diff._postgres_bound_literal(kind, bound_sql)) }}
{% endmacro %}


{% macro database_null_literal(dialect, kind) %}
  {% do table_diff._database_dialect(dialect, 'database_null_literal') %}
  {{ return(table_diff._postgres_null_literal(kind)) }}
{% endmacro %}


{% macro database_signature_sql(db, bounds, grouped, distinct_keys, leaves=none, sub_bounds=none) %}
  {% do table_diff._database_dialect(db['dialect'], 'database_signature_sql') %}
  {{ return(table_diff._postgres_signature_sql(db, bounds, grouped, distinct_keys, leaves, sub_bounds)) }}
{% endmacro %}


{% macro database_rows_sql(db, bounds, leaves, sub_bounds=none, parts=none) %}
  {% do table_diff._database_dialect(db['dialect'], 'database_rows_sql') %}
  {{ return(table_diff._postgres_rows_sql(db, bounds, leaves, sub_bounds, parts)) }}
{% endmacro %}


{% macro database_value_literal(dialect, kind, value_sql) %}
  {% do table_diff._database_dialect(dialect, 'database_value_literal') %}
  {{ return(table_diff._postgres_value_literal(kind, value_sql)) }}
{% endmacro %}


{% macro database_ident(dialect, name) %}
  {% do table_diff._database_dialect(dialect, 'database_ident') %}
  {{ return(table_diff._postgres_ident(name)) }}
{% endmacro %}
