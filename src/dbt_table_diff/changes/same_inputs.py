"""The same-inputs build of ``table-diff changes --same-inputs`` (ADR 0043).

Production built each model at some time; a Delta or Iceberg source has a version that was current
then. Built from those versions, this run's models differ from production's by what the code did,
not by what the data did since. The command runs the build itself, because the versions must be
known before it:

1. ``dbt parse`` into the build's target path: this run's manifest, before anything runs;
2. ``table_diff.changes_source_pins`` (one run-operation): per model of ``state:modified+`` that
   is a table in production and reads a source, the version of each Delta / Iceberg source that
   was current when production last wrote it;
3. ``dbt build --select state:modified+ --defer --state DIR --vars {table_diff_source_pins:
   ...}``: the project's ``source()`` (overridden once, to ``table_diff.pinned_source``) reads
   each pinned source ``VERSION AS OF`` its version, for that model only.

Sources without versions (plain parquet, views) are read as they are; the report says so and,
where cheap, how many of their rows are newer than production's build.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dbt_table_diff.changes.artifacts import Artifacts, ChangesError, load_artifacts
from dbt_table_diff.changes.invoke import DbtOptions, run_dbt, run_operation
from dbt_table_diff.changes.plan import pin_requests
from dbt_table_diff.changes.selection import select_changes

PINS_MARKER = "table_diff.changes_source_pins: "
PINNED_SOURCE = "macro.table_diff.pinned_source"
OVERRIDE = (
    "{% macro source(source_name, table_name) %}"
    "{{ return(table_diff.pinned_source(source_name, table_name)) }}{% endmacro %}"
)


def check_override(artifacts: Artifacts) -> None:
    """The root project's ``source`` goes through ``table_diff.pinned_source``, or the error
    says the one file to add."""
    project = (artifacts.current.get("metadata") or {}).get("project_name")
    for macro in (artifacts.current.get("macros") or {}).values():
        if macro.get("name") != "source" or macro.get("package_name") != project:
            continue
        if PINNED_SOURCE in ((macro.get("depends_on") or {}).get("macros") or []):
            return
        raise ChangesError(
            f"--same-inputs: the project's own source() macro ({macro.get('original_file_path')}) "
            "does not call table_diff.pinned_source, so the build cannot read sources at "
            "production's versions. Have it return table_diff.pinned_source(source_name, "
            "table_name) when the var table_diff_source_pins is set (docs/ci.md, same inputs)."
        )
    raise ChangesError(
        f"--same-inputs needs the project {project} to read its sources through "
        "table_diff.pinned_source (dbt lets only the root project override source()). Add "
        f"macros/table_diff_source.sql holding:\n  {OVERRIDE}\nIt reads every source as before "
        "unless a same-inputs build pins it (docs/ci.md, same inputs)."
    )


def same_inputs_build(build: DbtOptions, operation: DbtOptions, state: Path) -> dict[str, Any]:
    """Parse, pin, build (module docstring). ``build``: the options of the build (its target
    path is the one ``table-diff changes`` then reads); ``operation``: those of the run-operation.
    Returns the pins the build read with: {model id: {source name: {version: n}}}."""
    result, _ = run_dbt(build, ["parse"])
    if not result.success:
        raise ChangesError(
            f"--same-inputs: dbt parse failed in {build.project_dir}: "
            f"{result.exception or 'see dbt output above'}"
        )
    artifacts = load_artifacts(build.target_path, state, built=False)
    check_override(artifacts)
    requests = pin_requests(select_changes(artifacts), artifacts.current)
    pins: dict[str, Any] = {}
    if requests:
        found, _ = run_operation(
            operation, "table_diff.changes_source_pins", {"models": requests}, PINS_MARKER
        )
        pins = json.loads(found)
    command = ["build", "--select", "state:modified+", "--defer", "--state", str(state)]
    command += ["--vars", json.dumps({"table_diff_source_pins": pins})]
    result, _ = run_dbt(build, command)
    if result.exception is not None:
        raise ChangesError(
            f"--same-inputs: dbt build failed in {build.project_dir}: {result.exception}"
        )
    return pins
