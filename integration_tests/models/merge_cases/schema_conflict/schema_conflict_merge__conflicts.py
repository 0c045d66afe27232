"""table_diff merge 'schema_conflict_merge', written by `table-diff scaffold merge`.

Conflicting keys with every side's values.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.conflict_rows(session, dbt.ref("schema_conflict_merge__merge_candidates"))
