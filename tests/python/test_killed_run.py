"""A pair's `dbt build` killed at each model never leaves outputs that disagree (ADR 0011).

Each case, in a child process with its own JVM and metastore (Derby admits one JVM at a time, and
the kill must take the JVM with it): a complete build of the pair on target state A, then the
target moves to state B and a second build is SIGKILLed (the whole process group) shortly after
one model starts. A second child then reads the pair as the CLI does, and its run history.
Whatever the kill hit, the reader sees either exactly A's diff or exactly B's (had the build
finished), each with every count equal to the rows, or a stale result that says so and how to
rebuild: never a summary of one run beside the row diff of another. The history keeps the killed
run as `running`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import BASE_SPARK_CONF, REPO_ROOT, run_dbt

from dbt_table_diff.scaffold import PairOptions, render_pair

SCHEMA = "td_killed"
CHILD = Path(__file__).with_name("_pair_child.py")
SOURCE = "select id, concat('n', id) as name, id * 2 as qty from range(1, 301) as r(id)"
# State A: every 50th key modified. State B: keys 100-119 deleted, 1001-1005 added.
STATE_A = (
    "select id, if(id % 50 = 0, 'changed', concat('n', id)), id * 2 from range(1, 301) as r(id)"
)
STATE_B = (
    "select id, concat('n', id), id * 2 from range(1, 301) as r(id)"
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


@pytest.fixture(scope="module")
def killed_project(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("killed_run")
    home = root / "spark"
    conf = {
        **BASE_SPARK_CONF,
        "spark.app.name": "table_diff_killed_run",
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={home / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={home}",
    }
    project = {
        "name": "killed_run",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "killed_run",
        "model-paths": ["models"],
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": False},
        "models": {"+materialized": "table"},
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
    (models / "tgt.sql").write_text(SOURCE)
    opts = PairOptions(
        name="pair", source="ref('src')", target="ref('tgt')", primary_key=("id",), block_count=4
    )
    for name, content in render_pair(opts).items():
        (models / name).write_text(content)
    run_dbt(["deps"], root).assert_success()
    conf_json = json.dumps(conf)
    setup = _child(conf_json, root, "--build", "--select", "src tgt")
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return root, conf_json


def _child(conf_json: str, root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run(
        [sys.executable, str(CHILD), conf_json, str(root), *args],
        capture_output=True,
        text=True,
        timeout=600,
        start_new_session=True,  # its own process group: the kill takes only the child and its JVM
        env=env,
        cwd=root,
    )


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_killed_build_leaves_the_last_result_or_a_visibly_stale_one(killed_project, model):
    root, conf = killed_project
    tgt = f"{SCHEMA}.tgt"
    killed = _child(
        conf,
        root,
        "--sql",
        f"insert overwrite table {tgt} {STATE_A}",
        "--build",
        "--select",
        "pair__ranges+",
        "--then-sql",
        f"insert overwrite table {tgt} {STATE_B}",
        "--kill-at",
        f"pair__{model}",
        "--delay",
        "0.5",
        "--select",
        "pair__ranges+",
    )
    assert killed.returncode == -9, killed.stdout[-3000:] + killed.stderr[-3000:]
    read = _child(conf, root, "--read", f"{SCHEMA}.pair__summary")
    assert read.returncode == 0, read.stdout[-3000:] + read.stderr[-3000:]
    result = json.loads(read.stdout.strip().splitlines()[-1])
    # The run history: the complete build's run, then the killed one, still `running` (its
    # on-run-start row; no on-run-end ever came), never shown as failed. (Killed 0.5 s into the
    # summary, the kill may land after the on-run-end hook recorded the finished run.)
    previous, last = result["runs"][-2:]
    assert previous == ["completed", False], result["runs"]
    assert last == ["running", True] or (model == "summary" and last == ["completed", False]), (
        result["runs"]
    )
    if "stale" in result:
        assert "Rebuild the pair: dbt build --select +" in result["stale"], result
        assert "failed or was stopped" in result["stale"] or "missing" in result["stale"], result
        return
    state = "A" if result["rows"] == EXPECTED["A"] else "B"
    assert result["rows"] == EXPECTED[state], result
    counts = {
        kind: sum(1 for _, t in EXPECTED[state] if t == kind)
        for kind in ("added", "deleted", "modified")
    }
    assert result["summary"]["status"] == "complete", result
    assert [result["summary"][f"rows_{k}"] for k in counts] == list(counts.values()), result
    # Killed at row_diff, the new run's ranges, hashes and split exist beside the old summary:
    # that can only be read as stale.
    assert model != "row_diff", f"killed inside row_diff, yet the pair read as complete: {result}"
    # Killed at column_stats (after the new row diff, before the summary): stale as well.
    assert model != "column_stats", f"killed in column_stats, yet read as complete: {result}"
