"""table_diff merge 'schema_converge_merge', written by `table-diff scaffold merge`.

The merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merged_rows(
        session,
        dbt.ref("schema_converge_merge__merge_candidates"),
        dbt.ref("schema_converge__ours"),
        schema=dbt.ref("schema_converge_merge__merge_schema"),
        table_filter=None,
    )
