{#-
  Generic test: a merge's one-row `<name>__merge_summary` agrees with its row of the expected seed
  (column case_name). Counts and is_clean are asserted null-safely wherever the expected cell is
  not empty (an empty cell is not asserted: counts that depend on the hash layout). The list
  fields schema_conflict_columns and constraints are always asserted, '|'-joined (an empty cell
  is the empty list). One failing row per field that differs, plus one when the summary or the
  expected row is not exactly one row.
-#}
{% test merge_summary_matches_expected(model, expected, case_name) %}
{%- set fields = ['keys_checked', 'unchanged', 'ours_only', 'theirs_only', 'convergent', 'cell_merged',
                  'conflict', 'update_update', 'update_delete', 'delete_update', 'insert_insert',
                  'duplicate_keys', 'changed_keys', 'schema_conflicts', 'constraint_violations',
                  'is_clean'] %}
{%- set list_fields = ['schema_conflict_columns', 'constraints'] %}
with summary_row as (
    select
        *,
        {%- for f in list_fields %}
        coalesce(array_join({{ f }}, '|'), '<NULL>') as {{ f }}_joined{{ ',' if not loop.last }}
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

    {%- for f in list_fields %}

    union all

    select
        '{{ f }}' as field,
        s.{{ f }}_joined as actual_value,
        coalesce(e.{{ f }}, '') as expected_value
    from summary_row as s
    cross join expected_row as e
    where not (s.{{ f }}_joined <=> coalesce(e.{{ f }}, ''))
    {%- endfor %}
)

select * from checks
{% endtest %}
