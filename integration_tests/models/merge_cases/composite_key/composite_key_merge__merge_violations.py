"""table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.

Constraint and key violations of the merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.constraint_violations(
        session,
        dbt.ref("composite_key_merge__merged"),
        ["k_str", "k_int"],
        [],
    )
