"""Reading a pair's result: the tables of one completed run, or an error that says why not.

:func:`read_pair` is the one way the companion reads a pair: it shows nothing unless the five
tables (six with ``NAME__column_stats``) belong to one completed run (ADR 0011): the same run id
stamped on every row of each, and the summary's counts equal to what the other tables hold.

On Delta the summary is the pair's commit record (ADR 0015): it names the version of each other
table it was computed from (``<model>_version``), and the reader reads those versions. A run that
failed or was killed midway replaced some tables but not the summary, so the reader still gets the
previous run's result, whole. Without versions (parquet), such a run leaves some tables of the new
run beside the summary of the previous one; that is reported as a stale result with the fix, never
shown as a diff.
"""

from __future__ import annotations

import re
from typing import Any

from dbt_table_diff.split import StaleRunError

PAIR_MODELS = ("ranges", "block_hashes", "block_split", "row_diff")


def _sibling(summary_relation: str, model: str) -> str:
    """``db.orders__summary`` (backticks or not) -> ``db.orders__<model>``."""
    name, count = re.subn(r"__summary(`?)$", rf"__{model}\1", summary_relation)
    if not count:
        raise ValueError(f"not a pair summary (expected NAME__summary): {summary_relation}")
    return name


def pair_table(spark, summary_relation: str, summary: dict[str, Any], model: str):
    """The pair's ``model`` table as the summary read it: at the version the summary names
    (``<model>_version``, Delta, ADR 0015), else as it is. For tables beyond what
    :func:`read_pair` returns (the report's block map), after read_pair checked the run."""
    relation = _sibling(summary_relation, model)
    version = summary.get(f"{model}_version")
    if version is None:
        return spark.table(relation)
    return spark.sql(f"select * from {relation} version as of {int(version)}")


def read_pair(
    spark, summary_relation: str, limit: int = 20, *, per_class: int | None = None
) -> tuple[dict[str, Any], list[dict]]:
    """The summary (a dict) and the first ``limit`` differing rows of one completed run; with
    ``per_class``, the first ``per_class`` rows of each kind of change by key instead (added,
    deleted, modified, duplicate_key, in that order). The summary carries ``column_stats`` (the
    rows of ``NAME__column_stats`` in column order) when the pair has that model, else none.

    Each other table of the pair is read at the version the summary names (Delta), or as it is
    (no versions). Raises :class:`StaleRunError`, naming the table and the fix, when what is read
    does not belong to one completed run.
    """
    fix = "Rebuild the pair: dbt build --select +{0}"
    label = summary_relation.split(".")[-1].strip("`")  # the model name dbt selects by

    def table(relation: str, version: int | None = None):
        try:
            if version is None:
                df = spark.table(relation)
            else:
                df = spark.sql(f"select * from {relation} version as of {int(version)}")
            df.schema  # noqa: B018 -- resolves the table now, so a missing one fails here
            return df
        except Exception as exc:  # AnalysisException: the table (or the version) is missing
            if version is None:
                raise StaleRunError(
                    f"table_diff: {relation} is missing: the pair's last run failed or was stopped "
                    f"before it was built. {fix.format(label)}."
                ) from exc
            raise StaleRunError(
                f"table_diff: {summary_relation} was computed from version {version} of "
                f"{relation}, which can no longer be read (the table was dropped and created "
                f"again, or the version was vacuumed). {fix.format(label)}."
            ) from exc

    rows = table(summary_relation).collect()
    if len(rows) != 1 or "run_id" not in rows[0].asDict() or "status" not in rows[0].asDict():
        raise StaleRunError(
            f"table_diff: {summary_relation} is not the one-row summary of this table_diff "
            f"version. {fix.format(label)}."
        )
    summary = rows[0].asDict()
    run = summary["run_id"]
    stats: dict[str, Any] = {}
    for model in PAIR_MODELS:
        relation = _sibling(summary_relation, model)
        # The version the summary was computed from (Delta), else the table as it is.
        df = table(relation, summary.get(f"{model}_version"))
        if "run_id" not in df.columns:
            raise StaleRunError(
                f"table_diff: {relation} was built by an older table_diff (no run id). "
                f"{fix.format(label)}."
            )
        other = df.where(df.run_id != run).select("run_id").limit(1).collect()
        if other:
            raise StaleRunError(
                f"table_diff: {relation} belongs to run '{other[0][0]}' but {summary_relation} "
                f"to run '{run}': the pair's last run failed or was stopped midway, so its "
                f"tables disagree. {fix.format(label)}."
            )
        stats[model] = df
    hashes = stats["block_hashes"].groupBy("side").agg({"n_rows": "sum"}).collect()
    rows_per_side = {r[0]: int(r[1] or 0) for r in hashes}
    counts = {r[0]: int(r[1]) for r in stats["row_diff"].groupBy("diff_type").count().collect()}
    checks = [
        ("rows_source", rows_per_side.get("source", 0)),
        ("rows_target", rows_per_side.get("target", 0)),
        ("units_mismatched", stats["block_split"].count()),
        ("rows_added", counts.get("added", 0)),
        ("rows_deleted", counts.get("deleted", 0)),
        ("rows_modified", counts.get("modified", 0)),
        ("duplicate_key_rows", counts.get("duplicate_key", 0)),
    ]
    for column, held in checks:
        if int(summary[column]) != held:
            raise StaleRunError(
                f"table_diff: {summary_relation} says {column} = {summary[column]} but the "
                f"pair's tables hold {held}: they were not all built by one run. "
                f"{fix.format(label)}."
            )
    summary["column_stats"] = _column_stats(
        spark, summary_relation, run, fix.format(label), summary.get("column_stats_version")
    )
    if per_class is None:
        diff_rows = [r.asDict() for r in stats["row_diff"].limit(limit).collect()]
    else:
        diff_rows = first_rows_per_kind(stats["row_diff"], list(summary["key_columns"]), per_class)
    return summary, diff_rows


KINDS = ("added", "deleted", "modified", "duplicate_key")


def first_rows_per_kind(row_diff, key_columns: list[str], per_class: int) -> list[dict]:
    """The first ``per_class`` rows of each kind of change, by key (then side), kinds in order."""
    # pyspark on use only: the CLI imports this module at start-up.
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if per_class <= 0:
        return []
    order = [F.col(f"`{k}`").asc_nulls_first() for k in key_columns] + [F.col("side")]
    ranked = row_diff.withColumn(
        "__td_rn", F.row_number().over(Window.partitionBy("diff_type").orderBy(*order))
    )
    rows = [r.asDict() for r in ranked.where(F.col("__td_rn") <= per_class).collect()]
    rows.sort(key=lambda r: (KINDS.index(r["diff_type"]), r["__td_rn"]))
    for r in rows:
        del r["__td_rn"]
    return rows


def _column_stats(
    spark, summary_relation: str, run: str, fix: str, version: int | None = None
) -> list[dict] | None:
    """The pair's column statistics of this run (at ``version``, the one the summary names on
    Delta), or None when the pair has no such model (scaffolded before it existed). Another run's
    are stale (ADR 0011), as for the other models."""
    relation = _sibling(summary_relation, "column_stats")
    if version is not None:
        try:
            df = spark.sql(f"select * from {relation} version as of {int(version)}")
            df.schema  # noqa: B018 -- resolves the table now
        except Exception as exc:  # the version was vacuumed or the table dropped
            raise StaleRunError(
                f"table_diff: {summary_relation} was computed from version {version} of "
                f"{relation}, which can no longer be read. {fix}."
            ) from exc
        return _stats_rows(df, relation, summary_relation, run, fix)
    try:
        df = spark.table(relation)
        df.schema  # noqa: B018 -- resolves the table now
    except Exception:  # AnalysisException: a pair scaffolded without column statistics
        return None
    return _stats_rows(df, relation, summary_relation, run, fix)


def _stats_rows(df, relation: str, summary_relation: str, run: str, fix: str) -> list[dict]:
    rows = [r.asDict() for r in df.orderBy("column_position").collect()]
    other = next((r["run_id"] for r in rows if r["run_id"] != run), None)
    if other is not None:
        raise StaleRunError(
            f"table_diff: {relation} belongs to run '{other}' but {summary_relation} to run "
            f"'{run}': the pair's last run failed or was stopped midway, so its tables "
            f"disagree. {fix}."
        )
    return rows


def column_paths(row: dict, column: str) -> list[str]:
    """The row's ``changed_paths`` inside ``column`` (``items[3].price``, ``attrs['color']``): for a
    nested column the paths that changed, for a flat one its own name (ADR 0041)."""
    return [
        p
        for p in row.get("changed_paths") or []
        if p == column or p.startswith((column + ".", column + "["))
    ]
