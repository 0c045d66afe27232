"""table_diff pair 'tolerance_diff': recursive split of mismatched blocks (written by `table-diff scaffold pair`)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff.split import block_split

    return block_split(
        session, dbt.ref("tolerance_diff__ranges"), dbt.ref("tolerance_diff__block_hashes")
    )
