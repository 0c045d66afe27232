{% macro _not_implemented(macro_name) %}
  {#- The `default__` of a dialect block that has no honest portable SQL: fails at execute time,
      naming the adapter and the macro to override (see _dialect__macros.yml). -#}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff." ~ macro_name ~ ": not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__). Another adapter implements "
        ~ adapter.type() ~ "__" ~ macro_name ~ " (the building blocks in macros/dialect/ of table_diff).") }}
  {% endif %}
  {{ return(none) }}
{% endmacro %}
