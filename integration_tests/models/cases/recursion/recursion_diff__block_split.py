"""table_diff pair 'recursion_diff': recursive split of mismatched blocks (written by `table-diff scaffold pair`)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_table_diff.split import block_split

    return block_split(
        session, dbt.ref("recursion_diff__ranges"), dbt.ref("recursion_diff__block_hashes")
    )
