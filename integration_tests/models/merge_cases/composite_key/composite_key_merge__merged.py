"""table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.

The merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merged_rows(
        session,
        dbt.ref("composite_key_merge__merge_candidates"),
        dbt.ref("composite_key__ours"),
        schema=dbt.ref("composite_key_merge__merge_schema"),
        table_filter=None,
    )
