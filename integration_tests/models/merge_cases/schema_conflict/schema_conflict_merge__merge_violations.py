"""table_diff merge 'schema_conflict_merge', written by `table-diff scaffold merge`.

Constraint and key violations of the merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.constraint_violations(
        session,
        dbt.ref("schema_conflict_merge__merged"),
        ["id"],
        [],
    )
