"""table_diff merge 'composite_key_merge', written by `table-diff scaffold merge`.

One row per changed key.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merge_rows(session, dbt.ref("composite_key_merge__merge_candidates"))
