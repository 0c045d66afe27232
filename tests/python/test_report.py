"""What users look at (ADR 0016): the run history a package hook keeps, and `table-diff report`.

One small dbt project with the package installed: a pair ``rp`` (400 keys; 8 modified, 1 deleted,
1 added) and a ``no_drift`` test on the same two models. The tests run in file order on it:

1. ``dbt build`` records one history row for the pair and one for the test, with their counts;
2. the report of that run (report.json, report.html) says DIFFERENT, maps the blocks, highlights
   the changed cells and draws the history; headless Chromium shows them (screenshots kept in
   tests/output/: report_complete.png, report_stale.png);
3. the pair's row diff then fails: a ``failed`` row is added, the completed one stays, and the
   report of the half-replaced pair is STALE, never a diff;
4. ``vars: {table_diff_history: false}`` records nothing.
"""

from __future__ import annotations

import datetime
import json
import random
import statistics

import pytest
import yaml
from conftest import OUTPUT

from dbt_table_diff.cli.project import ReportError
from dbt_table_diff.cli.report import choose_pair
from dbt_table_diff.report.html import (
    block_map,
    build_report,
    render_html,
    result_state,
    trend,
    write_report,
)
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair

SOURCE = """
select id, concat('name ', id) as name, cast(id * 1.25 as decimal(12, 2)) as amount
from range(1, 401) as r(id)
"""
TARGET = """
select id, if(id % 50 = 0, concat('renamed ', id), concat('name ', id)) as name,
  cast(id * 1.25 as decimal(12, 2)) as amount
from range(1, 402) as r(id)
where id != 7
"""
MODIFIED = [50, 100, 150, 200, 250, 300, 350, 400]


@pytest.fixture(scope="module")
def project(dbt_project_factory):
    files = {"models/src.sql": SOURCE, "models/tgt.sql": TARGET}
    opts = PairOptions(
        name="rp",
        source="ref('src')",
        target="ref('tgt')",
        primary_key=("id",),
        block_count=8,
        compare_unit_size=10,
        max_depth=1,
    )
    for file_name, content in render_pair(opts).items():
        files[f"models/rp/{file_name}"] = content
    files["models/tests.yml"] = """version: 2
models:
  - name: src
    data_tests:
      - table_diff.no_drift:
          name: drift_rp
          arguments:
            compare_to: ref('tgt')
            primary_key: id
          config:
            severity: warn  # a failing test would skip the pair's models in `dbt build`
"""
    return dbt_project_factory(
        "report",
        files=files,
        packages=True,
        project_config={
            "models": {"report": {"+materialized": "table"}},
            "vars": {"table_diff_file_format": "parquet", "table_diff_pair_status": True},
        },
    )


def _history(project, relation: str = "table_diff_runs") -> list[dict]:
    """One row per run (the view that folds a run's `running` row into its final one); with
    relation="table_diff_run_history", every row the hooks appended."""
    df = project.spark.table(project.relation(relation))
    return [r.asDict() for r in df.orderBy("recorded_at", "kind", "name").collect()]


@pytest.fixture(scope="module")
def first_build(project):
    run = project.run("build")
    # The pair builds; the no_drift test warns, since the sides differ.
    assert run.status("rp__summary") == "success", run.describe()
    assert run.status("drift_rp") == "warn", run.describe()
    return run


def test_history_records_the_pair_run_and_the_no_drift_run(project, first_build):
    rows = _history(project)
    assert [(r["kind"], r["name"]) for r in rows] == [("no_drift", "drift_rp"), ("pair", "rp")]
    test, pair = rows
    summary = project.spark.table(project.relation("rp__summary")).first().asDict()
    assert pair["status"] == "completed" and pair["outcome"] == "success"
    assert pair["invocation_id"] == summary["run_id"] == test["invocation_id"]
    for column in ("rows_source", "rows_target", "blocks_total", "blocks_mismatched"):
        assert pair[column] == summary[column], column
    assert (pair["rows_added"], pair["rows_deleted"], pair["rows_modified"]) == (1, 1, 8)
    assert pair["duplicate_key_rows"] == 0 and pair["message"] is None
    assert pair["source_relation"] == summary["source_relation"]
    assert pair["hash_spec_version"] == 1 and json.loads(pair["options"])["key"]
    assert pair["started_at"] < pair["finished_at"] and pair["seconds"] > 0
    # The test: dbt's outcome 'warn', and the counts it found.
    assert test["status"] == "completed" and test["outcome"] == "warn"
    assert (test["rows_source"], test["rows_target"]) == (400, 400)
    assert (test["rows_added"], test["rows_deleted"], test["rows_modified"]) == (1, 1, 8)
    assert test["blocks_mismatched"] > 0 and "10" in test["message"]  # dbt's "Got 10 results"
    assert [k["name"] for k in json.loads(pair["options"])["key"]] == ["id"]
    assert json.loads(test["options"])["key"] == ["id"]
    assert test["target_relation"].endswith("tgt") and test["seconds"] >= 0
    # Before any node ran, the on-run-start hook appended a `running` row for each: a run killed
    # before dbt's on-run-end would still say it started.
    raw = _history(project, "table_diff_run_history")
    running = [r for r in raw if r["status"] == "running"]
    assert [(r["kind"], r["name"]) for r in running] == [("no_drift", "drift_rp"), ("pair", "rp")]
    for started in running:
        assert started["invocation_id"] == pair["invocation_id"]
        assert started["finished_at"] is None and started["rows_added"] is None
        assert started["started_at"] <= pair["started_at"]
        assert started["recorded_at"] < min(pair["recorded_at"], test["recorded_at"])
    assert len(raw) == 4


def test_status_built_with_the_pairs_sees_their_runs_unfinished(project, first_build):
    """ADR 0037: the pair status model built in the invocation that ran the pair sees the pair's
    `running` row only (its final row lands in on-run-end): no verdict, an unfinished start."""
    assert first_build.status("table_diff_pair_status") == "success", first_build.describe()
    status = project.spark.table(project.relation("table_diff_pair_status"))
    rows = {r["name"]: r.asDict() for r in status.collect()}
    assert set(rows) == {"rp", "drift_rp"}
    assert rows["rp"]["finished_runs"] == 0 and rows["rp"]["last_verdict"] is None
    assert rows["rp"]["unfinished_started_at"] is not None
    assert rows["rp"]["drift_trend"] == rows["rp"]["cost_trend"] == "unknown"


def test_long_steps_log_progress(first_build):
    """What a person watching `dbt build` sees: the layout, each split level, the rows to fetch."""
    log = first_build.log
    assert "table_diff.key_ranges: " in log and " leaves (strategy range)" in log, log[-3000:]
    assert "table_diff split rp" in log or "level 0: blocks in 8" in log, log[-3000:]
    assert "level 1: blocks in" in log, log[-3000:]
    assert "table_diff.row_diff: " in log and "fetching the rows of 9 compare units" in log
    assert "table_diff: recorded 2 run(s) in " in log


PIPELINE = ("ranges", "block_hashes", "block_split", "row_diff", "column_stats", "summary")


def test_dbt_docs_lineage_and_descriptions_of_the_pipeline(project, first_build):
    """`dbt docs generate` on the scaffolded pair: the lineage is source/target -> ranges ->
    block_hashes -> block_split -> row_diff -> column_stats -> summary, and every model and every
    column the warehouse holds (but the per-column values of the row diff) has a description."""
    project.run("docs", "generate", "--select", "+rp__summary").assert_success()
    manifest = json.loads((project.root / "target" / "manifest.json").read_text())
    catalog = json.loads((project.root / "target" / "catalog.json").read_text())
    prefix = f"model.{project.name}."
    parents = {model: set(manifest["parent_map"][f"{prefix}rp__{model}"]) for model in PIPELINE}
    chain = [f"{prefix}src", f"{prefix}tgt", *(f"{prefix}rp__{m}" for m in PIPELINE)]
    assert {chain[0], chain[1]} <= parents["ranges"]
    for model, upstream in zip(PIPELINE[1:], PIPELINE, strict=False):
        assert f"{prefix}rp__{upstream}" in parents[model], (model, parents[model])
    assert {chain[0], chain[1]} <= parents["row_diff"]  # the row fetch reads both sides again
    for model in PIPELINE:
        node = manifest["nodes"][f"{prefix}rp__{model}"]
        assert node["description"].strip(), f"rp__{model} has no description"
        documented = {c for c, v in node["columns"].items() if v["description"].strip()}
        in_table = set(catalog["nodes"][f"{prefix}rp__{model}"]["columns"])
        if model == "row_diff":
            in_table = {c for c in in_table if not c.startswith(("source__", "target__"))}
        assert in_table and in_table <= documented, (model, sorted(in_table - documented))


@pytest.fixture(scope="module")
def complete_report(project, first_build, tmp_path_factory):
    # The status the first build made saw the pair's run unfinished (its final row lands in
    # on-run-end): rebuilt, it sees the run as the report does.
    project.run("run", "--select", "table_diff_pair_status").assert_success()
    report = build_report(project.spark, project.relation("rp__summary"), row_limit=5)
    out = tmp_path_factory.mktemp("report_complete")
    json_path, html_path = write_report(report, out)
    return report, json_path, html_path


def test_report_of_a_complete_pair(complete_report):
    report, json_path, html_path = complete_report
    assert json.loads(json_path.read_text())["verdict"] == "DIFFERENT"
    assert report["state"] == "complete" and report["banners"] == []
    m = report["block_map"]
    assert m["leaf_counts"]["mismatched"] >= 1 and m["leaf_counts"]["matched"] >= 1
    assert sum(m["leaf_counts"].values()) == m["leaves_total"] == len(m["cells"])
    # Capped at row_limit=5 of the 10 differing rows, and said so.
    assert report["diff_rows_total"] == 10 and report["diff_rows_shown"] == 5
    assert report["diff_rows_capped"]
    modified = [r for r in report["diff"]["rows"] if r["diff_type"] == "modified"]
    assert modified, report["diff"]["rows"]
    changed = [c for c in modified[0]["cells"] if c["changed"]]
    key = int(modified[0]["key"][0])
    assert key in MODIFIED
    assert changed == [{"changed": True, "old": f"name {key}", "new": f"renamed {key}"}]
    assert [p["status"] for p in report["trend"]["points"]] == ["completed"]
    status = report["status"]
    assert status["last_verdict"] == "different" and status["last_differing_rows"] == 10
    assert status["finished_runs"] == status["runs_since_identical"] == 1
    assert status["last_identical_at"] is None and status["unfinished_started_at"] is None
    html = html_path.read_text()
    assert "never identical in 1 run;" in html, html
    assert "Showing the first 5 of 10 differing rows" in html
    # One file: nothing loaded from elsewhere (no script, stylesheet, image or frame sources).
    assert not any(tag in html for tag in ("<script", "<link", "src=", "href=", "@import"))


def test_cli_report_finds_the_pair_and_writes_both_files(project, first_build, tmp_path, capsys):
    """`table-diff report` as a user runs it: dbt parses the project, the profile's session opens
    (here: the test session), the pair is found without --pair."""
    from conftest import restored_runtime_conf

    from dbt_table_diff import cli

    with restored_runtime_conf(project.spark):
        args = ["report", "--project-dir", str(project.root), "--out", str(tmp_path)]
        code = cli.main([*args, "--sample-rows", "2"])
        missing = cli.main([*args, "--pair", "nope"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "table-diff report: rp: DIFFERENT" in out, out
    # the text summary: the changed column with its share of the 399 matched keys, and the first
    # two rows of each kind by key
    assert "\n  changed columns name 8 (2.01%) of 399 matched keys\n" in out, out
    assert "\n  added 1         id=401\n  deleted 1       id=7\n" in out, out
    assert (
        "\n  modified 8      id=50  name: 'name 50' -> 'renamed 50'\n"
        "                  id=100  name: 'name 100' -> 'renamed 100'\n"
        "                  ... 6 more by key\n"
    ) in out, out
    assert json.loads((tmp_path / "report.json").read_text())["pair"] == "rp"
    assert 'td class="changed"' in (tmp_path / "report.html").read_text()
    assert missing == 2 and "no pair 'nope'" in err and "pairs found: rp" in err, err


def test_browser_shows_the_verdict_a_changed_cell_and_the_block_map(complete_report, browser):
    _, _, html_path = complete_report
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html_path.as_uri())
    verdict = page.locator("#verdict")
    assert verdict.is_visible() and verdict.inner_text() == "DIFFERENT"
    cell = page.locator("#diff-rows td.changed").first
    assert cell.is_visible()
    assert " → " in cell.inner_text() and "renamed" in cell.inner_text()
    background = cell.evaluate("e => getComputedStyle(e).backgroundColor")
    plain = page.locator("#diff-rows td:not(.changed)").first
    assert background != plain.evaluate("e => getComputedStyle(e).backgroundColor")
    block_map_svg = page.locator("#block-map")
    assert block_map_svg.is_visible()
    box = block_map_svg.bounding_box()
    assert box["width"] > 50 and box["height"] > 10, box
    red = page.locator('#block-map rect[data-state="mismatched"]').first
    assert red.is_visible()
    assert red.evaluate("e => getComputedStyle(e).fill") != page.locator(
        '#block-map rect[data-state="matched"]'
    ).first.evaluate("e => getComputedStyle(e).fill")
    assert page.locator("#cap-note").is_visible()
    assert page.locator("#trend").is_visible()
    # Self-contained: the page asked for nothing but itself.
    assert requests == [html_path.as_uri()], requests
    OUTPUT.mkdir(parents=True, exist_ok=True)
    shot = OUTPUT / "report_complete.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")
    page.close()


def test_failed_run_is_recorded_and_keeps_the_last_good_summary(
    project, first_build, tmp_path, browser
):
    before = _history(project)
    row_diff = project.root / "models" / "rp" / "rp__row_diff.sql"
    saved = row_diff.read_text()
    project.write(
        "models/rp/rp__row_diff.sql",
        "-- depends_on: {{ ref('rp__block_split') }}\n{{ config(materialized='table') }}\n"
        "select raise_error('row diff broke') as id\n",
    )
    try:
        run = project.run("build", "--select", "rp__ranges+")
    finally:
        row_diff.write_text(saved)
    assert run.status("rp__row_diff") == "error", run.describe()
    rows = _history(project)
    assert rows[: len(before)] == before  # the completed row is untouched
    (failed,) = rows[len(before) :]
    assert (failed["kind"], failed["name"], failed["status"]) == ("pair", "rp", "failed")
    assert "rp__row_diff" in failed["message"] and "row diff broke" in failed["message"]
    assert failed["rows_added"] is None and failed["options"]  # ranges was built: options known
    # The summary of the first run is still there, but the pair's tables are now of two runs:
    # the report says STALE and shows no diff.
    report = build_report(project.spark, project.relation("rp__summary"))
    assert report["state"] == "stale" and report["verdict"] == "STALE"
    assert "summary" not in report and "diff" not in report
    assert [p["status"] for p in report["trend"]["points"]] == ["completed", "failed"]
    html_path = write_report(report, tmp_path)[1]
    html = html_path.read_text()
    assert "STALE: no result shown" in html and "dbt build --select +rp__summary" in html
    assert 'id="diff-rows"' not in html
    page = browser.new_page(viewport={"width": 1100, "height": 700})
    page.goto(html_path.as_uri())
    assert page.locator("#verdict").inner_text() == "STALE: no result shown"
    assert page.locator("#banner-stale").is_visible()
    assert "belongs to run" in page.locator("#banner-stale").inner_text()
    assert page.locator("#block-map").count() == 0 and page.locator("#trend").is_visible()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "report_stale.png"), full_page=True)
    page.close()


def test_selected_runs_dbt_skipped_are_closed_as_skipped(project, first_build):
    """A pair and a test selected but never run (their upstream model failed) do not stay
    `running`: the on-run-end hook closes them as `skipped`."""
    before = len(_history(project))
    src = project.root / "models" / "src.sql"
    saved = src.read_text()
    project.write("models/src.sql", "select raise_error('src broke') as id\n")
    try:
        run = project.run("build", "--select", "src", "rp__ranges", "drift_rp")
    finally:
        src.write_text(saved)
    assert run.status("src") == "error" and run.status("rp__ranges") == "skipped", run.describe()
    new = _history(project)[before:]
    assert sorted((r["kind"], r["name"], r["status"]) for r in new) == [
        ("no_drift", "drift_rp", "skipped"),
        ("pair", "rp", "skipped"),
    ]
    assert all("skipped" in r["message"] for r in new)
    # src is rebuilt so that later tests see the pair's inputs as before.
    project.run("build", "--select", "src").assert_success()


def test_history_can_be_turned_off(project, first_build):
    before = len(_history(project))
    run = project.run("test", "--select", "drift_rp", "--vars", "{table_diff_history: false}")
    assert run.status("drift_rp") == "warn", run.describe()
    assert len(_history(project)) == before
    assert project.spark.sql("show views like 'td_history_*'").count() == 0


def _history_node(project, name: str) -> dict:
    """The package model NAME in the manifest the project's last dbt run wrote."""
    manifest = json.loads((project.root / "target" / "manifest.json").read_text())
    return manifest["nodes"][f"model.table_diff.{name}"]


def test_history_is_a_package_model_with_every_column_documented(project, first_build):
    """ADR 0036: the table and the view are the package's models, built by `dbt build`, in dbt's
    lineage (the view reads the table), every column of the table documented."""
    assert first_build.status("table_diff_run_history") == "success", first_build.describe()
    assert first_build.status("table_diff_runs") == "success", first_build.describe()
    project.run("parse").assert_success()  # the manifest of the default vars
    history, runs = (
        _history_node(project, n) for n in ("table_diff_run_history", "table_diff_runs")
    )
    assert runs["depends_on"]["nodes"] == ["model.table_diff.table_diff_run_history"]
    columns = project.spark.table(project.relation("table_diff_run_history")).columns
    assert project.spark.table(project.relation("table_diff_runs")).columns == columns
    for node in (history, runs):
        assert node["description"].strip(), node["name"]
        assert list(node["columns"]) == columns, node["name"]
        assert all(c["description"].strip() for c in node["columns"].values()), node["name"]


def test_full_refresh_keeps_the_history(project, first_build):
    before = _history(project, "table_diff_run_history")
    assert before
    run = project.run(
        "build", "--select", "table_diff_run_history", "table_diff_runs", "--full-refresh"
    )
    assert run.status("table_diff_run_history") == "success", run.describe()
    assert _history(project, "table_diff_run_history") == before


def test_a_root_materialization_over_the_history_is_refused(project, first_build):
    """A `+materialized` directly under `models:` reaches the package's models too: the history
    model refuses to compile under it, naming the fix, and the history keeps every row."""
    path = project.root / "dbt_project.yml"
    saved = path.read_text()
    config = yaml.safe_load(saved)
    config["models"] = {"+materialized": "table"}
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    before = _history(project, "table_diff_run_history")
    try:
        run = project.run("run", "--select", "table_diff_run_history")
    finally:
        path.write_text(saved)
    assert run.status("table_diff_run_history") == "error", run.describe()
    message = run.message("table_diff_run_history")
    assert "materialized as 'table', not 'table_diff_history'" in message, message
    assert "models: <your project>: +materialized" in message, message
    assert _history(project, "table_diff_run_history") == before


def test_a_history_kept_before_the_models_is_moved_then_completed(project, first_build):
    """A history table the hooks of an earlier version created by hand-written DDL, under var
    table_diff_history_schema as named, with two columns fewer (an older layout). Building the
    models with that var copies its rows into the model's table, where the project's
    generate_schema_name puts the var's schema, with NULL in the new columns, and leaves the old
    table as it was; the hooks then record there. A table at the model's place with columns
    missing gets them, its rows kept."""
    spark = project.spark
    legacy = f"{project.schema}_audit"
    history = spark.table(project.relation("table_diff_run_history"))
    kept = [f for f in history.schema.fields if f.name not in ("hash_spec_version", "message")]
    ddl = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in kept)
    names = ", ".join(f.name for f in kept)

    def older_table(relation: str) -> list[tuple]:
        spark.sql(f"drop table if exists {relation}")
        spark.sql(f"create table {relation} ({ddl}) using parquet")
        source = project.relation("table_diff_run_history")
        spark.sql(
            f"insert into {relation} select {names} from {source} order by recorded_at limit 2"
        )
        return sorted(tuple(r) for r in spark.table(relation).collect())

    spark.sql(f"create schema if not exists `{legacy}`")
    old_rows = older_table(f"`{legacy}`.table_diff_run_history")
    var = ("--vars", json.dumps({"table_diff_history_schema": legacy}))
    run = project.run("run", "--select", "table_diff_run_history", "table_diff_runs", *var)
    run.assert_success()
    schema = _history_node(project, "table_diff_run_history")["schema"]
    assert schema != legacy  # dbt's default naming: <target schema>_<custom schema>
    moved = f"`{schema}`.table_diff_run_history"
    assert "the run history moved to" in run.log, run.log[-2000:]
    copied = spark.table(moved)
    assert copied.columns == history.columns
    assert sorted(tuple(r) for r in copied.select(*[f.name for f in kept]).collect()) == old_rows
    assert copied.where("hash_spec_version is not null or message is not null").count() == 0
    assert sorted(
        tuple(r) for r in spark.table(f"`{legacy}`.table_diff_run_history").collect()
    ) == (old_rows)
    # The hooks record where the model is, beside the copied rows: a running and a final row.
    run = project.run("test", "--select", "drift_rp", *var)
    assert run.status("drift_rp") == "warn", run.describe()
    recorded = spark.table(moved).where("name = 'drift_rp'")
    assert sorted(r["status"] for r in recorded.collect()) == ["completed", "running", "running"]
    assert spark.table(f"`{legacy}`.table_diff_run_history").count() == len(old_rows)
    assert spark.table(f"`{schema}`.table_diff_runs").where("name = 'drift_rp'").count() == 2

    # An older table at the model's own place: completed in place.
    old_rows = older_table(moved)
    project.run("run", "--select", "table_diff_run_history", *var).assert_success()
    completed = spark.table(moved)
    # The new columns appended after the others, as dbt's append_new_columns does.
    assert completed.columns == [*(f.name for f in kept), "hash_spec_version", "message"]
    assert sorted(tuple(r) for r in completed.select(*[f.name for f in kept]).collect()) == old_rows


STATUS_WINDOW = 5


def _synthetic_history(columns: list[str]) -> list[dict]:
    """History rows as the hooks write them, for pairs whose runs make every status rule fire:
    trends up and down (longer than the window), an outlier, identical last, killed last, killed
    before the last, only unfinished, a no_drift test without counts, and seeded random runs
    with NULL counts and durations, failures, partial and skipped runs."""
    rng = random.Random(37)
    start = datetime.datetime(2026, 11, 1, 8, 0, 0)
    rows: list[dict] = []

    def add(
        name, counts, status="completed", outcome="success", seconds=10.0, final=True, kind="pair"
    ):
        nonlocal start
        start += datetime.timedelta(minutes=7)
        invocation = f"inv-{len(rows)}"
        base = dict.fromkeys(columns)
        base.update(invocation_id=invocation, kind=kind, name=name, started_at=start)
        rows.append({**base, "status": "running", "recorded_at": start})
        if not final:
            return
        added, deleted, modified, dup = counts if counts else (None, None, None, None)
        end = start + datetime.timedelta(seconds=seconds or 0)
        rows.append(
            {
                **base,
                "status": status,
                "outcome": outcome,
                "finished_at": end,
                "seconds": seconds,
                "rows_added": added,
                "rows_deleted": deleted,
                "rows_modified": modified,
                "duplicate_key_rows": dup,
                "recorded_at": end,
            }
        )

    for i in range(8):
        add("falling", (10 * (i + 1), 0, 0, 0), seconds=10.0 + i)
        add("catching", (0, 80 - 10 * i, 0, 1), seconds=30.0 - 3 * i)
    for n in (3, 5, 5, 500, 5, 5):
        add("outlier", (n, 0, 0, 0))
    for n in (4, 0, 6, 0):
        add("sync", (n, 0, 0, 0))
    for n in (4, 9):
        add("killed", (n, n, 0, 0))
    add("killed", None, final=False)
    add("killed_before", None, final=False)
    add("killed_before", (1, 0, 0, 0))
    add("only_running", None, final=False)
    for outcome in ("pass", "warn", "fail", "error", "pass"):
        add(
            "drift_x",
            None,
            status="failed" if outcome == "error" else "completed",
            outcome=outcome,
            kind="no_drift",
        )
    for p in range(6):
        for _ in range(rng.randint(1, 9)):
            status = rng.choice(
                ["completed"] * 5 + ["partial", "changed_during_run", "failed", "skipped"]
            )
            counts = (
                None
                if status in ("failed", "skipped") or rng.random() < 0.1
                else tuple(rng.choice([0, 0, rng.randint(0, 50)]) for _ in range(4))
            )
            seconds = None if rng.random() < 0.15 else round(rng.uniform(1, 90), 3)
            add(
                f"random{p}",
                counts,
                status=status,
                outcome="error" if status == "failed" else "success",
                seconds=seconds,
                final=rng.random() > 0.1,
            )
    rng.shuffle(rows)
    return rows


def _oracle_verdict(r: dict) -> str:
    if r["status"] == "failed" or r["outcome"] == "error":
        return "failed"
    named = {"skipped": "skipped", "changed_during_run": "unreliable", "partial": "different"}
    if r["status"] in named:
        return named[r["status"]]
    counts = [r["rows_added"], r["rows_deleted"], r["rows_modified"]]
    if None in counts:
        return {
            "pass": "identical",
            "success": "identical",
            "warn": "different",
            "fail": "different",
        }.get(r["outcome"], "unknown")
    return "identical" if sum(counts) + (r["duplicate_key_rows"] or 0) == 0 else "different"


def _oracle_trend(values: list, up: str, down: str) -> tuple:
    slopes = sorted(
        (values[j] - values[i]) / (j - i)
        for i in range(len(values))
        for j in range(i + 1, len(values))
    )
    slope = statistics.median(slopes) if slopes else None
    if len(values) < 3:
        return slope, "unknown"
    change, scale = slope * (len(values) - 1), max(abs(statistics.median(values)), 1)
    return slope, up if change >= 0.2 * scale else down if change <= -0.2 * scale else "steady"


def _oracle_status(rows: list[dict], window: int) -> dict:
    """The pair status by brute force: each run's final row (else its running row), its verdict,
    the counts and the trends over the last `window` finished runs, every rule spelled out."""
    by_run: dict = {}
    for r in rows:
        by_run.setdefault((r["kind"], r["name"], r["invocation_id"]), []).append(r)
    runs: dict = {}
    for (kind, name, _), rs in by_run.items():
        final = [r for r in rs if r["status"] != "running"] or rs
        runs.setdefault((kind, name), []).append(max(final, key=lambda r: r["recorded_at"]))
    out = {}
    for (kind, name), rs in runs.items():
        rs.sort(key=lambda r: (r["started_at"], r["recorded_at"]))
        finished = [r for r in rs if r["status"] != "running"]
        verdicts = [_oracle_verdict(r) for r in finished]
        identical = [i for i, v in enumerate(verdicts) if v == "identical"]
        recent = list(zip(finished, verdicts, strict=True))[-window:]

        def differing(r):
            counts = [r["rows_added"], r["rows_deleted"], r["rows_modified"]]
            return None if None in counts else sum(counts) + (r["duplicate_key_rows"] or 0)

        counted = [differing(r) for r, _ in recent if differing(r) is not None]
        timed = [r["seconds"] for r, v in recent if r["seconds"] is not None and v != "failed"]
        rows_slope, drift = _oracle_trend(counted, "falling_behind", "catching_up")
        seconds_slope, cost = _oracle_trend(timed, "slower", "faster")
        last = finished[-1] if finished else None
        unfinished = [
            r["started_at"]
            for r in rs
            if r["status"] == "running" and (last is None or r["started_at"] > last["started_at"])
        ]
        out[(kind, name)] = {
            "runs": len(rs),
            "finished_runs": len(finished),
            "last_started_at": last and last["started_at"],
            "last_status": last and last["status"],
            "last_verdict": verdicts[-1] if last else None,
            "last_differing_rows": differing(last) if last else None,
            "last_seconds": last and last["seconds"],
            "last_identical_at": finished[identical[-1]]["started_at"] if identical else None,
            "runs_since_identical": len(finished) - 1 - identical[-1]
            if identical
            else len(finished),
            "window_runs": len(recent),
            "failures_in_window": sum(v == "failed" for _, v in recent),
            "differing_rows_slope": rows_slope,
            "drift_trend": "in_sync" if verdicts and verdicts[-1] == "identical" else drift,
            "seconds_median": statistics.median(timed) if timed else None,
            "seconds_slope": seconds_slope,
            "cost_trend": cost,
            "unfinished_started_at": max(unfinished) if unfinished else None,
            "as_of": max(r["recorded_at"] for r in rows if (r["kind"], r["name"]) == (kind, name)),
        }
    return out


def test_pair_status_against_a_brute_force_oracle(project, first_build):
    """ADR 0037: the pair status model over a history of many runs (written as the hooks write
    it, in its own schema) equals the status computed by brute force from the same rows."""
    spark = project.spark
    var = (
        "--vars",
        json.dumps(
            {"table_diff_history_schema": "status", "table_diff_status_window": STATUS_WINDOW}
        ),
    )
    project.run(
        "run", "--select", "table_diff_run_history", "table_diff_runs", *var
    ).assert_success()
    schema = _history_node(project, "table_diff_run_history")["schema"]
    history = spark.table(f"`{schema}`.table_diff_run_history")
    rows = _synthetic_history(history.columns)
    spark.createDataFrame(
        [tuple(r[c] for c in history.columns) for r in rows], history.schema
    ).write.insertInto(f"`{schema}`.table_diff_run_history")
    project.run("run", "--select", "table_diff_pair_status", *var).assert_success()
    got = {
        (r["kind"], r["name"]): r.asDict()
        for r in spark.table(f"`{schema}`.table_diff_pair_status").collect()
    }
    expected = _oracle_status(rows, STATUS_WINDOW)
    assert set(got) == set(expected)
    floats = ("last_seconds", "differing_rows_slope", "seconds_median", "seconds_slope")
    for key, want in expected.items():
        have = {k: got[key][k] for k in want}
        assert {k: v for k, v in have.items() if k not in floats} == {
            k: v for k, v in want.items() if k not in floats
        }, key
        for f in floats:
            assert (have[f] is None) == (want[f] is None), (key, f, have[f], want[f])
            assert want[f] is None or have[f] == pytest.approx(want[f]), (key, f)
    # The rules the generated history was written to fire, each at least once.
    trends = {k[1]: (v["drift_trend"], v["cost_trend"]) for k, v in expected.items()}
    assert trends["falling"] == ("falling_behind", "slower")
    assert trends["catching"] == ("catching_up", "faster")
    assert trends["outlier"][0] == "steady" and trends["sync"][0] == "in_sync"
    assert expected[("pair", "killed")]["unfinished_started_at"] is not None
    assert expected[("pair", "killed_before")]["unfinished_started_at"] is None
    assert expected[("pair", "only_running")]["finished_runs"] == 0
    assert expected[("no_drift", "drift_x")]["last_verdict"] == "identical"
    assert expected[("no_drift", "drift_x")]["runs_since_identical"] == 0


# --------------------------------------------------------------------------------------------------
# Without Spark
# --------------------------------------------------------------------------------------------------


def _leaves(n: int) -> list[dict]:
    return [
        {"leaf_id": i, "block_id": i // 4, "lower_bound": i * 10 or None, "upper_bound": None}
        for i in range(n)
    ]


def test_block_map_states_and_grouping():
    units = [
        {"leaf_lo": 2, "leaf_hi": 3, "reason": "mismatch", "selected": True},
        {"leaf_lo": 5, "leaf_hi": 5, "reason": "duplicate_keys", "selected": True},
        {"leaf_lo": 6, "leaf_hi": 6, "reason": "mismatch+duplicate_keys", "selected": False},
    ]
    hashes = [{"side": "source", "leaf_id": 2, "n_rows": 7}, {"side": "target", "leaf_id": 2}]
    hashes[1]["n_rows"] = 9
    m = block_map(_leaves(8), hashes, units)
    assert [c["state"] for c in m["cells"]] == [
        "matched",
        "matched",
        "mismatched",
        "mismatched",
        "matched",
        "duplicate_keys",
        "not_fetched",
        "matched",
    ]
    assert (m["cells"][2]["rows_source"], m["cells"][2]["rows_target"]) == (7, 9)
    assert m["leaf_counts"] == {
        "matched": 4,
        "duplicate_keys": 1,
        "mismatched": 2,
        "not_fetched": 1,
    }
    # Grouped: 8 leaves in at most 3 cells; a cell takes its worst leaf's state.
    grouped = block_map(_leaves(8), hashes, units, max_cells=3)
    assert grouped["leaves_per_cell"] == 3
    assert [c["state"] for c in grouped["cells"]] == ["mismatched", "mismatched", "not_fetched"]
    assert [c["leaves_not_matched"] for c in grouped["cells"]] == [1, 2, 1]
    assert (grouped["cells"][2]["leaf_lo"], grouped["cells"][2]["leaf_hi"]) == (6, 7)


def test_block_map_after_a_quick_check_that_found_drift():
    """ADR 0020: the quick check found drift, so block_hashes holds whole-table rows and every
    block is a whole_table unit: every leaf reads as mismatched, rows per cell unknown (0)."""
    hashes = [
        {"side": "source", "leaf_id": None, "n_rows": 8},
        {"side": "target", "leaf_id": None, "n_rows": 9},
    ]
    units = [{"leaf_lo": 0, "leaf_hi": 7, "reason": "whole_table", "selected": True}]
    m = block_map(_leaves(8), hashes, units)
    assert m["leaf_counts"]["mismatched"] == 8 and m["quick_check_drift"]
    assert not m["quick_check_identical"]
    assert {(c["rows_source"], c["rows_target"]) for c in m["cells"]} == {(0, 0)}
    identical = block_map(_leaves(8), hashes[:1] + [{**hashes[0], "side": "target"}], [])
    assert identical["quick_check_identical"] and not identical["quick_check_drift"]
    assert identical["leaf_counts"]["matched"] == 8


def _synthetic(state: str, banners: list[str], value: str = "a") -> dict:
    summary = {
        "source_relation": "s.src",
        "target_relation": "s.tgt",
        "run_id": "r1",
        "generated_at": "now",
        "rows_source": 2,
        "rows_target": 2,
        "null_key_rows_source": 0,
        "null_key_rows_target": 0,
        "source_format": None,
        "target_format": None,
        "source_version": None,
        "target_version": None,
        "rows_added": 0,
        "rows_deleted": 0,
        "rows_modified": 1,
        "duplicate_key_rows": 0,
        "blocks_mismatched": 1,
        "blocks_total": 1,
        "units_mismatched": 1,
        "leaves_total": 1,
        "key_columns": ["id"],
        "columns_compared": ["v"],
        "strategy": "range",
        "hash_spec_version": 1,
    }
    row = {"diff_type": "modified", "side": "both", "key": ["1"], "changed_columns": ["v"]}
    row["cells"] = [{"changed": True, "old": value, "new": "b"}]
    return {
        "pair": "p",
        "summary_relation": "s.p__summary",
        "state": state,
        "verdict": {"partial": "DIFFERENT (PARTIAL)"}.get(state, "DIFFERENT"),
        "banners": banners,
        "summary": summary,
        "block_map": block_map(_leaves(1), [], []),
        "diff": {"key_columns": ["id"], "columns": ["v"], "rows": [row]},
        "diff_rows_total": 1,
        "diff_rows_shown": 1,
        "diff_rows_capped": False,
        "history": [],
        "trend": {"points": []},
    }


def test_partial_result_has_a_banner_and_values_are_escaped():
    html = render_html(_synthetic("partial", ["PARTIAL: stopped"], value="<script>x</script>"))
    assert 'id="banner-partial"' in html and "PARTIAL: stopped" in html
    assert ">DIFFERENT (PARTIAL)<" in html
    assert "<script>x" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    complete = render_html(_synthetic("complete", []))
    assert 'class="banner' not in complete and 'id="no-history"' in complete


def test_partial_and_changed_results_never_get_the_plain_verdict():
    base = {"status": "complete", "is_partial": False, "is_identical": True, "max_diff_rows": 10}
    assert result_state(base) == ("complete", "IDENTICAL", [])
    assert result_state({**base, "is_identical": False})[:2] == ("complete", "DIFFERENT")
    state, verdict, banners = result_state({**base, "is_identical": False, "is_partial": True})
    assert (state, verdict) == ("partial", "DIFFERENT (PARTIAL)")
    assert "max_diff_rows=10" in banners[0] and "lower bounds" in banners[0]
    changed = {**base, "status": "changed_during_run", "is_identical": False}
    changed.update(source_changed_during_run=False, target_changed_during_run=True)
    state, verdict, banners = result_state(changed)
    assert (state, verdict) == ("changed_during_run", "UNRELIABLE")
    assert banners == [
        "UNRELIABLE: the target changed while the pair ran; run it again when writes have stopped"
    ]
    html = render_html({**_synthetic(state, banners), "verdict": verdict})
    assert 'id="banner-changed_during_run"' in html and ">UNRELIABLE<" in html


def test_history_of_a_failed_run_shows_dashes_and_its_error():
    failed = {"started_at": "t1", "status": "failed", "message": "rp__row_diff: boom"}
    failed.update(seconds=2.5, rows_added=None, rows_deleted=None, rows_modified=None)
    failed["duplicate_key_rows"] = None
    good = {**failed, "started_at": "t0", "status": "completed", "message": None}
    good.update(rows_added=1, rows_deleted=2, rows_modified=3, duplicate_key_rows=0)
    history = [good, failed]
    t = trend(history)
    assert [p["value"] for p in t["points"]] == [6, None]
    html = render_html({**_synthetic("complete", []), "history": history, "trend": t})
    assert ">None<" not in html and html.count(">–<") == 4
    assert 'title="rp__row_diff: boom"' in html and 'fill="#d64541"' in html


def test_choose_pair_names_what_it_looked_for():
    pairs = {"a": "s.a__summary", "b": "s.b__summary"}
    assert choose_pair("b", pairs, [], "here") == "b"
    assert choose_pair(None, pairs, ["a"], "here") == "a"
    assert choose_pair(None, {"only": "s.x"}, [], "here") == "only"
    with pytest.raises(ReportError, match=r"no pair 'c' in here.*pairs found: a, b"):
        choose_pair("c", pairs, [], "here")
    with pytest.raises(ReportError, match=r"pass one with --pair NAME\. Pairs: a, b"):
        choose_pair(None, pairs, [], "here")
    with pytest.raises(ReportError, match=r"no pair found in here: looked for models NAME__sum"):
        choose_pair(None, {}, [], "here")


def test_pair_status_refuses_a_root_materialization(project, first_build):
    """A `+materialized` directly under `models:` reaches the package's models too; the status
    model says so and how to scope it, instead of writing itself as something else. (`view`
    never reaches the model: dbt-spark's view materialization refuses Python first.)"""
    path = project.root / "dbt_project.yml"
    original = path.read_text()
    config = yaml.safe_load(original)
    config["models"]["+materialized"] = "incremental"
    path.write_text(yaml.safe_dump(config))
    try:
        run = project.run("run", "--select", "table_diff_pair_status").assert_failure()
    finally:
        path.write_text(original)
    message = run.message("table_diff_pair_status") + run.log
    refusal = "table_diff_pair_status is materialized as 'incremental', not 'table'"
    assert refusal in message, run.log[-3000:]
    assert "{table_diff_pair_status: false}" in message, message[-3000:]
