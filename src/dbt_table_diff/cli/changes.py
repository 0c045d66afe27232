"""``table-diff changes --state PROD_ARTIFACTS``: what this run's build did to the data.

Run after ``dbt build --select state:modified+ --defer --state PROD_ARTIFACTS`` in the same
project (or with ``--same-inputs``, which runs that build itself from the source versions
production read): reads the two manifests and the build's run_results.json (which models are new,
modified or downstream, and their keys), runs ``table_diff.diff_changes`` once in this process,
reads its rows through the same Spark session, and writes ``changes.md`` (a pull-request comment
under GitHub's limit), ``changes.json`` and ``changes.html`` (a section per model). Exit 0, or 1
when ``--fail-on`` names a kind of change found, 2 on bad input (the message says the fix).
ADRs 0042, 0043; docs/ci.md.
"""

from __future__ import annotations

import sys
import uuid
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from dbt_table_diff.changes.artifacts import ChangesError, load_artifacts
from dbt_table_diff.changes.html import render_html
from dbt_table_diff.changes.invoke import DbtOptions, macro_args, read_results, run_diff_changes
from dbt_table_diff.changes.plan import build_plan
from dbt_table_diff.changes.render import GITHUB_COMMENT_LIMIT, render_json, render_markdown
from dbt_table_diff.changes.report import FAIL_ON, build_report, parse_fail_on
from dbt_table_diff.changes.same_inputs import same_inputs_build
from dbt_table_diff.changes.selection import select_changes, use_project_flags
from dbt_table_diff.cli.report import non_negative_int
from dbt_table_diff.session_submission import get_session


def add(sub) -> None:
    changes = sub.add_parser(
        "changes",
        help="what this run's build did to each changed model, against production",
        description="Run after `dbt build --select state:modified+ --defer --state DIR`: every "
        "model this run built that is new, modified or downstream of one is compared with the "
        "relation production's manifest names (schema, row counts, added / deleted / modified "
        "rows by key, or rows only on one side without a key), in one dbt run-operation. Writes "
        "changes.md (a PR comment under GitHub's limit) and changes.json. Exit 1 when --fail-on "
        "trips, 2 on bad input.",
    )
    changes.add_argument(
        "--state",
        help="directory of production's dbt artifacts (its manifest.json), as given to "
        "`dbt build --defer --state`",
    )
    changes.add_argument("--project-dir", help="dbt project (default: the current directory)")
    changes.add_argument("--profiles-dir", help="default: the project's, else dbt's own default")
    changes.add_argument("--target", help="profile target of this run (default: the profile's)")
    changes.add_argument(
        "--target-path", help="where this run's build left its artifacts (default PROJECT/target)"
    )
    changes.add_argument("--out", default=".", help="where to write changes.md and changes.json")
    changes.add_argument(
        "--fail-on",
        default="",
        help=f"exit 1 when any model shows one of these (comma-separated: {', '.join(FAIL_ON)}); "
        "default: none fails",
    )
    changes.add_argument(
        "--sample-rows",
        type=non_negative_int,
        default=5,
        help="rows shown of each kind of change per model (default 5; 0: none)",
    )
    changes.add_argument(
        "--max-diff-rows",
        type=non_negative_int,
        default=100000,
        help="most differing rows fetched per model (default 100000; beyond: partial counts)",
    )
    changes.add_argument(
        "--results-schema", help="schema of the table_diff_changes table (default: the target's)"
    )
    changes.add_argument(
        "--same-inputs",
        action="store_true",
        help="run the build itself (dbt build --select state:modified+ --defer --state DIR), "
        "reading every Delta or Iceberg source at the version production read, so the diff "
        "shows what the code did, not what the data did since; the project's source() must call "
        "table_diff.pinned_source (docs/ci.md)",
    )
    changes.add_argument(
        "--report-url", help="where the full report will be (a CI artifact's link), for changes.md"
    )


def _project(args) -> tuple[Path, Path | None]:
    project = Path(args.project_dir or ".").resolve()
    if not (project / "dbt_project.yml").exists():
        raise ChangesError(
            f"{project} has no dbt_project.yml: run table-diff changes in the dbt project, or "
            "pass --project-dir."
        )
    if args.profiles_dir:
        return project, Path(args.profiles_dir).resolve()
    return project, project if (project / "profiles.yml").exists() else None


def changes(args) -> int:
    if not args.state:
        raise ChangesError(
            "--state is required: the directory holding production's manifest.json (the same "
            "one `dbt build --select state:modified+ --defer --state DIR` was given), e.g. "
            "table-diff changes --state prod-artifacts. docs/ci.md shows how CI fetches it."
        )
    fail_on = parse_fail_on(args.fail_on)
    if args.max_diff_rows < 1:
        raise ChangesError("--max-diff-rows must be at least 1")
    project, profiles = _project(args)
    use_project_flags(project, profiles)
    target_path = Path(args.target_path) if args.target_path else project / "target"
    target_path = target_path if target_path.is_absolute() else project / target_path
    state = Path(args.state)
    state = state if state.is_absolute() else (Path.cwd() / state)
    options = DbtOptions(project, profiles, args.target, target_path / "table_diff_changes")
    pins: dict = {}
    if args.same_inputs:
        pins = same_inputs_build(replace(options, target_path=target_path), options, state)
    artifacts = load_artifacts(target_path, state)
    selection = select_changes(artifacts)
    plan = build_plan(selection, artifacts.current, pins)
    for key in plan.keys.values():
        if key.note:
            print(f"table-diff changes: {key.note}", file=sys.stderr)
    run_id = f"changes-{uuid.uuid4().hex[:12]}"
    rows = []
    if plan.entries:
        call = macro_args(
            plan.entries, run_id, args.sample_rows, args.max_diff_rows, args.results_schema
        )
        relation, _ = run_diff_changes(options, call)
        rows = read_results(get_session(), relation, run_id, len(plan.entries))
    context = {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "run_id": run_id,
        "state": str(args.state),
        "project": str(project),
        "same_inputs": bool(args.same_inputs),
    }
    report = build_report(plan, rows, fail_on, context)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "changes.json").write_text(render_json(report), encoding="utf-8")
    markdown = render_markdown(
        report, GITHUB_COMMENT_LIMIT, full_report=args.report_url, samples=args.sample_rows
    )
    (out / "changes.md").write_text(markdown, encoding="utf-8")
    (out / "changes.html").write_text(render_html(report), encoding="utf-8")
    for m in report["models"]:
        print(f"  {m['name']:<40} {m['change']:<10} {m['verdict']}")
    for name in ("changes.md", "changes.json", "changes.html"):
        print(f"wrote {out / name}")
    if report["failed"]:
        for kind, names in report["failures"].items():
            print(f"table-diff changes: --fail-on {kind}: {', '.join(names)}", file=sys.stderr)
        return 1
    return 0


def run(args) -> int:
    try:
        return changes(args)
    except ChangesError as exc:
        print(f"table-diff changes: {exc}", file=sys.stderr)
        return 2
