"""A pair's `dbt build` killed at a model never leaves outputs a reader mixes up (ADRs 0011, 0015).

Each build runs in a child process with its own JVM and metastore (Derby admits one JVM at a time,
and the kill must take the JVM with it): a complete build of the pair on target state A, then the
target moves to state B and a second build is SIGKILLed (the whole process group) shortly after
one model starts. A child then reads the pair as the CLI does
(:func:`dbt_table_diff.report.read.read_pair`), and its run history, which keeps the killed run as
`running`.

* Parquet (a Spark without the Delta jars, so `table_diff_file_format: auto` writes parquet):
  every table of the pair is there after the kill and holds one run, whole: the killed run's where
  its model finished, else A's, the model being built included (the materialization writes aside
  and renames, ADR 0032), so A's row diff stays beside A's summary. The reader sees exactly A after
  a kill in the ranges (nothing replaced yet), exactly B once the summary landed, and otherwise a
  stale result naming the run that disagrees and how to rebuild: never a summary of one run beside
  the row diff of another. Without versions the reader cannot go back to A's earlier tables. The
  kills follow one another, each child reading the state the previous kill left and then killed
  at the next model: one child per kill point.
* Delta (the jars and confs of ADR 0012, `auto` writes Delta): the reader sees exactly A's summary
  and row diff after a kill in the Python split or in the summary (KILL_CHAIN says why those two),
  although the killed build had replaced the tables before that model (the summary names the
  versions it was computed from); after a full rebuild, exactly B's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import (
    BASE_SPARK_CONF,
    LAKEHOUSE_JARS,
    LAKEHOUSE_REQUIRED,
    REPO_ROOT,
    run_dbt,
)
from lakehouse import lakehouse_conf

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair

# Every test starts child JVMs of its own: `make check` leaves them to `make test`.
pytestmark = pytest.mark.spark

SCHEMA = "td_killed"
SUMMARY = f"{SCHEMA}.pair__summary"
CHILD = Path(__file__).with_name("_pair_child.py")
SOURCE = "select id, concat('n', id) as name, id * 2 as qty from range(1, 301) as r(id)"
# State A: every 50th key modified. State B: keys 100-119 deleted, 1001-1005 added.
STATE_A = (
    "select id, if(id % 50 = 0, 'changed', concat('n', id)) as name, id * 2 as qty"
    " from range(1, 301) as r(id)"
)
STATE_B = (
    "select id, concat('n', id) as name, id * 2 as qty from range(1, 301) as r(id)"
    " where id not between 100 and 119"
    " union all select id, 'new', 0 from range(1001, 1006) as r(id)"
)
EXPECTED = {
    "A": sorted([i, "modified"] for i in range(50, 301, 50)),
    "B": sorted(
        [[i, "deleted"] for i in range(100, 120)] + [[i, "added"] for i in range(1001, 1006)]
    ),
}
MODELS = ("ranges", "block_hashes", "block_split", "row_diff", "column_stats", "summary")
# Where the parquet builds are killed: four of the six models, each leaving a different state. In
# the ranges nothing is replaced yet; in the Python split (its own write path); in the row diff
# (the defect these tests guard: it went missing); in the summary (the last write, which may land
# before the kill). A kill in block_hashes or column_stats is a kill in an SQL model after the
# ranges, as the row diff's is, with one table fewer or more of the killed run.
PARQUET_KILLS = ("ranges", "block_split", "row_diff", "summary")
KINDS = ("added", "deleted", "modified")


def _conf(home: Path, name: str) -> dict[str, str]:
    return {
        **BASE_SPARK_CONF,
        "spark.app.name": name,
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={home / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={home}",
    }


# A model reading the pair's row diff as the docs say, through its summary (ADR 0015).
READER = "select id, diff_type from {{ table_diff.pair_output(ref('pair__summary'), 'row_diff') }}"


def _write_project(root: Path, conf: dict[str, str], target_sql: str, reader: bool = False) -> None:
    """A dbt project with `src`, `tgt` (built from `target_sql`), the scaffolded pair and, with
    `reader`, the model `reader` (READER)."""
    project = {
        "name": "killed_run",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "killed_run",
        "model-paths": ["models"],
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": False},
        "models": {"killed_run": {"+materialized": "table"}},
    }
    profile = {
        "killed_run": {
            "target": "t",
            "outputs": {
                "t": {
                    "type": "spark",
                    "method": "session",
                    "host": "localhost",
                    "schema": SCHEMA,
                    "threads": 1,
                    "server_side_parameters": conf,
                }
            },
        }
    }
    (root / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    (root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}))
    models = root / "models"
    models.mkdir()
    (models / "src.sql").write_text(SOURCE)
    (models / "tgt.sql").write_text(target_sql)
    if reader:
        (models / "reader.sql").write_text(READER)
    opts = PairOptions(
        name="pair", source="ref('src')", target="ref('tgt')", primary_key=("id",), block_count=4
    )
    for name, content in render_pair(opts).items():
        (models / name).write_text(content)
    run_dbt(["deps"], root).assert_success()


def _child(conf: dict[str, str], root: Path, *args: str) -> tuple[int, dict[str, list], str]:
    """Run the child; its return code, its JSON lines by step, and its output tail for messages."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.run(
        [sys.executable, str(CHILD), json.dumps(conf), str(root), *args],
        capture_output=True,
        text=True,
        timeout=900,
        start_new_session=True,  # its own process group: the kill takes only the child and its JVM
        env=env,
        cwd=root,
    )
    steps: dict[str, list] = {}
    for line in proc.stdout.splitlines():
        if line.startswith('{"step"'):
            item = json.loads(line)
            steps.setdefault(item.pop("step"), []).append(item)
    return proc.returncode, steps, proc.stdout[-3000:] + proc.stderr[-3000:]


def _assert_exactly(result: dict, state: str, context: str) -> None:
    """The reader got one complete run: exactly state's rows, and counts equal to them."""
    assert "stale" not in result, f"{context}: {result}"
    assert result["rows"] == EXPECTED[state], f"{context}: {result}"
    counts = [sum(1 for _, t in EXPECTED[state] if t == kind) for kind in KINDS]
    assert [result["summary"][f"rows_{k}"] for k in KINDS] == counts, f"{context}: {result}"
    assert result["summary"]["status"] == "complete", f"{context}: {result}"


# --------------------------------------------------------------------------------------------------
# Parquet: a Spark without Delta
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def parquet_kills(tmp_path_factory) -> dict:
    """The project on a Spark without the Delta jars. One child builds A completely (on `auto`),
    builds its ranges with `table_diff_file_format: delta` (expected to fail), moves the target
    to B and is killed inside the ranges. Then, for each later kill point (PARQUET_KILLS), a
    child reads the pair as the previous kill left it and is killed inside that model's build of
    B; a last child only reads. Nothing rebuilds A between the kills: the tables of the models
    after a kill point still hold A's run (a killed build replaces at most the models before
    it), so each kill meets the state its test asks about, for one child a kill point. Each kill
    is recorded, not asserted here, so one bad kill fails its own test only."""
    root = tmp_path_factory.mktemp("killed_run")
    conf = _conf(root / "spark", "table_diff_killed_run")
    _write_project(root, conf, STATE_A)
    to_b = f"insert overwrite table {SCHEMA}.tgt {STATE_B}"
    first = [
        "--build",
        "--select",
        "+pair__summary",
        "--read-after-build",
        SUMMARY,
        "--probe-vars",
        '{"table_diff_file_format": "delta"}',
        "--probe-select",
        "pair__ranges",
        "--read-after-probe",
        SUMMARY,
        "--then-sql",
        to_b,
    ]
    out: dict = {"kills": {}}
    for i, model in enumerate((*PARQUET_KILLS, None)):
        args = first if i == 0 else ["--read", SUMMARY]
        if model:
            args = [*args, "--kill-at", f"pair__{model}", "--delay", "0.5"]
            args += ["--kill-select", "pair__ranges+"]
        code, steps, tail = _child(conf, root, *args)
        if i == 0:
            out["setup"], out["setup_tail"] = steps, tail
        else:
            out["kills"][PARQUET_KILLS[i - 1]].update(
                read=(steps.get("read") or [None])[0], read_tail=tail
            )
        if model:
            out["kills"][model] = {
                "code": code,
                "tail": tail,
                "finished": [f["model"] for f in steps.get("finished", [])],
            }
    return out


def test_auto_writes_parquet_on_a_spark_without_delta(parquet_kills):
    setup = parquet_kills["setup"]
    assert "read_after_build" in setup, parquet_kills["setup_tail"]
    built = setup["read_after_build"][0]
    _assert_exactly(built, "A", "complete build of A")
    formats = {t: s.get("format") for t, s in built["tables"].items()}
    assert formats == dict.fromkeys((*MODELS, "history"), "parquet"), built
    # Nothing to time-travel to: the summary names no versions, readers check run ids instead.
    assert all(built["summary"][f"{t}_version"] is None for t in MODELS[:-1]), built
    assert built["aside"] == [], built


def test_explicit_delta_on_a_spark_without_delta_fails_before_touching_the_table(parquet_kills):
    setup = parquet_kills["setup"]
    assert "probe" in setup, parquet_kills["setup_tail"]
    probe = setup["probe"][0]
    assert probe["success"] is False, probe
    message = "\n".join(probe["messages"])
    assert "invalid var table_diff_file_format 'delta'" in message, message
    assert "this one has spark.sql.catalog.spark_catalog = " in message, message
    assert "set table_diff_file_format to auto" in message, message
    # The ranges table was neither dropped nor replaced: the pair still reads as the same run.
    before, after = setup["read_after_build"][0], setup["read_after_probe"][0]
    assert after["summary"] == before["summary"] and after["tables"] == before["tables"], after


@pytest.mark.slow
@pytest.mark.parametrize("model", PARQUET_KILLS)
def test_killed_build_leaves_every_table_whole_and_the_last_result_where_it_can(
    parquet_kills, model
):
    kill = parquet_kills["kills"][model]
    assert kill["code"] == -9, kill["tail"]
    a, result = parquet_kills["setup"]["read_after_build"][0], kill["read"]
    assert result is not None, kill["read_tail"]
    # The run history: A's complete build, the probe's failed one (finished), then one `running`
    # run per kill so far (its on-run-start row; no on-run-end ever came), never shown as failed.
    # (Killed 0.5 s into the summary, the kill may land after the on-run-end hook recorded the
    # finished run.)
    killed_so_far = PARQUET_KILLS.index(model) + 1
    runs = result["runs"]
    assert len(runs) == 2 + killed_so_far, runs
    assert runs[0] == ["completed", False] and runs[1][1] is False, runs
    assert runs[2:-1] == [["running", True]] * (killed_so_far - 1), runs
    last = runs[-1]
    assert last == ["running", True] or (model == "summary" and last == ["completed", False]), runs
    finished = [m for m in MODELS if f"pair__{m}" in kill["finished"]]
    assert finished == list(MODELS[: len(finished)]), kill["finished"]
    # The defect this guards: killed inside the row diff, the row diff was missing. (Other models
    # may finish within the delay; each test then checks the model the kill did land in.)
    if model == "row_diff":
        assert "row_diff" not in finished, f"the kill landed after row_diff: {kill['finished']}"
    # Every table of the pair is there and holds one run, whole (ADR 0032: the new table is
    # written aside and renamed into place): the killed run's where its model finished, else the
    # run that wrote it last. Tables after the kill point (and the one being built) hold A's run:
    # no killed build before this one got that far.
    run_a = a["summary"]["run_id"]
    tables = result["tables"]
    killed_runs = set()
    for t in MODELS:
        state = tables[t]
        assert not state.get("missing"), (t, result)
        assert len(state["run_ids"]) == 1, (t, state)
        if t in finished:
            assert state["run_ids"] != [run_a], (t, result)
            killed_runs.update(state["run_ids"])
        elif MODELS.index(t) >= MODELS.index(model):
            assert state["run_ids"] == [run_a], (t, result)
    assert len(killed_runs) <= 1, killed_runs
    if "row_diff" not in finished:
        # A's row diff, whole, read as it is: the last result's rows beside its summary.
        assert tables["row_diff"]["rows"] == EXPECTED["A"], tables["row_diff"]
    # Left aside at most the new table of the model the kill landed in (the next build drops it).
    building = MODELS[len(finished)] if len(finished) < len(MODELS) else None
    assert set(result["aside"]) <= {f"pair__{building}__td_new"}, result["aside"]
    if model == "ranges":
        # Killed inside the ranges: no table was replaced, so the reader shows the last result,
        # whole, as on Delta.
        assert not finished, kill["finished"]
        _assert_exactly(result, "A", f"killed at {model}")
        assert result["summary"] == a["summary"], result
        assert result["block_map"] == a["block_map"], (model, result["block_map"])
    elif building is None:
        # The summary landed before the kill: the killed run was complete.
        _assert_exactly(result, "B", f"killed after the summary at {model}")
    else:
        # Some tables of the killed run beside the last run's summary: stale, naming the run
        # that disagrees (no table is missing any more) and the fix, never a mixture.
        assert "stale" in result, f"killed at {model} after {finished}, read as complete: {result}"
        assert "Rebuild the pair: dbt build --select +" in result["stale"], result
        assert "belongs to run" in result["stale"], result


# --------------------------------------------------------------------------------------------------
# Delta: the last complete result survives a kill, in either write path and in the summary
# --------------------------------------------------------------------------------------------------


# Where each build of B is killed, and what it builds. After the first, a build continues the run
# the previous killed build started at its ranges (ADR 0011: the run id is the ranges model's), so
# every model of the pair is written once per kill, not once per model before it.
# Two kill points, not six: Delta's guarantee (ADR 0015) rests on each table's replace being one
# commit and on the summary naming the versions it read, and the pair writes its tables by two
# paths, the SQL models' `create or replace` and the Python split's `createOrReplace`. A kill in
# block_split (the Python write, ranges and block hashes already replaced by SQL) and one in the
# summary (the commit record itself, every other table replaced) cover both; a kill in any other
# SQL model is the summary's case with fewer tables replaced. The parquet tests above kill at four
# models (PARQUET_KILLS), where each of those leaves a different state.
KILL_CHAIN = (("block_split", "pair__ranges+"), ("summary", "pair__block_split+"))
DELTA_KILLS = tuple(model for model, _ in KILL_CHAIN)


@pytest.fixture(scope="module")
def delta_kills(tmp_path_factory) -> dict:
    """Build A, then builds of B each SIGKILLed inside one model (KILL_CHAIN), each kill read by
    the next child before it builds; then a full rebuild of B. Three JVMs in all."""
    if not LAKEHOUSE_JARS:
        message = "the Delta variant needs TABLE_DIFF_LAKEHOUSE_JARS (make pytest sets it)"
        if LAKEHOUSE_REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    root = tmp_path_factory.mktemp("killed_run_delta")
    home = root / "spark"
    conf = {
        **_conf(home, "table_diff_killed_run_delta"),
        **lakehouse_conf(home, LAKEHOUSE_JARS),
        # Delta reads its log with 50 tasks by default; these tables have a handful of commits.
        "spark.databricks.delta.snapshotPartitions": "2",
    }
    _write_project(root, conf, STATE_A, reader=True)  # no table_diff_file_format var: `auto`
    to_b = f"insert overwrite table {SCHEMA}.tgt {STATE_B}"
    out: dict = {"kills": {}, "seconds": []}
    steps: dict = {}
    for i, (model, select) in enumerate(KILL_CHAIN):
        first = ["--build", "--select", "+pair__summary", "--read-after-build", SUMMARY]
        started = time.monotonic()
        code, steps, tail = _child(
            conf,
            root,
            *(first if i == 0 else ["--read", SUMMARY]),
            "--then-sql",
            to_b,
            "--kill-at",
            f"pair__{model}",
            "--delay",
            "0.5",
            "--kill-select",
            select,
        )
        out["seconds"].append(round(time.monotonic() - started))
        assert code == -9, f"build of B killed at {model}: {tail}"
        if i == 0:
            out["A"] = steps["read_after_build"][0]
        else:
            out["kills"][KILL_CHAIN[i - 1][0]]["read"] = steps["read"][0]
        out["kills"][model] = {"finished": [f["model"] for f in steps.get("finished", [])]}
    started = time.monotonic()
    code, steps, tail = _child(
        conf,
        root,
        "--read",
        SUMMARY,
        "--reader",
        "reader",
        "--build",
        "--select",
        "pair__ranges+",  # the reader model too
        "--read-after-build",
        SUMMARY,
    )
    out["seconds"].append(round(time.monotonic() - started))
    assert code == 0, tail
    out["kills"][KILL_CHAIN[-1][0]]["read"] = steps["read"][0]
    out["reader"] = steps["reader"][0]
    out["B"] = steps["read_after_build"][0]
    out["reader_B"] = steps["reader_after_build"][0]
    print(f"delta kill children took {out['seconds']} s", file=sys.stderr)
    return out


def test_delta_outputs_on_a_spark_with_delta(delta_kills):
    a = delta_kills["A"]
    _assert_exactly(a, "A", "complete build of A")
    # The run history beside the pair too: each append one commit.
    formats = {t: s.get("format") for t, s in a["tables"].items()}
    assert formats == dict.fromkeys((*MODELS, "history"), "delta"), a
    # The summary names the version of every other table it was computed from: the current one.
    named = {t: a["summary"][f"{t}_version"] for t in MODELS[:-1]}
    assert named == {t: a["tables"][t]["version"] for t in MODELS[:-1]}, a


@pytest.mark.slow
@pytest.mark.parametrize("model", DELTA_KILLS)
def test_delta_build_killed_at_a_model_leaves_the_previous_result_whole(delta_kills, model):
    a, kill = delta_kills["A"], delta_kills["kills"][model]
    result = kill["read"]
    assert f"pair__{model}" not in kill["finished"], f"the kill landed after {model}: {kill}"
    # Exactly A: the same run, summary and rows, although the killed builds replaced tables.
    _assert_exactly(result, "A", f"killed at {model}")
    assert result["summary"] == a["summary"], result
    # The HTML report's block map too, though it reads the tables beyond the row diff.
    assert result["block_map"] == a["block_map"], (model, result["block_map"])
    # Every table before the killed model holds a newer version than the one the summary names
    # (the reader read A's version of it, not the current one); the others are untouched.
    for t in MODELS:
        named = a["tables"][t]["version"]
        current = result["tables"][t]["version"]
        if MODELS.index(t) < MODELS.index(model):
            assert current > named, (t, result)
        else:
            assert current == named, (t, result)


def test_delta_full_rebuild_after_the_kills_reads_b(delta_kills):
    a, b = delta_kills["A"], delta_kills["B"]
    _assert_exactly(b, "B", "full rebuild of B")
    assert b["summary"]["run_id"] != a["summary"]["run_id"], b
    # B's blocks differ from A's: the kills' block maps equal to A's were A's, not the current.
    assert b["block_map"] != a["block_map"], b
    assert {t: b["summary"][f"{t}_version"] for t in MODELS[:-1]} == {
        t: b["tables"][t]["version"] for t in MODELS[:-1]
    }, b


def test_delta_pair_output_reads_the_previous_result_after_a_kill_then_the_new_one(delta_kills):
    # A dbt model reading the row diff through table_diff.pair_output, built after the build of B
    # was killed inside the summary (every other table already replaced): A's rows; after the
    # full rebuild: B's.
    assert delta_kills["reader"] == {"success": True, "rows": EXPECTED["A"]}, delta_kills["reader"]
    assert delta_kills["reader_B"] == {"rows": EXPECTED["B"]}, delta_kills["reader_B"]
