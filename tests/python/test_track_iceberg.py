"""The changes track on Iceberg sides (ADR 0029): the stored per-leaf signatures
are brought forward by the table's changelog between the stored snapshot and the pinned one
(rows of added data files add, rows of removed ones subtract), so the answers equal the brute-force
oracle's row for row after appends, copy-on-write deletes and updates and a partition overwrite; an
unchanged side reads no row, a changed one only the changelog's rows. Delete files
(merge-on-read), an expired stored snapshot, a table dropped and created again, more snapshots
than table_diff_track_max_versions, a schema change and a rollback re-hash the side whole, say
why, and still answer like the oracle."""

from __future__ import annotations

import dataclasses
import datetime
import shutil

import pytest
from plans import rows_scanned
from test_track import BODY, SCAFFOLDED, _compiled, _pairs, _same_answers

from dbt_table_diff.scaffold.pair import write_pair


@pytest.fixture(scope="module")
def track_project(dbt_project_factory):
    project = dbt_project_factory("track_iceberg", packages=True)
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    project.spark.sql(f"create namespace if not exists iceberg.`{project.schema}`")
    return project


def _iceberg_rows_read(spark, compiled_sql: str) -> int:
    """Rows a compiled model query's Iceberg scans produced (its changelog's included)."""
    return rows_scanned(spark, compiled_sql, (), batch_scans=True)


def _snapshot(spark, table: str) -> int:
    return spark.sql(f"select snapshot_id from {table}.refs where name = 'main'").first()[0]


def _changelog_rows(spark, table: str, since: int) -> int:
    """Rows of the changelog from ``since`` (exclusive) to the current snapshot: the oracle for
    what a changelog read must read."""
    until = _snapshot(spark, table)
    options = f"('start-snapshot-id' = '{since}', 'end-snapshot-id' = '{until}')"
    return spark.sql(f"select count(*) from {table}.changes with {options}").first()[0]


def test_track_reads_iceberg_snapshots(track_project, lakehouse):
    p, spark, schema = track_project, track_project.spark, track_project.schema
    src, tgt = f"iceberg.`{schema}`.ti_source", f"iceberg.`{schema}`.ti_target"
    rows = f"select *, if(id is null, null, concat('g/', id % 5)) as g from ({BODY})"
    for table in (src, tgt):
        spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {src} using iceberg tblproperties ('format-version' = '2') as {rows}")
    target_ddl = (
        f"create table {tgt} using iceberg partitioned by (g) "
        f"tblproperties ('format-version' = '2') as {rows}"
    )
    spark.sql(target_ddl)
    pairs_dir = p.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    for opts in _pairs("tk", "ti_source", "ti_target"):
        opts = dataclasses.replace(
            opts,
            source=opts.source.replace("'gen'", "'ice'"),
            target=opts.target.replace("'gen'", "'ice'"),
        )
        write_pair(opts, pairs_dir)
        SCAFFOLDED[opts.name] = opts
    (pairs_dir / "_ice__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: ice\n    schema: iceberg.{schema}\n    tables:\n"
        "      - name: ti_source\n      - name: ti_target\n"
    )

    def build(*extra: str):
        p.run("build", "--select", "pairs", *extra).assert_success()
        return _same_answers(p, "tk")

    s = build()
    assert s["track_hashed_whole_target"] == "new leaf layout: first run" and s["is_identical"]

    # Nothing committed: the snapshots say so, and no row is read.
    s = build()
    assert s["track_hashed_whole_source"] is None and s["track_hashed_whole_target"] is None
    assert s["track_leaves_recomputed"] == 0 and s["track_leaves_reused"] > 0
    assert _iceberg_rows_read(spark, _compiled(p, "tk__file_hashes")) == 0

    # Rows appended to the source; on the target a copy-on-write delete, an update and one
    # partition overwritten: only the changelog's rows are read, and every answer is exact.
    since = {t: _snapshot(spark, t) for t in (src, tgt)}
    spark.sql(f"insert into {src} select 100002, 'appended', 2.0d, 2.00, null, 'g/2'")
    spark.sql(f"delete from {tgt} where id in (3, 1503) or (id is null and d = 1.0d)")
    spark.sql(f"update {tgt} set s = 'updated' where id = 43")
    spark.sql(
        f"insert overwrite {tgt} partition (g = 'g/1') select id, s, d, amount, ts from ({rows}) "
        "where g = 'g/1' and id != 41 union all select 100001, 'new', 1.0d, 1.00, null"
    )
    s = build()
    assert s["track_hashed_whole_source"] is None and s["track_hashed_whole_target"] is None
    # Deleted: 3, 1503, 41 (overwritten away) and 100002 (only in the source). Each change
    # rewrote one partition's file (g/3 twice, g/1, the NULL one): a copy-on-write change reads
    # the old file's rows and the new one's, and nothing else.
    assert (s["rows_added"], s["rows_deleted"], s["rows_modified"]) == (1, 4, 1)
    read = sum(_changelog_rows(spark, t, since[t]) for t in (src, tgt))
    total = sum(spark.sql(f"select count(*) from {t}").first()[0] for t in (src, tgt))
    assert _iceberg_rows_read(spark, _compiled(p, "tk__file_hashes")) == read < total
    # The same state with ANSI on: the signed sums are exact either way.
    stored = sorted(spark.table(p.relation("tk__file_hashes")).drop("started_at").collect())
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        again = spark.sql(_compiled(p, "tk__file_hashes")).drop("started_at").collect()
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "false")
    assert sorted(again) == stored

    # A merge-on-read delete writes a delete file, which the changelog cannot read: whole.
    spark.sql(f"alter table {tgt} set tblproperties ('write.delete.mode' = 'merge-on-read')")
    spark.sql(f"delete from {tgt} where id = 7")
    s = build()
    assert "has delete files" in s["track_hashed_whole_target"]
    assert s["track_hashed_whole_source"] is None

    # The source's stored snapshot expired; the target dropped and created again: both whole.
    spark.sql(f"insert into {src} select 100003, 'appended', 3.0d, 3.00, null, 'g/3'")
    spark.sql(f"insert into {src} select 100004, 'appended', 4.0d, 4.00, null, 'g/4'")
    later = datetime.datetime.now() + datetime.timedelta(days=1)
    spark.sql(
        f"call iceberg.system.expire_snapshots(table => '{schema}.ti_source', "
        f"older_than => timestamp '{later:%Y-%m-%d %H:%M:%S}', retain_last => 1)"
    )
    # expire_snapshots writes metadata with no new snapshot, which unpins the table until its next
    # write (table_version): one more append, then the stored snapshot is simply gone.
    spark.sql(f"insert into {src} select 100005, 'appended', 5.0d, 5.00, null, 'g/0'")
    spark.sql(f"drop table {tgt}")
    spark.sql(target_ddl)
    s = build()
    assert "no longer in the table" in s["track_hashed_whole_source"]
    assert "dropped and created again" in s["track_hashed_whole_target"]
    assert (s["rows_added"], s["rows_deleted"]) == (0, 4)

    # The changelog's other refusals, each answered like the oracle (the full
    # computation) by hashing the side whole, and saying why.
    # More snapshots than table_diff_track_max_versions on the source. On the target a column
    # added and dropped again (two metadata-only commits), then a write: Iceberg gives the
    # resulting schema its old id back, so the changelog still applies and is read.
    for n in (100006, 100007, 100008):
        spark.sql(f"insert into {src} select {n}, 'appended', 6.0d, 6.00, null, 'g/1'")
    since_target = _snapshot(spark, tgt)
    spark.sql(f"alter table {tgt} add column x int")
    spark.sql(f"alter table {tgt} drop column x")
    spark.sql(f"insert into {tgt} select 100009, 'appended', 9.0d, 9.00, null, 'g/4'")
    s = build("--vars", "{table_diff_track_max_versions: 2}")
    assert "more than 2 snapshots since the stored snapshot" in s["track_hashed_whole_source"]
    assert s["track_hashed_whole_target"] is None
    assert _iceberg_rows_read(spark, _compiled(p, "tk__file_hashes")) == (
        _changelog_rows(spark, tgt, since_target)
        + spark.sql(f"select count(*) from {src}").first()[0]
    )
    assert (s["rows_added"], s["rows_deleted"]) == (1, 7)

    # On the source a schema change that gives its next snapshot a new schema id (a column's
    # comment), then a write; on the target a rollback to its parent snapshot (a metadata-only
    # commit), then a write: the stored snapshot is still in the table but no ancestor of the
    # current one.
    spark.sql(f"alter table {src} alter column s comment 'a comment is a schema change'")
    spark.sql(f"insert into {src} select 100011, 'appended', 1.0d, 1.00, null, 'g/1'")
    stored = _snapshot(spark, tgt)
    parent = spark.sql(
        f"select parent_id from {tgt}.snapshots where snapshot_id = {stored}"
    ).first()[0]
    spark.sql(f"call iceberg.system.rollback_to_snapshot('{schema}.ti_target', {parent})")
    spark.sql(f"insert into {tgt} select 100010, 'appended', 1.0d, 1.00, null, 'g/0'")
    s = build()
    assert "the schema changed since the stored snapshot" in s["track_hashed_whole_source"]
    assert "is not an ancestor of the current" in s["track_hashed_whole_target"]
    # The rollback took 100009 away; 100010 is only in the target, 100002-100008 and 100011 only
    # in the source.
    assert (s["rows_added"], s["rows_deleted"]) == (1, 8)
