"""``changes.html``: the report of :mod:`~dbt_table_diff.changes.report` as one self-contained page.

A headline (the models per status, the ``--fail-on`` policy and whether it failed, when and against
which production state), a table with one row per model in changes.md's order (modified and
removed first), each linked to the model's section: its key, notes, inputs, schema changes, the
rows each column changed in (a bar each) and sample rows of each kind. Partial counts show as
``≥ N``. The page is in the layout and style of ``table-diff report``'s
(:mod:`dbt_table_diff.page`), rendered with autoescape on: every value from the data is escaped.
"""

from __future__ import annotations

import re
from typing import Any

from dbt_table_diff.changes.render import (
    KIND_LABELS,
    STATUS_ORDER,
    num,
    ordered_models,
    rows_text,
    truncate_text,
)
from dbt_table_diff.page import DASH, environment

# Width in pixels of the longest bar of a model's per-column change counts.
BAR_WIDTH = 160
# A sample row longer than this is cut (the full rows are in the model's diff, not the page).
SAMPLE_CHARS = 2000
# What the tone of a status badge is (the verdict colours of the shared style).
STATUS_TONES = {
    "modified": "DIFFERENT",
    "removed": "DIFFERENT",
    "new": "NEW",
    "unchanged": "IDENTICAL",
    "not_built": "other",
    "not_diffed": "other",
}
# The keys of a model's `inputs` items (older reports have none).
INPUT_KEYS = (
    "source",
    "relation",
    "format",
    "version_then",
    "version_now",
    "rows_then",
    "rows_now",
    "rows_since",
    "pinned",
    "note",
)
_UNSAFE_ID = re.compile(r"[^\w.-]+")


def count(value: Any, partial: bool = False) -> str:
    """A count as a cell shows it: ``1,234``, ``≥ 1,234`` when partial, a dash for None."""
    return DASH if value is None else num(value, partial)


def section_ids(names: list[str]) -> list[str]:
    """``model-NAME`` for each name, characters other than letters, digits, ``_ . -`` made
    ``-``, a repeat given ``-2``, ``-3``, ... (an id is unique on the page)."""
    seen: set[str] = set()
    out = []
    for name in names:
        base = "model-" + (_UNSAFE_ID.sub("-", str(name)).strip("-") or "unnamed")
        anchor, n = base, 1
        while anchor in seen:
            n += 1
            anchor = f"{base}-{n}"
        seen.add(anchor)
        out.append(anchor)
    return out


def sample_groups(m: dict[str, Any]) -> list[dict[str, Any]]:
    """A model's sample rows by kind, in the order they came: by key, each kind with how many
    rows it has; without a key, each row with its extra copies (x3)."""
    groups: dict[str, dict[str, Any]] = {}
    for kind, n, line in m["samples"]:
        group = groups.setdefault(
            kind,
            {
                "kind": kind,
                "label": KIND_LABELS.get(kind, kind),
                "rows": None if m["keyless"] else n,
                "lines": [],
            },
        )
        copies = n if m["keyless"] and n and n > 1 else None
        group["lines"].append({"copies": copies, "text": truncate_text(line, SAMPLE_CHARS)})
    return list(groups.values())


def column_bars(m: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows each column changed in, with a bar width relative to the most changed column."""
    counts = [(str(name), int(n or 0)) for name, n in m["column_changes"]]
    top = max((n for _, n in counts), default=0) or 1
    return [
        {"name": name, "n": n, "width": max(1.0, round(BAR_WIDTH * n / top, 1)) if n else 0}
        for name, n in counts
    ]


def model_view(m: dict[str, Any], anchor: str) -> dict[str, Any]:
    """What the page shows of one model beside the model itself."""
    return {
        "m": m,
        "id": anchor,
        "tone": STATUS_TONES.get(m["status"], "other"),
        "schema_changes": [] if m["status"] == "new" else m["schema_changes"],
        "columns": column_bars(m),
        "samples": sample_groups(m),
        "inputs": [{k: i.get(k) for k in INPUT_KEYS} for i in m.get("inputs") or []],
    }


def render_html(report: dict[str, Any]) -> str:
    """changes.html of a ``table-diff changes`` report (the mapping written to changes.json)."""
    models = ordered_models(report["models"])
    anchors = section_ids([m["name"] for m in models])
    views = [model_view(m, a) for m, a in zip(models, anchors, strict=True)]
    env = environment("dbt_table_diff.changes")
    env.filters.update(count=count, rows_text=rows_text)
    return env.get_template("changes.html.j2").render(
        r=report,
        models=views,
        status_order=STATUS_ORDER,
        status_tones=STATUS_TONES,
        bar_width=BAR_WIDTH,
    )
