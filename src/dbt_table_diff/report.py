"""Plain-text rendering of a pair's summary and row diff (used by ``table-diff demo``)."""

from __future__ import annotations


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
        f"  verdict         {'IDENTICAL' if s['is_identical'] else 'DIFFERENT'}"
        + ("  (partial: max_diff_rows reached)" if s["is_partial"] else ""),
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


def print_summary(spark, summary_relation: str, row_diff_relation: str) -> None:
    summary = spark.table(summary_relation).first().asDict()
    rows = [r.asDict() for r in spark.table(row_diff_relation).limit(20).collect()]
    print(format_summary(summary, rows, list(summary["key_columns"])))
