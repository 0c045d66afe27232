{#-
  Shared body of the summary tests: the model's one row against the seed row whose case_name is
  given. `fields`: asserted null-safely where the expected cell is not empty. `list_fields`: arrays
  compared '|'-joined, always asserted (an empty cell is the empty list, a NULL array '<NULL>').
  `optional_list_fields`: the same, but only where the expected cell is not empty. One failing row
  per differing field, plus one when the summary or the expected row is not exactly one row.
-#}
{% macro summary_field_checks(model, expected, case_name, fields, list_fields=[], optional_list_fields=[]) %}
{%- set all_lists = list_fields + optional_list_fields %}
with summary_row as (
    select
        *
        {%- for f in all_lists %},
        coalesce(array_join({{ f }}, '|'), '<NULL>') as {{ f }}_joined
        {%- endfor %}
    from {{ model }}
),

expected_row as (
    select *
    from {{ expected }}
    where case_name = '{{ case_name }}'
),

checks as (
    select
        'summary row count' as field,
        cast(count(*) as string) as actual_value,
        '1' as expected_value
    from summary_row
    having count(*) != 1

    union all

    select
        'expected row count for {{ case_name }}' as field,
        cast(count(*) as string) as actual_value,
        '1' as expected_value
    from expected_row
    having count(*) != 1

    {%- for f in fields %}

    union all

    select
        '{{ f }}' as field,
        cast(s.{{ f }} as string) as actual_value,
        cast(e.{{ f }} as string) as expected_value
    from summary_row as s
    cross join expected_row as e
    where e.{{ f }} is not null and not (s.{{ f }} <=> e.{{ f }})
    {%- endfor %}

    {%- for f in all_lists %}

    union all

    select
        '{{ f }}' as field,
        s.{{ f }}_joined as actual_value,
        coalesce(e.{{ f }}, '') as expected_value
    from summary_row as s
    cross join expected_row as e
    where
        {%- if f in optional_list_fields %} e.{{ f }} is not null and{% endif %}
        not (s.{{ f }}_joined <=> coalesce(e.{{ f }}, ''))
    {%- endfor %}
)

select * from checks
{% endmacro %}
