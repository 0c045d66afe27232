{#- Target side of case max_diff_rows: recursion__source with qty changed on every tenth id (40 rows). -#}
with ids as (
    select explode(sequence(1, 400)) as id
)

select
    cast(id as int) as id,
    concat('row-', id) as label,
    cast(id * 3 + if(id % 10 = 0, 1, 0) as int) as qty
from ids
