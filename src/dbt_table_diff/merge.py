"""Removed: the three-way merge's models are SQL (ADR 0027).

``table-diff scaffold merge`` writes ``NAME__merge``, ``NAME__merged``, ``NAME__conflicts``,
``NAME__merge_violations`` and ``NAME__merge_summary`` as SQL models calling the package's macros
(``table_diff.merge_rows``, ``merged_rows``, ``merge_conflicts``, ``merge_violations``,
``merge_summary``), which hold the one implementation of the classification, so a merge runs on
every dbt-spark target. This module is kept only so that a Python model scaffolded by an earlier
version fails with the way out instead of an AttributeError without one.
"""

from __future__ import annotations

_MACROS = {
    "merge_rows": "merge_rows",
    "conflict_rows": "merge_conflicts",
    "merged_rows": "merged_rows",
    "constraint_violations": "merge_violations",
    "merge_summary": "merge_summary",
}


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    macro = _MACROS.get(name)
    raise AttributeError(
        f"dbt_table_diff.merge.{name} was removed: the merge's models are SQL now (ADR 0027)"
        + (f", this one calls table_diff.{macro}" if macro else "")
        + ". Rewrite the merge's models with `table-diff scaffold merge NAME ... --force` (the "
        "same options as before); it replaces the Python files."
    )
