"""Reading a pair's result and rendering it as text (used by ``table-diff demo``).

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


def format_summary(
    summary: dict, diff_rows: list[dict], key_columns: list[str], limit: int = 5
) -> str:
    """The text the CLI prints: counts, verdict, the most changed columns (with their share of
    the matched keys) and, per kind of change, its first ``limit`` rows of ``diff_rows`` as given
    (``read_pair(..., per_class=limit)``: by key). A partial result says "at least"."""
    s = summary
    partial = bool(s.get("is_partial"))
    lines = [
        f"table_diff: {s['source_relation']} (source) vs {s['target_relation']} (target)",
        f"  rows            source {s['rows_source']}, target {s['rows_target']}",
        f"  blocks          {s['blocks_total']} total, {s['blocks_mismatched']} mismatched "
        f"({s['units_mismatched']} compare units of {s['leaves_total']} leaves)",
        f"  differences     {'at least: ' if partial else ''}added {s['rows_added']}, "
        f"deleted {s['rows_deleted']}, modified {s['rows_modified']}, "
        f"duplicate-key rows {s['duplicate_key_rows']}",
        f"  NULL keys       source {s['null_key_rows_source']}, target {s['null_key_rows_target']}",
        f"  verdict         {_verdict(s)}",
    ]
    changed = column_changes_text(s.get("column_stats"))
    if changed:
        lines.append(f"  changed columns {changed}")
    counts = {
        "added": s["rows_added"],
        "deleted": s["rows_deleted"],
        "modified": s["rows_modified"],
        "duplicate_key": s["duplicate_key_rows"],
    }
    for kind in KINDS:
        rows = [r for r in diff_rows if r["diff_type"] == kind][:limit]
        if not rows:
            continue
        label = f"{kind} {counts[kind]}{'+' if partial else ''}"
        for i, row in enumerate(rows):
            head = f"  {label:<15} " if i == 0 else " " * 18
            lines.append(head + _row_text(row, key_columns))
        more = int(counts[kind] or 0) - len(rows)
        if more > 0:
            lines.append(" " * 18 + f"... {more}{' or more' if partial else ''} more by key")
    return "\n".join(lines)


def column_changes_text(stats: list[dict] | None, most: int = 5) -> str:
    """'status 2 (40%), amount 1 (20%) of 5 matched keys': the most changed columns first."""
    changed = sorted(
        (r for r in stats or [] if r["rows_changed"]), key=lambda r: -int(r["rows_changed"])
    )
    if not changed:
        return "none" if stats else ""
    partial = changed[0]["is_partial"]
    parts = []
    for r in changed[:most]:
        share = r["changed_share"]
        parts.append(
            f"{r['column_name']} {r['rows_changed']}"
            + ("" if share is None else f" ({100 * share:.3g}%)")
        )
    text = ", ".join(parts)
    if len(changed) > most:
        text += f", and {len(changed) - most} more"
    if partial:
        return "at least " + text + " (partial result: no share)"
    return f"{text} of {changed[0]['matched_keys']} matched keys"


def _show(value: Any) -> str:
    """A value as SQL would print it: NULL, strings quoted."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _row_text(row: dict, key_columns: list[str]) -> str:
    text = ", ".join(f"{k}={_show(row[k])}" for k in key_columns)
    if row["diff_type"] == "duplicate_key":
        return f"{text} ({row['side']})"
    if row["diff_type"] == "modified":
        text += "  " + "; ".join(
            f"{c}: {_show(row.get('source__' + c))} -> {_show(row.get('target__' + c))}"
            for c in row.get("changed_columns") or []
        )
    return text


def _verdict(s: dict) -> str:
    if s.get("status") == "changed_during_run":
        sides = [side for side in ("source", "target") if s.get(f"{side}_changed_during_run")]
        return (
            f"UNRELIABLE: the {' and '.join(sides)} changed while the pair ran; run it again "
            "when writes have stopped"
        )
    verdict = "IDENTICAL" if s["is_identical"] else "DIFFERENT"
    return verdict + ("  (partial: max_diff_rows reached)" if s["is_partial"] else "")


def print_summary(spark, summary_relation: str, sample_rows: int = 5) -> None:
    summary, rows = read_pair(spark, summary_relation, per_class=sample_rows)
    print(format_summary(summary, rows, list(summary["key_columns"]), limit=sample_rows))
