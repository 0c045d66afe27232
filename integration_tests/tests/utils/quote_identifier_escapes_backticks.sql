-- table_diff.quote_identifier: a backtick inside a name is doubled, and Spark accepts the result as
-- a column name (the probe CTE would not compile otherwise). Returns a row, so fails, on mismatch.
{% set name = 'odd `name` with spaces' -%}
{%- set quoted = table_diff.quote_identifier(name) -%}

with probe as (
    select 1 as {{ quoted }}
)

select
    '{{ quoted }}' as quoted,
    probe.{{ quoted }} as probe_value
from probe
where
    '{{ quoted }}' != '`odd ``name`` with spaces`'
    or probe.{{ quoted }} != 1
