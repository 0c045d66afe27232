"""``changes.md`` and ``changes.json`` from the report of :mod:`~dbt_table_diff.changes.report`.

The markdown is a pull-request comment: GitHub refuses one over 65,536 characters, so
:func:`render_markdown` renders the whole report first and, while it is too long, shows fewer
sample rows, then details for fewer models, then fewer rows of the table, most changed models
first; what it left out is counted in a closing note that points to ``changes.json``. Every value
from the data goes into a table cell escaped, into a code span with a long enough delimiter, or
into a fenced block whose fence is longer than any backtick run inside.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

# GitHub's limit on an issue or pull-request comment, in characters.
GITHUB_COMMENT_LIMIT = 65536
# Table and detail order: what a reviewer must see first.
STATUS_ORDER = ("modified", "removed", "new", "not_built", "not_diffed", "unchanged")
SAMPLE_LINE_CHARS = 300
COLUMN_LIMIT = 10


def truncate_text(value: Any, n: int) -> str:
    text = str(value)
    return text if len(text) <= n else text[: n - 1] + "…"


def cell(value: Any) -> str:
    """Text safe inside a table cell: one line, pipes escaped."""
    return re.sub(r"\s+", " ", str(value)).replace("|", "\\|").strip()


def code(value: Any) -> str:
    """A code span around any text, backticks in it included."""
    text = str(value)
    run = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def num(value: Any, partial: bool = False) -> str:
    if value is None:
        return ""
    return ("≥ " if partial and value else "") + f"{int(value):,}"


def rows_text(m: dict[str, Any]) -> str:
    before, after = m["rows_production"], m["rows_current"]
    if before is None and after is None:
        return ""
    show = ["—" if v is None else f"{int(v):,}" for v in (before, after)]
    return f"{show[0]} → {show[1]}"


def schema_text(changes: list[dict[str, Any]], status: str | None = None) -> str:
    signs = {"added": "+", "dropped": "−", "retyped": "~"}
    parts = [signs.get(c["change"], "?") + str(c["column"]) for c in changes]
    return truncate_text(", ".join(parts), 120)


KIND_LABELS = {
    "added": "added (only in this run)",
    "deleted": "deleted (only in production)",
    "modified": "modified (production -> this run)",
    "duplicate_key": "duplicate key",
}


def samples_block(m: dict[str, Any], per_kind: int) -> str:
    """The first ``per_kind`` sample rows of each kind of a model, in a fenced block. By key,
    each kind says how many rows it has; without a key a row shows its extra copies (x3)."""
    lines: list[str] = []
    shown: dict[str, int] = {}
    for kind, n, line in m["samples"]:
        if kind not in shown:
            shown[kind] = 0
            label = KIND_LABELS.get(kind, kind)
            lines.append(f"{label}:" if m["keyless"] else f"{label}, {n:,} rows:")
        if shown[kind] < per_kind:
            shown[kind] += 1
            copies = f"x{n} " if m["keyless"] and n > 1 else ""
            text = truncate_text(copies + str(line), SAMPLE_LINE_CHARS)
            lines.append("  " + re.sub(r"\s*\n\s*", " ", text))
    body = "\n".join(lines)
    run = max((len(r) for r in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}text\n{body}\n{fence}"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("dbt_table_diff.changes", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # markdown; HTML is escaped where it goes, with |e
        extensions=["jinja2.ext.do"],
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters.update(
        cell=cell,
        code=code,
        num=num,
        rows_text=rows_text,
        schema_text=schema_text,
        samples_block=samples_block,
        truncate_text=truncate_text,
    )
    return env


def headline(report: dict[str, Any]) -> str:
    models = report["models"]
    counts = report["counts"]
    pruned = report.get("not_diffed_unchanged")
    parts = []
    for s in STATUS_ORDER:
        if counts.get(s):
            parts.append(f"{counts[s]} {s.replace('_', ' ')}")
            if s == "unchanged" and pruned:
                parts[-1] += f" ({pruned} not diffed: their changed parents came out identical)"
    text = (
        f"**{len(models)} models** new, modified or downstream of a change, compared with "
        f"production ({code(report.get('state', ''))}): {', '.join(parts) or 'none'}."
    )
    moved = [
        m["name"]
        for m in models
        if any(i.get("moved") and not i.get("pinned") for i in m.get("inputs") or [])
    ]
    if moved:
        names = ", ".join(moved[:10]) + (" …" if len(moved) > 10 else "")
        text += (
            f"\n\nInputs moved since production built {cell(names)}: part of their differences "
            "may be the data, not the code"
            + (
                "."
                if report.get("same_inputs")
                else f" ({code('--same-inputs')} reads Delta and Iceberg sources as production "
                "read them)."
            )
        )
    elif report.get("same_inputs"):
        text += "\n\nBuilt from the source versions production read (`--same-inputs`)."
    if report["fail_on"]:
        policy = code("--fail-on " + ",".join(report["fail_on"]))
        if report["failed"]:
            tripped = "; ".join(
                f"{kind}: {', '.join(names[:10])}{' …' if len(names) > 10 else ''}"
                for kind, names in report["failures"].items()
            )
            text += f"\n\n**Fails** {policy}: {cell(tripped)}."
        else:
            text += f"\n\nPasses {policy}."
    return text


def ordered_models(models: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The models in table order (:data:`STATUS_ORDER`), changes.md's and changes.html's."""
    return sorted(models, key=lambda m: STATUS_ORDER.index(m["status"]))


def render_markdown(
    report: dict[str, Any],
    limit: int = GITHUB_COMMENT_LIMIT,
    full_report: str | None = None,
    samples: int = 5,
) -> str:
    """changes.md, at most ``limit`` characters (counted as UTF-16 units, as browsers count)."""
    template = _environment().get_template("changes.md.j2")
    ordered = ordered_models(report["models"])
    detailed = [m for m in ordered if m["status"] != "unchanged" or (m["diffed"] and m["notes"])]
    head = headline(report)

    def render(table_n: int, detail_n: int, sample_n: int) -> str:
        left = []
        if table_n < len(ordered):
            left.append(f"{table_n} of {len(ordered)} models in the table")
        if detail_n < len(detailed):
            left.append(f"details of {detail_n} of {len(detailed)} models")
        if sample_n < samples and any(m["samples"] for m in detailed[:detail_n]):
            left.append(f"{sample_n} sample rows of each kind")
        return template.render(
            headline=head,
            table_models=ordered[:table_n],
            hidden_rows=len(ordered) - table_n,
            detailed=detailed[:detail_n],
            hidden_details=len(detailed) - detail_n,
            samples=sample_n,
            column_limit=COLUMN_LIMIT,
            truncated=", ".join(left),
            limit=limit,
            full_report=full_report,
        )

    def fits(text: str) -> bool:
        return len(text.encode("utf-16-le")) // 2 <= limit

    table_n, detail_n, sample_n = len(ordered), len(detailed), samples
    text = render(table_n, detail_n, sample_n)
    while not fits(text) and sample_n > 1:
        sample_n = max(1, sample_n // 2)
        text = render(table_n, detail_n, sample_n)
    if not fits(text):
        detail_n = _largest(lambda n: fits(render(table_n, n, sample_n)), detail_n)
        text = render(table_n, detail_n, sample_n)
    if not fits(text):
        table_n = _largest(lambda n: fits(render(n, 0, sample_n)), table_n)
        text = render(table_n, 0, sample_n)
    if not fits(text):
        raise ValueError(f"changes.md does not fit in {limit} characters even without a table")
    return text


def _largest(ok, high: int) -> int:
    """The largest n in [0, high] with ok(n) (ok is monotone: true up to some n), else 0."""
    low = 0
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, default=str) + "\n"
