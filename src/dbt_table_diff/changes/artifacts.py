"""The dbt artifacts ``table-diff changes`` reads, and the one error type of the command.

The current run's ``manifest.json`` and ``run_results.json`` (the target path of the
``dbt build --select state:modified+ --defer --state PATH`` that ran just before), and
production's ``manifest.json`` under ``--state``. Every problem is a :class:`ChangesError` whose
message names the file and says the fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The dbt commands whose run_results.json says which models were built.
BUILDING_COMMANDS = ("build", "run")


class ChangesError(Exception):
    """``table-diff changes`` cannot go on: the message names the file or model and the fix."""


@dataclass(frozen=True)
class Artifacts:
    """The three artifacts, as parsed JSON, with where each came from."""

    current: dict[str, Any]  # this run's manifest.json
    production: dict[str, Any]  # production's manifest.json (--state)
    run_results: dict[str, Any]  # this run's run_results.json
    current_path: Path
    production_path: Path
    run_results_path: Path


def read_json(path: Path, what: str, fix: str) -> dict[str, Any]:
    """The JSON object in ``path``, or a ChangesError naming ``what`` it should be and the fix."""
    if not path.is_file():
        raise ChangesError(f"{path}: no such file ({what}). {fix}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ChangesError(f"{path}: not readable as JSON ({what}): {exc}. {fix}") from exc
    if not isinstance(data, dict):
        raise ChangesError(f"{path}: expected a JSON object ({what}). {fix}")
    return data


def load_artifacts(target_dir: Path, state_dir: Path, *, built: bool = True) -> Artifacts:
    """Read the current run's artifacts under ``target_dir`` and production's under ``state_dir``.

    Checked before anything runs: the state directory holds a manifest.json, the target directory
    is not the state directory, and the last dbt command there built models (``dbt build`` or
    ``dbt run``; a ``dbt compile`` or ``dbt ls`` afterwards would have replaced run_results.json).
    ``built=False``: before the build (a same-inputs run parses first), no run_results.json.
    """
    build_hint = (
        f"Run `dbt build --select state:modified+ --defer --state {state_dir}` first, in the "
        "same project, then table-diff changes."
    )
    if not state_dir.is_dir():
        raise ChangesError(
            f"--state {state_dir}: no such directory. Put production's dbt artifacts there (the "
            "target/ folder of the production run, at least its manifest.json), e.g. downloaded "
            "from the artifact store your deployment job uploads them to."
        )
    if target_dir.resolve() == state_dir.resolve():
        raise ChangesError(
            f"--state {state_dir} is this run's own target path: the comparison would be with "
            "itself. Keep production's artifacts in another directory (e.g. prod-artifacts/)."
        )
    production_path = state_dir / "manifest.json"
    production = read_json(
        production_path,
        "production's manifest",
        f"--state must name a directory holding production's manifest.json (found: "
        f"{_listing(state_dir)}); fetch the manifest.json the production run wrote.",
    )
    current_path = target_dir / "manifest.json"
    current = read_json(current_path, "this run's manifest", build_hint)
    run_results_path = target_dir / "run_results.json"
    if not built:
        run_results: dict[str, Any] = {}
    else:
        run_results = read_json(run_results_path, "this run's results", build_hint)
    command = (run_results.get("args") or {}).get("which")
    if command is not None and command not in BUILDING_COMMANDS:
        raise ChangesError(
            f"{run_results_path}: the last dbt command there was `dbt {command}`, which builds "
            f"no model, so it does not say what this run built. {build_hint}"
        )
    for path, artifact in ((production_path, production), (current_path, current)):
        if not isinstance(artifact.get("nodes"), dict):
            raise ChangesError(f"{path}: not a dbt manifest (no `nodes`). {build_hint}")
    return Artifacts(
        current, production, run_results, current_path, production_path, run_results_path
    )


def _listing(directory: Path) -> str:
    names = sorted(p.name for p in directory.iterdir())
    if not names:
        return "nothing"
    return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
