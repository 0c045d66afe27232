{#-
  Generic test: a pair's one-row summary model agrees with its row of the expected_summaries seed
  (column case_name). Every expected cell that is not empty is asserted null-safely; an empty cell
  is not asserted (used for counts that are only lower bounds in a partial result).
  columns_compared is compared as the '|'-joined list. One failing row per field that differs,
  plus one when the summary or the expected row is not exactly one row.
-#}
{% test summary_matches_expected(model, expected, case_name) %}
{%- set fields = ['rows_source', 'rows_target', 'rows_added', 'rows_deleted', 'rows_modified',
                  'duplicate_key_rows', 'null_key_rows_source', 'null_key_rows_target',
                  'is_identical', 'is_partial'] %}
with summary_row as (
    select
        *,
        array_join(columns_compared, '|') as columns_compared_joined
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

    union all

    select
        'columns_compared' as field,
        s.columns_compared_joined as actual_value,
        e.columns_compared as expected_value
    from summary_row as s
    cross join expected_row as e
    where e.columns_compared is not null and not (s.columns_compared_joined <=> e.columns_compared)
)

select * from checks
{% endtest %}
