"""Per-model profile of one whole `dbt build` process: dbt's own timing of each node beside what
Spark did for it, read from Spark's event log.

    profile = model_profile(project / "target" / "run_results.json", event_log_file)

dbt's `run_results.json` gives each node's wall seconds and its compile and execute phases, with
their clock times. Spark's event log (`spark.eventLog.enabled`) gives every SQL execution's start
and end, the jobs it ran and, per stage, the rows and bytes read from files, the bytes shuffled and
the executors' run time. A SQL execution belongs to the node whose compile or execute phase it ran
in (dbt runs one node at a time with `threads: 1`); one that ran in no node's phase ran in dbt's
start, the package's hooks or between nodes, and is counted under `(outside nodes)`.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

OUTSIDE = "(outside nodes)"
# Stage accumulables (Spark's task metrics summed over a stage's tasks) kept per node.
METRICS = {
    "internal.metrics.input.recordsRead": "input_rows",
    "internal.metrics.input.bytesRead": "input_bytes",
    "internal.metrics.shuffle.write.bytesWritten": "shuffle_write_bytes",
    "internal.metrics.executorRunTime": "task_ms",
}


def _epoch_ms(stamp: str) -> float:
    """dbt's ISO timestamps (UTC, with or without a trailing Z) as epoch milliseconds."""
    parsed = datetime.fromisoformat(stamp.rstrip("Z"))
    return parsed.replace(tzinfo=timezone.utc).timestamp() * 1000


def node_phases(run_results: Path) -> list[dict[str, Any]]:
    """Each node of a dbt invocation: its name, status, wall seconds and phases' clock times."""
    results = json.loads(run_results.read_text())["results"]
    nodes = []
    for r in results:
        phases = {
            t["name"]: (_epoch_ms(t["started_at"]), _epoch_ms(t["completed_at"]))
            for t in r.get("timing", [])
            if t.get("started_at") and t.get("completed_at")
        }
        nodes.append(
            {
                "node": r["unique_id"].split(".")[-1],
                "status": r["status"],
                "seconds": r["execution_time"],
                "phases": phases,
            }
        )
    return nodes


def sql_executions(event_log: Path) -> list[dict[str, Any]]:
    """Every SQL execution of an event log: its start and end (epoch ms), its stages' metrics."""
    executions: dict[int, dict[str, Any]] = {}
    stage_execution: dict[int, int] = {}
    with event_log.open() as lines:
        for line in lines:
            event = json.loads(line)
            kind = event["Event"].rsplit(".", 1)[-1]
            if kind == "SparkListenerSQLExecutionStart":
                executions[event["executionId"]] = {
                    "start": event["time"],
                    "end": None,
                    "jobs": 0,
                    **dict.fromkeys(METRICS.values(), 0),
                }
            elif kind == "SparkListenerSQLExecutionEnd":
                if event["executionId"] in executions:
                    executions[event["executionId"]]["end"] = event["time"]
            elif kind == "SparkListenerJobStart":
                execution = (event.get("Properties") or {}).get("spark.sql.execution.id")
                if execution is not None and int(execution) in executions:
                    executions[int(execution)]["jobs"] += 1
                    for stage in event.get("Stage IDs", []):
                        stage_execution[stage] = int(execution)
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                execution = stage_execution.get(info["Stage ID"])
                if execution is None:
                    continue
                for acc in info.get("Accumulables", []):
                    key = METRICS.get(acc.get("Name"))
                    if key:
                        executions[execution][key] += int(acc.get("Value") or 0)
    return [e for e in executions.values() if e["end"] is not None]


def model_profile(run_results: Path, event_log: Path) -> list[dict[str, Any]]:
    """One row per node (then one for what ran outside every node): dbt's wall, compile and
    execute seconds, Spark's SQL executions in it, their seconds, rows and bytes read from files,
    bytes shuffled and executor task seconds."""
    nodes = node_phases(run_results)
    counters = {"sql": 0, "sql_s": 0.0, "jobs": 0, **dict.fromkeys(METRICS.values(), 0)}
    rows = {
        n["node"]: {
            "node": n["node"],
            "seconds": n["seconds"],
            **{
                f"{name}_s": (end - start) / 1000
                for name, (start, end) in n["phases"].items()
                if name in ("compile", "execute")
            },
            **counters,
        }
        for n in nodes
    }
    rows[OUTSIDE] = {"node": OUTSIDE, **counters}
    for e in sql_executions(event_log):
        owner = next(
            (
                n["node"]
                for n in nodes
                for start, end in n["phases"].values()
                if start <= e["start"] <= end
            ),
            OUTSIDE,
        )
        row = rows[owner]
        row["sql"] += 1
        row["sql_s"] += (e["end"] - e["start"]) / 1000
        row["jobs"] += e["jobs"]
        for key in METRICS.values():
            row[key] += e[key]
    return list(rows.values())


def profile_table(profile: list[dict[str, Any]]) -> list[str]:
    """The profile as Markdown table lines. Bytes read stay in the JSON only: Spark's local file
    scans report a fraction of them (Hadoop's per-thread statistics), rows read are exact."""
    lines = [
        "| node | wall s | compile s | execute s | SQL statements | their s | jobs "
        "| rows read | MB shuffled | task s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in profile:
        dbt = [f"{r[k]:.1f}" if k in r else "-" for k in ("seconds", "compile_s", "execute_s")]
        lines.append(
            f"| {r['node']} | {' | '.join(dbt)} "
            f"| {r['sql']} | {r['sql_s']:.1f} | {r['jobs']} | {r['input_rows']:,} "
            f"| {r['shuffle_write_bytes'] / 1e6:,.0f} "
            f"| {r['task_ms'] / 1000:.1f} |"
        )
    return lines


def latest_event_log(directory: Path) -> Path:
    """The newest event log file Spark wrote into ``directory``."""
    logs = sorted(
        (p for p in directory.iterdir() if p.is_file() and not p.name.endswith(".inprogress")),
        key=lambda p: p.stat().st_mtime,
    )
    if not logs:
        raise FileNotFoundError(f"no Spark event log in {directory}")
    return logs[-1]
