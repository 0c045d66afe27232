"""``table-diff preview PAIR``: a pair's cost before anything is scanned.

Runs ``dbt run-operation table_diff.preview_pair --args "{pair: PAIR}"`` in this process (the
macro reads only catalog statistics, EXPLAIN COST and partition listings) and prints its readable
report, or with ``--json`` the report itself.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from dbt_table_diff.cli.project import ReportError, project_dirs

JSON_MARKER = "table_diff.preview_pair json: "


def add(sub) -> None:
    preview = sub.add_parser(
        "preview",
        help="a pair's cost before anything is scanned (statistics and EXPLAIN COST only)",
        description="Estimated rows and bytes per side, blocks and leaves, the passes a run makes "
        "over each side (identical, few or many leaves differing; with and without the quick "
        "check) and warnings, from catalog statistics and EXPLAIN COST only: "
        "dbt run-operation table_diff.preview_pair, run here.",
    )
    preview.add_argument("pair", help="the pair's name (its models are PAIR__ranges ...)")
    preview.add_argument(
        "--project-dir",
        help="dbt project (default: the current directory if it is one, else the demo project)",
    )
    preview.add_argument("--profiles-dir", help="default: the project's, else dbt's own default")
    preview.add_argument("--target", help="profile target (default: the profile's)")
    preview.add_argument("--json", action="store_true", help="print the report as JSON")


def preview(args) -> int:
    # dbt's command line on use only: half a second more at every start of the CLI otherwise.
    from dbt.cli.main import dbtRunner

    project, profiles = project_dirs(args)
    common = ["--project-dir", str(project)]
    if profiles is not None:
        common += ["--profiles-dir", str(profiles)]
    if args.target:
        common += ["--target", args.target]
    messages: list[str] = []

    def collect(event: Any) -> None:
        msg = getattr(getattr(event, "info", None), "msg", None)
        if msg:
            messages.append(str(msg))

    run = dbtRunner(callbacks=[collect]).invoke(
        [
            "run-operation",
            "table_diff.preview_pair",
            "--args",
            json.dumps({"pair": args.pair}),
            "--quiet",
            *common,
        ]
    )
    found = [m[len(JSON_MARKER) :] for m in messages if m.startswith(JSON_MARKER)]
    if not run.success or not found:
        errors = [m for m in messages if "table_diff." in m and "invalid" in m]
        reason = errors[-1] if errors else str(run.exception or "see dbt's output above")
        raise ReportError(f"the preview of {args.pair} failed: {reason}")
    if args.json:
        print(json.dumps(json.loads(found[-1]), indent=2))
    else:
        print(next(m for m in messages if m.startswith(f"table_diff.preview_pair {args.pair}:")))
    return 0


def run(args) -> int:
    try:
        return preview(args)
    except ReportError as exc:
        print(f"table-diff preview: {exc}", file=sys.stderr)
        return 2
