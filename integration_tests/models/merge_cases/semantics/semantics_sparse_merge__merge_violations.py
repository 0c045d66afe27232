"""table_diff merge 'semantics_sparse_merge', written by `table-diff scaffold merge`.

Constraint and key violations of the merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.constraint_violations(
        session,
        dbt.ref("semantics_sparse_merge__merged"),
        ["id"],
        ["qty >= 0"],
    )
