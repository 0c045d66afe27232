"""table_diff merge 'composite_key_merge': constraint and key violations of the merged table (written by `table-diff scaffold merge`)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.constraint_violations(
        session,
        dbt.ref("composite_key_merge__merged"),
        ['k_str', 'k_int'],
        [],
    )
