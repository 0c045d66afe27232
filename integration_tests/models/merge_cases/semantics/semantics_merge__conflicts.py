"""table_diff merge 'semantics_merge', written by `table-diff scaffold merge`.

Conflicting keys with every side's values.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.conflict_rows(session, dbt.ref("semantics_merge__merge_candidates"))
