-- The engine of the no_merge_conflicts test reports every schema conflict of case schema_conflict
-- (columns qty, code, extra; on_schema_conflict 'report', so the build goes on) and no data
-- conflict (nothing was merged). Fails with each check that does not hold.
with reported as (
    select
        r.conflict_kind,
        r.conflict_type,
        get_json_object(r.detail, '$.column_name') as column_name
    from ({{ table_diff.merge_conflict_rows(
        ref('schema_conflict_merge__merge'), merge_schema=ref('schema_conflict_merge__merge_schema')
    ) }}) as r
),

checks as (
    select
        'three schema conflicts: qty, code, extra' as check_name,
        count(*) = 3
        and count_if(conflict_kind = 'schema' and conflict_type = 'type_conflict') = 3
        and array_join(array_sort(collect_list(column_name)), ',') = 'code,extra,qty' as passed
    from reported
)

select * from checks where not passed
