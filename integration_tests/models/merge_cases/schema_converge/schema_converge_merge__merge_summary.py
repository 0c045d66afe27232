"""table_diff merge 'schema_converge_merge', written by `table-diff scaffold merge`.

One-row summary.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merge_summary(
        session,
        dbt.ref("schema_converge_merge__merge_candidates"),
        schema=dbt.ref("schema_converge_merge__merge_schema"),
        violations=dbt.ref("schema_converge_merge__merge_violations"),
        constraints=[],
    )
