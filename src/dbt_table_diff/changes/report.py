"""The report of ``table-diff changes``: one entry per changed model, a summary, and the policy.

Built from the macro's result rows (:mod:`~dbt_table_diff.changes.invoke`) and what the plan
left out (models not built, ephemeral ones), with each model's key and where it came from. This
mapping is ``changes.json`` as written; ``changes.md`` is rendered from it.
"""

from __future__ import annotations

from typing import Any

from dbt_table_diff.changes.artifacts import ChangesError
from dbt_table_diff.changes.plan import Plan

# --fail-on: the kinds of change a policy can fail on.
FAIL_ON = ("schema", "removed", "modified", "added", "deleted")
STATUSES = ("modified", "new", "removed", "unchanged", "not_built", "not_diffed")
REPORT_VERSION = 1


def parse_fail_on(value: str | None) -> tuple[str, ...]:
    """``schema,removed`` -> ('schema', 'removed'); '' or 'none' -> (); anything else fails."""
    if value is None or value.strip().lower() in ("", "none"):
        return ()
    kinds = tuple(k.strip().lower() for k in value.split(",") if k.strip())
    unknown = [k for k in kinds if k not in FAIL_ON]
    if unknown:
        raise ChangesError(
            f"--fail-on {value}: unknown kind {', '.join(unknown)}. Expected a comma-separated "
            f"list of {', '.join(FAIL_ON)} (or none), e.g. --fail-on schema,removed."
        )
    return kinds


def _verdict(m: dict[str, Any]) -> str:
    """One line a reviewer reads first."""
    status = m["status"]
    if status == "new":
        return f"new: {m['rows_current']} rows, {len(m['schema_changes'])} columns"
    if status == "removed":
        had = m["rows_production"]
        return "removed" + (f" (production had {had} rows)" if had is not None else "")
    if status == "not_built":
        return "not built by this run"
    if status == "not_diffed":
        return "not diffed"
    if status == "unchanged":
        if not m["diffed"]:
            return "unchanged (not diffed: its changed parents came out identical)"
        return f"identical to production ({m['rows_current']} rows)"
    parts = []
    schema = m["schema_changes"]
    if schema:
        kinds = {}
        for c in schema:
            kinds[c["change"]] = kinds.get(c["change"], 0) + 1
        parts.append("schema: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    at_least = "at least " if m["partial"] else ""
    for kind in ("modified", "added", "deleted", "duplicate_key_rows"):
        n = m.get(kind)
        if n:
            rows = "row" if n == 1 else "rows"
            label = f"duplicate-key {rows}" if kind == "duplicate_key_rows" else f"{rows} {kind}"
            parts.append(f"{at_least}{n} {label}")
    if m["keyless"] and (m.get("added") or m.get("deleted")):
        parts.append("compared without a key")
    return "; ".join(parts) or "modified"


def _model(row: dict[str, Any], plan: Plan) -> dict[str, Any]:
    key = plan.keys.get(row["model_id"])
    notes = [n for n in (key.note if key else None, row.get("note")) if n]
    entry = {
        "name": row["model"],
        "unique_id": row["model_id"],
        "change": row["change"],
        "status": row["status"],
        "diffed": bool(row["diffed"]),
        "current_relation": row["current_relation"],
        "production_relation": row["production_relation"],
        "primary_key": row["primary_key"],
        "key_source": key.source if key and row["primary_key"] else None,
        "keyless": bool(row["diffed"]) and row["primary_key"] is None,
        "rows_production": row["rows_production"],
        "rows_current": row["rows_current"],
        "added": row["added"],
        "deleted": row["deleted"],
        "modified": row["modified"],
        "duplicate_key_rows": row["duplicate_key_rows"],
        "partial": bool(row["partial"]),
        "schema_changes": row["schema_changes"] or [],
        "column_changes": [list(c) for c in row["column_changes"] or []],
        "samples": [list(s) for s in row["samples"] or []],
        "notes": notes,
        "inputs": row.get("inputs") or [],
        "production_written_at": row.get("production_written_at"),
        "seconds": row["seconds"],
    }
    entry["verdict"] = _verdict(entry)
    return entry


def _skipped(plan: Plan) -> list[dict[str, Any]]:
    out = []
    for s in plan.skipped:
        m = s.model
        node = m.current or m.production or {}
        entry = {
            "name": m.name,
            "unique_id": m.unique_id,
            "change": m.change,
            "status": s.status,
            "diffed": False,
            "current_relation": node.get("relation_name") if m.current else None,
            "production_relation": (m.production or {}).get("relation_name"),
            "primary_key": None,
            "key_source": None,
            "keyless": False,
            "rows_production": None,
            "rows_current": None,
            "added": None,
            "deleted": None,
            "modified": None,
            "duplicate_key_rows": None,
            "partial": False,
            "schema_changes": [],
            "column_changes": [],
            "samples": [],
            "notes": [s.note],
            "inputs": [],
            "production_written_at": None,
            "seconds": 0.0,
        }
        entry["verdict"] = _verdict(entry) + f": {s.note}"
        out.append(entry)
    return out


def policy_failures(models: list[dict[str, Any]], fail_on: tuple[str, ...]) -> dict[str, list[str]]:
    """Kind -> the models that trip it, for each kind of ``fail_on`` some model trips."""
    tests = {
        "schema": lambda m: m["change"] in ("modified", "downstream") and bool(m["schema_changes"]),
        "removed": lambda m: m["status"] == "removed",
        "modified": lambda m: bool(m["modified"]),
        "added": lambda m: bool(m["added"]),
        "deleted": lambda m: bool(m["deleted"]),
    }
    out = {}
    for kind in fail_on:
        names = [m["name"] for m in models if tests[kind](m)]
        if names:
            out[kind] = names
    return out


def build_report(
    plan: Plan, rows: list[dict[str, Any]], fail_on: tuple[str, ...], context: dict[str, Any]
) -> dict[str, Any]:
    """changes.json: ``context`` (state, target, run id, ...) with the models and the verdict."""
    models = [_model(r, plan) for r in rows] + _skipped(plan)
    counts = {s: sum(1 for m in models if m["status"] == s) for s in STATUSES}
    failures = policy_failures(models, fail_on)
    return {
        "version": REPORT_VERSION,
        **context,
        "fail_on": list(fail_on),
        "failed": bool(failures),
        "failures": failures,
        "counts": {k: v for k, v in counts.items() if v},
        "not_diffed_unchanged": sum(
            1 for m in models if m["status"] == "unchanged" and not m["diffed"]
        ),
        "models": models,
    }
