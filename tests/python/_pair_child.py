"""Child process of test_killed_run.py: one JVM of its own, on its own metastore.

``python _pair_child.py CONF_JSON PROJECT_DIR [steps]``, the steps run in this order:

* ``--read SUMMARY_RELATION``: the pair as :func:`dbt_table_diff.report.read.read_pair` reads it
  (the state the previous child left, before this one writes anything), with each table's format,
  current Delta version and the run ids on its rows (the row diff's rows too), the tables the
  package's materialization left aside (``__td_``), and the run history (``table_diff_runs``:
  status, unfinished) beside it;
* ``--reader MODEL``: a build of MODEL, a model reading the pair through
  ``table_diff.pair_output``, and its rows (``id``, ``diff_type``);
* ``--sql STMT`` (repeatable): statements before the builds;
* ``--build``: one complete ``dbt build --select SELECT``; ``--read-after-build SUMMARY`` reads
  the pair then (and MODEL's rows, with ``--reader``);
* ``--probe-vars JSON --probe-select SEL``: a build that is expected to fail (its messages);
  ``--read-after-probe SUMMARY`` reads the pair then;
* ``--then-sql STMT`` (repeatable);
* ``--kill-at MODEL --delay S [--kill-select SEL]``: a build (of ``--kill-select``, default
  ``--select``) during which the whole process group is SIGKILLed S seconds after MODEL starts
  (the JVM included, as a killed CI job or an OOM killer would). The models that finished before
  the kill are reported as they finish.

Every result is one JSON line on stdout (``{"step": ..., ...}``), flushed at once so that lines
printed before a kill reach the parent.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading

PAIR_TABLES = ("ranges", "block_hashes", "block_split", "row_diff", "column_stats", "summary")


def emit(step: str, **data) -> None:
    print(json.dumps({"step": step, **data}, default=str), flush=True)


def table_state(spark, relation: str) -> dict:
    """Format (provider), current Delta version and the run ids its rows carry (read as it is,
    not through the summary) of a table, or {'missing': True}; a row diff's rows too."""
    if not spark.catalog.tableExists(relation):
        return {"missing": True}
    rows = spark.sql(f"describe table extended {relation}").collect()
    provider = next(
        (r.data_type.strip().lower() for r in rows if r.col_name.strip() == "Provider"), None
    )
    version = None
    if provider == "delta":
        version = int(spark.sql(f"describe history {relation} limit 1").collect()[0][0])
    state: dict = {"format": provider, "version": version}
    df = spark.table(relation)
    if "run_id" in df.columns:
        state["run_ids"] = sorted((r[0] for r in df.select("run_id").distinct().collect()), key=str)
    if relation.endswith("__row_diff"):
        state["rows"] = sorted([r["id"], r["diff_type"]] for r in df.collect())
    return state


def read(spark, summary_relation: str) -> dict:
    from dbt_table_diff.report.read import read_pair
    from dbt_table_diff.split import StaleRunError

    prefix = summary_relation.removesuffix("__summary")
    state = {t: table_state(spark, f"{prefix}__{t}") for t in PAIR_TABLES}
    state["history"] = table_state(spark, f"{prefix.rsplit('.', 1)[0]}.table_diff_run_history")
    schema = summary_relation.rsplit(".", 1)[0]
    # What the package's materialization writes aside before it renames (ADR 0032), if left.
    aside = sorted(t.name for t in spark.catalog.listTables(schema) if "__td_" in t.name)
    # The run history beside the pair: one row per run (the view folds `running` rows).
    runs = [
        [r["status"], r["finished_at"] is None]
        for r in spark.table(f"{schema}.table_diff_runs").orderBy("recorded_at").collect()
    ]
    try:
        summary, rows = read_pair(spark, summary_relation, limit=10000)
    except StaleRunError as exc:
        return {"stale": str(exc), "tables": state, "runs": runs, "aside": aside}
    keep = (
        "status",
        "run_id",
        "rows_added",
        "rows_deleted",
        "rows_modified",
        "rows_source",
        "rows_target",
        *(f"{t}_version" for t in PAIR_TABLES[:-1]),
    )
    from dbt_table_diff.report.html import build_report

    return {
        "summary": {k: summary.get(k) for k in keep},
        "rows": sorted([r["id"], r["diff_type"]] for r in rows),
        "tables": state,
        "runs": runs,
        "aside": aside,
        # The HTML report's block map reads ranges, block hashes and split beyond read_pair.
        "block_map": json.loads(
            json.dumps(build_report(spark, summary_relation)["block_map"], default=str)
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("conf")
    parser.add_argument("project")
    parser.add_argument("--sql", action="append", default=[])
    parser.add_argument("--read")
    parser.add_argument("--reader")
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--read-after-build")
    parser.add_argument("--probe-vars")
    parser.add_argument("--probe-select")
    parser.add_argument("--read-after-probe")
    parser.add_argument("--then-sql", action="append", default=[])
    parser.add_argument("--kill-at")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--select", default="+pair__summary")
    parser.add_argument("--kill-select")
    args = parser.parse_args()

    from dbt_table_diff.session_submission import get_session

    spark = get_session(json.loads(args.conf))
    spark.sparkContext.setLogLevel("ERROR")

    from dbt.cli.main import dbtRunner
    from dbt_common.tests import enable_test_caching

    enable_test_caching()  # as conftest: several invocations here parse the same macros
    common = ["--project-dir", args.project, "--profiles-dir", args.project]
    if args.read:
        emit("read", **read(spark, args.read))

    def reader_rows() -> list:
        schema = (args.read or args.read_after_build).split(".")[0]  # the pair's schema
        table = spark.table(f"{schema}.{args.reader}")
        return sorted([r["id"], r["diff_type"]] for r in table.collect())

    if args.reader:
        result = dbtRunner().invoke(["build", "--select", args.reader, *common])
        emit("reader", success=bool(result.success), rows=reader_rows() if result.success else None)
    for stmt in args.sql:
        spark.sql(stmt)
    if args.build:
        result = dbtRunner().invoke(["build", "--select", args.select, *common])
        emit("build", success=bool(result.success))
        if not result.success:
            return 1
        if args.read_after_build:
            emit("read_after_build", **read(spark, args.read_after_build))
            if args.reader:
                emit("reader_after_build", rows=reader_rows())
    if args.probe_vars:
        messages: list[str] = []

        def collect(event) -> None:
            msg = getattr(event.info, "msg", None)
            if msg and event.info.level in ("error", "warn"):
                messages.append(str(msg))

        result = dbtRunner(callbacks=[collect]).invoke(
            ["build", "--select", args.probe_select, "--vars", args.probe_vars, *common]
        )
        node_messages = [
            str(r.message) for r in getattr(result.result, "results", None) or [] if r.message
        ]
        emit("probe", success=bool(result.success), messages=node_messages + messages)
        if args.read_after_probe:
            emit("read_after_probe", **read(spark, args.read_after_probe))
    for stmt in args.then_sql:
        spark.sql(stmt)
    if args.kill_at:

        def kill() -> None:
            sys.stdout.flush()
            os.killpg(os.getpgid(0), signal.SIGKILL)

        def callback(event) -> None:
            name = event.info.name
            if name not in ("NodeStart", "NodeFinished"):
                return
            node = event.data.node_info.node_name
            if name == "NodeFinished":
                emit("finished", model=node, status=event.data.node_info.node_status)
            elif node == args.kill_at:
                threading.Timer(args.delay, kill).start()

        select = args.kill_select or args.select
        dbtRunner(callbacks=[callback]).invoke(["build", "--select", select, *common])
        emit("error", message=f"{args.kill_at} never started: nothing was killed")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
