"""Reading a pair's result and rendering it as text (used by ``table-diff demo``).

:func:`read_pair` is the one way the companion reads a pair: it shows nothing unless the five
tables belong to one completed run (ADR 0011): the same run id stamped on every row of each, and
the summary's counts equal to what the other tables hold. A run that failed or was killed midway
leaves some tables of the new run beside the summary of the previous one; that is reported as a
stale result with the fix, never shown as a diff.
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


def read_pair(spark, summary_relation: str, limit: int = 20) -> tuple[dict[str, Any], list[dict]]:
    """The summary (a dict) and the first ``limit`` differing rows of one completed run.

    Raises :class:`StaleRunError`, naming the table and the fix, when the pair's tables do not
    belong to one completed run.
    """
    fix = "Rebuild the pair: dbt build --select +{0}"
    label = summary_relation.split(".")[-1].strip("`")  # the model name dbt selects by

    def table(relation: str):
        try:
            df = spark.table(relation)
            df.schema  # noqa: B018 -- resolves the table now, so a missing one fails here
            return df
        except Exception as exc:  # AnalysisException: the table is missing
            raise StaleRunError(
                f"table_diff: {relation} is missing: the pair's last run failed or was stopped "
                f"before it was built. {fix.format(label)}."
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
        df = table(relation)
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
    diff_rows = [r.asDict() for r in stats["row_diff"].limit(limit).collect()]
    return summary, diff_rows


def format_summary(
    summary: dict, diff_rows: list[dict], key_columns: list[str], limit: int = 20
) -> str:
    s = summary
    lines = [
        f"table_diff: {s['source_relation']} (source) vs {s['target_relation']} (target)",
        f"  rows            source {s['rows_source']}, target {s['rows_target']}",
        f"  blocks          {s['blocks_total']} total, {s['blocks_mismatched']} mismatched "
        f"({s['units_mismatched']} compare units of {s['leaves_total']} leaves)",
        f"  differences     added {s['rows_added']}, deleted {s['rows_deleted']}, "
        f"modified {s['rows_modified']}, duplicate-key rows {s['duplicate_key_rows']}",
        f"  NULL keys       source {s['null_key_rows_source']}, target {s['null_key_rows_target']}",
        f"  verdict         {_verdict(s)}",
    ]
    if diff_rows:
        lines.append(f"  first {min(limit, len(diff_rows))} differing rows:")
        for row in diff_rows[:limit]:
            key = ", ".join(f"{k}={row[k]!r}" for k in key_columns)
            changed = row.get("changed_columns") or []
            detail = ""
            if row["diff_type"] == "modified":
                detail = "; ".join(
                    f"{c}: {row.get('source__' + c)!r} -> {row.get('target__' + c)!r}"
                    for c in changed
                )
            lines.append(f"    {row['diff_type']:<13} {key}  {detail}".rstrip())
    return "\n".join(lines)


def _verdict(s: dict) -> str:
    if s.get("status") == "changed_during_run":
        sides = [side for side in ("source", "target") if s.get(f"{side}_changed_during_run")]
        return (
            f"UNRELIABLE: the {' and '.join(sides)} changed while the pair ran; run it again "
            "when writes have stopped"
        )
    verdict = "IDENTICAL" if s["is_identical"] else "DIFFERENT"
    return verdict + ("  (partial: max_diff_rows reached)" if s["is_partial"] else "")


def print_summary(spark, summary_relation: str) -> None:
    summary, rows = read_pair(spark, summary_relation)
    print(format_summary(summary, rows, list(summary["key_columns"])))
