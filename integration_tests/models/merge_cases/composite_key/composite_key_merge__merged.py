"""table_diff merge 'composite_key_merge': the merged table (written by `table-diff scaffold merge`)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff import merge

    return merge.merged_rows(
        session,
        dbt.ref("composite_key_merge__merge_candidates"),
        dbt.ref('composite_key__ours'),
        schema=dbt.ref("composite_key_merge__merge_schema"),
        table_filter=None,
    )
