"""Child process of test_killed_run.py: one JVM of its own, on its own metastore.

``python _pair_child.py CONF_JSON PROJECT_DIR [--sql STMT]... [--build] [--kill-at MODEL
--delay S --sql-before-kill STMT]... [--read SUMMARY_RELATION]``

Statements run in order: ``--sql`` statements, then (with ``--build``) one complete ``dbt build``
of the pair, then the ``--then-sql`` statements, then (with ``--kill-at``) a second ``dbt build``
during which the whole process group is SIGKILLed ``--delay`` seconds after MODEL starts (the JVM
included, as a killed CI job or an OOM killer would), or (with ``--read``) the pair as
:func:`dbt_table_diff.report.read_pair` reads it, printed as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("conf")
    parser.add_argument("project")
    parser.add_argument("--sql", action="append", default=[])
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--then-sql", action="append", default=[])
    parser.add_argument("--kill-at")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--select", default="+pair__summary")
    parser.add_argument("--read")
    args = parser.parse_args()

    from dbt_table_diff.session_submission import get_session

    spark = get_session(json.loads(args.conf))
    for stmt in args.sql:
        spark.sql(stmt)

    from dbt.cli.main import dbtRunner

    common = ["--project-dir", args.project, "--profiles-dir", args.project]
    if args.build:
        result = dbtRunner().invoke(["build", "--select", args.select, *common])
        if not result.success:
            print(json.dumps({"error": "the complete build failed"}))
            return 1
    for stmt in args.then_sql:
        spark.sql(stmt)
    if args.kill_at:

        def kill() -> None:
            sys.stdout.flush()
            os.killpg(os.getpgid(0), signal.SIGKILL)

        def callback(event) -> None:
            if event.info.name == "NodeStart" and event.data.node_info.node_name == args.kill_at:
                threading.Timer(args.delay, kill).start()

        dbtRunner(callbacks=[callback]).invoke(["build", "--select", args.select, *common])
        print(json.dumps({"error": f"{args.kill_at} never started: nothing was killed"}))
        return 1
    if args.read:
        from dbt_table_diff.report import read_pair
        from dbt_table_diff.split import StaleRunError

        # The run history beside the pair: one row per run (the view folds `running` rows).
        schema = args.read.rsplit(".", 1)[0]
        runs = [
            [r["status"], r["finished_at"] is None]
            for r in spark.table(f"{schema}.table_diff_runs").orderBy("recorded_at").collect()
        ]
        try:
            summary, rows = read_pair(spark, args.read, limit=10000)
        except StaleRunError as exc:
            print(json.dumps({"stale": str(exc), "runs": runs}))
            return 0
        out = {
            "runs": runs,
            "summary": {
                k: summary[k]
                for k in (
                    "status",
                    "rows_added",
                    "rows_deleted",
                    "rows_modified",
                    "rows_source",
                    "rows_target",
                )
            },
            "rows": sorted([r["id"], r["diff_type"]] for r in rows),
        }
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
