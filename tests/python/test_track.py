"""The changes track (ADR 0019): a tracked pair hashes only the data files that changed
since its last run and reuses the stored signatures of the rest, and its answers equal the
brute-force oracle's (oracle.py: the full computation) after every kind of change: rows appended,
a file deleted, a file rewritten in place under the same name, Delta deletes that rewrite no file
(deletion vectors) and updates; an Iceberg side is hashed whole on its first run only (its
snapshots track it after: test_track_iceberg.py); new options, --full-refresh and an incomplete
stored state re-hash everything. Delta sides are tracked through their log (ADR 0022), after
seeded random sequences of Delta writes too."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from oracle import brute_force_diff
from plans import rows_scanned

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

ROWS = 2000
# Hostile rows: NULLs in every column, NULL keys, a duplicate key, NaN and -0.0, decimals,
# timestamps, unicode; 4 files per side in key order (a table appended to by key).
BODY = f"""
    select /*+ REPARTITION_BY_RANGE(4, id) */ * from (
      select
        id,
        if(id % 11 = 0, null, concat('v', id, 'ü')) as s,
        case when id % 13 = 0 then null when id % 17 = 0 then double('NaN')
             when id % 19 = 0 then -0.0d else id * 0.5d end as d,
        if(id % 23 = 0, null, cast(id * 1.25 as decimal(12, 2))) as amount,
        timestamp'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) as ts
      from range({ROWS})
      union all select null, 'null key', 1.0d, 1.00, null
      union all select null, 'null key', 2.0d, 2.00, null
      union all select 7, 'dup', 3.0d, 3.00, null
    )
"""
TRACKED_COLUMNS = ("side", "file_path", "rehashed", "hashed_whole_because")


@pytest.fixture(scope="module")
def track_project(dbt_project_factory):
    project = dbt_project_factory("track", packages=True)
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    return project


def _pairs(name: str, source: str, target: str, **options) -> list[PairOptions]:
    """The tracked pair NAME on source tables ``gen.source`` and ``gen.target`` (a list: what
    ``_build`` and ``_scaffold`` take)."""
    return [
        PairOptions(
            name=name,
            source=f"source('gen', '{source}')",
            target=f"source('gen', '{target}')",
            primary_key=("id",),
            block_count=4,
            compare_unit_size=100,
            track=True,
            **options,
        )
    ]


# The options each pair was last scaffolded with, by name: what ``_same_answers`` checks it by.
SCAFFOLDED: dict[str, PairOptions] = {}


def _scaffold(project, pairs: list[PairOptions], tables: list[str]) -> Path:
    """Scaffold ``pairs`` into models/pairs (replacing earlier ones) over source ``gen``
    (``tables``) and source ``ice`` (the Iceberg table ti_target); the folder."""
    pairs_dir = project.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    for opts in pairs:
        write_pair(opts, pairs_dir)
        SCAFFOLDED[opts.name] = opts
    (pairs_dir / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {project.schema}\n    tables:\n"
        + "".join(f"      - name: {t}\n" for t in tables)
        + f"  - name: ice\n    schema: iceberg.{project.schema}\n"
        + "    tables:\n      - name: ti_target\n"
    )
    return pairs_dir


def _build(project, pairs: list[PairOptions], tables: list[str], *extra: str) -> None:
    """``_scaffold`` them and build them in one dbt run, which must succeed."""
    _scaffold(project, pairs, tables)
    project.run("build", "--select", "pairs", *extra).assert_success()


def _relation(project, side: str) -> str:
    """The table a pair side names: source('gen'|'ice', 'x') -> the table in this schema."""
    catalog, table = re.fullmatch(r"source\('(\w+)', '(\w+)'\)", side).groups()
    return f"{'iceberg.' if catalog == 'ice' else ''}`{project.schema}`.{table}"


def _same_answers(project, name: str):
    """The pair's row diff and counts equal the brute-force oracle's over both sides as they are
    now (its table_filter applied by Spark); its summary row. Duplicate keys as the pair reports
    them without check_duplicate_keys: every key whose rows differ between the sides, and a key
    held identically by both only where its block differs (test_diff_property's rule)."""
    opts = SCAFFOLDED[name]
    where = f" where {opts.table_filter}" if opts.table_filter else ""
    spark = project.spark
    sides = [
        spark.sql(f"select * from {_relation(project, side)}{where}")
        for side in (opts.source, opts.target)
    ]
    key = [k.lower() for k in opts.primary_key]
    columns = [c for c in sides[0].columns if c.lower() not in key]
    want = brute_force_diff(*(df.collect() for df in sides), key, columns)
    rows = [row.asDict() for row in spark.table(project.relation(f"{name}__row_diff")).collect()]
    _, dup_rows = want.assert_row_diff(
        rows, lambda d: [d[c] for c in key], exact_duplicates=False, where=name
    )
    summary = spark.table(project.relation(f"{name}__summary")).first()
    counts = want.counts()
    assert [summary[c] for c in COUNTS] == [
        counts["rows_source"],
        counts["rows_target"],
        counts["added"],
        counts["deleted"],
        counts["modified"],
        sum(dup_rows.values()),
        counts["null_key_rows_source"],
        counts["null_key_rows_target"],
        want.is_clean_without_duplicate_check,
    ], name
    assert summary["status"] == "complete"
    return summary


COUNTS = (
    "rows_source",
    "rows_target",
    "rows_added",
    "rows_deleted",
    "rows_modified",
    "duplicate_key_rows",
    "null_key_rows_source",
    "null_key_rows_target",
    "is_identical",
)


def _compiled(project, model: str) -> str:
    return next((project.root / "target" / "compiled").rglob(f"{model}.sql")).read_text()


def _data_files(project, table: str) -> list[Path]:
    """The parquet data files of an unpartitioned table, from its catalog location."""
    rows = project.spark.sql(f"describe table extended {project.relation(table)}").collect()
    location = next(r[1] for r in rows if (r[0] or "").strip() == "Location")
    return sorted(Path(location.removeprefix("file:")).glob("*.parquet"))


def test_track_reuses_unchanged_files_and_answers_like_the_full_diff(track_project):
    p, spark, schema = track_project, track_project.spark, track_project.schema
    for side in ("tp_source", "tp_target"):
        spark.sql(f"drop table if exists `{schema}`.{side}")
        spark.sql(f"create table `{schema}`.{side} using parquet as {BODY}")
    tables = ["tp_source", "tp_target"]
    pairs = _pairs("tp", "tp_source", "tp_target")
    scanned = (f"{schema}.tp_source", f"{schema}.tp_target")

    # 1. First run: a full snapshot of both sides, and says so.
    _build(p, pairs, tables)
    s = _same_answers(p, "tp")
    assert (
        s["track_hashed_whole_source"]
        == s["track_hashed_whole_target"]
        == "new leaf layout: first run"
    )
    assert s["track_files_hashed_source"] == 4 and s["track_files_reused_source"] == 0
    assert s["is_identical"]

    # 2. Nothing changed: no file is read, every signature is reused.
    _build(p, pairs, tables)
    s = _same_answers(p, "tp")
    assert s["track_hashed_whole_source"] is None and s["track_hashed_whole_target"] is None
    assert (s["track_files_hashed_source"], s["track_files_reused_source"]) == (0, 4)
    assert (s["track_files_hashed_target"], s["track_files_reused_target"]) == (0, 4)
    assert s["track_leaves_recomputed"] == 0 and s["track_leaves_reused"] > 0
    assert s["track_bytes_reused_target"] > 0 and s["track_bytes_hashed_target"] == 0
    assert rows_scanned(spark, _compiled(p, "tp__file_hashes"), scanned) == 0

    # 3. Rows appended (a new file: an added key, a changed row for a key, a duplicate) and one
    #    data file of the target deleted: only the new file is read.
    before = _data_files(p, "tp_target")
    spark.sql(
        f"insert into `{schema}`.tp_target select /*+ COALESCE(1) */ * from values "
        "(100000, 'new', 1.0d, 1.00, null), (12, 'changed', 6.0d, 15.00, null), "
        "(7, 'dup2', 3.0d, 3.00, null) "
        "as t(id, s, d, amount, ts)"
    )
    assert len(_data_files(p, "tp_target")) == 5
    before[0].unlink()
    spark.sql(f"refresh table `{schema}`.tp_target")
    # No key-range predicates (ADR 0010), so that only the file selection can spare reads; the
    # full-row fetch (no narrow pass, ADR 0033), whose compiled query reads no cached view that
    # the run's end released, so that it can be run again below to count its scans.
    _build(
        p,
        pairs,
        tables,
        "--vars",
        '{"table_diff_key_range_limit": 0, "table_diff_dense_leaf_share": 2}',
    )
    s = _same_answers(p, "tp")
    # The fetch reads only the files that hold a selected leaf, not every row of both sides.
    fetched = rows_scanned(spark, _compiled(p, "tp__row_diff"), scanned)
    assert 0 < fetched < s["rows_source"] + s["rows_target"]
    assert not s["is_identical"] and s["rows_deleted"] > 100 and s["rows_added"] >= 1
    assert (s["track_files_hashed_target"], s["track_files_reused_target"]) == (1, 3)
    assert (s["track_files_hashed_source"], s["track_files_reused_source"]) == (0, 4)
    assert s["track_leaves_recomputed"] > 0
    assert rows_scanned(spark, _compiled(p, "tp__file_hashes"), scanned) == 3

    # 4. A file rewritten in place under the same name (another row, same path): found by its
    #    size, modification time or row count, and only it is read.
    victim = _data_files(p, "tp_source")[1]
    frame = spark.read.parquet(str(victim)).collect()
    spark.createDataFrame(frame[1:], spark.read.parquet(str(victim)).schema).coalesce(1).write.mode(
        "overwrite"
    ).parquet(str(victim) + ".tmp")
    written = next(Path(str(victim) + ".tmp").glob("*.parquet"))
    shutil.move(str(written), str(victim))
    victim.with_name(f".{victim.name}.crc").unlink(missing_ok=True)  # Hadoop's local checksum
    shutil.rmtree(str(victim) + ".tmp")
    spark.sql(f"refresh table `{schema}`.tp_source")
    _build(p, pairs, tables)
    s = _same_answers(p, "tp")
    assert (s["track_files_hashed_source"], s["track_files_reused_source"]) == (1, 3)
    assert s["rows_source"] == ROWS + 3 - 1

    # 5. New options: a new layout, everything hashed once more.
    _build(
        p, _pairs("tp", "tp_source", "tp_target", table_filter="id is null or id % 5 != 0"), tables
    )
    s = _same_answers(p, "tp")
    assert s["track_hashed_whole_source"].startswith("new leaf layout: options changed")

    # 6. --full-refresh re-plans and re-hashes.
    _build(
        p,
        _pairs("tp", "tp_source", "tp_target", table_filter="id is null or id % 5 != 0"),
        tables,
        "--full-refresh",
    )
    s = _same_answers(p, "tp")
    assert s["track_hashed_whole_target"] == "new leaf layout: full refresh (--full-refresh)"

    # 7. A stored state cut short (a run stopped while writing it) is never trusted.
    state = p.relation("tp__file_hashes")
    spark.sql(f"create table {state}_half using parquet as select * from {state} limit 5")
    spark.sql(f"drop table {state}")
    spark.sql(f"alter table {state}_half rename to {state}")
    _build(
        p, _pairs("tp", "tp_source", "tp_target", table_filter="id is null or id % 5 != 0"), tables
    )
    s = _same_answers(p, "tp")
    assert "incomplete" in s["track_hashed_whole_source"]
    _build(
        p, _pairs("tp", "tp_source", "tp_target", table_filter="id is null or id % 5 != 0"), tables
    )
    s = _same_answers(p, "tp")
    assert s["track_hashed_whole_source"] is None and s["track_files_hashed_source"] == 0


def test_track_on_delta_sees_deletion_vectors_then_iceberg_snapshots(track_project, lakehouse):
    p, spark, schema = track_project, track_project.spark, track_project.schema
    spark.sql(f"drop table if exists `{schema}`.td_source")
    spark.sql(f"create table `{schema}`.td_source using parquet as {BODY}")
    spark.sql(f"drop table if exists `{schema}`.td_target")
    spark.sql(
        f"create table `{schema}`.td_target using delta "
        "tblproperties ('delta.enableDeletionVectors' = 'true') as " + BODY
    )
    ice = f"iceberg.`{schema}`.ti_target"
    spark.sql(f"create namespace if not exists iceberg.`{schema}`")
    spark.sql(f"drop table if exists {ice}")
    spark.sql(f"create table {ice} using iceberg as {BODY}")
    tables = ["td_source", "td_target"]
    pairs = _pairs("td", "td_source", "td_target")
    _build(p, pairs, tables)
    _same_answers(p, "td")

    # A delete that rewrites no file (a deletion vector), then an update.
    spark.sql(f"delete from `{schema}`.td_target where id in (3, 1500)")
    assert (
        spark.sql(f"describe history `{schema}`.td_target")
        .first()["operationMetrics"]
        .get("numDeletionVectorsAdded", "0")
        != "0"
    )
    _build(p, pairs, tables)
    s = _same_answers(p, "td")
    assert s["rows_deleted"] == 2 and s["track_hashed_whole_target"] is None
    assert 1 <= s["track_files_hashed_target"] <= 2 and s["track_files_reused_target"] >= 2
    assert s["track_files_hashed_source"] == 0

    spark.sql(f"update `{schema}`.td_target set s = 'updated' where id = 42")
    _build(p, pairs, tables)
    s = _same_answers(p, "td")
    assert s["rows_modified"] == 1 and s["track_files_reused_source"] == 4

    # Iceberg exposes no `_metadata`, but its snapshots (ADR 0029): hashed whole on the first
    # run, and the summary says why; then nothing changed, nothing hashed.
    iceberg_pairs = [
        PairOptions(
            name=o.name.replace("td", "ti"),
            source=o.source,
            target="source('ice', 'ti_target')",
            primary_key=o.primary_key,
            block_count=4,
            compare_unit_size=100,
            track=o.track,
        )
        for o in pairs
    ]
    for whole in ("new leaf layout: first run", None):
        _build(p, iceberg_pairs, tables)
        s = _same_answers(p, "ti")
        assert s["track_hashed_whole_target"] == whole
    assert s["track_hashed_whole_source"] is None and s["track_files_reused_source"] == 4


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"check_duplicate_keys": True}, "Distinct keys per leaf do not add up over files"),
        ({"source_as_of": 0}, "A side read at a fixed version never changes"),
    ],
)
def test_track_refuses_options_it_cannot_honour(track_project, options, message):
    p, spark, schema = track_project, track_project.spark, track_project.schema
    for side in ("tv_source", "tv_target"):
        spark.sql(
            f"create table if not exists `{schema}`.{side} using parquet "
            "as select 1 as id, 'a' as s"
        )
    _scaffold(p, _pairs("tv", "tv_source", "tv_target", **options)[:1], ["tv_source", "tv_target"])
    run = p.run("build", "--select", "pairs").assert_failure()
    text = run.log
    assert "invalid track 'True'" in text and message in text
    assert not p.table_exists("tv__file_hashes")


def _test_result(run) -> tuple[str, int]:
    """(status, failures) of the one pair_matches test of a dbt invocation."""
    found = [
        r for r in run.result.result.results if r.node.name.startswith("table_diff_pair_matches")
    ]
    assert len(found) == 1, [r.node.name for r in run.result.result.results]
    return str(found[0].status), int(found[0].failures or 0)


def test_pair_matches_fails_with_the_diff_built(track_project):
    """The scaffold's `--test` (generic test `pair_matches`): the test on NAME__summary fails
    after the pair is built, reading its row diff (nothing is skipped); limits as no_drift's; a
    partial run fails."""
    p, spark, schema = track_project, track_project.spark, track_project.schema
    spark.sql(f"drop table if exists `{schema}`.pm_source")
    unique = f"select * from ({BODY}) where id is not null and coalesce(s, '') != 'dup'"
    spark.sql(f"create table `{schema}`.pm_source using parquet as {unique}")
    spark.sql(f"drop table if exists `{schema}`.pm_target")
    spark.sql(
        f"create table `{schema}`.pm_target using parquet as select id, "
        f"if(id = 5, 'changed', s) as s, d, amount, ts from ({unique}) where id != 9 "
        "union all select 100000, 'new', 1.0d, 1.00, null"
    )
    tables = ["pm_source", "pm_target"]
    pair = _pairs("pm", "pm_source", "pm_target", test=True)[0]
    pairs_dir = p.root / "models" / "pairs"

    def build():
        _scaffold(p, [pair], tables)
        return p.run("build", "--select", "pairs")

    run = build()
    assert _test_result(run) == ("fail", 3)
    assert "pm__summary: success" in run.describe()  # built, not skipped
    diff = {(r["id"], r["diff_type"]) for r in spark.table(p.relation("pm__row_diff")).collect()}
    assert diff == {(100000, "added"), (9, "deleted"), (5, "modified")}
    assert "DIFFER: added: 1; deleted: 1; modified: 1" in run.log

    # Limits as no_drift's, from the YAML the user edits: within them, the test passes.
    yml = pairs_dir / "_pm__models.yml"
    yml.write_text(
        yml.read_text().replace(
            "            row_diff: ref('pm__row_diff')\n",
            "            row_diff: ref('pm__row_diff')\n            max_added: 1\n"
            "            max_deleted: '0.1%'\n            max_modified: 1\n",
        )
    )
    run = p.run("test", "--select", "pairs")
    assert _test_result(run) == ("pass", 0) and "within limits" in run.log

    # A partial run (max_diff_rows cut it short) is never a verdict.
    pair = _pairs("pm", "pm_source", "pm_target", test=True, max_diff_rows=1)[0]
    run = build()
    assert _test_result(run) == ("fail", 1)
    assert "the pair's last run is partial" in run.log


def test_track_on_a_partitioned_target_with_a_composite_key_and_a_view_as_source(track_project):
    """A partition overwritten on the target: only its new files are hashed, the other partitions'
    reused; a view as the source has no file identity and is hashed whole every run, said so."""
    p, spark, schema = track_project, track_project.spark, track_project.schema
    rows = (
        "select region, seq, if(seq % 7 = 0, null, concat(region, '-', seq)) as v, "
        "if(seq % 5 = 0, null, seq * 1.5d) as x "
        "from (select explode(array('a', 'b', 'c')) as region) "
        "cross join (select id as seq from range(300))"
    )
    spark.sql(f"drop view if exists `{schema}`.pv_source")
    spark.sql(f"drop table if exists `{schema}`.pv_base")
    spark.sql(f"create table `{schema}`.pv_base using parquet as {rows}")
    spark.sql(f"create view `{schema}`.pv_source as select * from `{schema}`.pv_base")
    spark.sql(f"drop table if exists `{schema}`.pv_target")
    spark.sql(
        f"create table `{schema}`.pv_target using parquet partitioned by (region) as "
        f"select seq, v, x, region from ({rows})"
    )
    tables = ["pv_source", "pv_target"]
    pairs = [
        dataclasses.replace(o, primary_key=("region", "seq"))
        for o in _pairs("pv", "pv_source", "pv_target")
    ]
    _build(p, pairs, tables)
    s = _same_answers(p, "pv")
    assert s["is_identical"] and s["track_hashed_whole_source"].startswith("no file identity")
    files_ac = spark.sql(
        f"select count(distinct _metadata.file_path) from `{schema}`.pv_target where region != 'b'"
    ).first()[0]

    spark.sql(
        f"insert overwrite table `{schema}`.pv_target partition (region = 'b') "
        f"select seq, if(seq = 42, 'changed', v) as v, x from ({rows}) where region = 'b'"
    )
    _build(p, pairs, tables)
    s = _same_answers(p, "pv")
    assert s["rows_modified"] == 1 and s["track_hashed_whole_source"].startswith("no file identity")
    new_b = spark.sql(
        f"select count(distinct _metadata.file_path) from `{schema}`.pv_target where region = 'b'"
    ).first()[0]
    assert s["track_hashed_whole_target"] is None
    assert (s["track_files_hashed_target"], s["track_files_reused_target"]) == (new_b, files_ac)


def _rewrite_file(spark, path: Path, transform: str) -> None:
    """Rewrite one parquet data file in place, under its own name: its rows through ``transform``
    (a select over the view ``f``); Hadoop's local checksum file goes with it."""
    frame = spark.read.parquet(str(path))
    frame.createOrReplaceTempView("f")
    staged = spark.sql(transform).collect()
    tmp = Path(str(path) + ".tmp")
    spark.createDataFrame(staged, frame.schema).coalesce(1).write.mode("overwrite").parquet(
        str(tmp)
    )
    shutil.move(str(next(tmp.glob("*.parquet"))), str(path))
    shutil.rmtree(tmp)
    path.with_name(f".{path.name}.crc").unlink(missing_ok=True)


def _identities(project, table: str) -> dict[str, tuple[int, int]]:
    return {
        str(f): (f.stat().st_size, f.stat().st_mtime_ns // 1_000_000)
        for f in _data_files(project, table)
    }


PARQUET_CHANGES = ("append", "delete_file", "rewrite_file", "rewrite_table")
# One seeded sequence of four writes that makes every kind of change, on both sides (the test
# below checks it): 76 in place of seeds 11 and 29, three writes each (three cannot make four
# kinds), whose kinds together were the same four: 11 rewrote the target whole, then deleted a
# source file and appended to it; 29 rewrote a source file twice, then appended to it. 5 dbt
# builds instead of 8 (each sequence: a first build, a build per write), every kind still made.
PARQUET_SEED = 76


def _parquet_sequence(seed: int) -> list[tuple[str, str, int]]:
    """The seeded sequence of (side, change, key) the parquet random-change test makes; ``key``
    also picks the data file a file change takes (by position among the sorted files)."""
    import random

    rnd = random.Random(seed)
    return [
        (rnd.choice(["source", "target"]), rnd.choice(PARQUET_CHANGES), rnd.randrange(2000))
        for _ in range(4)
    ]


def test_the_parquet_seed_makes_every_kind_of_change():
    made = _parquet_sequence(PARQUET_SEED)
    assert {change for _, change, _ in made} == set(PARQUET_CHANGES)
    assert {side for side, _, _ in made} == {"source", "target"}


def test_track_after_random_changes_equals_the_full_diff(track_project):
    """A seeded random sequence of changes to either side (append a file, delete a file, rewrite a
    file in place, rewrite the whole table): after each, the tracked pair equals the oracle
    row for row, and it hashed exactly the files whose identity is new or changed."""
    seed = PARQUET_SEED
    p, spark, schema = track_project, track_project.spark, track_project.schema
    names = {"source": f"tr{seed}_source", "target": f"tr{seed}_target"}
    for table in names.values():
        spark.sql(f"drop table if exists `{schema}`.{table}")
        spark.sql(f"create table `{schema}`.{table} using parquet as {BODY}")
    tables = list(names.values())
    pairs = _pairs(f"tr{seed}", names["source"], names["target"])
    _build(p, pairs, tables)
    _same_answers(p, f"tr{seed}")
    next_key = 100_000
    for step, (side, change, key) in enumerate(_parquet_sequence(seed)):
        table = f"`{schema}`.{names[side]}"
        before = {s: _identities(p, names[s]) for s in names}
        files = _data_files(p, names[side])
        if change == "append":
            spark.sql(
                f"insert into {table} select /*+ COALESCE(1) */ * from values "
                f"({next_key}, 'new', 1.0d, 1.00, null), ({key}, 'again', "
                "2.0d, 2.00, null), (null, 'null key', 3.0d, 3.00, null) as t(id, s, d, amount, ts)"
            )
            next_key += 1
        elif change == "delete_file":
            assert len(files) > 1, (step, side)  # a delete, not an emptied table
            files[key % len(files)].unlink()
        elif change == "rewrite_file":
            _rewrite_file(
                spark,
                files[key % len(files)],
                f"select id, if(id % 3 = {key % 3}, concat(s, '*'), s) as s, d, amount, ts "
                f"from f where id is null or id != {key}",
            )
        else:
            snapshot = f"`{schema}`.tr{seed}_copy"
            spark.sql(f"drop table if exists {snapshot}")
            spark.sql(f"create table {snapshot} using parquet as select * from {table}")
            spark.sql(
                f"insert overwrite table {table} select /*+ REPARTITION(3) */ id, s, "
                f"if(id = {key}, d + 1, d) as d, amount, ts from {snapshot}"
            )
        spark.sql(f"refresh table {table}")
        _build(p, pairs, tables)
        s = _same_answers(p, f"tr{seed}")
        for name in names:
            after = _identities(p, names[name])
            new = {f for f, ident in after.items() if before[name].get(f) != ident}
            reused = len(after) - len(new)
            got = (s[f"track_files_hashed_{name}"], s[f"track_files_reused_{name}"])
            assert got == (len(new), reused), (step, change, side, name)


def _live_files(spark, table: str) -> dict[str, int]:
    """Each data file of a table and its live rows (Delta: after its deletion vector), as Spark
    reads them now: the oracle for which files a log-read track must hash."""
    rows = spark.sql(f"select _metadata.file_path, count(*) from {table} group by 1").collect()
    return {r[0]: r[1] for r in rows}


def test_track_reads_the_delta_log(track_project, lakehouse):
    """Delta sides are tracked through their log (ADR 0021): the files added and removed between
    the stored version and the pinned one, read from those commits; nothing listed or read when no
    commit was made; only the rewritten partition read (its files selected by their partition
    values, NULL and escaped ones included). A metadata change, a log cleaned up past the stored
    version and a table created again under its name re-hash the side whole, and say why."""
    p, spark, schema = track_project, track_project.spark, track_project.schema
    src, tgt = f"`{schema}`.tl_source", f"`{schema}`.tl_target"
    rows = f"select *, if(id is null, null, concat('g/', id % 5)) as g from ({BODY})"
    for table in (src, tgt):
        spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {src} using delta as {rows}")
    target_ddl = (
        f"create table {tgt} using delta partitioned by (g) "
        f"tblproperties ('delta.enableDeletionVectors' = 'true') as {rows}"
    )
    spark.sql(target_ddl)
    tables = ["tl_source", "tl_target"]
    pairs = _pairs("tl", "tl_source", "tl_target")
    scanned = (f"{schema}.tl_source", f"{schema}.tl_target")

    def build_and_check(changed: str | None = None, before: dict | None = None):
        """Build; the answers equal the oracle's; a side hashed in part hashed exactly the files
        whose (path, live rows) are new since ``before``, and reused the rest."""
        _build(p, pairs, tables)
        s = _same_answers(p, "tl")
        if before is not None:
            for name, table in (("source", src), ("target", tgt)):
                after = _live_files(spark, table)
                new = {f for f, n in after.items() if before[name].get(f) != n}
                assert s[f"track_hashed_whole_{name}"] is None, (changed, name)
                got = (s[f"track_files_hashed_{name}"], s[f"track_files_reused_{name}"])
                assert got == (len(new), len(after) - len(new)), (changed, name)
        return s

    def files():
        return {"source": _live_files(spark, src), "target": _live_files(spark, tgt)}

    s = build_and_check()
    assert s["track_hashed_whole_target"] == "new leaf layout: first run" and s["is_identical"]

    # Nothing committed: the log says so, and no data file is read.
    s = build_and_check("nothing", files())
    assert s["track_files_hashed_target"] == 0 and s["track_files_reused_target"] > 5
    assert rows_scanned(spark, _compiled(p, "tl__file_hashes"), scanned) == 0

    # One partition rewritten (REPLACE WHERE; its name escapes '/'): only its rows are read.
    before = files()
    spark.sql(
        f"insert into {tgt} replace where g = 'g/1' "
        f"select * from ({rows}) where g = 'g/1' and id != 41 "
        f"union all select 100001, 'new', 1.0d, 1.00, null, 'g/1'"
    )
    s = build_and_check("replace where", before)
    assert (s["rows_added"], s["rows_deleted"]) == (1, 1) and s["track_files_hashed_target"] >= 1
    in_g1 = spark.sql(f"select count(*) from {tgt} where g = 'g/1'").first()[0]
    assert rows_scanned(spark, _compiled(p, "tl__file_hashes"), scanned) == in_g1

    # A delete that adds deletion vectors (the file's path stays), in the NULL partition too,
    # and rows appended to the unpartitioned source.
    before = files()
    spark.sql(
        f"delete from {tgt} where id in (3, 1500) or (id is null and s = 'null key' and d = 1.0d)"
    )
    spark.sql(f"insert into {src} select 100002, 'appended', 2.0d, 2.00, null, 'g/2'")
    s = build_and_check("deletion vectors and an append", before)
    assert s["track_files_hashed_source"] == 1 and s["rows_deleted"] == 2 + 1 + 1
    # The unpartitioned source: the new file's key range from the log's statistics lets Delta
    # skip every other file (none of them holds that key).
    assert rows_scanned(spark, _compiled(p, "tl__file_hashes"), (f"{schema}.tl_source",)) == 1

    # A metadata commit (here a table property): an unchanged file may read differently after
    # one, so the side is hashed whole, and the summary says why.
    spark.sql(f"alter table {tgt} set tblproperties ('delta.checkpointInterval' = '1')")
    _build(p, pairs, tables)
    s = _same_answers(p, "tl")
    assert "metadata or protocol changed" in s["track_hashed_whole_target"]
    assert s["track_hashed_whole_source"] is None and s["track_files_hashed_source"] == 0

    # The log cleaned up past the stored version: two commits, a checkpoint after each, the
    # older commit file removed (as delta.logRetentionDuration would): hashed whole.
    spark.sql(f"delete from {tgt} where id = 5")
    spark.sql(f"delete from {tgt} where id = 6")
    location = spark.sql(f"describe detail {tgt}").first()["location"].removeprefix("file:")
    version = spark.sql(f"describe history {tgt} limit 1").first()["version"]
    (Path(location) / "_delta_log" / f"{version - 1:020d}.json").unlink()
    assert spark.sql(f"select count(*) from {tgt}").first()[0] > 0  # still readable
    _build(p, pairs, tables)
    s = _same_answers(p, "tl")
    assert "no longer holds every commit" in s["track_hashed_whole_target"]

    # Then tracked through the log again.
    s = build_and_check("after a whole re-hash", files())
    assert s["track_files_hashed_target"] == 0

    # Dropped and created again under its name: another table, whatever its version number.
    spark.sql(f"drop table {tgt}")
    spark.sql(target_ddl)
    for _ in range(6):
        spark.sql(f"delete from {tgt} where id = 2")
    _build(p, pairs, tables)
    s = _same_answers(p, "tl")
    assert "another table" in s["track_hashed_whole_target"]


DELTA_CHANGES = ("append", "delete", "update", "replace", "overwrite", "add_column", "partial_run")
# One seeded sequence of seven writes that makes every kind of change to both sides (the test
# below checks it): 9 dbt invocations (a first build, a build per write, a partial run) where two
# sequences of four writes (seeds 23 and 70) took 11 for the same kinds.
DELTA_SEEDS = (32,)
DELTA_WRITES = 7


def _delta_sequence(seed: int) -> list[tuple[str, str, int]]:
    """The seeded sequence of (side, change, key) one random-change test makes."""
    import random

    rnd = random.Random(seed)
    return [
        (rnd.choice(["source", "target"]), rnd.choice(DELTA_CHANGES), rnd.randrange(2000))
        for _ in range(DELTA_WRITES)
    ]


def test_the_delta_seeds_make_every_kind_of_change():
    made = {change for seed in DELTA_SEEDS for _, change, _ in _delta_sequence(seed)}
    assert made == set(DELTA_CHANGES)
    assert {side for seed in DELTA_SEEDS for side, _, _ in _delta_sequence(seed)} == {
        "source",
        "target",
    }


@pytest.mark.parametrize("seed", DELTA_SEEDS)
def test_track_on_delta_after_random_changes_equals_the_full_diff(track_project, lakehouse, seed):
    """Seeded random sequences of Delta writes to either side (rows appended, deleted through
    deletion vectors, updated in place, a partition replaced, the whole table overwritten, a
    column added to both sides, a run stopped after its track was written): after each, the
    tracked pair equals the oracle row for row, and a side read through its log hashed
    exactly the files whose (path, live rows) are new since the last complete build."""
    p, spark, schema = track_project, track_project.spark, track_project.schema
    names = {"source": f"dr{seed}_source", "target": f"dr{seed}_target"}
    tables = {side: f"`{schema}`.{name}" for side, name in names.items()}
    rows = f"select *, if(id is null, null, concat('g/', id % 4)) as g from ({BODY})"
    for side, table in tables.items():
        spark.sql(f"drop table if exists {table}")
        layout = "partitioned by (g) " if side == "target" else ""
        spark.sql(
            f"create table {table} using delta {layout}"
            f"tblproperties ('delta.enableDeletionVectors' = 'true') as {rows}"
        )
    pairs = _pairs(f"dr{seed}", names["source"], names["target"])
    _build(p, pairs, list(names.values()))
    _same_answers(p, f"dr{seed}")
    columns = "id, s, d, amount, ts, g"
    next_key = 200_000
    before = {side: _live_files(spark, t) for side, t in tables.items()}
    for step, (side, change, key) in enumerate(_delta_sequence(seed)):
        table = tables[side]
        if change == "append":
            spark.sql(
                f"insert into {table} (id, s, d, amount, ts, g) values "
                f"({next_key}, 'new', 1.0d, 1.00, null, 'g/1'), "
                f"({key}, 'again', 2.0d, 2.00, null, 'g/{key % 4}'), "
                "(null, 'null key', 3.0d, 3.00, null, null)"
            )
            next_key += 1
        elif change == "delete":
            spark.sql(f"delete from {table} where id % 97 = {key % 97}")
        elif change == "update":
            spark.sql(f"update {table} set s = concat(s, '*') where id % 89 = {key % 89}")
        elif change == "replace":
            spark.sql(
                f"insert into {table} replace where g = 'g/{key % 4}' select {columns} "
                f"from {table} where g = 'g/{key % 4}' and id != {key}"
            )
        elif change == "overwrite":
            copy = f"`{schema}`.dr{seed}_copy"
            spark.sql(f"drop table if exists {copy}")
            spark.sql(f"create table {copy} using parquet as select {columns} from {table}")
            changed = (
                f"if(id = {key}, d + 1, d) as d" if c == "d" else c for c in columns.split(", ")
            )
            spark.sql(f"insert overwrite {table} select {', '.join(changed)} from {copy}")
        elif change == "add_column":
            for t in tables.values():
                spark.sql(f"alter table {t} add columns (extra{step} int)")
            columns += f", extra{step}"
        else:
            # Stopped after the track was written: no block hashes, split, row diff or summary.
            p.run("run", "--select", f"dr{seed}__ranges", f"dr{seed}__file_hashes").assert_success()
            spark.sql(f"delete from {table} where id = {key}")
        _build(p, pairs, list(names.values()))
        s = _same_answers(p, f"dr{seed}")
        after = {side: _live_files(spark, t) for side, t in tables.items()}
        for name in names:
            hashed_whole = s[f"track_hashed_whole_{name}"]
            new = {f for f, n in after[name].items() if before[name].get(f) != n}
            got = (s[f"track_files_hashed_{name}"], s[f"track_files_reused_{name}"])
            if change == "add_column":
                # New columns: a new leaf layout, both sides hashed whole, said so.
                assert hashed_whole.startswith("new leaf layout: options changed"), (step, name)
            else:
                # After a stopped run too: its state is exact for the version it read.
                assert hashed_whole is None, (step, change, side, name, hashed_whole)
                assert got == (len(new), len(after[name]) - len(new)), (step, change, side, name)
        before = after


def test_track_keeps_its_state_when_the_package_tables_are_delta(track_project, lakehouse):
    """With the package's tables on Delta (`table_diff_file_format: delta`, what `auto` gives a
    session with Delta), the changes track replaces its state in one commit, reading the old
    version of the table it replaces (ADR 0015 beside 0019), with no `<this>__prev` left: a second
    run reuses every stored signature, a changed side is re-read in part, and every answer equals
    the oracle's."""
    p, spark, schema = track_project, track_project.spark, track_project.schema
    for side in ("tdl_source", "tdl_target"):
        spark.sql(f"drop table if exists `{schema}`.{side}")
        spark.sql(f"create table `{schema}`.{side} using parquet as {BODY}")
    tables = ["tdl_source", "tdl_target"]
    pairs = _pairs("tdl", "tdl_source", "tdl_target")
    delta = ("--vars", '{"table_diff_file_format": "delta"}')

    _build(p, pairs, tables, *delta)
    s = _same_answers(p, "tdl")
    assert s["track_hashed_whole_target"] == "new leaf layout: first run"
    for model in ("file_hashes", "summary", "row_diff", "block_split"):
        detail = spark.sql(f"describe detail {p.relation('tdl__' + model)}").first()
        assert detail["format"] == "delta", model
        assert detail["properties"].get("delta.columnMapping.mode") == "name", model

    _build(p, pairs, tables, *delta)
    s = _same_answers(p, "tdl")
    assert s["track_hashed_whole_source"] is None and s["track_hashed_whole_target"] is None
    assert (s["track_files_hashed_target"], s["track_files_reused_target"]) == (0, 4)
    # One commit per run, the first run's and this run's replace of it: nothing renamed (a rename
    # and a create would leave the state table with one commit).
    state = p.relation("tdl__file_hashes")
    history = spark.sql(f"describe history {state}").orderBy("version").collect()
    assert [h["operation"] for h in history] == ["CREATE OR REPLACE TABLE AS SELECT"] * 2, history
    assert not spark.catalog.tableExists(f"{schema}.tdl__file_hashes__prev")

    spark.sql(
        f"insert into `{schema}`.tdl_target select /*+ COALESCE(1) */ * from values "
        "(100000, 'new', 1.0d, 1.00, null) as t(id, s, d, amount, ts)"
    )
    _build(p, pairs, tables, *delta)
    s = _same_answers(p, "tdl")
    assert (s["track_files_hashed_target"], s["track_files_reused_target"]) == (1, 4)
    assert s["rows_added"] == 1
