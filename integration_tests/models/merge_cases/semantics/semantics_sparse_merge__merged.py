"""table_diff merge 'semantics_sparse_merge', written by `table-diff scaffold merge`.

The merged table.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merged_rows(
        session,
        dbt.ref("semantics_sparse_merge__merge_candidates"),
        dbt.ref("semantics__ours"),
        schema=dbt.ref("semantics_sparse_merge__merge_schema"),
        table_filter=None,
    )
