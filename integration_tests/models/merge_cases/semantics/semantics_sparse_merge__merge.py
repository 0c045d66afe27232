"""table_diff merge 'semantics_sparse_merge', written by `table-diff scaffold merge`.

One row per changed key.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merge_rows(session, dbt.ref("semantics_sparse_merge__merge_candidates"))
