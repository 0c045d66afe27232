"""Rows per side of the demo pair, computed by a Python model on the embedded session."""


def model(dbt, session):
    dbt.config(materialized="table")
    source = dbt.ref("orders__source")
    target = dbt.ref("orders__target")
    return session.createDataFrame(
        [("source", source.count()), ("target", target.count())], "side string, n_rows bigint"
    )
