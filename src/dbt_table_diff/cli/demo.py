"""`table-diff demo`: build the demo pair of a table_diff clone on the embedded Spark and print its
summary."""

from __future__ import annotations

import sys
from pathlib import Path

from dbt_table_diff.cli.project import demo_spark_home, find_demo_project
from dbt_table_diff.cli.report import non_negative_int
from dbt_table_diff.report.text import print_summary
from dbt_table_diff.session_submission import get_session


def add(sub) -> None:
    demo = sub.add_parser(
        "demo", help="build the demo pair on the embedded Spark and print its summary"
    )
    demo.add_argument(
        "--project-dir", help="dbt project holding the demo pair (default: ./integration_tests)"
    )
    demo.add_argument("--pair", default="orders_diff", help="pair to build (default orders_diff)")
    demo.add_argument(
        "--sample-rows",
        type=non_negative_int,
        default=5,
        help="first rows shown of each kind of change, by key (default 5; 0: none)",
    )


def run(args) -> int:
    project = (
        Path(args.project_dir).resolve() if args.project_dir else find_demo_project(Path.cwd())
    )
    demo_spark_home(project)
    # dbt's command line on use only: half a second more at every start of the CLI otherwise.
    from dbt.cli.main import dbtRunner

    runner = dbtRunner()
    common = ["--project-dir", str(project), "--profiles-dir", str(project)]
    deps = runner.invoke(["deps", *common])
    if not deps.success:
        print("table-diff demo: `dbt deps` failed (see above).", file=sys.stderr)
        return 1
    build = runner.invoke(["build", "--select", f"+{args.pair}__summary", *common])
    if not build.success:
        print("table-diff demo: `dbt build` of the demo pair failed (see above).", file=sys.stderr)
        return 1
    relations = {
        r.node.name: r.node.relation_name
        for r in build.result.results
        if hasattr(r.node, "relation_name")
    }
    spark = get_session()
    print_summary(spark, relations[f"{args.pair}__summary"], sample_rows=args.sample_rows)
    return 0
