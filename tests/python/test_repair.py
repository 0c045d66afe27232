"""Repair (ADR 0017): `NAME__repair` and `table_diff.apply_repair`.

The property: after `apply_repair`, the written side holds exactly the other side's rows (as a
multiset, compared by the oracle's canonical values: NULLs, NaN / -0.0, decimals, timestamps,
unicode names, duplicate and NULL keys), and the pair rebuilt reports no added, deleted or
modified row. Random hostile pairs, the written side Delta Lake or Iceberg (one MERGE INTO, one
commit), both directions. Then the refusals: a partial run, a side that moved since the diff, a
parquet side without `rewrite=true`, an unknown pair; a dry run writes nothing; `rewrite=true`
repairs a parquet table; a difference hidden by `round` is left as it is.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import canonical_value
from strategies import (
    RANGE_KEY_TYPES,
    TablePair,
    read_table,
    table_pairs,
    table_specs,
    to_spark_df,
    write_table,
)

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair

PAIRS = 4
FORMATS = ("delta", "iceberg")


class Lake:
    """A dbt project whose sources are tables written here, in parquet, Delta or Iceberg."""

    def __init__(self, project, spark) -> None:
        self.project, self.spark = project, spark
        self.schemas = {"lake": project.schema, "lake_ice": f"iceberg.{project.schema}"}
        self.tables: dict[str, list[str]] = {"lake": [], "lake_ice": []}

    def write(self, name: str, fmt: str, spec, rows: list[dict]) -> tuple[str, str]:
        """Write a table; returns (its SQL name, its dbt source reference)."""
        group = "lake_ice" if fmt == "iceberg" else "lake"
        full = f"{self.schemas[group]}.{name}"
        self.spark.sql(f"drop table if exists {full}")
        if fmt == "parquet":
            write_table(self.spark, spec, rows, f"`{self.project.schema}`.`{name}`")
        else:
            to_spark_df(self.spark, spec, rows).createOrReplaceTempView("td_repair_rows")
            props = " tblproperties ('delta.columnMapping.mode' = 'name')" if fmt == "delta" else ""
            self.spark.sql(
                f"create table {full} using {fmt}{props} as select * from td_repair_rows"
            )
        if name not in self.tables[group]:
            self.tables[group].append(name)
        return full, f"source('{group}', '{name}')"

    def write_sources(self) -> None:
        lines = ["version: 2", "sources:"]
        for group, names in self.tables.items():
            lines += [f"  - name: {group}", f"    schema: {self.schemas[group]}", "    tables:"]
            lines += [f"      - name: {n}" for n in names] or ["      - name: unused"]
        self.project.write("models/sources.yml", "\n".join(lines) + "\n")

    def pair(self, **kwargs) -> None:
        opts = PairOptions(**kwargs)
        for file_name, content in render_pair(opts).items():
            self.project.write(f"models/{opts.name}/{file_name}", content)

    def apply(self, pair: str, **args):
        extra = "".join(f", {k}: {str(v).lower()}" for k, v in args.items())
        return self.project.run(
            "run-operation", "table_diff.apply_repair", "--args", f"{{pair: {pair}{extra}}}"
        )

    def summary(self, pair: str) -> dict:
        return self.spark.table(self.project.relation(f"{pair}__summary")).first().asDict()

    def version(self, full: str) -> int:
        if full.startswith("iceberg."):
            refs = f"select snapshot_id from {full}.refs where name = 'main'"
            return self.spark.sql(refs).first()[0]
        return self.spark.sql(f"describe history {full} limit 1").first()["version"]


@pytest.fixture(scope="module")
def lake(lakehouse, dbt_project_factory):
    project = dbt_project_factory("repair", packages=True)
    lakehouse.sql(f"create schema if not exists `{project.schema}`")
    lakehouse.sql(f"create namespace if not exists iceberg.`{project.schema}`")
    return Lake(project, lakehouse)


def _multiset(spec, rows: list[dict]) -> Counter:
    return Counter(tuple(canonical_value(r[n]) for n in spec.names) for r in rows)


@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        table_pairs(table_specs(key_types=RANGE_KEY_TYPES, max_value_columns=4), max_rows=30),
        min_size=PAIRS,
        max_size=PAIRS,
    )
)
def test_repaired_side_holds_exactly_the_other_sides_rows(lake, pairs: list[TablePair]):
    written: dict[str, tuple] = {}
    for i, pair in enumerate(pairs):
        fmt = FORMATS[i % 2]
        direction = "source_to_target" if i % 3 != 2 else "target_to_source"
        w_side = "target" if direction == "source_to_target" else "source"
        names, refs = {}, {}
        for side in ("source", "target"):
            rows = getattr(pair, side)
            names[side], refs[side] = lake.write(
                f"r{i}_{side}", fmt if side == w_side else "parquet", pair.spec, rows
            )
        written[f"r{i}"] = (pair, w_side, names[w_side])
        lake.pair(
            name=f"r{i}",
            source=refs["source"],
            target=refs["target"],
            primary_key=tuple(pair.spec.key_names),
            block_count=2,
            compare_unit_size=4,
            repair=direction,
        )
    lake.write_sources()
    build = lake.project.run("build", "--select", *[f"{p}__ranges+" for p in written])
    build.assert_success()

    for name, (pair, w_side, w_table) in written.items():
        before = lake.version(w_table)
        diff = lake.summary(name)
        run = lake.apply(name)
        run.assert_success()
        expected_rows = pair.source if w_side == "target" else pair.target
        got = read_table(lake.spark, pair.spec, w_table)
        where = f"{name} ({w_side} written; log={pair.log})"
        assert _multiset(pair.spec, got) == _multiset(pair.spec, expected_rows), where
        # one commit, and only when something differed
        differing = sum(
            diff[k] for k in ("rows_added", "rows_deleted", "rows_modified", "duplicate_key_rows")
        )
        commits = 1 if differing else 0
        assert (lake.version(w_table) != before) == bool(commits), where
        if w_table.startswith("iceberg."):
            continue
        history = lake.spark.sql(f"describe history {w_table}").collect()
        assert len(history) == 1 + commits, where
        if commits:
            assert history[0]["operation"] == "MERGE", where

    rebuild = lake.project.run("build", "--select", *[f"{p}__ranges+" for p in written])
    rebuild.assert_success()
    for name in written:
        s = lake.summary(name)
        assert (s["rows_added"], s["rows_deleted"], s["rows_modified"]) == (0, 0, 0), name
        assert s["status"] == "complete", name
        repair_rows = lake.spark.table(lake.project.relation(f"{name}__repair")).collect()
        assert all(r["repair_action"] in ("delete", "insert") for r in repair_rows), name


# --- hand cases: refusals, dry run, parquet rewrite, normalisation ---------------------------

BASE = [(i, f"name {i}", i * 1.5) for i in range(1, 41)]


def _hand_table(lake: Lake, name: str, fmt: str, rows) -> tuple[str, str]:
    group = "lake_ice" if fmt == "iceberg" else "lake"
    full = f"{lake.schemas[group]}.{name}"
    lake.spark.sql(f"drop table if exists {full}")
    values = ", ".join(f"({i}, '{n}', {a})" for i, n, a in rows)
    lake.spark.sql(f"create table {full} (id bigint, name string, amount double) using {fmt}")
    lake.spark.sql(f"insert into {full} values {values}")
    if name not in lake.tables[group]:
        lake.tables[group].append(name)
    return full, f"source('{group}', '{name}')"


@pytest.fixture(scope="module")
def hand(lake):
    changed = [(i, "changed" if i % 10 == 0 else n, a) for i, n, a in BASE if i != 7]
    changed += [(101, "new", 1.0)]
    src_full, src = _hand_table(lake, "h_src", "parquet", BASE)
    cases = {
        "h_partial": ("delta", changed, {"max_diff_rows": 2}),
        "h_moved": ("delta", changed, {}),
        "h_dry": ("iceberg", changed, {}),
        "h_parquet": ("parquet", changed, {}),
        # 0.004 below the second decimal: equal after round=2, so not a difference to repair
        "h_round": ("delta", [(i, n, a + (0.004 if i == 3 else 0)) for i, n, a in changed], {}),
    }
    for name, (fmt, rows, extra) in cases.items():
        _, tgt = _hand_table(lake, f"{name}_tgt", fmt, rows)
        normalize = {"amount": {"round": 2}} if name == "h_round" else {}
        lake.pair(
            name=name,
            source=src,
            target=tgt,
            primary_key=("id",),
            block_count=2,
            normalize=normalize,
            repair="source_to_target",
            **extra,
        )
    lake.write_sources()
    lake.project.run("build", "--select", *[f"{n}__ranges+" for n in cases]).assert_success()
    return {"source": src_full}


def _failure(run) -> str:
    assert not run.success, run.describe()
    return run.log


def test_a_partial_run_is_refused(lake, hand):
    assert lake.summary("h_partial")["status"] == "partial"
    log = _failure(lake.apply("h_partial"))
    assert "last run is complete" in log and "max_diff_rows" in log, log


def test_a_target_that_moved_since_the_diff_is_refused(lake, hand):
    target = f"{lake.project.schema}.h_moved_tgt"
    lake.spark.sql(f"insert into {target} values (500, 'late', 0.0)")
    log = _failure(lake.apply("h_moved"))
    assert "the table is now at version" in log and "h_moved__ranges+" in log, log
    assert lake.spark.sql(f"select count(*) from {target} where id = 7").first()[0] == 0


def test_a_dry_run_writes_nothing(lake, hand):
    target = f"iceberg.{lake.project.schema}.h_dry_tgt"
    before = lake.version(target)
    run = lake.apply("h_dry", dry_run=True)
    run.assert_success()
    assert "merge into" in run.log and "1 inserts, 1 deletes, 4 updates" in run.log, run.log
    assert lake.version(target) == before
    lake.apply("h_dry").assert_success()
    assert lake.version(target) != before
    got = sorted(lake.spark.table(target).collect())
    want = sorted(lake.spark.table(hand["source"]).collect())
    assert got == want


def test_parquet_needs_rewrite_then_is_rewritten(lake, hand):
    target = f"{lake.project.schema}.h_parquet_tgt"
    log = _failure(lake.apply("h_parquet"))
    assert "rewrite=true" in log and "not atomic" in log, log
    lake.apply("h_parquet", rewrite=True).assert_success()
    assert sorted(lake.spark.table(target).collect()) == sorted(
        lake.spark.table(hand["source"]).collect()
    )
    assert not lake.project.table_exists("h_parquet__repair_staging")


def test_a_difference_hidden_by_round_is_not_written(lake, hand):
    target = f"{lake.project.schema}.h_round_tgt"
    lake.apply("h_round").assert_success()
    rows = {r.id: r for r in lake.spark.table(target).collect()}
    assert rows[3].amount == pytest.approx(3 * 1.5 + 0.004)  # equal after round=2: kept
    assert rows[10].name == "name 10" and 7 in rows and 101 not in rows


def test_an_unknown_pair_names_the_scaffold_flag(lake, hand):
    log = _failure(lake.apply("nope"))
    assert "nope__repair" in log and "--repair" in log, log
