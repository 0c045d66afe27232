"""`table-diff report`: report.json and one self-contained report.html of a pair.

The verdict and counts, a block map of which leaves matched, the differing rows with each changed
cell old -> new, and the run history as a trend; a stale, partial or changed-during-run result is
never shown as a plain verdict (:func:`result_state`). Reads the pair through
:func:`dbt_table_diff.report.read.read_pair`, so the one-run checks of ADR 0011 hold here too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dbt_table_diff.page import environment
from dbt_table_diff.report.read import column_paths, pair_table, read_pair
from dbt_table_diff.report.text import verdict_text
from dbt_table_diff.split import StaleRunError

REPORT_ROW_LIMIT = 1000
BLOCK_MAP_MAX_CELLS = 4096
HISTORY_TABLE = "table_diff_run_history"
# The pair status model beside the history (ADR 0037).
STATUS_TABLE = "table_diff_pair_status"
HISTORY_RUNS_SHOWN = 30

# Leaf states of the block map, worst last: a cell that groups several leaves takes the worst.
LEAF_STATES = ("matched", "duplicate_keys", "mismatched", "not_fetched")


def block_map(
    leaves: list[dict], hashes: list[dict], units: list[dict], max_cells: int = BLOCK_MAP_MAX_CELLS
) -> dict[str, Any]:
    """Which leaves matched and which did not, grouped into at most ``max_cells`` cells.

    ``leaves``: rows of ``__ranges`` (leaf_id, block_id, lower_bound, upper_bound); ``hashes``:
    rows of ``__block_hashes`` (side, leaf_id, n_rows; leaf_id NULL when the quick check ran);
    ``units``: rows of ``__block_split`` (leaf_lo, leaf_hi, reason, selected).
    A leaf is ``mismatched`` inside a selected unit whose signatures differ (or a ``whole_table``
    unit: the quick check found drift and every block was compared, ADR 0020), ``duplicate_keys``
    inside a unit held only for duplicate keys, ``not_fetched`` inside a unit max_diff_rows left
    out, ``matched`` otherwise.
    """
    state: dict[int, str] = {}
    for u in units:
        if not u["selected"]:
            s = "not_fetched"
        elif "mismatch" in str(u["reason"]) or u["reason"] == "whole_table":
            s = "mismatched"
        else:
            s = "duplicate_keys"
        for leaf in range(int(u["leaf_lo"]), int(u["leaf_hi"]) + 1):
            if LEAF_STATES.index(s) > LEAF_STATES.index(state.get(leaf, "matched")):
                state[leaf] = s
    rows: dict[tuple[str, int], int] = {}
    for h in hashes:
        if h["leaf_id"] is not None:
            rows[(h["side"], int(h["leaf_id"]))] = int(h["n_rows"] or 0)
    ordered = sorted(leaves, key=lambda r: int(r["leaf_id"]))
    per_cell = max(1, -(-len(ordered) // max_cells))
    cells = []
    for start in range(0, len(ordered), per_cell):
        group = ordered[start : start + per_cell]
        ids = [int(r["leaf_id"]) for r in group]
        worst = max((state.get(i, "matched") for i in ids), key=LEAF_STATES.index)
        cells.append(
            {
                "leaf_lo": ids[0],
                "leaf_hi": ids[-1],
                "block_lo": group[0]["block_id"],
                "block_hi": group[-1]["block_id"],
                "lower_bound": _display(group[0]["lower_bound"]),
                "upper_bound": _display(group[-1]["upper_bound"]),
                "rows_source": sum(rows.get(("source", i), 0) for i in ids),
                "rows_target": sum(rows.get(("target", i), 0) for i in ids),
                "state": worst,
                "leaves_not_matched": sum(1 for i in ids if state.get(i, "matched") != "matched"),
            }
        )
    counts = {s: 0 for s in LEAF_STATES}
    for r in ordered:
        counts[state.get(int(r["leaf_id"]), "matched")] += 1
    columns = min(64 if len(cells) > 256 else 32, max(1, len(cells)))
    return {
        "leaves_total": len(ordered),
        "leaves_per_cell": per_cell,
        "columns": columns,
        "rows": -(-len(cells) // columns) if cells else 0,
        "cells": cells,
        "leaf_counts": counts,
        "quick_check_identical": any(h["leaf_id"] is None for h in hashes) and not units,
        "quick_check_drift": any(h["leaf_id"] is None for h in hashes) and bool(units),
    }


def _display(value: Any) -> str:
    """A value as the report shows it: NULL for None, structs as their fields."""
    if value is None:
        return "NULL"
    if hasattr(value, "asDict"):
        return "(" + ", ".join(_display(v) for v in value) + ")"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_display(v) for v in value) + "]"
    return str(value)


def diff_table(summary: dict, diff_rows: list[dict]) -> dict[str, Any]:
    """The differing rows as display cells: key columns, then each compared column's value, with
    ``changed`` cells (modified rows) carrying the source and target values."""
    keys = list(summary["key_columns"])
    columns = list(summary["columns_compared"] or [])
    out = []
    for row in diff_rows:
        kind = row["diff_type"]
        changed = set(row.get("changed_columns") or [])
        side = "target" if kind == "added" else "source"
        if kind == "duplicate_key":
            side = row.get("side") or "source"
        cells = []
        for c in columns:
            old, new = row.get(f"source__{c}"), row.get(f"target__{c}")
            if kind == "modified" and c in changed:
                cell = {"changed": True, "old": _display(old), "new": _display(new)}
                paths = [p for p in column_paths(row, c) if p != c]
                cells.append({**cell, "paths": paths} if paths else cell)
            else:
                value = new if side == "target" else old
                if kind == "modified":
                    value = old
                cells.append({"changed": False, "value": _display(value)})
        out.append(
            {
                "diff_type": kind,
                "side": row.get("side"),
                "key": [_display(row.get(k)) for k in keys],
                "changed_columns": list(row.get("changed_columns") or []),
                "cells": cells,
            }
        )
    return {"key_columns": keys, "columns": columns, "rows": out}


def read_history(spark, relation: str, name: str, limit: int = HISTORY_RUNS_SHOWN) -> list[dict]:
    """The last ``limit`` runs of pair (or test) ``name`` from the run history, oldest first;
    empty when the history table does not exist (history off, or never recorded).

    A run has a ``running`` row from the on-run-start hook and its final row from on-run-end
    (ADR 0016): each run is shown once, by its final row, or by its ``running`` row when the run
    never finished (killed)."""
    if not spark.catalog.tableExists(relation):
        return []
    df = spark.table(relation).where(f"name = '{name}'" if "'" not in name else "false")
    rows = [r.asDict() for r in df.orderBy(df.recorded_at.desc()).limit(2 * limit).collect()]
    finished = {(r["invocation_id"], r["kind"]) for r in rows if r["status"] != "running"}
    runs = [
        r
        for r in rows
        if r["status"] != "running" or (r["invocation_id"], r["kind"]) not in finished
    ]
    return list(reversed(runs[:limit]))


def read_status(spark, relation: str, kind: str, name: str) -> dict | None:
    """The row of pair (or test) ``name`` in the pair status model; None when the model was not
    built (a target without Python, turned off) or has no row for it yet."""
    if "'" in name or not spark.catalog.tableExists(relation):
        return None
    rows = spark.table(relation).where(f"kind = '{kind}' and name = '{name}'").collect()
    return {k: _json_value(v) for k, v in rows[0].asDict().items()} if rows else None


def trend(history: list[dict], width: int = 600, height: int = 140) -> dict[str, Any]:
    """An SVG-ready trend of differing rows per run (added + deleted + modified + duplicate-key):
    points of completed runs, marks of failed ones."""
    if not history:
        return {"points": [], "width": width, "height": height}
    values = []
    for h in history:
        counts = [h.get(c) for c in ("rows_added", "rows_deleted", "rows_modified")]
        counts.append(h.get("duplicate_key_rows"))
        values.append(None if any(v is None for v in counts) else sum(int(v) for v in counts))
    top = max([v for v in values if v is not None] or [0]) or 1
    pad = 24
    step = (width - 2 * pad) / max(1, len(history) - 1)
    points = []
    for i, (h, v) in enumerate(zip(history, values, strict=True)):
        x = pad + i * step if len(history) > 1 else width / 2
        y = height - pad - (0 if v is None else v / top * (height - 2 * pad))
        points.append(
            {
                "x": round(x, 1),
                "y": round(y, 1),
                "value": v,
                "status": h.get("status"),
                "started_at": str(h.get("started_at")),
                "invocation_id": h.get("invocation_id"),
            }
        )
    return {"points": points, "width": width, "height": height, "max": top, "pad": pad}


def build_report(
    spark,
    summary_relation: str,
    *,
    row_limit: int = REPORT_ROW_LIMIT,
    history_relation: str | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Everything report.json and report.html show for one pair.

    A pair whose tables do not belong to one completed run is reported as ``stale`` with the
    reason and the fix, and no counts: a stale result is never shown as a diff. ``progress``:
    an object with ``update(n)`` and ``set_description(text)`` (a tqdm bar), or None.
    """

    def step(next_text: str) -> None:
        """One step done; ``next_text`` says what the bar waits for now."""
        if progress is not None:
            progress.update(1)
            progress.set_description(next_text)

    pair = re.sub(r"__summary`?$", "", summary_relation.split(".")[-1].strip("`"))
    history_relation = history_relation or _sibling_schema(summary_relation, HISTORY_TABLE)
    report: dict[str, Any] = {
        "pair": pair,
        "summary_relation": summary_relation,
        "row_limit": row_limit,
    }
    if progress is not None:
        progress.set_description("reading the summary and row diff")
    try:
        summary, diff_rows = read_pair(spark, summary_relation, limit=row_limit + 1)
    except StaleRunError as exc:
        step("reading the run history")
        report.update(state="stale", verdict="STALE", error=str(exc), banners=[str(exc)])
        _add_history(spark, report, history_relation)
        step("done")
        return report
    step("reading the blocks")
    # At the versions the summary names (Delta, ADR 0015): after a killed run, the blocks of the
    # last complete result, not the killed run's. Only the columns the map needs: `spec`
    # (repeated on every leaf) stays in the warehouse.
    leaves = [
        r.asDict()
        for r in pair_table(spark, summary_relation, summary, "ranges")
        .select("leaf_id", "block_id", "lower_bound", "upper_bound")
        .collect()
    ]
    hashes = [
        r.asDict()
        for r in pair_table(spark, summary_relation, summary, "block_hashes")
        .select("side", "leaf_id", "n_rows")
        .collect()
    ]
    units = [
        r.asDict()
        for r in pair_table(spark, summary_relation, summary, "block_split")
        .select("leaf_lo", "leaf_hi", "reason", "selected")
        .collect()
    ]
    step("reading the run history")
    total_diff = sum(
        int(summary[c] or 0)
        for c in ("rows_added", "rows_deleted", "rows_modified", "duplicate_key_rows")
    )
    state, verdict, banners = result_state(summary)
    capped = len(diff_rows) > row_limit
    report.update(
        state=state,
        verdict=verdict,
        banners=banners,
        summary={k: _json_value(v) for k, v in summary.items()},
        block_map=block_map(leaves, hashes, units),
        diff=diff_table(summary, diff_rows[:row_limit]),
        diff_rows_total=total_diff,
        diff_rows_shown=min(len(diff_rows), row_limit),
        diff_rows_capped=capped,
    )
    _add_history(spark, report, history_relation)
    step("done")
    return report


def _add_history(spark, report: dict[str, Any], history_relation: str) -> None:
    """The pair's runs from the run history, their trend, and its row of the pair status model
    beside the history (ADR 0037), into ``report``."""
    pair = report["pair"]
    report["history"] = [
        {k: _json_value(v) for k, v in h.items()}
        for h in read_history(spark, history_relation, pair)
    ]
    report["history_relation"] = history_relation
    report["trend"] = trend(report["history"])
    report["status"] = read_status(
        spark, _sibling_schema(history_relation, STATUS_TABLE), "pair", pair
    )


REPORT_STEPS = 3


def result_state(summary: dict) -> tuple[str, str, list[str]]:
    """(state, verdict, banners) of a completed run's summary: a run whose sides changed while it
    ran is UNRELIABLE and a partial one DIFFERENT (PARTIAL), each with a banner that says why;
    never the plain verdict of a complete result."""
    if summary.get("status") == "changed_during_run":
        why = verdict_text(summary).split(": ", 1)[1]
        return "changed_during_run", "UNRELIABLE", [f"UNRELIABLE: {why}"]
    if summary["is_partial"]:
        return (
            "partial",
            "DIFFERENT (PARTIAL)",
            [
                f"PARTIAL: the diff stopped at max_diff_rows={summary['max_diff_rows']}; the "
                "counts are lower bounds and blocks marked 'not fetched' were not compared row by "
                "row. Raise max_diff_rows and rebuild the pair for the full result."
            ],
        )
    return "complete", "IDENTICAL" if summary["is_identical"] else "DIFFERENT", []


def _sibling_schema(relation: str, table: str) -> str:
    parts = relation.split(".")
    return ".".join([*parts[:-1], table])


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return str(value)


def render_html(report: dict[str, Any]) -> str:
    """report.html: one page, no external assets (styles and the SVG pictures are inline), in
    the layout it shares with changes.html (:mod:`dbt_table_diff.page`)."""
    return environment("dbt_table_diff.report").get_template("report.html.j2").render(r=report)


def write_report(report: dict[str, Any], out_dir) -> tuple[Any, Any]:
    """Write report.json and report.html into ``out_dir`` (created); returns both paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, html_path = out / "report.json", out / "report.html"
    json_path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    html_path.write_text(render_html(report))
    return json_path, html_path
