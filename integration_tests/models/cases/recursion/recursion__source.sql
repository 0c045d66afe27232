{#- Source side of cases recursion and max_diff_rows: 400 generated rows, ids 1..400. -#}
with ids as (
    select explode(sequence(1, 400)) as id
)

select
    cast(id as int) as id,
    concat('row-', id) as label,
    cast(id * 3 as int) as qty
from ids
