-- The engine of the no_merge_conflicts test reports every conflicting key of case semantics: keys
-- 14, 19, 23 (update_update), 15, 24 (update_delete), 16 (delete_update), 17, 28 (insert_insert).
-- Fails with the (conflict_kind, conflict_type) groups whose count differs from that.
with reported as (
    select
        conflict_kind,
        conflict_type,
        count(*) as n
    from ({{ table_diff.merge_conflict_rows(
        ref('semantics_merge__merge'), merge_schema=ref('semantics_merge__merge_schema')
    ) }}) as r
    group by conflict_kind, conflict_type
),

expected as (
    select
        col1 as conflict_kind,
        col2 as conflict_type,
        col3 as n
    from values
        ('data', 'update_update', 3),
        ('data', 'update_delete', 2),
        ('data', 'delete_update', 1),
        ('data', 'insert_insert', 2)
)

select
    coalesce(e.conflict_kind, r.conflict_kind) as conflict_kind,
    coalesce(e.conflict_type, r.conflict_type) as conflict_type,
    r.n as reported,
    e.n as expected
from expected as e
full outer join reported as r
    on e.conflict_kind = r.conflict_kind and e.conflict_type = r.conflict_type
where not (r.n <=> e.n)
