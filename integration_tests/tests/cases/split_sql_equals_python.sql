-- Cases recursion_sql and max_diff_rows_sql: the pairs of cases recursion and max_diff_rows with
-- the split step in SQL (`--split sql`, ADR 0025). Both steps keep the same compare units, column
-- for column but the run id, and the partial row diff of max_diff_rows holds the same rows. Fails
-- with one row per unit or row found by one step only.
{% set unit_columns = 'unit_id, level, block_id, level0_block_id, leaf_lo, leaf_hi, source_rows, target_rows, reason, selected' %}
with python_units as (
    select 'recursion' as case_name, {{ unit_columns }}
    from {{ ref('recursion_diff__block_split') }}
    union all
    select 'max_diff_rows' as case_name, {{ unit_columns }}
    from {{ ref('max_diff_rows_diff__block_split') }}
),

sql_units as (
    select 'recursion' as case_name, {{ unit_columns }}
    from {{ ref('recursion_sql_diff__block_split') }}
    union all
    select 'max_diff_rows' as case_name, {{ unit_columns }}
    from {{ ref('max_diff_rows_sql_diff__block_split') }}
),

python_rows as (
    select id, diff_type from {{ ref('max_diff_rows_diff__row_diff') }}
),

sql_rows as (
    select id, diff_type from {{ ref('max_diff_rows_sql_diff__row_diff') }}
),

only_python_units as (
    select * from python_units
    except all
    select * from sql_units
),

only_sql_units as (
    select * from sql_units
    except all
    select * from python_units
),

only_python_rows as (
    select * from python_rows
    except all
    select * from sql_rows
),

only_sql_rows as (
    select * from sql_rows
    except all
    select * from python_rows
)

select 'unit of the python split only' as found, to_json(struct(u.*)) as detail
from only_python_units as u
union all
select 'unit of the sql split only' as found, to_json(struct(u.*)) as detail
from only_sql_units as u
union all
select 'row of the python pair only' as found, to_json(struct(r.*)) as detail
from only_python_rows as r
union all
select 'row of the sql pair only' as found, to_json(struct(r.*)) as detail
from only_sql_rows as r
union all
-- The comparison is not vacuous: the recursion case has units below level 0.
select 'no unit below level 0 in case recursion' as found, '' as detail
from (select max(level) as max_level from sql_units where case_name = 'recursion') as m
where coalesce(m.max_level, 0) = 0
