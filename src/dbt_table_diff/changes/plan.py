"""What ``table_diff.diff_changes`` is asked to do: one entry per model, in dependency order.

A model this run built is an entry: new (counted and described), modified or downstream (diffed
against production's relation, by key or as a multiset); a removed model is an entry too
(production's rows counted). The rest is reported without the macro: models of
``state:modified+`` this run did not build (failed, skipped, not selected) and ephemeral ones.

**Pruning.** A downstream model's entry names its changed parents (``prune_parents``) when every
one of them is a model diffed in the same invocation. The macro, which runs the entries in this
order, then reports the model unchanged without diffing it when all of them came out identical:
its code did not change and neither did any of its inputs. A downstream model with a changed
parent that is not diffed (a seed, a snapshot, a source, an ephemeral or unbuilt model) is always
diffed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dbt_table_diff.changes.keys import Key, find_key
from dbt_table_diff.changes.selection import (
    DOWNSTREAM,
    MODIFIED,
    NEW,
    REMOVED,
    ModelChange,
    Selection,
)


@dataclass(frozen=True)
class Skipped:
    """A changed model the macro is not asked about, and why."""

    model: ModelChange
    status: str  # 'not_built', 'not_diffed' or 'removed' (an ephemeral model)
    note: str


@dataclass
class Plan:
    entries: list[dict[str, Any]] = field(default_factory=list)  # the macro's `models`
    keys: dict[str, Key] = field(default_factory=dict)  # unique id -> key, of diffed models
    skipped: list[Skipped] = field(default_factory=list)
    changes: dict[str, ModelChange] = field(default_factory=dict)  # unique id -> change


def relation_of(node: dict[str, Any]) -> dict[str, Any]:
    """The relation a manifest node names: database, schema, identifier (its alias)."""
    return {
        "database": node.get("database"),
        "schema": node.get("schema"),
        "identifier": node.get("alias") or node.get("name"),
    }


def sources_of(node: dict[str, Any], manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The sources ``node`` reads directly, as ``{name: 'source_name.table_name', relation}``."""
    out = []
    for uid in _parents(node):
        source = (manifest.get("sources") or {}).get(uid)
        if source is not None:
            out.append(
                {
                    "name": f"{source['source_name']}.{source['name']}",
                    "relation": {
                        "database": source.get("database"),
                        "schema": source.get("schema"),
                        "identifier": source.get("identifier") or source.get("name"),
                    },
                }
            )
    return out


def pin_requests(selection: Selection, current_manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """What ``table_diff.changes_source_pins`` is asked before a same-inputs build: every model
    the build will run that has a production relation to date it by, and reads a source. A view
    reads its sources when queried, in production too, so it is never pinned; an ephemeral model
    is compiled into its children's queries and is not pinned either."""
    out = []
    for m in selection.models:
        if m.change not in (MODIFIED, DOWNSTREAM) or not m.current or not m.production:
            continue
        materialized = (m.current.get("config") or {}).get("materialized")
        if materialized in ("view", "ephemeral") or _ephemeral(m.production):
            continue
        sources = sources_of(m.current, current_manifest)
        if sources:
            out.append(
                {
                    "id": m.unique_id,
                    "name": m.name,
                    "production": relation_of(m.production),
                    "sources": sources,
                }
            )
    return out


def _ephemeral(node: dict[str, Any] | None) -> bool:
    return bool(node) and (node.get("config") or {}).get("materialized") == "ephemeral"


def _parents(node: dict[str, Any]) -> list[str]:
    return list((node.get("depends_on") or {}).get("nodes") or [])


def dependency_order(ids: list[str], parents: dict[str, list[str]]) -> list[str]:
    """``ids`` with every id after those of its parents among them; otherwise in the given order
    (a cycle, which dbt refuses anyway, keeps the given order for what remains)."""
    members = set(ids)
    placed: set[str] = set()
    out: list[str] = []
    remaining = list(ids)
    while remaining:
        ready = [
            i for i in remaining if all(p in placed for p in parents.get(i, []) if p in members)
        ]
        if not ready:
            ready = remaining[:1]
        for i in ready:
            placed.add(i)
            out.append(i)
        remaining = [i for i in remaining if i not in placed]
    return out


def build_plan(
    selection: Selection,
    current_manifest: dict[str, Any],
    pins: dict[str, dict[str, Any]] | None = None,
) -> Plan:
    """The macro's entries and what is reported without it (module docstring). ``pins``: the
    source versions a same-inputs build read, per model id (``changes_source_pins``)."""
    plan = Plan()
    diffed: dict[str, ModelChange] = {}
    for m in selection.models:
        plan.changes[m.unique_id] = m
        if m.change == REMOVED:
            continue
        if _ephemeral(m.current):
            plan.skipped.append(Skipped(m, "not_diffed", "ephemeral: no relation to compare"))
        elif not m.built:
            status = m.build_status or "not run"
            plan.skipped.append(
                Skipped(
                    m,
                    "not_built",
                    f"in state:modified+ but not built by this run (status: {status}); "
                    "build it to see its changes",
                )
            )
        elif m.change != NEW and _ephemeral(m.production):
            plan.skipped.append(
                Skipped(m, "not_diffed", "ephemeral in production: no relation to compare with")
            )
        else:
            diffed[m.unique_id] = m
    parents = {uid: _parents(m.current) for uid, m in diffed.items() if m.current}
    for uid in dependency_order(list(diffed), parents):
        m = diffed[uid]
        entry: dict[str, Any] = {
            "id": uid,
            "name": m.name,
            "change": m.change,
            "current": relation_of(m.current),
            "production": None if m.change == NEW else relation_of(m.production),
            "primary_key": None,
            "exclude_columns": [],
            "prune_parents": None,
        }
        if m.change != NEW:
            entry["sources"] = sources_of(m.current, current_manifest)
            entry["pinned_sources"] = sorted((pins or {}).get(uid) or {})
            key = find_key(current_manifest, m.current)
            plan.keys[uid] = key
            entry["primary_key"] = list(key.columns) if key.columns else None
            entry["exclude_columns"] = list(key.exclude_columns)
        if m.change == DOWNSTREAM:
            changed = [p for p in parents[uid] if p in selection.selected]
            prunable = [p for p in changed if p in diffed and diffed[p].change != NEW]
            if changed and len(prunable) == len(changed):
                entry["prune_parents"] = sorted(prunable)
        plan.entries.append(entry)
    for m in selection.models:
        if m.change == REMOVED and not _ephemeral(m.production):
            plan.entries.append(
                {
                    "id": m.unique_id,
                    "name": m.name,
                    "change": REMOVED,
                    "current": None,
                    "production": relation_of(m.production),
                    "primary_key": None,
                    "exclude_columns": [],
                    "prune_parents": None,
                }
            )
        elif m.change == REMOVED:
            plan.skipped.append(Skipped(m, REMOVED, "ephemeral in production: no rows to count"))
    return plan
