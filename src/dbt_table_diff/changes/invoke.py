"""The one dbt invocation of ``table-diff changes``, and the rows it leaves.

``dbt run-operation table_diff.diff_changes --args '{models: [...]}'`` runs in this process
(``dbtRunner``), so with dbt-spark ``method: session`` the macro's queries, its cached views and
the read of its results table share one SparkSession. It writes its artifacts to a target path
of its own, so the build's ``run_results.json`` (what this run built) is still there for a second
``table-diff changes``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt_table_diff.changes.artifacts import ChangesError

RESULTS_MARKER = "table_diff.diff_changes results: "
# The results table's columns holding JSON text.
JSON_COLUMNS = ("primary_key", "schema_changes", "column_changes", "samples", "inputs")


@dataclass(frozen=True)
class DbtOptions:
    """Where and how dbt runs: the project, its profiles, the profile target, the target path
    of the run-operation's own artifacts."""

    project_dir: Path
    profiles_dir: Path | None
    target: str | None
    target_path: Path

    def common_args(self) -> list[str]:
        args = ["--project-dir", str(self.project_dir), "--target-path", str(self.target_path)]
        if self.profiles_dir is not None:
            args += ["--profiles-dir", str(self.profiles_dir)]
        if self.target:
            args += ["--target", self.target]
        return args


def macro_args(
    entries: list[dict[str, Any]],
    run_id: str,
    sample_rows: int,
    max_diff_rows: int,
    results_schema: str | None,
) -> dict[str, Any]:
    return {
        "models": entries,
        "run_id": run_id,
        "sample_rows": sample_rows,
        "max_diff_rows": max_diff_rows,
        "results_schema": results_schema,
    }


def run_dbt(options: DbtOptions, command: list[str]) -> tuple[Any, list[str]]:
    """``dbt COMMAND`` in this process (its Spark session is this process's); dbt's result and
    every log message it emitted."""
    from dbt.cli.main import dbtRunner

    messages: list[str] = []

    def collect(event: Any) -> None:
        msg = getattr(getattr(event, "info", None), "msg", None)
        if msg:
            messages.append(str(msg))

    result = dbtRunner(callbacks=[collect]).invoke([*command, *options.common_args()])
    return result, messages


def run_operation(
    options: DbtOptions, macro: str, args: dict[str, Any], marker: str
) -> tuple[str, list[str]]:
    """``dbt run-operation MACRO --args ARGS``; the text after ``marker`` in the last log line
    that starts with it, and every log message."""
    result, messages = run_dbt(options, ["run-operation", macro, "--args", json.dumps(args)])
    found = [m[len(marker) :] for m in messages if m.startswith(marker)]
    if not result.success or not found:
        errors = [m for m in messages if "table_diff." in m and ("invalid" in m or "does not" in m)]
        reason = errors[-1] if errors else str(result.exception or "see dbt's output above")
        raise ChangesError(f"dbt run-operation {macro} failed in {options.project_dir}: {reason}")
    return found[-1], messages


def run_diff_changes(options: DbtOptions, args: dict[str, Any]) -> tuple[str, list[str]]:
    """Run the macro once; the results relation it names, and every log message dbt emitted."""
    found, messages = run_operation(options, "table_diff.diff_changes", args, RESULTS_MARKER)
    return found.split(" run_id ", 1)[0], messages


def read_results(spark: Any, relation: str, run_id: str, expected: int) -> list[dict[str, Any]]:
    """The run's rows of the results table, in the macro's order, JSON columns parsed."""
    quoted = run_id.replace("\\", "\\\\").replace("'", "\\'")
    try:
        frame = spark.sql(f"select * from {relation} where run_id = '{quoted}' order by position")
        rows = [row.asDict() for row in frame.collect()]
    except Exception as exc:  # noqa: BLE001 - pyspark's AnalysisException and py4j's errors
        raise ChangesError(
            f"the macro wrote {relation}, but this process's Spark session cannot read it "
            f"({str(exc).splitlines()[0]}): table-diff changes reads its results in-process, so "
            "the profile must be dbt-spark `method: session` (local Spark or a cluster). On "
            f"another connection, query {relation} where run_id = '{run_id}' yourself."
        ) from exc
    if len(rows) != expected:
        raise ChangesError(
            f"{relation} holds {len(rows)} rows of run {run_id}, not {expected}: another "
            "table-diff changes wrote it meanwhile. Run it again, one at a time per schema "
            "(or give each its own --results-schema)."
        )
    for row in rows:
        for column in JSON_COLUMNS:
            row[column] = json.loads(row[column]) if row[column] is not None else None
    return rows
