"""`table-diff changes` when the sources moved between production's build and the pull request's.

Production builds a project reading a Delta source (`orders_src`) and a plain parquet one
(`regions_src`); then both sources gain rows, and a pull request relabels one status in `orders`
and only comments `regions` and `status_names`. `status_report` is downstream of `status_names`
(which comes out identical) and reads `orders_src` itself.

* Without `--same-inputs` the report says which inputs moved (the Delta source's versions and rows
  then and now, the parquet source's rows in files written since) and the appended rows show as
  added; `status_report` is diffed, not pruned, because its own source moved.
* With `--same-inputs` the command builds the pull request itself from the Delta version
  production read: `orders` differs from production by the relabel only (checked against the
  model's logic run over `orders_src VERSION AS OF 0`), `status_report` is pruned, and the parquet
  source, which has no versions, is still reported as moved.

Every count is held against the brute-force diff of the two schemas' tables.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
from changes_oracle import oracle, prod_and_pr_targets, restored_conf, table

from dbt_table_diff.cli import main

META_KEY = "{{{{ config(meta={{'table_diff': {{'primary_key': {key}}}}}) }}}}\n"
STATUSES = ["shipped", "returned", "new", "shipped", "returned"]
OVERRIDE = (
    "{% macro source(source_name, table_name) %}"
    "{{ return(table_diff.pinned_source(source_name, table_name)) }}{% endmacro %}"
)


def orders_rows(first: int, last: int) -> str:
    return ", ".join(
        f"({i}, cast({(i * 37) % 250}.5 as decimal(10,2)), '{STATUSES[i % 5]}')"
        for i in range(first, last + 1)
    )


def files(schema: str) -> dict[str, str]:
    return {
        "macros/table_diff_source.sql": OVERRIDE,
        "seeds/status_labels.csv": "status,label\nshipped,Shipped\nreturned,Returned\nnew,New\n",
        "models/sources.yml": f"""
            version: 2
            sources:
              - name: raw
                schema: {schema}_raw
                tables:
                  - name: orders_src
                  - name: regions_src
              - name: ice
                schema: iceberg.{schema}_raw
                tables:
                  - name: events_src
            """,
        "models/orders.sql": META_KEY.format(key="['order_id']")
        + "select order_id, amount, status from {{ source('raw', 'orders_src') }}",
        "models/regions.sql": META_KEY.format(key="['region']")
        + "select region, name from {{ source('raw', 'regions_src') }}",
        "models/status_names.sql": META_KEY.format(key="['status']")
        + "select status, label from {{ ref('status_labels') }}",
        "models/event_kinds.sql": META_KEY.format(key="['kind']")
        + "select kind, count(*) as n from {{ source('ice', 'events_src') }} group by kind",
        "models/status_report.sql": META_KEY.format(key="['label']")
        + "select n.label, count(*) as n_orders\n"
        "from {{ source('raw', 'orders_src') }} as o\n"
        "join {{ ref('status_names') }} as n on n.status = o.status\ngroup by n.label",
    }


PR_EDITS = {
    "models/orders.sql": META_KEY.format(key="['order_id']") + "select order_id, amount,\n"
    "  case when status = 'returned' then 'refunded' else status end as status\n"
    "from {{ source('raw', 'orders_src') }}",
    "models/regions.sql": META_KEY.format(key="['region']")
    + "-- regions as the CRM has them\nselect region, name from {{ source('raw', 'regions_src') }}",
    "models/status_names.sql": META_KEY.format(key="['status']")
    + "-- labels for the status page\nselect status, label from {{ ref('status_labels') }}",
    "models/event_kinds.sql": META_KEY.format(key="['kind']")
    + "-- kinds of events\nselect kind, count(*) as n from {{ source('ice', 'events_src') }}\n"
    "group by kind",
}
KEYS = {
    "orders": ["order_id"],
    "regions": ["region"],
    "status_names": ["status"],
    "status_report": ["label"],
    "event_kinds": ["kind"],
}


def run_cli(spark, *args: str) -> int:
    with restored_conf(spark):
        return main(["changes", *args])


@pytest.fixture(scope="module")
def moved(lakehouse, dbt_project_factory):
    """Production built, the sources moved, the change made: the project and its sources."""
    spark = lakehouse
    project = dbt_project_factory(
        "changes_inputs",
        packages=True,
        project_config={"models": {"changes_inputs": {"+materialized": "table"}}},
    )
    for path, text in files(project.schema).items():
        project.write(path, text)
    raw = f"{project.schema}_raw"
    spark.sql(f"create schema if not exists {raw}")
    spark.sql(
        f"create table {raw}.orders_src (order_id int, amount decimal(10,2), status string) "
        "using delta"
    )
    spark.sql(f"insert into {raw}.orders_src values {orders_rows(1, 20)}")  # version 1
    spark.sql(f"create table {raw}.regions_src (region string, name string) using parquet")
    spark.sql(f"insert into {raw}.regions_src values ('eu', 'Europe'), ('us', 'Americas')")
    ice = f"iceberg.{raw}.events_src"
    spark.sql(f"create namespace if not exists iceberg.{raw}")
    spark.sql(f"create table {ice} (id int, kind string) using iceberg")
    spark.sql(f"insert into {ice} values (1, 'click'), (2, 'view'), (3, 'click')")
    prod_and_pr_targets(project)
    prod_dir = project.root / "prod_artifacts"
    project.run("build", "--target", "prod", "--target-path", str(prod_dir)).assert_success()
    time.sleep(1.5)  # the sources' new commits and files are later than production's tables
    spark.sql(f"insert into {raw}.orders_src values {orders_rows(21, 26)}")  # version 2
    spark.sql(f"insert into {raw}.regions_src values ('apac', 'Asia Pacific'), ('latam', 'LatAm')")
    project.snapshots = [snapshot(spark, ice)]
    spark.sql(f"insert into {ice} values (4, 'buy'), (5, 'click')")
    project.snapshots.append(snapshot(spark, ice))
    for path, text in PR_EDITS.items():
        project.write(path, text)
    project.raw = raw
    project.prod_dir = prod_dir
    return project


def snapshot(spark, table: str) -> int:
    return spark.sql(f"select snapshot_id from {table}.refs where name = 'main'").first()[0]


def changes(spark, project, out: str, *more: str) -> tuple[int, dict]:
    code = run_cli(
        spark,
        "--state",
        str(project.prod_dir),
        "--project-dir",
        str(project.root),
        "--target",
        "pr",
        "--out",
        str(project.root / out),
        *more,
    )
    report = json.loads((project.root / out / "changes.json").read_text())
    return code, {m["name"]: m for m in report["models"]} | {"": report}


def check_counts(spark, project, models: dict) -> None:
    """Every diffed model's counts are the brute-force diff of the two schemas' tables."""
    for name, key in KEYS.items():
        m = models[name]
        if not m["diffed"]:
            continue
        expected = oracle(spark, project, name, key)
        for field in ("rows_production", "rows_current", "added", "deleted", "modified"):
            assert m[field] == expected[field], (name, field, m)
        assert dict(m["column_changes"]) == expected["column_changes"], (name, m)


@pytest.fixture(scope="module")
def as_is(moved, lakehouse):
    """The usual flow: the pull request built from the sources as they are now."""
    moved.run(
        "build", "--target", "pr", "--select", "state:modified+", "--defer", "--state",
        str(moved.prod_dir),
    ).assert_success()  # fmt: skip
    code, models = changes(lakehouse, moved, "as_is")
    check_counts(lakehouse, moved, models)
    return code, models


@pytest.fixture(scope="module")
def same(as_is, moved, lakehouse):
    """--same-inputs (after the usual flow, which it rebuilds over)."""
    code, models = changes(lakehouse, moved, "same", "--same-inputs")
    check_counts(lakehouse, moved, models)
    return code, models


def inputs(m: dict) -> dict:
    return {i["source"]: i for i in m["inputs"]}


def test_without_same_inputs_the_report_says_which_inputs_moved(as_is):
    code, models = as_is
    assert code == 0 and models[""]["same_inputs"] is False
    orders = models["orders"]
    assert orders["added"] == 6  # the rows appended to the source since production's build
    delta = inputs(orders)["raw.orders_src"]
    assert (delta["format"], delta["version_then"], delta["version_now"]) == ("delta", 1, 2)
    assert (delta["rows_then"], delta["rows_now"], delta["moved"], delta["pinned"]) == (
        20,
        26,
        True,
        False,
    )
    assert any("raw.orders_src version 1 → 2 (rows 20 → 26)" in n for n in orders["notes"])
    assert any("may be the data, not the code" in n for n in orders["notes"])
    parquet = inputs(models["regions"])["raw.regions_src"]
    assert (parquet["format"], parquet["version_then"], parquet["rows_since"]) == (
        "parquet",
        None,
        2,
    )
    assert parquet["rows_now"] == 4 and parquet["moved"] is True
    assert models["regions"]["added"] == 2
    assert models["status_names"]["status"] == "unchanged" and models["status_names"]["diffed"]
    assert models["status_names"]["inputs"] == []  # reads a seed, no source


def test_the_comment_says_the_inputs_moved(moved, as_is, same):
    first = (moved.root / "as_is" / "changes.md").read_text()
    assert "Inputs moved since production built event_kinds, orders, regions, status_report" in (
        first
    )
    assert "`--same-inputs` reads Delta and Iceberg sources" in first
    assert "raw.orders_src version 1 → 2 (rows 20 → 26)" in first
    second = (moved.root / "same" / "changes.md").read_text()
    assert "Inputs moved since production built regions: part" in second
    assert "built from the inputs production read: raw.orders_src at version 1, now 2" in second


def test_an_iceberg_source_by_its_snapshots(moved, as_is, same):
    _, before = as_is
    ice = inputs(before["event_kinds"])["ice.events_src"]
    assert ice["format"] == "iceberg" and not ice["pinned"] and ice["moved"]
    assert (ice["version_then"], ice["version_now"]) == tuple(moved.snapshots)
    assert (ice["rows_then"], ice["rows_now"]) == (3, 5)
    assert before["event_kinds"]["status"] == "modified"
    assert (before["event_kinds"]["added"], before["event_kinds"]["modified"]) == (1, 1)
    _, after = same
    assert inputs(after["event_kinds"])["ice.events_src"]["pinned"]
    assert (after["event_kinds"]["status"], after["event_kinds"]["diffed"]) == ("unchanged", True)


def test_a_model_whose_own_source_moved_is_diffed_not_pruned(as_is):
    _, models = as_is
    report = models["status_report"]
    assert report["change"] == "downstream" and report["diffed"]
    assert report["status"] == "modified"
    assert any("its own sources may have moved" in n for n in report["notes"])


def test_same_inputs_builds_from_the_versions_production_read(same, moved, lakehouse):
    code, models = same
    assert code == 0 and models[""]["same_inputs"] is True
    orders = models["orders"]
    assert (orders["added"], orders["deleted"]) == (0, 0)
    assert orders["modified"] == sum(1 for i in range(1, 21) if STATUSES[i % 5] == "returned")
    delta = inputs(orders)["raw.orders_src"]
    assert delta["pinned"] and delta["version_then"] == 1 and delta["version_now"] == 2
    assert any("built from the inputs production read: raw.orders_src at version 1" in n
               for n in orders["notes"])  # fmt: skip
    # The pull request's table is the new code over the source as production read it.
    expected = {
        (r["order_id"], r["amount"], "refunded" if r["status"] == "returned" else r["status"])
        for r in lakehouse.sql(f"select * from {moved.raw}.orders_src version as of 1").collect()
    }
    got = {
        (r["order_id"], r["amount"], r["status"])
        for r in table(lakehouse, f"{moved.schema}_pr", "orders")
    }
    assert got == expected and len(got) == 20


def test_same_inputs_prunes_what_the_data_no_longer_moves(same):
    _, models = same
    report = models["status_report"]
    assert (report["status"], report["diffed"]) == ("unchanged", False)
    assert any("came out identical" in n for n in report["notes"])


def test_a_source_without_versions_is_still_reported(same):
    _, models = same
    regions = models["regions"]
    parquet = inputs(regions)["raw.regions_src"]
    assert not parquet["pinned"] and parquet["rows_since"] == 2
    assert regions["added"] == 2
    assert any("raw.regions_src: 2 of its 4 rows are in files written since" in n
               for n in regions["notes"])  # fmt: skip


def test_the_command_runs_in_a_process_of_its_own(moved, as_is, tmp_path):
    """As CI runs it: a fresh interpreter, where no dbt invocation has set dbt's global flags
    before the state selector reads them (it does for every source). Production's state here is
    this run's own manifest, so nothing changed and the command needs no Spark."""
    state = tmp_path / "same_as_this_run"
    state.mkdir()
    shutil.copy(moved.root / "target" / "manifest.json", state / "manifest.json")
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from dbt_table_diff.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "changes", "--state", str(state), "--project-dir",
         str(moved.root), "--target", "pr", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "out" / "changes.json").read_text())
    assert report["models"] == [] and report["failed"] is False


def test_same_inputs_needs_the_source_override(moved, lakehouse, capsys, same):
    """Last: it removes the project's source() override."""
    moved.remove("macros/table_diff_source.sql")
    code = run_cli(
        lakehouse, "--state", str(moved.prod_dir), "--project-dir", str(moved.root),
        "--target", "pr", "--out", str(moved.root / "none"), "--same-inputs",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "macros/table_diff_source.sql" in err and "table_diff.pinned_source" in err
    assert not (moved.root / "none" / "changes.md").exists()
