"""Which models a pull request changed, as dbt's own ``state:modified+`` sees them.

* **new**: a model of this run's manifest that production's lacks (by unique id);
* **modified**: dbt's ``state:modified`` (its ``StateSelectorMethod``, run here on the two
  manifests: body, configs, persisted descriptions, relation, contract, upstream macros), not new;
* **downstream**: in ``state:modified+`` (a descendant of any modified or new node: a model, a
  seed, a snapshot, a source) but neither new nor modified itself;
* **removed**: a model of production's manifest that this run's lacks (deleted, renamed or
  disabled).

Which of them this run built comes from its run_results.json (status ``success``). Running dbt's
own selector rather than reimplementing it keeps the classification identical to the one that
chose what ``dbt build --select state:modified+`` built (ADR 0042).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dbt_table_diff.changes.artifacts import Artifacts, ChangesError

NEW, MODIFIED, DOWNSTREAM, REMOVED = "new", "modified", "downstream", "removed"
CHANGE_ORDER = (NEW, MODIFIED, DOWNSTREAM, REMOVED)


@dataclass(frozen=True)
class ModelChange:
    """One model the change touched: how, whether this run built it, and both manifests' nodes."""

    unique_id: str
    name: str
    change: str  # NEW, MODIFIED, DOWNSTREAM or REMOVED
    build_status: str | None  # this run's status of the model (None: not run)
    current: dict[str, Any] | None  # this run's node (None when removed)
    production: dict[str, Any] | None  # production's node (None when new)

    @property
    def built(self) -> bool:
        return self.build_status == "success"


@dataclass(frozen=True)
class Selection:
    models: tuple[ModelChange, ...]  # in CHANGE_ORDER, then by name
    modified_nodes: frozenset[str]  # dbt's state:modified, every resource type
    selected: frozenset[str]  # state:modified+ (modified, new and their descendants), every type


def dbt_manifest(data: Mapping[str, Any], path: Path) -> Any:
    """dbt's own Manifest of a manifest.json already read, for its state selector."""
    from dbt.artifacts.exceptions import IncompatibleSchemaError
    from dbt.artifacts.schemas.manifest import WritableManifest
    from dbt.contracts.graph.manifest import Manifest

    try:
        writable = WritableManifest.upgrade_schema_version(dict(data))
    except IncompatibleSchemaError as exc:
        raise ChangesError(
            f"{path}: written by a dbt this one cannot read ({exc}). Build both manifests with the "
            "same dbt version (production's and this run's)."
        ) from exc
    except Exception as exc:  # noqa: BLE001 - mashumaro's errors have no common base
        raise ChangesError(f"{path}: not a dbt manifest dbt can load: {exc}") from exc
    return Manifest.from_writable_manifest(writable)


def use_project_flags(project_dir: Path, profiles_dir: Path | None) -> None:
    """dbt's global flags as a dbt command in ``project_dir`` sets them (its ``flags:`` in
    dbt_project.yml included): dbt's state selector reads them
    (``state_modified_compare_more_unrendered_values``, ...), and outside a dbt invocation
    nothing has set them yet."""
    from argparse import Namespace

    from dbt.cli.resolvers import default_profiles_dir
    from dbt.flags import set_from_args

    profiles = profiles_dir if profiles_dir is not None else default_profiles_dir()
    set_from_args(Namespace(project_dir=str(project_dir), profiles_dir=str(profiles)), None)


def state_modified(artifacts: Artifacts) -> set[str]:
    """Unique ids dbt's ``state:modified`` selects (new ones included, as dbt does)."""
    from dbt.graph.selector_methods import StateSelectorMethod

    current = dbt_manifest(artifacts.current, artifacts.current_path)
    # What StateSelectorMethod reads of dbt's PreviousState: its manifest.
    previous = SimpleNamespace(
        manifest=dbt_manifest(artifacts.production, artifacts.production_path)
    )
    method = StateSelectorMethod(current, previous, [])
    included = set(current.nodes) | set(current.sources)
    return set(method.search(included, "modified"))


def descendants(manifest: Mapping[str, Any], roots: set[str]) -> set[str]:
    """``roots`` and every node of ``manifest`` that depends on one of them, transitively."""
    children: dict[str, set[str]] = {}
    for unique_id, node in manifest.get("nodes", {}).items():
        for parent in (node.get("depends_on") or {}).get("nodes") or []:
            children.setdefault(parent, set()).add(unique_id)
    seen, todo = set(roots), list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def build_statuses(run_results: Mapping[str, Any]) -> dict[str, str]:
    """unique id -> status of each node in run_results.json."""
    return {
        r["unique_id"]: str(r.get("status"))
        for r in run_results.get("results") or []
        if r.get("unique_id")
    }


def _models(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        uid: node
        for uid, node in manifest.get("nodes", {}).items()
        if node.get("resource_type") == "model"
    }


def select_changes(artifacts: Artifacts, modified: set[str] | None = None) -> Selection:
    """Classify the models (module docstring). ``modified``: dbt's state:modified, when already
    known (tests); computed with dbt's selector otherwise."""
    current, production = _models(artifacts.current), _models(artifacts.production)
    if modified is None:
        modified = state_modified(artifacts)
    new = set(current) - set(production)
    selected = descendants(artifacts.current, modified | new)
    statuses = build_statuses(artifacts.run_results)
    out = []
    for uid, node in current.items():
        if uid in new:
            change = NEW
        elif uid in modified:
            change = MODIFIED
        elif uid in selected:
            change = DOWNSTREAM
        else:
            continue
        out.append(
            ModelChange(uid, node["name"], change, statuses.get(uid), node, production.get(uid))
        )
    for uid in set(production) - set(current):
        out.append(ModelChange(uid, production[uid]["name"], REMOVED, None, None, production[uid]))
    out.sort(key=lambda m: (CHANGE_ORDER.index(m.change), m.name, m.unique_id))
    return Selection(tuple(out), frozenset(modified), frozenset(selected))
