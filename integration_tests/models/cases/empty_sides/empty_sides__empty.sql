{#- The empty side of cases empty_source and empty_target: the columns of empty_sides__rows, no rows. -#}
select
    cast(null as int) as id,
    cast(null as string) as name,
    cast(null as decimal(10, 2)) as amount
where false
