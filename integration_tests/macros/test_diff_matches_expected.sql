{#-
  Generic test: the rows of a pair's row_diff model, reduced to (key columns, diff_type, side,
  changed_columns joined with '|'), equal the expected seed as multisets (EXCEPT ALL both ways).
  A NULL changed_columns array shows as '<NULL>' so it never passes for the empty array the
  contract asks for; an empty cell in the seed means the empty array. Key columns compare
  null-safely (set operations treat NULLs as equal). With subset=true only the direction
  "every reported row is expected" is checked (for partial results, case max_diff_rows).
  With paths=true, `changed_paths` joined with '|' is compared too (seed column changed_paths).
  Each failing row names its problem: 'missing from row_diff' or 'unexpected in row_diff'.
-#}
{% test diff_matches_expected(model, expected, key_columns, subset=false, paths=false) %}
{%- set keys = [] -%}
{%- for k in ([key_columns] if key_columns is string else key_columns) -%}
    {%- do keys.append(adapter.quote(k)) -%}
{%- endfor %}
with actual_rows as (
    select
        {{ keys | join(', ') }},
        diff_type,
        side,
        coalesce(array_join(changed_columns, '|'), '<NULL>') as changed_columns
        {%- if paths %},
        coalesce(array_join(changed_paths, '|'), '<NULL>') as changed_paths
        {%- endif %}
    from {{ model }}
),

expected_rows as (
    select
        {{ keys | join(', ') }},
        diff_type,
        side,
        coalesce(changed_columns, '') as changed_columns
        {%- if paths %},
        coalesce(changed_paths, '') as changed_paths
        {%- endif %}
    from {{ expected }}
),

unexpected as (
    select * from actual_rows
    except all
    select * from expected_rows
)
{%- if not subset %},

missing as (
    select * from expected_rows
    except all
    select * from actual_rows
)
{%- endif %}

select 'unexpected in row_diff' as problem, * from unexpected
{%- if not subset %}
union all
select 'missing from row_diff' as problem, * from missing
{%- endif %}
{% endtest %}
