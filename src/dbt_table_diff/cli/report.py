"""`table-diff report`: report.json and report.html of a pair's last result, and its summary
as text.

Which pair to read, with errors that say the fix; the report itself is
:mod:`dbt_table_diff.report.html`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from dbt_table_diff.cli.project import ReportError, project_dirs
from dbt_table_diff.report.html import REPORT_STEPS, build_report, write_report
from dbt_table_diff.report.read import read_pair
from dbt_table_diff.report.text import format_summary
from dbt_table_diff.session_submission import get_session


def non_negative_int(value: str) -> int:
    """argparse type of --sample-rows: a whole number >= 0."""
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"invalid count '{value}': expected a whole number >= 0")
    return int(value)


def pair_summaries(manifest) -> dict[str, str]:
    """Pair name -> relation of its summary, for every model built by table_diff.diff_summary."""
    out = {}
    for node in manifest.nodes.values():
        if node.resource_type != "model" or not node.name.endswith("__summary"):
            continue
        if "macro.table_diff.diff_summary" in (node.depends_on.macros or []):
            out[node.name.removesuffix("__summary")] = node.relation_name
    return out


def last_run_built(project: Path) -> set[str]:
    """Names of the nodes the project's last dbt invocation built (target/run_results.json)."""
    path = project / "target" / "run_results.json"
    if not path.exists():
        return set()
    return {
        r["unique_id"].rsplit(".", 1)[-1]
        for r in json.loads(path.read_text()).get("results", [])
        if r.get("status") == "success"
    }


def choose_pair(requested: str | None, pairs: dict[str, str], last_run: list[str], where) -> str:
    """--pair when given; else the one pair the last invocation built; else the project's only
    pair. Anything else is a ReportError naming what was looked for and the fix."""
    found = ", ".join(sorted(pairs)) or "none"
    if requested:
        if requested not in pairs:
            raise ReportError(
                f"no pair '{requested}' in {where}: looked for a model {requested}__summary built "
                f"by table_diff.diff_summary (pairs found: {found}). Scaffold it with "
                f"`table-diff scaffold pair {requested} ...` or pass one of those to --pair."
            )
        return requested
    if len(last_run) == 1:
        return last_run[0]
    if len(pairs) == 1:
        return next(iter(pairs))
    if not pairs:
        raise ReportError(
            f"no pair found in {where}: looked for models NAME__summary built by "
            "table_diff.diff_summary. Scaffold one (`table-diff scaffold pair NAME --source ... "
            "--target ... --primary-key ...`), build it (`dbt build --select +NAME__summary`), "
            "then run `table-diff report` again."
        )
    recent = f" (the last dbt run built {', '.join(last_run)})" if last_run else ""
    raise ReportError(
        f"{len(pairs)} pairs in {where}{recent}: pass one with --pair NAME. Pairs: {found}."
    )


def report(args) -> int:
    project, profiles = project_dirs(args)
    built = last_run_built(project)  # before dbt runs here: an invocation may rewrite it
    common = ["--project-dir", str(project)]
    if profiles is not None:
        common += ["--profiles-dir", str(profiles)]
    if args.target:
        common += ["--target", args.target]
    # dbt's command line on use only: half a second more at every start of the CLI otherwise.
    from dbt.cli.main import dbtRunner

    with tqdm(total=REPORT_STEPS + 2, desc="parsing the dbt project", unit="step") as bar:
        parsed = dbtRunner().invoke(["parse", "--quiet", *common])
        if not parsed.success or parsed.result is None:
            raise ReportError(f"`dbt parse` of {project} failed (see above); fix the project first")
        pairs = pair_summaries(parsed.result)
        last_run = sorted(p for p in pairs if f"{p}__summary" in built)
        pair = choose_pair(args.pair, pairs, last_run, f"the dbt project {project}")
        bar.set_description("opening the Spark session of the profile")
        bar.update(1)
        # dbt-spark `method: session` builds the SparkSession from the profile on first use; a
        # trivial query makes it, and the report then reads through the same session.
        shown = dbtRunner(manifest=parsed.result).invoke(
            ["show", "--log-level", "none", "--inline", "select 1 as ok", *common]
        )
        if not shown.success:
            raise ReportError(
                f"could not open the connection of the profile of {project}: "
                f"{shown.exception or 'dbt show failed'}. Check the profile with `dbt debug`."
            )
        spark = get_session()
        bar.update(1)
        bar.set_description("reading the pair")
        report = build_report(
            spark,
            pairs[pair],
            row_limit=args.row_limit,
            history_relation=args.history_table,
            progress=bar,
        )
    out = Path(args.out) if args.out else project / "target" / "table_diff_report" / pair
    json_path, html_path = write_report(report, out)
    print(f"table-diff report: {pair}: {report['verdict']}")
    for banner in report.get("banners", []):
        print(f"  {banner}")
    if report["state"] != "stale" and args.sample_rows > 0:
        summary, rows = read_pair(spark, pairs[pair], per_class=args.sample_rows)
        print(format_summary(summary, rows, list(summary["key_columns"]), args.sample_rows))
    print(f"wrote {json_path}\nwrote {html_path}")
    return 3 if report["state"] == "stale" else 0


def add(sub) -> None:
    report = sub.add_parser(
        "report",
        help="write report.json and a self-contained report.html of a pair's last result",
        description="Reads a pair's tables (only when they belong to one completed run) and the "
        "run history, and writes report.json and report.html (one file, opens offline). Exit 3 "
        "when the result is stale (the report then says why and how to rebuild).",
    )
    report.add_argument(
        "--project-dir",
        help="dbt project (default: the current directory if it is one, else the demo project)",
    )
    report.add_argument("--profiles-dir", help="default: the project's, else dbt's own default")
    report.add_argument("--target", help="profile target (default: the profile's)")
    report.add_argument(
        "--pair",
        help="pair name (default: the one pair the last dbt run built, or the project's only pair)",
    )
    report.add_argument("--out", help="output directory (default target/table_diff_report/PAIR)")
    report.add_argument(
        "--row-limit",
        type=int,
        default=1000,
        help="most differing rows shown (default 1000; the rest stay in NAME__row_diff)",
    )
    report.add_argument(
        "--sample-rows",
        type=non_negative_int,
        default=5,
        help="also print the summary with the first rows of each kind of change, by key "
        "(default 5; 0: print only the verdict)",
    )
    report.add_argument(
        "--history-table",
        help="run history relation (default: table_diff_run_history beside the pair's summary)",
    )


def run(args) -> int:
    try:
        return report(args)
    except ReportError as exc:
        print(f"table-diff report: {exc}", file=sys.stderr)
        return 2
