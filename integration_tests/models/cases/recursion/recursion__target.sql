{#-
  Target side of case recursion: the source with a handful of scattered differences. qty changed
  for ids 17, 133 and 371, label changed for 250, id 200 deleted, id 500 added.
-#}
with ids as (
    select explode(sequence(1, 400)) as id
),

changed as (
    select
        cast(id as int) as id,
        if(id = 250, 'changed', concat('row-', id)) as label,
        cast(id * 3 + if(id in (17, 133, 371), 1, 0) as int) as qty
    from ids
    where id != 200
)

select id, label, qty from changed
union all
select 500 as id, 'row-500' as label, 1500 as qty
