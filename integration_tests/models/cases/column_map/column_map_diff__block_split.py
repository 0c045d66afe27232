"""table_diff pair 'column_map_diff': recursive split of mismatched blocks (written by `table-diff scaffold pair`)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff.split import block_split

    return block_split(
        session, dbt.ref("column_map_diff__ranges"), dbt.ref("column_map_diff__block_hashes")
    )
