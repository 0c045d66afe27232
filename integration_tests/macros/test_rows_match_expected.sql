{#-
  Generic test for the merge case matrix: a model equals a hand-written expected seed, columns and
  rows. The seed's columns (minus case_name) are the contract: the model must have exactly these
  columns, in this order and with these types (array_columns: by name only), else the test fails
  with one 'column list differs' row. Then the rows compare as multisets (EXCEPT ALL both ways, so
  NULLs compare equal and a repeated row must be repeated), each failing row labelled 'missing
  from <model>' or 'unexpected in <model>'. An array column of the model is compared '|'-joined
  (NULL array -> '<NULL>', which no seed cell matches); an empty seed cell there means the empty
  array. With case_name, only the seed rows of that case are expected (shared seeds).
-#}
{% test rows_match_expected(model, expected, array_columns=[], case_name=none) %}
{%- set arrays = array_columns | map('lower') | list -%}
{%- set ns = namespace(expected=[], actual=[]) -%}
{%- if execute -%}
    {%- for c in adapter.get_columns_in_relation(expected) if c.name | lower != 'case_name' -%}
        {%- do ns.expected.append(c) -%}
    {%- endfor -%}
    {%- set ns.actual = adapter.get_columns_in_relation(model) -%}
{%- endif -%}
{%- set expected_sig = [] -%}
{%- set actual_sig = [] -%}
{%- for pair in [(ns.expected, expected_sig), (ns.actual, actual_sig)] -%}
    {%- for c in pair[0] -%}
        {%- set name = c.name | lower -%}
        {%- do pair[1].append(name if name in arrays else name ~ ' ' ~ (c.dtype | lower)) -%}
    {%- endfor -%}
{%- endfor -%}
{%- if expected_sig != actual_sig %}
select
    'column list differs' as problem,
    '{{ actual_sig | join(", ") }}' as actual_columns,
    '{{ expected_sig | join(", ") }}' as expected_columns
{%- else %}
{%- set columns = [] -%}
{%- for c in ns.expected -%}{%- do columns.append(c.name | lower) -%}{%- endfor %}
with actual_rows as (
    select
        {%- for c in columns %}
        {%- if c in arrays %}
        coalesce(array_join(m.{{ adapter.quote(c) }}, '|'), '<NULL>') as {{ adapter.quote(c) }}
        {%- else %}
        m.{{ adapter.quote(c) }}
        {%- endif %}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ model }} as m
),

expected_rows as (
    select
        {%- for c in columns %}
        {%- if c in arrays %}
        coalesce(e.{{ adapter.quote(c) }}, '') as {{ adapter.quote(c) }}
        {%- else %}
        e.{{ adapter.quote(c) }}
        {%- endif %}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ expected }} as e
    {%- if case_name is not none %}
    where e.case_name = '{{ case_name }}'
    {%- endif %}
),

unexpected as (
    select * from actual_rows
    except all
    select * from expected_rows
),

missing as (
    select * from expected_rows
    except all
    select * from actual_rows
)

select 'unexpected in {{ model.identifier }}' as problem, * from unexpected
union all
select 'missing from {{ model.identifier }}' as problem, * from missing
{%- endif %}
{% endtest %}
