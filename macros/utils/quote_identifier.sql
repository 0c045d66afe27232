{#-
    table_diff.quote_identifier(name)

    Quote one column or table name for the warehouse, so names with spaces, reserved words or
    quote characters survive in generated SQL. Spark (and Databricks, which falls back to spark__)
    quotes with backticks and escapes a backtick inside the name by doubling it; other adapters get
    ANSI double quotes with doubled double quotes.

    Validation happens here, before dispatch, so every implementation and every user override sees
    the same checks.
-#}
{% macro quote_identifier(name) -%}
    {%- if name is not string or name | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "table_diff.quote_identifier: invalid name '" ~ name ~ "'. Expected a non-empty string. "
            ~ "Pass the column or table name as a string, e.g. quote_identifier('order_id')."
        ) }}
    {%- endif -%}
    {{ return(adapter.dispatch('quote_identifier', 'table_diff')(name)) }}
{%- endmacro %}


{% macro default__quote_identifier(name) -%}
    {{ return('"' ~ name | replace('"', '""') ~ '"') }}
{%- endmacro %}


{% macro spark__quote_identifier(name) -%}
    {{ return('`' ~ name | replace('`', '``') ~ '`') }}
{%- endmacro %}
