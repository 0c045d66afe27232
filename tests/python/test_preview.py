"""`table_diff.preview_pair` (ADR 0018): a pair's cost from catalog statistics and EXPLAIN
COST only. Checked here: it starts no Spark job and scans neither side; its row counts are the
ANALYZE'd ones; its warnings come and go with the statistics, the key, a wide column and a
table_filter that prunes nothing; and its pass counts are the scans a real `dbt build` of the
pair makes, counted from Spark's own SQL metrics (each file scan of a side that read rows, once)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

ROWS = 2000
BODY = (
    f"select id, concat('v', id) as v, id * 0.5 as d, cast(id % 5 as int) as day from range({ROWS})"
)


@pytest.fixture(scope="module")
def pproject(dbt_project_factory):
    project = dbt_project_factory("preview", packages=True)
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    return project


def _table(project, name: str, query: str, layout: str = "") -> str:
    project.spark.sql(f"drop table if exists `{project.schema}`.{name}")
    project.spark.sql(f"create table `{project.schema}`.{name} using parquet {layout} as {query}")
    return f"{project.schema}.{name}"


def _pairs(project, pairs: list[PairOptions], tables: list[str]) -> None:
    """Scaffold ``pairs`` into models/pairs (replacing earlier ones) over the source ``gen``."""
    pairs_dir = project.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    for opts in pairs:
        write_pair(opts, pairs_dir)
    (pairs_dir / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {project.schema}\n    tables:\n"
        + "".join(f"      - name: {t}\n" for t in tables)
    )


def _pair(name: str, source: str, target: str, **options) -> PairOptions:
    return PairOptions(
        name=name,
        source=f"source('gen', '{source}')",
        target=f"source('gen', '{target}')",
        primary_key=("id",),
        **options,
    )


def _preview(project, pair: str, *extra: str) -> tuple[dict, str]:
    """Run the preview; its report (the JSON line) and the readable text."""
    run = project.run(
        "run-operation", "table_diff.preview_pair", "--args", f"{{pair: {pair}}}", *extra
    )
    run.assert_success()
    marker = "table_diff.preview_pair json: "
    line = next(m for m in run.messages if m.startswith(marker))
    text = next(m for m in run.messages if m.startswith(f"table_diff.preview_pair {pair}:"))
    return json.loads(line[len(marker) :]), text


# --------------------------------------------------------------------------------------------------
# What Spark ran: its SQL status store (kept with the UI off), read through py4j
# --------------------------------------------------------------------------------------------------


def _store(spark):
    spark._jsc.sc().listenerBus().waitUntilEmpty()  # the listeners have seen every event
    return spark._jsparkSession.sharedState().statusStore()


def _last_ids(spark) -> tuple[int, int]:
    """(last SQL execution id, last job id) so far; -1 when none."""
    executions = _store(spark).executionsList()
    last_execution = max(
        (executions.apply(i).executionId() for i in range(executions.size())), default=-1
    )
    jobs = spark._jsc.sc().statusStore().jobsList(None)
    last_job = max((jobs.apply(i).jobId() for i in range(jobs.size())), default=-1)
    return last_execution, last_job


def _scans_since(spark, since: int, tables: dict[str, str]) -> dict[str, int]:
    """Per side (``tables``: side -> schema.table), the scans of it that read rows in the SQL
    executions after ``since``: scan nodes of the final (adaptive) plans whose "number of output
    rows" is not 0, each counted once by its metric's accumulator (a cached or reused plan shows
    the same scan node again; a scan the quick check skipped read nothing)."""
    store = _store(spark)
    executions = store.executionsList()
    seen: set[int] = set()
    counts = dict.fromkeys(tables, 0)
    for i in range(executions.size()):
        execution_id = executions.apply(i).executionId()
        if execution_id <= since:
            continue
        values = store.executionMetrics(execution_id)
        nodes = store.planGraph(execution_id).allNodes()
        for j in range(nodes.size()):
            node = nodes.apply(j)
            side = next(
                (
                    s
                    for s, t in tables.items()
                    if node.name().startswith(("Scan ", "BatchScan "))
                    and node.name().endswith((" " + t, "." + t))
                ),
                None,
            )
            if side is None:
                continue
            metrics = node.metrics()
            for k in range(metrics.size()):
                metric = metrics.apply(k)
                if metric.name() != "number of output rows":
                    continue
                value = values.get(metric.accumulatorId())
                rows = int(re.sub(r"[^0-9]", "", value.get()) or 0) if value.isDefined() else 0
                if rows > 0 and metric.accumulatorId() not in seen:
                    seen.add(metric.accumulatorId())
                    counts[side] += 1
    return counts


# --------------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------------


def test_preview_reads_nothing_and_reports_the_analyzed_counts(pproject):
    """Without statistics: a warning per side naming ANALYZE TABLE, and no Spark job at all. After
    ANALYZE TABLE ... FOR COLUMNS: the rows are the analyzed counts, the warnings are gone, and the
    key's distinct values are known."""
    spark = pproject.spark
    source = _table(pproject, "st_source", BODY)
    target = _table(pproject, "st_target", f"select * from ({BODY}) where id != 7")
    _pairs(
        pproject,
        [
            _pair("st", "st_source", "st_target"),
            _pair("st_t", "st_source", "st_target", track=True),
        ],
        ["st_source", "st_target"],
    )
    pproject.run("parse").assert_success()

    executions, jobs = _last_ids(spark)
    report, text = _preview(pproject, "st")
    assert _scans_since(spark, executions, {"source": source, "target": target}) == {
        "source": 0,
        "target": 0,
    }
    assert _last_ids(spark)[1] == jobs, "the preview started a Spark job"
    for table in (source, target):
        assert f"no statistics on {table}: run ANALYZE TABLE {table} COMPUTE STATISTICS" in text
    assert report["sides"]["source"]["rows_statistics"] is None
    assert report["changes_track"].startswith("off (track: true re-hashes only")
    assert "changes track: off" in text
    tracked, _ = _preview(pproject, "st_t")
    assert tracked["changes_track"].startswith("on: the first run")
    # the first run's passes; a run that takes the quick check cuts no key sample (ADR 0031),
    # unless the pair keeps its leaves for a changes track
    assert tracked["passes"]["without_quick_check"] == report["passes"]["without_quick_check"]
    sampled = {
        name: any(
            s.startswith("key sample")
            for s in r["passes"]["with_quick_check"]["identical"]["steps"]
        )
        for name, r in (("untracked", report), ("tracked", tracked))
    }
    assert sampled == {"untracked": False, "tracked": True}, (report["passes"], tracked["passes"])

    for table in (source, target):
        spark.sql(f"analyze table {table} compute statistics for columns id, v, d, day")
    report, text = _preview(pproject, "st")
    assert report["sides"]["source"]["rows_statistics"] == spark.table(source).count() == ROWS
    assert report["sides"]["target"]["rows_statistics"] == spark.table(target).count() == ROWS - 1
    assert "no statistics" not in text and report["warnings"] == [], text
    assert abs(report["sides"]["source"]["key_distinct"] - ROWS) <= ROWS // 10


def test_warnings_for_the_key_a_wide_column_and_a_table_filter(pproject):
    """A key with few distinct values and a column that dominates the row (column statistics); a
    table_filter on a column that is not a partition column, on a table that is not partitioned,
    and one whose partition filter keeps every partition warn; one that prunes does not. No Spark
    job either way (the partitions are listed from the metastore)."""
    spark = pproject.spark
    wide = f"select id % 10 as id, repeat('x', 500) as w, concat('v', id) as v from range({ROWS})"
    fk = {side: _table(pproject, f"fk_{side}", wide) for side in ("source", "target")}
    pt = {
        side: _table(pproject, f"pt_{side}", BODY, "partitioned by (day)")
        for side in ("source", "target")
    }
    for table in fk.values():
        spark.sql(f"analyze table {table} compute statistics for columns id, w, v")
    pairs = {
        "fk": _pair("fk", "fk_source", "fk_target", block_count=16, compare_unit_size=10),
        "nf": _pair("nf", "fk_source", "fk_target", table_filter="v != 'v7'"),
        "pv": _pair("pv", "pt_source", "pt_target", table_filter="v != 'v7'"),
        "pd": _pair("pd", "pt_source", "pt_target", table_filter="day = 1"),
        "pa": _pair("pa", "pt_source", "pt_target", table_filter="day >= 0"),
        "hs": _pair("hs", "fk_source", "fk_target", strategy="hash", quick_check=True),
    }
    _pairs(
        pproject,
        list(pairs.values()),
        [f"{t}_{s}" for t in ("fk", "pt") for s in ("source", "target")],
    )
    pproject.run("parse").assert_success()
    executions, jobs = _last_ids(spark)
    reports = {name: _preview(pproject, name) for name in pairs}
    sides = {**{f"fk_{s}": t for s, t in fk.items()}, **{f"pt_{s}": t for s, t in pt.items()}}
    assert set(_scans_since(spark, executions, sides).values()) == {0}
    assert _last_ids(spark)[1] == jobs, "a preview started a Spark job"

    report, text = reports["fk"]
    leaves = report["layout"]["leaf_count"]
    assert leaves > 10, report["layout"]
    for table in fk.values():
        assert (
            f"key (id) has about 10 distinct values on {table}: "
            f"fewer than half as many as its {ROWS} rows" in text
        )
        assert (
            f"fewer than the {leaves} leaves planned: a range layout cuts at most 10 leaves" in text
        )
        assert re.search(
            rf"column w is 500 of the 5\d\d bytes of an average row of {table} \(9\d%\)", text
        ), text
    assert "prunes no partition" not in text  # no table_filter

    _, text = reports["nf"]
    for table in fk.values():
        assert f"table_filter prunes no partition of {table}: it is not partitioned" in text
    _, text = reports["pv"]
    for table in pt.values():
        assert (
            f"table_filter prunes no partition of {table}: it names no partition column (day), "
            "so every pass reads all 5 partitions" in text
        )
    report, text = reports["pd"]
    assert "prunes no partition" not in text
    assert report["sides"]["source"]["pruning"]["partitions_read"] == 1
    assert report["sides"]["source"]["pruning"]["partitions_total"] == 5
    assert "table_filter reads 1 of 5 partitions" in text
    report, text = reports["hs"]  # no key sample; the quick check always runs
    assert report["passes"]["quick_check_runs"] == "always"
    assert report["passes"]["with_quick_check"]["identical"]["steps"] == [
        "whole-table signature (source)",
        "whole-table signature (target)",
    ]
    assert "leaves planned" not in text  # a hash layout does not depend on distinct keys
    _, text = reports["pa"]
    for table in pt.values():
        assert (
            f"table_filter prunes no partition of {table}: "
            "its partition filter keeps all 5 partitions" in text
        )


def test_pass_counts_are_the_scans_a_build_makes(pproject):
    """The preview's passes per side equal the scans of each side in a real `dbt build` of the
    pair: identical sides on a first run (leaf pass) and again (quick check), one changed row
    after an identical run (the quick check, then every row compared, the differing keys named
    first by the narrow pass: ADR 0033), and the same drift again ('auto' skips the quick check)
    with the dense row fetch's narrow pass (var table_diff_dense_leaf_share 0, given to the
    preview too).

    A pair with column_map (the target stores id as key_id, v as val) and a tolerance on d (the
    target's d moved within it) is built beside it in the two identical builds (one dbt build
    each for both pairs, 2 fewer than building it on its own): the preview takes its options,
    its passes are the scans of the build, and the build finds the sides identical."""
    spark = pproject.spark
    tables = {
        "source": _table(pproject, "pc_source", BODY),
        "target": _table(pproject, "pc_target", BODY),
    }
    mapped = {
        "source": _table(pproject, "cm_source", BODY),
        "target": _table(
            pproject,
            "cm_target",
            f"select id as key_id, v as val, d + 0.1 as d, day from ({BODY})",
        ),
    }
    options = {"column_map": {"key_id": "id", "val": "v"}, "tolerance": {"d": {"abs": 0.25}}}
    _pairs(
        pproject,
        [
            _pair("pc", "pc_source", "pc_target", block_count=8, compare_unit_size=100),
            _pair("cm", "cm_source", "cm_target", block_count=8, compare_unit_size=100, **options),
        ],
        ["pc_source", "pc_target", "cm_source", "cm_target"],
    )
    dense = ["--vars", '{"table_diff_dense_leaf_share": 0}']
    measured = {}

    def build(case: str, *extra: str, with_mapped: bool = False) -> dict:
        report, _ = _preview(pproject, "pc", *extra)
        quick, drift = case.split("/")
        want = report["passes"][quick][drift]
        if with_mapped:
            mapped_report, _ = _preview(pproject, "cm")
            mapped_want = mapped_report["passes"][quick][drift]
        since = _last_ids(spark)[0]
        select = "pairs" if with_mapped else "pc__ranges+"
        pproject.run("build", "--select", select, *extra).assert_success()
        measured[case] = (_scans_since(spark, since, tables), {s: want[s] for s in tables})
        if with_mapped:
            got = _scans_since(spark, since, mapped)
            assert got == {s: mapped_want[s] for s in mapped}, case
            summary = spark.table(pproject.relation("cm__summary")).first()
            assert summary["is_identical"] and summary["rows_modified"] == 0, case
            assert summary["column_map"] == '{"key_id": "id", "val": "v"}'
        return report

    # a first run groups leaves ('auto')
    report = build("without_quick_check/identical", with_mapped=True)
    assert report["layout"]["leaf_count"] >= 8 and report["dense_leaves"] > 1, report["layout"]
    build("with_quick_check/identical", with_mapped=True)
    _table(
        pproject, "pc_target", f"select id, if(id = 1234, 'changed', v) as v, d, day from ({BODY})"
    )
    build("with_quick_check/drifted_sparse")
    build("without_quick_check/drifted_dense", *dense)
    summary = spark.table(pproject.relation("pc__summary")).first()
    assert summary["rows_modified"] == 1 and not summary["is_identical"]
    wrong = {case: pair for case, pair in measured.items() if pair[0] != pair[1]}
    assert wrong == {}, measured


def test_unsized_sides_are_counted_once_by_the_run(pproject):
    """Views over partitioned tables without statistics cannot be sized (Spark says 8 EiB): the
    preview counts nothing, warns, and counts the row count the run then makes on the source as
    one more pass, which the build's scans confirm."""
    spark = pproject.spark
    tables = {
        s: _table(pproject, f"uv_{s}_t", BODY, "partitioned by (day)") for s in ("source", "target")
    }
    for side, table in tables.items():
        spark.sql(f"create or replace view `{pproject.schema}`.uv_{side} as select * from {table}")
    _pairs(pproject, [_pair("uv", "uv_source", "uv_target")], ["uv_source", "uv_target"])
    pproject.run("parse").assert_success()
    executions, jobs = _last_ids(spark)
    report, text = _preview(pproject, "uv")
    assert _scans_since(spark, executions, tables) == {"source": 0, "target": 0}
    assert _last_ids(spark)[1] == jobs, "the preview started a Spark job"
    assert report["layout"]["counted_side"] == "source", report["layout"]
    assert (
        f"no side can be sized: the run counts the rows of {pproject.schema}.uv_source once" in text
    )
    assert f"no statistics on {pproject.schema}.uv_source (a view)" in text
    want = report["passes"]["without_quick_check"]["identical"]  # a first run groups leaves
    assert want["steps"][:2] == ["layout row count (source)", "key sample (source)"]
    since = _last_ids(spark)[0]
    pproject.run("build", "--select", "pairs").assert_success()
    assert _scans_since(spark, since, tables) == {s: want[s] for s in tables}


def test_delta_and_iceberg_sides(pproject, lakehouse):
    """Delta and Iceberg sides: pinned to a version, so a drifted run makes no change check on
    them; a Delta table's partition filters come from its file scan, an Iceberg table's batch
    scan tells none (no warning, "unknown"); the build's scans equal the preview's passes."""
    spark, schema = lakehouse, pproject.schema
    spark.sql(f"create namespace if not exists iceberg.`{schema}`")
    tables = {"source": f"{schema}.lk_delta", "target": f"iceberg.{schema}.lk_ice"}
    for table, fmt in ((tables["source"], "delta"), (tables["target"], "iceberg")):
        spark.sql(f"drop table if exists {table}")
        spark.sql(f"create table {table} using {fmt} partitioned by (day) as {BODY}")
    pairs = [
        PairOptions(
            name=name,
            source="source('gen', 'lk_delta')",
            target="source('ice', 'lk_ice')",
            primary_key=("id",),
            block_count=8,
            compare_unit_size=100,
            **options,
        )
        for name, options in (("lk", {}), ("lf", {"table_filter": "v != 'v7'"}))
    ]
    _pairs(pproject, pairs, ["lk_delta"])
    (pproject.root / "models" / "pairs" / "_ice__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: ice\n    schema: iceberg.{schema}\n"
        "    tables:\n      - name: lk_ice\n"
    )
    pproject.run("parse").assert_success()
    executions = _last_ids(spark)[0]
    report, text = _preview(pproject, "lf")
    assert _scans_since(spark, executions, tables) == {"source": 0, "target": 0}
    assert f"table_filter prunes no partition of {tables['source']}" in text
    assert "whether table_filter prunes partitions: unknown" in text
    # Spark refuses ANALYZE TABLE on Delta (a v2 table): said, but not as a warning to act on
    assert f"no statistics on {tables['source']}" not in text
    assert "rows unknown (no statistics; ANALYZE TABLE does not take delta tables)" in text
    assert f"table_filter prunes no partition of {tables['target']}" not in text
    # a first run groups leaves ('auto'); then identical, the quick check; then drift found by it
    cases = ("without_quick_check/identical", "with_quick_check/identical")
    for case in (*cases, "with_quick_check/drifted_sparse"):
        if case.endswith("drifted_sparse"):
            spark.sql(f"update {tables['target']} set v = 'changed' where id = 1234")
        report, _ = _preview(pproject, "lk")
        assert [report["sides"][s]["change_check"] for s in tables] == [False, False]
        quick, drift = case.split("/")
        want = report["passes"][quick][drift]
        since = _last_ids(spark)[0]
        pproject.run("build", "--select", "lk__ranges+").assert_success()
        assert _scans_since(spark, since, tables) == {s: want[s] for s in tables}, case


def test_cli_prints_the_preview(pproject, capsys):
    """`table-diff preview PAIR` runs the macro through dbt and prints its report, or its JSON."""
    from dbt_table_diff.cli import main

    for side in ("source", "target"):
        _table(pproject, f"cl_{side}", BODY)
    _pairs(pproject, [_pair("cl", "cl_source", "cl_target")], ["cl_source", "cl_target"])
    common = ["--project-dir", str(pproject.root)]
    assert main(["preview", "cl", *common]) == 0
    out = capsys.readouterr().out
    assert out.startswith("table_diff.preview_pair cl: ") and "passes over the data" in out, out
    assert main(["preview", "cl", "--json", *common]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pair"] == "cl" and report["passes"]["with_quick_check"]["identical"]["total"] > 0
    assert main(["preview", "nope", *common]) == 2
    assert "a pair of this project with a model nope__ranges" in capsys.readouterr().err
