"""A result is whole or visibly not (holes a hostile review found; ADR 0011).

* A ``no_drift`` result cut short at ``max_diff_rows`` fails whatever ``warn_if`` / ``error_if``.
* A table written while a pair (or a ``no_drift`` test) runs is flagged, not mixed in silently:
  a callback on dbt's own events writes to the target at a precise point of the run.
* The five tables of a pair are read only when they belong to one completed run
  (:func:`dbt_table_diff.report.read.read_pair`); a model built on a half-replaced pair refuses it.
  Killing a real ``dbt build`` at each model is in ``test_killed_run.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dbt_table_diff.report.read import read_pair
from dbt_table_diff.report.text import format_summary
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair
from dbt_table_diff.split import StaleRunError

N = 2000
SOURCE = f"""
select id, concat('name ', id) as name, cast(id * 1.25 as decimal(12, 2)) as amount
from range(1, {N + 1}) as r(id)
"""
# 80 scattered keys modified: the row fetch reads rows again after the block pass.
TARGET = f"""
select id, if(id % 25 = 0, concat('renamed ', id), concat('name ', id)) as name,
  cast(id * 1.25 as decimal(12, 2)) as amount
from range(1, {N + 1}) as r(id)
"""


def _on_event(name: str, match, action):
    """A dbt callback: ``action()`` once, on the first event ``name`` for which ``match(event)``."""
    done: list[bool] = []

    def callback(event) -> None:
        if done or event.info.name != name or not match(event):
            return
        done.append(True)
        action()

    return callback


def _node_starts(model: str):
    return lambda event: event.data.node_info.node_name == model


@pytest.fixture(scope="module")
def integrity_project(dbt_project_factory):
    files = {"models/src.sql": SOURCE, "models/tgt.sql": TARGET}
    opts = PairOptions(
        name="ri",
        source="ref('src')",
        target="ref('tgt')",
        primary_key=("id",),
        block_count=4,
        compare_unit_size=100,
    )
    for file_name, content in render_pair(opts).items():
        files[f"models/ri/{file_name}"] = content
    tests = """version: 2
models:
  - name: src
    data_tests:
      - table_diff.no_drift:
          name: drift_partial
          arguments:
            compare_to: ref('tgt')
            primary_key: id
            max_diff_rows: 10
          config:
            error_if: ">50"
            warn_if: ">0"
      - table_diff.no_drift:
          name: drift_full
          arguments:
            compare_to: ref('tgt')
            primary_key: id
"""
    files["models/tests.yml"] = tests
    # A model reading the pair through its summary, as the docs say (table_diff.pair_output).
    files["models/ri_reader.sql"] = (
        "select count(*) as leaves from {{ table_diff.pair_output(ref('ri__summary'), 'ranges') }}"
    )
    project = dbt_project_factory(
        "run_integrity",
        files=files,
        packages=True,
        project_config={"models": {"run_integrity": {"+materialized": "table"}}},
    )
    project.run("run", "--select", "src", "tgt").assert_success()
    return project


def _reset_target(project) -> None:
    project.run("run", "--select", "tgt").assert_success()


def _late_rows(project):
    """After resetting the target: an action that appends 200 keys above the source's to it."""
    _reset_target(project)
    target = project.relation("tgt")

    def append() -> None:
        project.spark.sql(
            f"insert into {target} select id, 'late', 1.00 from range(100001, 100201) as r(id)"
        )

    return append


def test_partial_no_drift_fails_whatever_the_thresholds(integrity_project):
    run = integrity_project.run("test", "--select", "drift_partial")
    assert run.status("drift_partial") == "error", run.describe()
    message = run.message("drift_partial")
    assert "at least 10 rows differ" in message, message
    assert "max_diff_rows=10" in message and "partial" in message, message
    assert "Raise max_diff_rows" in message, message


def test_full_no_drift_still_fails_with_counts(integrity_project):
    _reset_target(integrity_project)
    run = integrity_project.run("test", "--select", "drift_full")
    assert run.status("drift_full") == "fail", run.describe()
    assert "80 modified" in run.log, run.log


def test_write_during_no_drift_is_an_error(integrity_project):
    append = _late_rows(integrity_project)
    callback = _on_event("JinjaLogInfo", lambda e: " DIFFER: " in e.info.msg, append)
    run = integrity_project.run("test", "--select", "drift_full", callbacks=[callback])
    assert run.status("drift_full") == "error", run.describe()
    message = run.message("drift_full")
    assert "compare_to" in message and "changed while the test ran" in message, message
    assert "Run the test again" in message, message


def _summary(project) -> dict:
    return project.spark.table(project.relation("ri__summary")).first().asDict()


def test_pair_run_is_complete_when_nothing_writes(integrity_project):
    _reset_target(integrity_project)
    integrity_project.run("build", "--select", "ri__ranges+").assert_success()
    s = _summary(integrity_project)
    assert s["status"] == "complete"
    assert s["source_changed_during_run"] is False and s["target_changed_during_run"] is False
    assert (s["rows_modified"], s["rows_added"], s["rows_target"]) == (80, 0, N)
    summary, rows = read_pair(integrity_project.spark, integrity_project.relation("ri__summary"))
    assert summary["run_id"] == s["run_id"] and len(rows) == 20
    ranges_run = integrity_project.rows("ri__ranges")[0]
    assert s["run_id"] in ranges_run


def test_write_between_block_pass_and_row_fetch_is_flagged(integrity_project):
    append = _late_rows(integrity_project)
    callback = _on_event("NodeStart", _node_starts("ri__row_diff"), append)
    run = integrity_project.run("build", "--select", "ri__ranges+", callbacks=[callback])
    run.assert_success()
    s = _summary(integrity_project)
    assert s["status"] == "changed_during_run", s
    assert s["target_changed_during_run"] is True and s["source_changed_during_run"] is False
    assert s["is_identical"] is False
    assert "changed while the pair ran" in run.log
    summary, rows = read_pair(integrity_project.spark, integrity_project.relation("ri__summary"))
    text = format_summary(summary, rows, ["id"])
    assert "UNRELIABLE: the target changed while the pair ran" in text, text


def test_a_model_refuses_inputs_of_another_run(integrity_project):
    """A run that stopped after __ranges: the next model built alone names the stale table."""
    _reset_target(integrity_project)
    integrity_project.run("build", "--select", "ri__ranges+").assert_success()
    integrity_project.run("run", "--select", "ri__ranges").assert_success()  # a new run starts
    with pytest.raises(StaleRunError, match="ri__ranges belongs to run|ri__block_hashes belongs"):
        read_pair(integrity_project.spark, integrity_project.relation("ri__summary"))
    run = integrity_project.run("run", "--select", "ri__row_diff")
    assert run.status("ri__row_diff") == "error", run.describe()
    message = run.message("ri__row_diff")
    assert "invalid block_split" in message and "failed or was stopped" in message, message
    assert "dbt build --select <pair>__ranges+" in message, message
    run = integrity_project.run("run", "--select", "ri__block_split")
    assert run.status("ri__block_split") == "error", run.describe()
    assert "invalid block_hashes" in run.message("ri__block_split")
    # pair_output on parquet (no versions to read) refuses the table of another run, too.
    run = integrity_project.run("run", "--select", "ri_reader")
    assert run.status("ri_reader") == "error", run.describe()
    message = run.message("ri_reader")
    assert "table_diff.pair_output:" in message and "ri__ranges belongs to run" in message, message
    assert "dbt build --select +ri__summary" in message, message
    # Rebuilding from the ranges model makes the pair whole again.
    integrity_project.run("build", "--select", "ri__ranges+").assert_success()
    summary, _ = read_pair(integrity_project.spark, integrity_project.relation("ri__summary"))
    assert summary["status"] == "complete"
    assert summary["ranges_version"] is None  # parquet: nothing to time-travel to
    assert integrity_project.rows("ri_reader") == [(summary["leaves_total"],)]


def test_reader_compares_the_summary_with_the_tables(integrity_project, tmp_path: Path):
    """Same run ids but a row diff that disagrees with the summary's counts: refused."""
    _reset_target(integrity_project)
    integrity_project.run("build", "--select", "ri__ranges+").assert_success()
    row_diff = integrity_project.relation("ri__row_diff")
    copy = integrity_project.relation("ri_copy__row_diff")
    spark = integrity_project.spark
    spark.sql(f"create or replace temporary view ri_half as select * from {row_diff} limit 5")
    spark.sql(f"drop table if exists {copy}")
    spark.sql(f"create table {copy} using parquet as select * from ri_half")
    for model in ("summary", "ranges", "block_hashes", "block_split"):
        spark.sql(f"drop table if exists {integrity_project.relation('ri_copy__' + model)}")
        spark.sql(
            f"create table {integrity_project.relation('ri_copy__' + model)} using parquet "
            f"as select * from {integrity_project.relation('ri__' + model)}"
        )
    with pytest.raises(StaleRunError, match="rows_modified = 80 but the pair's tables hold 5"):
        read_pair(spark, integrity_project.relation("ri_copy__summary"))
    spark.sql(f"drop table {copy}")
    with pytest.raises(StaleRunError, match="ri_copy__row_diff is missing"):
        read_pair(spark, integrity_project.relation("ri_copy__summary"))
