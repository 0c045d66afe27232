"""The benchmark's inputs and baselines are right (its timings are not tested anywhere).

bench/run.py checks every timed result against the generator's ``Truth``; these tests check that
truth itself against the independent brute-force oracle, for a simple and a composite key, and
that the baselines written here (floor, full outer join, one-level hash buckets, exceptAll) return
it. The third-party ones (spark-extension, datacompy: bench/requirements.txt, not installed for the
tests) are checked against the same truth by bench/run.py on every timed run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import importlib.util
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from conftest import restored_runtime_conf
from oracle import brute_force_diff, brute_force_merge, merge_counts, merged_table

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# bench/run.py imports these under their own names
generate = _load("generate", "generate.py")
peers = _load("peers", "peers.py")
pair = _load("pair", "pair.py")
report = _load("report", "report.py")
bench_run = _load("table_diff_bench_run", "run.py")

ROWS = 3000


def _oracle_diff(spark, k: int, **flags):
    """Generate a pair (``flags``: composite / clustered / dated), diff it with the oracle and
    check the counts against the generator's truth. Returns (source table, oracle diff, truth)."""
    layout = generate.Layout(**flags)
    src, tgt, truth = generate.generate_pair(
        spark, "td_bench_test", ROWS, k, seed=11, layout=layout
    )
    keys = layout.key_columns
    rows_s = [r.asDict() for r in spark.table(src).collect()]
    rows_t = [r.asDict() for r in spark.table(tgt).collect()]
    want = brute_force_diff(rows_s, rows_t, keys, layout.value_columns)
    assert (len(want.modified), len(want.deleted), len(want.added)) == (
        truth.modified,
        truth.deleted,
        truth.inserted,
    )
    return src, tgt, want, truth


@pytest.mark.parametrize("composite", [False, True], ids=["id", "composite"])
@pytest.mark.parametrize("k", [0, 1, 40])
def test_generator_truth_matches_oracle(spark, composite, k):
    src, tgt, want, truth = _oracle_diff(spark, k, composite=composite)
    layout = generate.Layout(composite=composite)
    keys, columns = layout.key_columns, layout.value_columns
    assert not want.duplicate_keys and want.null_key_rows_source == 0
    assert (want.rows_source, want.rows_target) == (truth.source_rows, truth.target_rows)
    # Each modified key differs in exactly one column, rotating over int / string / timestamp.
    assert all(len(changed) == 1 for changed in want.modified.values())
    if truth.modified >= 3:
        assert {c for changed in want.modified.values() for c in changed} == {
            "c_int",
            "c_str",
            "c_ts",
        }
    # Differences spread over the whole key range, not bunched among the lowest keys.
    if k >= 4 and not composite:
        ids = sorted(key[0] for key in (*want.modified, *want.deleted))
        assert ids[-1] - ids[0] > ROWS // 2, ids
    # NULLs in every value column, as the benchmark promises.
    nulls = spark.sql(
        f"select {', '.join(f'count_if({c} is null) as {c}' for c in columns)} from {src}"
    ).first()
    assert all(nulls), nulls.asDict()

    want_rows = {"added": truth.inserted, "deleted": truth.deleted, "modified": truth.modified}
    got = spark.sql(peers.join_sql(src, tgt, keys, keys + columns)).first().asDict()
    assert got == want_rows
    assert peers.hash_buckets(spark, src, tgt, keys, keys + columns) == want_rows
    assert peers.except_all(spark, src, tgt) == {
        "source_only": truth.modified + truth.deleted,
        "target_only": truth.modified + truth.inserted,
    }
    floor = {
        r["side"]: r["n"] for r in spark.sql(peers.floor_sql(src, tgt, keys + columns)).collect()
    }
    assert floor == {"source": truth.source_rows, "target": truth.target_rows}


def test_layout_names_columns_and_flags():
    """The layout's table names are the cached data's names (the flag order is part of them), and
    its flags give another bench/run.py process the same layout."""
    default = generate.Layout()
    assert generate.table_names("db", 10, 1, 7) == ("db.src_10_s7", "db.tgt_10_1_s7")
    assert default.columns == ["id", *generate.VALUE_COLUMNS]
    assert not default.in_key_order and default.partition_column is None
    every = generate.Layout(composite=True, partitioned=True, clustered=True, dated=True)
    assert generate.table_names("db", 10, 1, 7, every)[0] == "db.src_10_s7_c_p_o_d"
    assert every.key_columns == ["day", "seq"] and every.partition_column == "day"
    assert every.value_columns[-1] == "part"
    layout = generate.Layout(partitioned=True, clustered=True)
    assert layout.cli_flags() == ["--partitioned", "--clustered"]
    flags = dict.fromkeys(("composite", "partitioned", "clustered", "dated"), False)
    flags |= {flag.removeprefix("--"): True for flag in layout.cli_flags()}
    assert generate.Layout.from_args(argparse.Namespace(**flags)) == layout
    assert layout.in_key_order and layout.partition_column == "part"


def test_parse_k_and_split():
    assert generate.parse_k("1%", 10_000_000) == 100_000
    assert generate.parse_k("100", 10) == 100
    t = generate.split_k(1000, 10)
    assert (t.modified, t.deleted, t.inserted) == (5, 2, 3)
    with pytest.raises(ValueError, match="k=11"):
        generate.split_k(10, 11)


def test_dated_tables_are_partitioned_by_day_with_drift_in_the_newest_days(spark):
    """``--dated``: key (day, seq), one partition per day, the k differences the highest ids, so
    they sit in the last days (the inserted keys in a day of their own); the truth still matches
    the oracle."""
    src, tgt, want, truth = _oracle_diff(spark, 40, dated=True)
    assert src.endswith("_d") and tgt.endswith("_d")
    partitions = spark.sql(f"show partitions {src}").collect()
    assert len(partitions) == generate.DAYS
    per_day = generate.per_day(ROWS)
    first = dt.date(2020, 1, 1)
    changed = sorted(
        (key[0] - first).days * per_day + key[1]
        for key in (*want.modified, *want.deleted, *want.added)
    )
    assert changed == list(range(ROWS - truth.modified - truth.deleted, ROWS + truth.inserted))
    assert {key[0] for key in want.added} == {first + dt.timedelta(days=generate.DAYS)}


def test_clustered_tables_are_in_key_order_with_drift_among_the_newest_keys(spark):
    """``--clustered``: files cut by key range, rows sorted, the k differences the highest keys;
    the truth still matches the oracle."""
    src, tgt, want, truth = _oracle_diff(spark, 40, clustered=True)
    assert src.endswith("_o") and tgt.endswith("_o")
    changed = sorted(key[0] for key in (*want.modified, *want.deleted, *want.added))
    assert changed == list(range(ROWS - truth.modified - truth.deleted, ROWS + truth.inserted))
    # each file holds one key range, in order: no two files' ranges overlap
    spans = sorted(
        (r["lo"], r["hi"])
        for r in spark.sql(
            f"select min(id) as lo, max(id) as hi from {src} group by input_file_name()"
        ).collect()
    )
    assert len(spans) >= 2
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False)), spans


def test_model_seconds_are_medians_over_the_repetitions():
    """The report's per-model seconds are medians over the repetitions, not the last one's."""
    reps = [
        {"models": {"ranges": 1.0, "row_diff": 9.0}, "leaves_total": 4},
        {"models": {"ranges": 3.0, "row_diff": 1.0}, "leaves_total": 4},
        {"models": {"ranges": 2.0, "row_diff": 2.0}, "leaves_total": 8},
    ]
    got = report.median_models(reps)
    assert got["models"] == {"ranges": 2.0, "row_diff": 2.0}
    assert got["leaves_total"] == 8 and len(got["models_by_rep"]) == 3
    assert report.median_models([]) is None


def test_run_cli_help_and_approaches(capsys):
    """bench/run.py's command line still parses after the split into modules (no Spark started)."""
    with pytest.raises(SystemExit) as exit_info:
        bench_run.main(["--help"])
    assert exit_info.value.code == 0
    assert "--approaches" in capsys.readouterr().out
    assert set(report.LABELS) == set(report.APPROACHES)
    assert report.APPROACHES == (
        peers.BASELINES + pair.TABLE_DIFF + peers.MERGE_BASELINES + pair.MERGE
    )
    with pytest.raises(SystemExit):
        bench_run.main(["--approaches", "nope"])


def _documented_runs() -> list[list[str]]:
    """The arguments of every `bench/run.py ...` command quoted in docs/performance.md, and of the
    Makefile's `make bench` (BENCH_ARGS)."""
    repo = BENCH.parent
    doc = (repo / "docs" / "performance.md").read_text()
    runs = [
        shlex.split(m)
        for m in re.findall(r"`(?:\.venv/bin/python )?bench/run\.py([^`]*)`", doc)
        if m.strip() and "--help" not in m
    ]
    make = re.search(r"^BENCH_ARGS \?= (.*?)\n(?!\s)", (repo / "Makefile").read_text(), re.M | re.S)
    runs.append(shlex.split(make.group(1).replace("\\\n", " ")))
    return runs


def test_documented_rerun_commands_parse():
    """The rerun commands of docs/performance.md and `make bench` are valid bench/run.py command
    lines (parsed only: nothing runs)."""
    runs = _documented_runs()
    assert len(runs) >= 6, runs
    assert any("--merge" in argv for argv in runs), "the three-way merge's rerun command"
    for argv in runs:
        args = bench_run.parse_args(argv)
        assert args.rows and set(args.approaches) <= set(report.APPROACHES), argv
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--rows", "10", "--no-such-flag"])


def test_merge_command_line():
    """``--merge`` times the merge's approaches by default; they need --merge, and a merge run
    times nothing else (the pair's variants and no_drift are for pair cases)."""
    args = bench_run.parse_args(["--merge", "--rows", "1e7", "--k", "1%", "--reps", "3"])
    assert args.merge and args.rows == [10_000_000] and args.k == ["1%"]
    assert args.approaches == list(report.MERGE_DEFAULT)
    assert not set(bench_run.parse_args([]).approaches) & set(report.MERGE_ONLY)
    for argv in (["--approaches", "floor,join3"], ["--merge", "--approaches", "no_drift"]):
        with pytest.raises(SystemExit):
            bench_run.parse_args(argv)


@pytest.mark.parametrize("k", [40, 400])
def test_merge_truth_matches_oracle(spark, k):
    """The merge case's truth, exact by construction, is what the brute-force oracle finds on the
    generated base / ours / theirs, and what the hand-written three-way join and the floor count;
    every kind of key Dolt's rules tell apart is there."""
    rows = 3000
    layout = generate.Layout()
    base, ours, theirs, truth = generate.generate_merge(
        spark, "td_bench_test", rows, k, seed=13, layout=layout
    )
    keys, values = layout.key_columns, layout.value_columns
    b, o, t = ([r.asDict() for r in spark.table(x).collect()] for x in (base, ours, theirs))
    result = brute_force_merge(b, o, t, keys, values)
    got = merge_counts(result)
    want = truth.statuses()
    assert all(want[s] for s in (*generate.MERGE_STATUSES, *generate.CONFLICT_TYPES)), want
    assert {s: got[s] for s in want if s != "changed_keys"} == {
        s: n for s, n in want.items() if s != "changed_keys"
    }
    assert want["changed_keys"] == len(result) - got["unchanged"]
    assert len(merged_table(result)) == truth.merged_rows()
    assert (len(o), len(t)) == (truth.side_rows("ours"), truth.side_rows("theirs"))
    # each side changes k keys; the pair base vs ours is a pair's truth
    pt = truth.pair_truth()
    diff = brute_force_diff(b, o, keys, values)
    assert (len(diff.modified), len(diff.deleted), len(diff.added)) == (
        pt.modified,
        pt.deleted,
        pt.inserted,
    )
    assert pt.modified + pt.deleted + pt.inserted == k
    theirs_diff = brute_force_diff(b, t, keys, values)
    assert len(theirs_diff.modified) + len(theirs_diff.deleted) + len(theirs_diff.added) == k
    three = peers.join3(spark, base, ours, theirs, keys, values)
    assert three == {s: n for s, n in got.items() if n}
    floor = {
        r["side"]: r["n"]
        for r in spark.sql(peers.floor_sql(base, ours, keys + values, theirs)).collect()
    }
    assert floor == {"source": rows, "target": len(o), "theirs": len(t)}


@pytest.mark.slow
def test_merge_case_end_to_end(spark, tmp_path):
    """bench/run.py --merge at 20k rows, on the test session: every approach (the scaffolded
    merge pipeline by dbt, the pair, the three-way join, the floors) runs once, timed, without
    the warm-up run (which repeats the same calls untimed), each checked against the truth inside
    (a wrong answer raises); then the report."""
    argv = ["--merge", "--rows", "20000", "--k", "1%", "--reps", "1", "--seed", "3", "--no-warmup"]
    argv += ["--out", str(tmp_path), "--spark-home", str(tmp_path / "spark"), "--child", "20000"]
    args = bench_run.parse_args(argv)
    args.argv = ["bench/run.py", *argv]
    with restored_runtime_conf(spark):
        result = bench_run.run_child(args, spark=spark)
    (case,) = result["pairs"]
    assert set(case["times"]) == set(report.MERGE_DEFAULT)
    assert case["want_merge"]["changed_keys"] == 360  # 200 per side, 40 of them on both
    assert set(case["merge"]["models"]) == {  # as scaffolded: classified in Python (ADR 0040)
        "merge_schema",
        "merge_candidates",
        "merge_classified",
        "merged",
        "merge_violations",
        "merge_summary",
    }
    text = report.report(args, [result], [])
    assert "## Three-way merge" in text and "merge / join3" in text


def test_tpch_targets_match_their_truth(spark, tmp_path, monkeypatch):
    """bench/tpch.py's targets: a share of lineitem's rows modified, deleted or inserted next to
    their order, exactly as its truth counts (checked by the brute-force oracle), with the
    source's schema, in 10 files. A small stand-in for tpchgen-cli's lineitem (the key and a few
    columns of its types) keeps the test the size of the others."""
    tpch = _load("table_diff_bench_tpch", "tpch.py")
    path = tmp_path / "lineitem.parquet"
    spark.sql(
        "select id div 4 as l_orderkey, cast(pmod(id, 4) + 1 as int) as l_linenumber, "
        "cast(id % 50 as decimal(15,2)) as l_quantity, date_add(date'1995-01-01', "
        "cast(id % 900 as int)) as l_shipdate, concat('c', id) as l_comment from range(4000)"
    ).write.parquet(str(path))
    monkeypatch.setattr(tpch, "generate_lineitem", lambda sf: path)
    monkeypatch.setattr(tpch, "DATABASE", "td_bench_tpch")
    spark.sql("drop database if exists td_bench_tpch cascade")
    pairs = tpch.make_tables(spark, 0.001, ["0", "5%"])
    for p in pairs:
        src = [r.asDict() for r in spark.table(p["source"]).collect()]
        tgt = [r.asDict() for r in spark.table(p["target"]).collect()]
        values = [c for c in p["columns"] if c not in tpch.KEYS]
        want = brute_force_diff(src, tgt, tpch.KEYS, values)
        truth = p["truth"]
        assert (len(want.modified), len(want.deleted), len(want.added)) == (
            truth["modified"],
            truth["deleted"],
            truth["inserted"],
        ), p["spec"]
        assert (p["rows_source"], p["rows_target"]) == (len(src), len(tgt))
        assert spark.table(p["source"]).schema == spark.table(p["target"]).schema
        assert len(spark.table(p["target"]).inputFiles()) == tpch.TARGET_FILES
    assert pairs[0]["truth"]["k"] == 0
    assert min(pairs[1]["truth"][c] for c in ("modified", "deleted", "inserted")) > 30


model_profile = _load("model_profile", "model_profile.py")


def test_model_profile_gives_each_sql_execution_to_the_node_it_ran_in(tmp_path):
    """bench/model_profile.py: an execution belongs to the node whose compile or execute phase it
    started in, else to `(outside nodes)`; its jobs' stages' metrics add up per node."""
    base = dt.datetime(2026, 12, 2, 4, 0, 0, tzinfo=dt.timezone.utc)

    def at(seconds: float) -> str:
        return (base + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def ms(seconds: float) -> int:
        return int((base + dt.timedelta(seconds=seconds)).timestamp() * 1000)

    def node(name: str, compile_: tuple, execute: tuple) -> dict:
        timing = [
            {"name": phase, "started_at": at(a), "completed_at": at(b)}
            for phase, (a, b) in (("compile", compile_), ("execute", execute))
        ]
        return {
            "unique_id": f"model.p.{name}",
            "status": "success",
            "timing": timing,
            "execution_time": execute[1] - compile_[0],
        }

    run_results = tmp_path / "run_results.json"
    nodes = [node("a__ranges", (1, 2), (2, 5)), node("a__summary", (6, 7), (7, 9))]
    run_results.write_text(json.dumps({"results": nodes}))
    events = []

    def execution(eid: int, start: float, end: float, stages: dict[int, dict[str, int]]) -> None:
        events.append(
            {
                "Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                "executionId": eid,
                "time": ms(start),
            }
        )
        events.append(
            {
                "Event": "SparkListenerJobStart",
                "Job ID": eid,
                "Stage IDs": list(stages),
                "Properties": {"spark.sql.execution.id": str(eid)},
            }
        )
        for stage, metrics in stages.items():
            accumulables = [{"Name": k, "Value": v} for k, v in metrics.items()]
            events.append(
                {
                    "Event": "SparkListenerStageCompleted",
                    "Stage Info": {"Stage ID": stage, "Accumulables": accumulables},
                }
            )
        events.append(
            {
                "Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
                "executionId": eid,
                "time": ms(end),
            }
        )

    rows = "internal.metrics.input.recordsRead"
    execution(0, 0.5, 0.9, {0: {rows: 7}})  # before every node: the hooks
    execution(1, 1.5, 1.6, {1: {rows: 1}})  # ranges' compile
    read, shuffled = (
        "internal.metrics.input.bytesRead",
        "internal.metrics.shuffle.write.bytesWritten",
    )
    execution(2, 3.0, 4.5, {2: {rows: 100, read: 2_000_000}, 3: {shuffled: 3_000_000}})
    execution(3, 8.0, 8.5, {4: {rows: 5, "internal.metrics.executorRunTime": 1500}})  # summary
    execution(4, 9.5, 9.7, {5: {rows: 2}})  # after the last node
    log = tmp_path / "events"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))

    got = {r["node"]: r for r in model_profile.model_profile(run_results, log)}
    assert list(got) == ["a__ranges", "a__summary", "(outside nodes)"]
    ranges, summary, outside = got.values()
    assert (ranges["sql"], ranges["jobs"], ranges["input_rows"]) == (2, 2, 101)
    assert (ranges["input_bytes"], ranges["shuffle_write_bytes"]) == (2_000_000, 3_000_000)
    assert ranges["sql_s"] == pytest.approx(1.6) and ranges["execute_s"] == pytest.approx(3)
    assert (summary["sql"], summary["input_rows"], summary["task_ms"]) == (1, 5, 1500)
    assert (outside["sql"], outside["input_rows"]) == (2, 9)
    table = model_profile.profile_table(list(got.values()))
    assert table[2].startswith("| a__ranges | 4.0 | 1.0 | 3.0 | 2 | 1.6 | 2 | 101 | 3 |")
    assert table[-1].startswith("| (outside nodes) | - | - | - | 2 |")


changes = _load("table_diff_bench_changes", "changes.py")
MACHINE = {
    "nproc": 2,
    "cpu": "test",
    "memory_gib": 8.0,
    "pyspark": "4.0.0",
    "dbt_core": "1.10.0",
    "python": "3.11.0",
    "date": "2026-12-06T00:00:00+00:00",
    "loadavg_at_end": ["0.1", "0.1", "0.1"],
}
SMALL = ["--sf", "0.001", "--models", "10", "--one-only", "--max-model-rows", "10000"]


def test_changes_model_selection():
    """bench/changes.py --models N: the first N of one fixed order, each kind (keyed, keyless) in
    MODELS order and in its share of the twenty (a keyless model every fifth); out of range is
    refused; the build stamp follows the selection (all twenty stamp as before --models)."""
    keyed = [m for m, (key, _, _) in changes.MODELS.items() if key]
    keyless = [m for m, (key, _, _) in changes.MODELS.items() if not key]
    every = changes.select_models(20)
    assert sorted(every) == sorted(changes.MODELS)
    assert changes.select_models(10) == keyed[:4] + keyless[:1] + keyed[4:8] + keyless[1:2]
    for n in range(1, 21):
        got = changes.select_models(n)
        assert got == every[:n]
        assert [m for m in got if m in keyless] == keyless[: n // 5]
        assert [m for m in got if m in keyed] == keyed[: n - n // 5]
    for bad in ("0", "21"):
        with pytest.raises(SystemExit):
            changes.parse_args(["--models", bad])

    ten = changes.parse_args(SMALL)
    assert ten.selected == changes.select_models(10) and ten.one_only
    twenty = changes.parse_args(["--sf", "0.001"])
    assert changes.build_stamp(ten) != changes.build_stamp(twenty)
    before = {"sf": 0.001, "models": changes.MODELS, "schemas": changes.SCHEMAS}
    text = json.dumps(before, sort_keys=True).encode()
    assert changes.build_stamp(twenty) == hashlib.sha256(text).hexdigest()
    assert changes.results_stem(twenty) == "changes_sf0.001"
    assert changes.results_stem(ten) == "changes_sf0.001_10models_one"


def test_changes_project_and_spark_start(tmp_path, monkeypatch):
    """The project holds the chosen models only (an earlier selection's files go), and Spark's
    start opens the session dbt-spark's `method: session` would: enableHiveSupport, the pr
    target's server_side_parameters from the project's profiles.yml, then `show databases`."""
    home = ["--spark-home", str(tmp_path)]
    changes.write_project(changes.parse_args(["--sf", "0.001", *home]), "prod")
    args = changes.parse_args([*SMALL, *home])
    root = changes.write_project(args, "pr")
    assert sorted(p.stem for p in (root / "models").glob("*.sql")) == sorted(args.selected)

    calls = []

    class Builder:
        def enableHiveSupport(self):
            calls.append(("hive",))
            return self

        def config(self, key, value):
            calls.append(("config", key, value))
            return self

        def getOrCreate(self):
            calls.append(("getOrCreate",))
            return self

        def sql(self, query):
            calls.append(("sql", query))
            return self

        def collect(self):
            return []

        def stop(self):
            calls.append(("stop",))

    fake = type(sys)("pyspark.sql")
    fake.SparkSession = type("SparkSession", (), {"builder": Builder()})
    monkeypatch.setitem(sys.modules, "pyspark.sql", fake)
    python, flag, code, *rest = changes.spark_start_command(root)
    assert (python, flag, code) == (sys.executable, "-c", changes.SPARK_START)
    monkeypatch.setattr(sys, "argv", ["-c", *rest])
    exec(compile(code, "<spark start>", "exec"), {})
    conf = changes.spark_conf(changes.home_of(args), args.driver_memory)
    assert calls == [
        ("hive",),
        *(("config", k, v) for k, v in conf.items()),
        ("getOrCreate",),
        ("sql", "show databases"),
        ("stop",),
    ]


def test_changes_max_model_rows_message():
    """--max-model-rows: a model over the limit on either side stops the run, naming it."""
    rows = {"lineitem_net": {"prod": 6005, "pr": 6005}, "urgent_orders": {"prod": 9, "pr": 8}}
    assert changes.check_model_rows(rows, 10_000) == (
        "model rows: at most 6,005 (lineitem_net in prod), within --max-model-rows 10,000"
    )
    assert "at most 6,005" in changes.check_model_rows(rows, 6005)
    with pytest.raises(SystemExit) as exit_info:
        changes.check_model_rows({**rows, "orders_status": {"prod": 9000, "pr": 10_001}}, 10_000)
    message = str(exit_info.value)
    assert "orders_status has 10,001 rows in pr (changes_pr.orders_status)" in message
    assert "lineitem_net" not in message and "--max-model-rows 10,000" in message


def _small_result(one, start, seconds=None, rows=6005):
    """A --one-only result of three repetitions: `one` and `start` walls (medians the middle
    one's), each model 1 s inside the invocation unless `seconds` says otherwise."""
    order = changes.select_models(10)
    models = {
        name: {
            "name": name,
            "status": "modified",
            "verdict": "3 rows modified",
            "seconds": (seconds or {}).get(name, 1.0),
            "rows_production": rows if name == order[2] else 100,
            "rows_current": 90,
            "partial": False,
        }
        for name in order
    }
    reps = [
        {
            "one": {"wall": o, "cpu": 5.0, "max_rss_mb": 200.0},
            "start": {"wall": s, "cpu": 2.0, "max_rss_mb": 100.0},
            "one_models": models,
            "beyond_start": round(o - s, 3),
        }
        for o, s in ((one - 5, start - 1), (one, start), (one + 5, start + 1))
    ]
    return {
        "order": order,
        "entries": [],
        "reps": reps,
        "one_command": ["table-diff", "changes"],
        "warmup": True,
        "one_only": True,
        "start_command": ["python", "-c", "..."],
    }


def _small_report(result):
    args = changes.parse_args([*SMALL, "--reps", "3"])
    return changes.report(args, {**result, "summary": changes.summarize(result)}, MACHINE)


def test_changes_small_case_report_verdicts():
    """The small case's report: the medians, the difference beyond Spark's start, the largest
    model's rows, and verdict lines that follow the figures across each target's line."""
    order = changes.select_models(10)
    text = _small_report(_small_result(one=70.0, start=11.0))
    assert "| **beyond Spark's start** | **59.0 s**" in text
    assert f"the largest, {order[2]}, has 6,005 rows in prod and 90 in pr: under 10,000" in text
    assert "took 1.0 s inside the one invocation (mean 1.0 s): **met**" in text
    assert "59.0 s (70.0 s - 11.0 s): **met**" in text
    assert "**Verdict: both targets met.**" in text
    assert "10 changed models compared (the target's: 10)" in text
    assert text.count(f"| {order[0]} |") == 1

    at_line = _small_report(_small_result(one=71.0, start=11.0, seconds={order[3]: 3.0}))
    assert "**Verdict: both targets met.**" in at_line

    slow = _small_report(_small_result(one=70.0, start=11.0, seconds={order[3]: 3.1}))
    assert f"the slowest, {order[3]}, took 3.1 s" in slow and "(mean 1.2 s): **missed**" in slow
    assert "**Verdict: missed (at most 3 s a compared model).**" in slow

    late = _small_report(_small_result(one=71.5, start=11.0))
    assert "60.5 s (71.5 s - 11.0 s): **missed**" in late
    assert "**Verdict: missed (at most 60 s beyond Spark's start).**" in late

    big = _small_report(_small_result(one=70.0, start=11.0, rows=10_000))
    assert "**not under 10,000 rows each**" in big and "not the target's case" in big
    assert "**Verdict: both targets met, on another case than the target's.**" in big


def test_changes_small_case_written_and_reported_again(tmp_path, capsys):
    """--one-only's results file keeps the mode: --report-only writes the same report from it;
    the dry run prints the plan and starts nothing."""
    out = ["--out", str(tmp_path / "results"), "--spark-home", str(tmp_path / "spark")]
    args = changes.parse_args([*SMALL, "--reps", "3", *out])
    changes.write(args, _small_result(one=70.0, start=11.0))
    md = tmp_path / "results" / "changes_sf0.001_10models_one.md"
    saved = json.loads(md.with_suffix(".json").read_text())
    assert saved["args"]["one_only"] and saved["args"]["models"] == 10
    assert saved["summary"]["meets"] == dict.fromkeys(
        ("models", "rows", "model_seconds", "beyond_start"), True
    )
    first = md.read_text()
    md.unlink()
    assert changes.main([*SMALL, *out, "--report-only"]) == 0
    assert md.read_text() == first

    capsys.readouterr()
    assert changes.main([*SMALL, *out, "--dry-run"]) == 0
    plan = capsys.readouterr().out
    assert "10 models (8 with a key)" in plan and "at most 10,000 each" in plan
    assert "Spark's start" in plan and str(md.with_suffix("")) in plan


def test_changes_documented_commands_parse():
    """The commands in bench/changes.py's docstring parse (the small case's among them)."""
    commands = re.findall(r"bench/changes\.py ([^\n\\]*(?:\\\n[^\n]*)?)", changes.__doc__)
    runs = [shlex.split(c.replace("\\\n", " ")) for c in commands]
    assert len(runs) == 2 and runs[1][:2] == ["--sf", "0.001"], runs
    small = changes.parse_args(runs[1])
    assert small.one_only and small.max_model_rows == 10_000 and len(small.selected) == 10


def test_tpch_report_gives_rows_per_core_on_every_line_and_is_written_again(tmp_path):
    """bench/tpch.py's report: rows per second per core beside each median, whole processes
    included, and --report-only writes the .md again from the .json without running anything."""
    tpch = _load("table_diff_bench_tpch_report", "tpch.py")
    rows = {"rows_source": 6_000_000, "rows_target": 6_000_000}
    session = {
        "pairs": [{"spec": "0.01%", **rows, "truth": {"k": 640}}],
        "times": {"0.01%": {"join": [10.0], "table_diff": [20.0], "no_drift": [30.0]}},
        "models": {"0.01%": [{"models": {"ranges": 2.0}}]},
    }
    e2e = {
        "0.01%": {
            "dbt build": [50.0, 48.0, 52.0],
            "join process": [24.0, 24.0, 24.0],
            "spark_extension process": [30.0, 30.0, 30.0],
            tpch.E2E_NO_DRIFT: [40.0, 40.0, 40.0],
        }
    }
    (tmp_path / "tpch_sf1.json").write_text(json.dumps({**session, "e2e": e2e}))
    argv = ["--sf", "1", "--drift", "0.01%", "--approaches", "join,table_diff,no_drift"]
    assert tpch.main([*argv, "--out", str(tmp_path), "--report-only"]) == 0
    text = (tmp_path / "tpch_sf1.md").read_text()
    cores = tpch.os.cpu_count() or 1
    whole = next(line for line in text.splitlines() if line.startswith("| 0.01% | 50.0 s"))
    for seconds in (50.0, 24.0, 30.0, 40.0):
        assert f"{seconds:.1f} s ({12e6 / seconds / cores / 1e3:,.0f}k rows/s/core)" in whole
    assert "| 2.08x | 1.67x |" in whole  # 50 / 24 and 50 / 30, the medians
    assert "--report-only" not in text and "--approaches join,table_diff,no_drift" in text
