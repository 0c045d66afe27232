"""A pair's result as the text ``table-diff demo`` and ``table-diff report`` print: counts, the
verdict, the most changed columns and the first rows of each kind of change."""

from __future__ import annotations

from typing import Any

from dbt_table_diff.report.read import KINDS, column_paths, read_pair


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
        f"  verdict         {verdict_text(s)}",
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
            f"{', '.join(column_paths(row, c)) or c}: "
            f"{_show(row.get('source__' + c))} -> {_show(row.get('target__' + c))}"
            for c in row.get("changed_columns") or []
        )
    return text


def verdict_text(s: dict) -> str:
    """The verdict line of a summary: UNRELIABLE (and why), IDENTICAL or DIFFERENT (partial)."""
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
