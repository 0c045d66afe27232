"""Snapshot-pinned diffs on Delta Lake and Iceberg sides (docs/semantics.md, "Runs").

A pair resolves each Delta / Iceberg side's current version once, in ``__ranges``; every later pass
reads ``VERSION AS OF`` it. Proven by a writer that commits to the target between the signature
pass and the row fetch (a callback on dbt's own events): the result is exactly the diff of the
pinned versions, computed independently here with a plain join on ``VERSION AS OF``, and the
summary names the versions. ``no_drift`` does the same inside its test. Two versions of one table
are the sides of a pair or a test with ``*_as_of`` ("what changed since version N").
"""

from __future__ import annotations

import textwrap

import pytest

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair

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
FORMATS = ("delta", "iceberg")


def _on_event(name: str, match, action):
    done: list[bool] = []

    def callback(event) -> None:
        if done or event.info.name != name or not match(event):
            return
        done.append(True)
        action()

    return callback


class Lake:
    """The project and, per format, the target table's SQL name and dbt reference."""

    def __init__(self, project) -> None:
        self.project = project
        self.spark = project.spark
        self.iceberg_schema = f"iceberg.{project.schema}"
        self.names = {
            "delta": project.relation("tgt_delta"),
            "iceberg": f"{self.iceberg_schema}.tgt_iceberg",
        }
        self.refs = {
            "delta": "source('lake_delta', 'tgt_delta')",
            "iceberg": "source('lake_iceberg', 'tgt_iceberg')",
        }

    def write_sources(self, tests: dict[str, str] | None = None) -> None:
        """models/sources.yml: one source per format; ``tests`` adds a test block to a table."""
        schemas = {"delta": self.project.schema, "iceberg": self.iceberg_schema}
        lines = ["version: 2", "sources:"]
        for fmt in FORMATS:
            lines += [f"  - name: lake_{fmt}", f"    schema: {schemas[fmt]}", "    tables:"]
            lines.append(f"      - name: tgt_{fmt}")
            if tests and fmt in tests:
                lines.append(textwrap.indent(textwrap.dedent(tests[fmt]), "        ").rstrip())
        self.project.write("models/sources.yml", "\n".join(lines) + "\n")

    def reset(self, fmt: str) -> int:
        """Recreate the target with TARGET's rows; returns its current version."""
        name = self.names[fmt]
        self.spark.sql(f"drop table if exists {name}")
        self.spark.sql(f"create table {name} using {fmt} as {TARGET}")
        return self.version(fmt)

    def version(self, fmt: str) -> int:
        name = self.names[fmt]
        if fmt == "delta":
            return int(self.spark.sql(f"describe history {name} limit 1").first()["version"])
        return int(
            self.spark.sql(f"select snapshot_id from {name}.refs where name = 'main'").first()[0]
        )

    def append_late_rows(self, fmt: str):
        name = self.names[fmt]

        def append() -> None:
            self.spark.sql(
                f"insert into {name} select id, 'late', 1.00 from range(100001, 100201) as r(id)"
            )

        return append

    def expected(self, source: str, target: str) -> dict[int, str]:
        """Brute force: key -> diff type by a full outer join of two FROM items."""
        rows = self.spark.sql(
            f"""
            select coalesce(s.id, t.id) as id,
              case when s.id is null then 'added' when t.id is null then 'deleted'
                else 'modified' end as d
            from {source} as s full outer join {target} as t on s.id = t.id
            where s.id is null or t.id is null
              or not (s.name <=> t.name and s.amount <=> t.amount)
            """
        ).collect()
        return {r.id: r.d for r in rows}


@pytest.fixture(scope="module")
def lake(lakehouse, dbt_project_factory):
    files = {"models/src.sql": SOURCE}
    project = dbt_project_factory(
        "pinned",
        files=files,
        packages=True,
        project_config={"models": {"pinned": {"+materialized": "table"}}},
    )
    project.run("run", "--select", "src").assert_success()  # creates the schema too
    lake = Lake(project)
    lakehouse.sql(f"create namespace if not exists {lake.iceberg_schema}")
    lake.write_sources()
    for fmt in FORMATS:
        lake.reset(fmt)
        opts = PairOptions(
            name=f"pin_{fmt}",
            source="ref('src')",
            target=lake.refs[fmt],
            primary_key=("id",),
            block_count=4,
            compare_unit_size=100,
            quick_check=False,
        )
        for file_name, content in render_pair(opts).items():
            project.write(f"models/pin_{fmt}/{file_name}", content)
    return lake


def _row_diff(lake: Lake, pair: str) -> dict[int, str]:
    rows = lake.spark.table(lake.project.relation(f"{pair}__row_diff")).collect()
    return {r.id: r.diff_type for r in rows}


def _summary(lake: Lake, pair: str) -> dict:
    return lake.spark.table(lake.project.relation(f"{pair}__summary")).first().asDict()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_commit_during_the_run_does_not_reach_the_pinned_diff(lake, fmt):
    pinned = lake.reset(fmt)
    pair = f"pin_{fmt}"
    callback = _on_event(
        "NodeStart",
        lambda e: e.data.node_info.node_name == f"{pair}__row_diff",
        lake.append_late_rows(fmt),
    )
    run = lake.project.run("build", "--select", f"{pair}__ranges+", callbacks=[callback])
    run.assert_success()
    after = lake.version(fmt)
    assert after != pinned, "the writer did not commit during the run"
    src = lake.project.relation("src")
    expected = lake.expected(src, f"{lake.names[fmt]} version as of {pinned}")
    assert len(expected) == 80 and set(expected.values()) == {"modified"}
    assert _row_diff(lake, pair) == expected
    s = _summary(lake, pair)
    assert s["status"] == "complete", s
    assert (s["target_format"], s["target_version"]) == (fmt, str(pinned))
    assert s["target_changed_during_run"] is False
    assert (s["rows_target"], s["rows_added"], s["rows_modified"]) == (N, 0, 80)
    assert f"version as of {pinned}" in run.log
    # The current version has the late rows: a new run sees them, pinned to the new version.
    lake.project.run("build", "--select", f"{pair}__ranges+").assert_success()
    s = _summary(lake, pair)
    assert (s["target_version"], s["rows_added"]) == (str(after), 200)
    assert _row_diff(lake, pair) == lake.expected(src, lake.names[fmt])


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_drift_reads_one_version_throughout(lake, fmt):
    pinned = lake.reset(fmt)
    lake.project.write(
        f"models/drift_{fmt}.yml",
        f"""
        version: 2
        models:
          - name: src
            data_tests:
              - table_diff.no_drift:
                  name: drift_{fmt}
                  arguments:
                    compare_to: "{{{{ {lake.refs[fmt]} }}}}"
                    primary_key: id
        """,
    )
    callback = _on_event(
        "JinjaLogInfo", lambda e: " DIFFER: " in e.info.msg, lake.append_late_rows(fmt)
    )
    run = lake.project.run("test", "--select", f"drift_{fmt}", callbacks=[callback])
    # A fail with the pinned version's 80 rows, not an error about a write during the test.
    assert run.status(f"drift_{fmt}") == "fail", run.describe()
    assert run.node(f"drift_{fmt}").failures == 80, run.describe()
    assert lake.version(fmt) != pinned, "the writer did not commit during the test"
    assert f"version as of {pinned}" in run.log
    lake.project.remove(f"models/drift_{fmt}.yml")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_table_against_its_own_older_version(lake, fmt):
    """source_as_of: the target at the version before the late rows vs the target now."""
    before = lake.reset(fmt)
    lake.append_late_rows(fmt)()
    lake.spark.sql(f"delete from {lake.names[fmt]} where id <= 30")
    lake.spark.sql(f"update {lake.names[fmt]} set name = 'moved' where id between 500 and 509")
    pair = f"since_{fmt}"
    opts = PairOptions(
        name=pair,
        source=lake.refs[fmt],
        target=lake.refs[fmt],
        primary_key=("id",),
        block_count=4,
        source_as_of=before,
    )
    for file_name, content in render_pair(opts).items():
        lake.project.write(f"models/{pair}/{file_name}", content)
    lake.project.run("build", "--select", f"{pair}__ranges+").assert_success()
    name = lake.names[fmt]
    expected = lake.expected(f"{name} version as of {before}", name)
    assert sorted(expected.values()).count("added") == 200
    assert sorted(expected.values()).count("deleted") == 30
    assert sorted(expected.values()).count("modified") == 10
    assert _row_diff(lake, pair) == expected
    s = _summary(lake, pair)
    assert (s["source_version"], s["target_version"]) == (str(before), str(lake.version(fmt)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_drift_against_an_older_version_by_timestamp(lake, fmt):
    lake.reset(fmt)
    stamp = lake.spark.sql("select cast(current_timestamp() as string)").first()[0]
    lake.spark.sql(f"update {lake.names[fmt]} set amount = 0 where id in (7, 8, 9)")
    test = (
        "                data_tests:\n"
        "                  - table_diff.no_drift:\n"
        f"                      name: since_{fmt}\n"
        "                      arguments:\n"
        f"                        compare_to: {lake.refs[fmt]}\n"
        f"                        compare_to_as_of: '{stamp}'\n"
        "                        primary_key: id\n"
    )
    lake.write_sources({fmt: test})
    run = lake.project.run("test", "--select", f"since_{fmt}")
    lake.write_sources()
    assert run.status(f"since_{fmt}") == "fail", run.describe()
    assert run.node(f"since_{fmt}").failures == 3, run.describe()


def test_as_of_on_a_side_without_versions_or_a_missing_version_fails_before_any_scan(lake):
    """source_as_of on a parquet side (no versions) and a version Delta does not have: each
    pair's ranges fail, naming the cause. Both pairs in one dbt build (one fewer than a build
    each), each model's error its own."""
    lake.reset("delta")
    pairs = {
        "as_of_parquet": PairOptions(
            name="as_of_parquet",
            source="ref('src')",
            target=lake.refs["delta"],
            primary_key=("id",),
            source_as_of=3,
        ),
        "as_of_missing": PairOptions(
            name="as_of_missing",
            source=lake.refs["delta"],
            target=lake.refs["delta"],
            primary_key=("id",),
            source_as_of=9999,
        ),
    }
    for pair, opts in pairs.items():
        for file_name, content in render_pair(opts).items():
            lake.project.write(f"models/{pair}/{file_name}", content)
    run = lake.project.run("build", "--select", *(f"{pair}__ranges" for pair in pairs))
    for pair in pairs:
        assert run.status(f"{pair}__ranges") == "error", run.describe()
    message = run.message("as_of_parquet__ranges")
    assert "invalid source_as_of '3'" in message and "parquet" in message, message
    assert "remove source_as_of" in message, message
    message = run.message("as_of_missing__ranges")
    assert "invalid source_as_of '9999'" in message and "DESCRIBE HISTORY" in message, message
