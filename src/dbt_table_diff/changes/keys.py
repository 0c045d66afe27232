"""A model's key, found in what the project already says about it, never typed again.

In order, the first that names one:

1. ``meta: {table_diff: {primary_key: [...]}}`` on the model (``config.meta`` or ``meta``);
2. a ``primary_key`` constraint of the model (model-level ``constraints`` or a column's);
3. a ``unique`` test on one column of the model (one that also has a ``not_null`` test first);
4. a ``dbt_utils.unique_combination_of_columns`` test on the model.

Tests with a ``where`` config do not count: they hold for part of the table only. None of these:
the model is diffed without a key, as a multiset of rows (ADR 0042), and :attr:`Key.note` says
how to give it one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dbt_table_diff.changes.artifacts import ChangesError

META_SOURCE = "meta"
CONSTRAINT_SOURCE = "primary_key constraint"
UNIQUE_SOURCE = "unique test"
COMBINATION_SOURCE = "dbt_utils.unique_combination_of_columns test"

_IDENTIFIER = re.compile(r"^`?([A-Za-z_][A-Za-z0-9_]*)`?$")


@dataclass(frozen=True)
class Key:
    """The key columns (None: keyless), where they came from, and options from the meta."""

    columns: tuple[str, ...] | None
    source: str | None
    note: str | None = None
    exclude_columns: tuple[str, ...] = ()

    @property
    def keyless(self) -> bool:
        return self.columns is None


def table_diff_meta(node: Mapping[str, Any]) -> dict[str, Any]:
    """The model's ``meta.table_diff`` mapping (``config.meta`` first, as dbt >= 1.10 writes it)."""
    for meta in ((node.get("config") or {}).get("meta"), node.get("meta")):
        if isinstance(meta, Mapping) and "table_diff" in meta:
            found = meta["table_diff"]
            if not isinstance(found, Mapping):
                raise ChangesError(
                    f"model {node.get('name')} ({_where(node)}): meta.table_diff is "
                    f"{found!r}; expected a mapping such as {{primary_key: [order_id]}}."
                )
            return dict(found)
    return {}


def _where(node: Mapping[str, Any]) -> str:
    return str(node.get("patch_path") or node.get("original_file_path") or node.get("unique_id"))


def _names(node: Mapping[str, Any], value: Any, field: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if (
        not isinstance(items, list)
        or not items
        or not all(isinstance(i, str) and i.strip() for i in items)
    ):
        raise ChangesError(
            f"model {node.get('name')} ({_where(node)}): meta.table_diff.{field} is {value!r}; "
            f"expected a column name or a list of them, e.g. {field}: [order_id]."
        )
    return tuple(i.strip() for i in items)


def _constraint_key(node: Mapping[str, Any]) -> tuple[str, ...] | None:
    for constraint in node.get("constraints") or []:
        if constraint.get("type") == "primary_key" and constraint.get("columns"):
            return tuple(constraint["columns"])
    columns = [
        column.get("name") or name
        for name, column in (node.get("columns") or {}).items()
        if any(c.get("type") == "primary_key" for c in column.get("constraints") or [])
    ]
    return tuple(columns) or None


def _tests_on(manifest: Mapping[str, Any], unique_id: str) -> list[dict[str, Any]]:
    """The enabled generic tests attached to the model, without a `where` config."""
    out = []
    for node in manifest.get("nodes", {}).values():
        if node.get("resource_type") != "test" or not node.get("test_metadata"):
            continue
        attached = node.get("attached_node") or next(
            iter((node.get("depends_on") or {}).get("nodes") or []), None
        )
        config = node.get("config") or {}
        if attached != unique_id or config.get("enabled") is False or config.get("where"):
            continue
        out.append(node)
    return out


def _column_of(test: Mapping[str, Any]) -> str | None:
    """The plain column a single-column test is on (None for an expression)."""
    kwargs = test["test_metadata"].get("kwargs") or {}
    name = kwargs.get("column_name") or test.get("column_name")
    match = _IDENTIFIER.match(str(name or "").strip())
    return match.group(1) if match else None


def _test_key(
    manifest: Mapping[str, Any], unique_id: str
) -> tuple[tuple[str, ...], str] | tuple[None, None]:
    tests = _tests_on(manifest, unique_id)
    by_name: dict[str, set[str]] = {}
    combinations = []
    for test in tests:
        meta = test["test_metadata"]
        if meta.get("name") in ("unique", "not_null") and not meta.get("namespace"):
            column = _column_of(test)
            if column:
                by_name.setdefault(meta["name"], set()).add(column)
        elif meta.get("name") == "unique_combination_of_columns" and meta.get("namespace") in (
            "dbt_utils",
            None,
        ):
            columns = (meta.get("kwargs") or {}).get("combination_of_columns")
            if isinstance(columns, list) and columns and all(isinstance(c, str) for c in columns):
                combinations.append(tuple(columns))
    unique = by_name.get("unique", set())
    if unique:
        not_null = by_name.get("not_null", set())
        best = sorted(unique, key=lambda c: (c not in not_null, c))[0]
        return (best,), UNIQUE_SOURCE
    if combinations:
        return sorted(combinations, key=lambda c: (len(c), c))[0], COMBINATION_SOURCE
    return None, None


def find_key(manifest: Mapping[str, Any], node: Mapping[str, Any]) -> Key:
    """The key of the model ``node`` of ``manifest`` (this run's), as the module docstring says."""
    meta = table_diff_meta(node)
    exclude = (
        _names(node, meta["exclude_columns"], "exclude_columns")
        if meta.get("exclude_columns")
        else ()
    )
    if meta.get("primary_key") is not None:
        return Key(_names(node, meta["primary_key"], "primary_key"), META_SOURCE, None, exclude)
    constraint = _constraint_key(node)
    if constraint:
        return Key(constraint, CONSTRAINT_SOURCE, None, exclude)
    columns, source = _test_key(manifest, node["unique_id"])
    if columns:
        return Key(columns, source, None, exclude)
    note = (
        f"no key found for {node.get('name')}: no meta.table_diff.primary_key, no primary_key "
        "constraint, no unique or dbt_utils.unique_combination_of_columns test; its rows are "
        "compared as a multiset (rows only in this run, rows only in production; no modified "
        f"rows). To diff by key add to {_where(node)}: meta: {{table_diff: {{primary_key: "
        "[<column>]}}."
    )
    return Key(None, None, note, exclude)
