"""A live PostgreSQL table as a side of a pair and of ``no_drift`` (ADR 0047), on a real server.

The PostgreSQL side's signatures are computed by PostgreSQL; these tests check the answers against
the brute-force oracle (tests/python/oracle.py) on hostile values, against the same pair over a
parquet copy of the database table, what left the server (pg_stat_statements), that the password
appears in no output, and the refusals before any scan.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import uuid
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from oracle import brute_force_diff, canonical_key
from postgres import PASSWORD_ENV
from test_diff_property import _force_ansi, property_project

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc
# (name, PostgreSQL type, Spark type): every kind of column a database side compares.
COLUMNS = [
    ("k", "text", "string"),
    ("n", "int", "int"),
    ("amt", "numeric(12,2)", "decimal(12,2)"),
    ("note", "text", "string"),
    ("code", "char(4)", "string"),
    ("at", "timestamptz", "timestamp"),
    ("day", "date", "date"),
    ("ok", "boolean", "boolean"),
    ("ref", "uuid", "string"),
    ("big", "bigint", "bigint"),
]
KEY = ["k", "n"]
# A uuid compares in any case (PostgreSQL's text of it is lower case): the oracle lowers it too.
NORMALIZE = {"ref": {"lower": True}}
VALUES = [c[0] for c in COLUMNS if c[0] not in KEY]
# Keys that collations order differently from bytes, unicode, and the NULL lookalikes.
KEY_TEXTS = [
    "a",
    "A",
    "-a",
    "_a",
    "a-b",
    "a_b",
    "é",
    "e",
    "E",
    "z",
    "Zürich",
    "日本",
    "🦆",
    "",
    "NULL",
    "b b",
]
NOTES = [
    None,
    "",
    "NULL",
    "null",
    "x",
    "x ",
    " x",
    "ünï",
    "🦆🦆",
    "a'b",
    "a\\b",
    "${env:HOME}",
    "%s",
]
CODES = [None, "ab  ", "abcd", "    ", "é   "]
TIMES = [
    None,
    dt.datetime(2026, 3, 29, 1, 30, tzinfo=UTC),  # the hour Europe skips
    dt.datetime(2026, 10, 25, 1, 30, tzinfo=UTC),  # the hour Europe repeats
    dt.datetime(999, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),
    dt.datetime(1970, 1, 1, tzinfo=UTC),
    dt.datetime(2038, 1, 19, 3, 14, 8, 1, tzinfo=UTC),
]
DAYS = [None, dt.date(1, 1, 1), dt.date(999, 1, 1), dt.date(1970, 1, 1), dt.date(2026, 12, 6)]
AMOUNTS = [
    None,
    Decimal("0.00"),
    Decimal("-0.00"),
    Decimal("9999999999.99"),
    Decimal("-9999999999.99"),
    Decimal("0.01"),
    Decimal("12.50"),
]


def _row(rng: random.Random) -> dict[str, Any]:
    return {
        "k": rng.choice(KEY_TEXTS + [None]) if rng.random() < 0.05 else rng.choice(KEY_TEXTS),
        "n": None if rng.random() < 0.03 else rng.randrange(-3, 400),
        "amt": rng.choice(AMOUNTS),
        "note": rng.choice(NOTES),
        "code": rng.choice(CODES),
        "at": rng.choice(TIMES),
        "day": rng.choice(DAYS),
        "ok": rng.choice([None, True, False]),
        "ref": rng.choice([None, _uuid(rng), _uuid(rng).upper()]),  # a uuid in either case
        "big": rng.choice([None, 0, -(2**63), 2**63 - 1, rng.randrange(-(10**12), 10**12)]),
    }


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128)))


def _drifted(rows: list[dict], rng: random.Random, share: float) -> list[dict]:
    """The target: rows changed, deleted, duplicated and added, about `share` of them each."""
    out = []
    for r in rows:
        p = rng.random()
        if p < share:
            continue  # deleted
        r = dict(r)
        if p < 2 * share:
            col = rng.choice(VALUES)
            r[col] = _row(rng)[col]
        out.append(r)
        if p > 1 - share / 2:
            out.append(dict(r))  # a duplicate key (the table has no primary key)
    for _ in range(max(1, int(len(rows) * share))):
        out.append(_row(rng) | {"n": rng.randrange(400, 500)})  # added
    return out


def _pg_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, dt.datetime):
        return "'" + value.strftime("%Y-%m-%d %H:%M:%S.%f") + "+00'"
    if isinstance(value, dt.date):
        return "'" + f"{value.year:04d}-{value.month:02d}-{value.day:02d}" + "'"
    return "'" + str(value).replace("'", "''") + "'"


def _load_pg(postgres, table: str, rows: list[dict]) -> None:
    cols = ", ".join(f"{n} {t}" for n, t, _ in COLUMNS)
    sql = [f"drop table if exists {table}", f"create table {table} ({cols})"]
    if rows:
        values = ",\n".join(
            "(" + ", ".join(_pg_literal(r[n]) for n, _, _ in COLUMNS) + ")" for r in rows
        )
        sql.append(f"insert into {table} values {values}")
    postgres.psql(";\n".join(sql) + ";")


def _load_lake(spark, relation: str, rows: list[dict]) -> None:
    from pyspark.sql.types import StructType

    schema = StructType.fromDDL(", ".join(f"{n} {t}" for n, _, t in COLUMNS))
    spark_rows = [
        {**r, "at": r["at"].astimezone(UTC).replace(tzinfo=None) if r["at"] else None} for r in rows
    ]
    df = spark.createDataFrame([tuple(r[n] for n, _, _ in COLUMNS) for r in spark_rows], schema)
    df.write.mode("overwrite").format("parquet").saveAsTable(relation)


@pytest.fixture(scope="module")
def pg_project(dbt_project_factory, postgres):
    project = property_project(dbt_project_factory, "database_side")
    project.db_schema = f"{project.schema}_pg"
    project.lake_tables, project.pg_tables = {}, set()
    project.spark.sql(f"create schema if not exists `{project.db_schema}`")
    conn = {
        "url": postgres.jdbc_url,
        "user": postgres.user,
        "password_env": PASSWORD_ENV,
        "spark_schemas": [project.db_schema],
    }
    project.write(
        "dbt_project.yml",
        (project.root / "dbt_project.yml")
        .read_text()
        # Every fetch of a few leaves takes the second round, whatever their rows (ADR 0047).
        .replace(
            "vars:\n",
            "vars:\n  table_diff_database_parts_from: 0\n  table_diff_databases:\n    shop: "
            + _flow(conn)
            + "\n",
            1,
        ),
    )
    return project


def _flow(d: dict) -> str:
    return json.dumps(d)


def _jdbc_table(project, postgres, name: str, pg_table: str) -> str:
    o = postgres.spark_jdbc_options()
    relation = f"`{project.db_schema}`.`{name}`"
    project.spark.sql(f"drop table if exists {relation}")
    project.spark.sql(
        f"create table {relation} using jdbc options (url '{o['url']}', driver '{o['driver']}', "
        f"user '{o['user']}', password '{o['password']}', dbtable '{pg_table}')"
    )
    return relation


def _pair(project, name: str, source: str, target: str, **options) -> None:
    pairs = project.root / "models" / "pairs"
    pairs.mkdir(parents=True, exist_ok=True)
    write_pair(
        PairOptions(name=name, source=source, target=target, primary_key=tuple(KEY), **options),
        pairs,
    )


def _sources(project, lake=(), pg=(), tests=None) -> None:
    """Declare more tables as sources `lake` (the project's schema) and `pg` (the JDBC tables'
    schema), cumulatively; `tests`: {lake table: [data tests]}."""
    project.lake_tables.update(dict.fromkeys(lake, []))
    project.pg_tables.update(pg)
    project.lake_tables.update(tests or {})
    doc = {
        "version": 2,
        "sources": [
            {
                "name": "lake",
                "schema": project.schema,
                "tables": [
                    {"name": n, **({"data_tests": t} if t else {})}
                    for n, t in project.lake_tables.items()
                ],
            },
            {
                "name": "pg",
                "schema": project.db_schema,
                "tables": [{"name": n} for n in sorted(project.pg_tables)],
            },
        ],
    }
    project.write("models/pairs/_db__sources.yml", yaml.safe_dump(doc, sort_keys=False))


def _answer(project, pair: str) -> Counter:
    out: Counter = Counter()
    for r in project.spark.table(project.relation(f"{pair}__row_diff")).collect():
        d = r.asDict()
        key = canonical_key(tuple(d[k] for k in KEY))
        out[(d["diff_type"], d["side"], key, tuple(d["changed_columns"] or ()))] += 1
    return out


def _check_oracle(
    answer: Counter, source: list[dict], target: list[dict], flipped: bool = False
) -> None:
    """Added, deleted and modified rows exactly as the oracle says; every duplicate key the oracle
    must report (its rows differ between the sides) reported, and no other key."""
    sides = (target, source) if flipped else (source, target)
    want = brute_force_diff(*sides, KEY, VALUES, normalize=NORMALIZE)
    expected: Counter = Counter()
    for k in want.added:
        expected[("added", "target", canonical_key(k), ())] += 1
    for k in want.deleted:
        expected[("deleted", "source", canonical_key(k), ())] += 1
    for k, cols in want.modified.items():
        expected[("modified", "both", canonical_key(k), tuple(cols))] += 1
    got = Counter({e: n for e, n in answer.items() if e[0] != "duplicate_key"})
    assert got == expected
    dups = {e[2] for e in answer if e[0] == "duplicate_key"}
    must = {canonical_key(k) for k in want.duplicate_keys - want.symmetric_duplicate_keys}
    assert must <= dups <= {canonical_key(k) for k in want.duplicate_keys}


def _rows_sent(postgres, table: str) -> int:
    """Rows PostgreSQL returned to statements that read `table` (pg_stat_statements)."""
    text = postgres.psql(
        "select coalesce(sum(rows), 0) from pg_stat_statements "
        f"where query like '%{table}%' and query not like '%pg_stat_statements%'"
    )
    return int(text)


@pytest.mark.parametrize("ansi", [False, True], ids=["ansi_off", "ansi_on"])
def test_pair_with_a_postgres_side_matches_the_oracle(pg_project, postgres, monkeypatch, ansi):
    """Hostile values in a table without a primary key, drift both ways: the pair with the
    PostgreSQL table as target (and, flipped, as source) gives the oracle's rows, and the same
    outputs as over a parquet copy of it; only signatures and mismatched leaves' rows leave."""
    _force_ansi(monkeypatch, ansi)
    seed = int(os.environ.get("TABLE_DIFF_SEED", random.randrange(2**32)))
    print(f"seed {seed}")
    rng = random.Random(seed)
    project, spark = pg_project, pg_project.spark
    source = [_row(rng) for _ in range(400)]
    target = _drifted(source, rng, 0.02)
    # A NULL moved to its neighbour, whose value prints alike (5 microseconds, 5 days), and a
    # number moved into a string beside it: the canonical row text must tell each pair apart.
    pinned = _row(rng) | {"k": "pinned", "n": 1000}
    source.append(pinned | {"at": None, "day": dt.date(1970, 1, 6), "ok": None})
    target.append(pinned | {"at": dt.datetime(1970, 1, 1, 0, 0, 0, 5, tzinfo=UTC), "day": None})
    source.append(pinned | {"n": 1001, "amt": None, "note": "5;"})
    target.append(pinned | {"n": 1001, "amt": Decimal("5.00"), "note": ";"})
    tag = "on" if ansi else "off"
    pg_table = f"public.orders_{tag}"
    _load_pg(postgres, pg_table, target)
    _load_lake(spark, project.relation(f"lake_{tag}"), source)
    _load_lake(spark, project.relation(f"copy_{tag}"), target)
    _jdbc_table(project, postgres, f"orders_{tag}", pg_table)
    _sources(project, lake=[f"lake_{tag}", f"copy_{tag}"], pg=[f"orders_{tag}"])
    lake, copy = f"source('lake', 'lake_{tag}')", f"source('lake', 'copy_{tag}')"
    pg = f"source('pg', 'orders_{tag}')"
    # Leaves of about 4 rows: the drift selects some of them, so the fetch takes its rounds.
    opts = {"block_count": 4, "compare_unit_size": 4, "normalize": NORMALIZE}
    _pair(project, f"pg_{tag}", lake, pg, repair="source_to_target", **opts)
    _pair(project, f"pgsrc_{tag}", pg, lake, **opts)
    _pair(project, f"copy_{tag}", lake, copy, **opts)
    postgres.psql("select pg_stat_statements_reset()")
    # ANSI off fetches whole leaves (no second round below 10^9 rows; from half the leaves
    # selected, uncached), ANSI on the differing parts of the selected leaves, however many.
    rounds = [
        "--vars",
        "{table_diff_dense_leaf_share: 2}"
        if ansi
        else "{table_diff_database_parts_from: 1000000000}",
    ]
    build = project.run(
        "build",
        "--select",
        f"pg_{tag}__summary+",
        f"+pg_{tag}__summary",
        f"+pgsrc_{tag}__summary",
        f"+copy_{tag}__summary",
        *rounds,
    )
    build.assert_success()
    parts = [m for m in build.messages if " parts of about " in m]
    assert len(parts) == (2 if ansi else 0), parts  # the pair, and the pair flipped

    answer = _answer(project, f"pg_{tag}")
    _check_oracle(answer, source, target)
    _check_oracle(_answer(project, f"pgsrc_{tag}"), source, target, flipped=True)
    # The parquet copy gives the same rows (duplicate keys whose rows match on both sides are
    # reported by whichever fetch reads their leaf: a whole fetch reads every one).
    copy_answer = _answer(project, f"copy_{tag}")
    _check_oracle(copy_answer, source, target)
    assert {e: n for e, n in answer.items() if e[0] != "duplicate_key"} == {
        e: n for e, n in copy_answer.items() if e[0] != "duplicate_key"
    }
    # The summaries agree with the parquet copy's, line by line.
    cols = "status, rows_source, rows_target, rows_added, rows_deleted, rows_modified"
    summary = {
        p: spark.sql(f"select {cols} from {project.relation(p + '__summary')}").collect()
        for p in (f"pg_{tag}", f"copy_{tag}")
    }
    assert summary[f"pg_{tag}"] == summary[f"copy_{tag}"]
    # What left PostgreSQL: signatures, and the rows of mismatched leaves, never the table.
    sent = _rows_sent(postgres, f"orders_{tag}")
    assert 0 < sent < 2 * len(target)
    # The repair is a script for PostgreSQL (never run by table_diff): run it, and the pair finds
    # the two sides identical. Every hostile value went through its literals.
    run = project.run("run-operation", "table_diff.apply_repair", "--args", f"{{pair: pg_{tag}}}")
    run.assert_success()
    script = next(m for m in run.messages if m.startswith("table_diff.apply_repair: "))
    script = script[script.index("\nbegin;") + 1 :]
    assert script.endswith("commit;") and "delete from" in script and "insert into" in script
    postgres.psql(script)
    project.run("build", "--select", f"pg_{tag}__ranges+").assert_success()
    left = {e: n for e, n in _answer(project, f"pg_{tag}").items() if e[0] != "duplicate_key"}
    assert left == {}  # duplicate keys stay: the source holds them too
    _assert_no_password(project, postgres)


def _assert_no_password(project, postgres) -> None:
    """The password is in no file dbt wrote and in no table the pairs wrote."""
    for path in Path(project.root).rglob("*"):
        if path.is_file() and path.suffix in {
            ".json",
            ".log",
            ".sql",
            ".txt",
            ".yml",
            ".html",
            ".csv",
            ".py",
        }:
            assert postgres.password not in path.read_text(errors="replace"), path
    spark = project.spark
    for t in spark.sql(f"show tables in `{project.schema}`").collect():
        if t.tableName.endswith(
            ("__ranges", "__summary", "__row_diff", "__block_hashes", "table_diff_run_history")
        ):
            text = " ".join(
                str(r) for r in spark.table(f"`{project.schema}`.`{t.tableName}`").collect()
            )
            assert postgres.password not in text, t.tableName


def test_no_drift_against_a_postgres_table(pg_project, postgres):
    """`no_drift` with compare_to a PostgreSQL table: identical passes on the signatures alone
    (one row per side leaves the server), drift fails with the oracle's counts."""
    project, spark = pg_project, pg_project.spark
    rng = random.Random(7)
    rows = [_row(rng) for _ in range(200)]
    _load_pg(postgres, "public.same_t", rows)
    _load_lake(spark, project.relation("same_lake"), rows)
    _jdbc_table(project, postgres, "same_t", "public.same_t")
    drifted = _drifted(rows, rng, 0.03)
    _load_pg(postgres, "public.drift_t", drifted)
    _jdbc_table(project, postgres, "drift_t", "public.drift_t")
    tests = [
        {
            "table_diff.no_drift": {
                "name": "same_no_drift",
                "compare_to": "source('pg', 'same_t')",
                "primary_key": KEY,
            }
        },
        {
            "table_diff.no_drift": {
                "name": "drift_no_drift",
                "compare_to": "source('pg', 'drift_t')",
                "primary_key": KEY,
            }
        },
    ]
    _sources(project, pg=["same_t", "drift_t"], tests={"same_lake": tests})
    postgres.psql("select pg_stat_statements_reset()")
    run = project.run("test", "--select", "same_no_drift")
    run.assert_success()
    assert _rows_sent(postgres, "same_t") <= 2
    run = project.run("test", "--select", "drift_no_drift")
    assert run.status("drift_no_drift") == "fail"
    want = brute_force_diff(rows, drifted, KEY, VALUES, normalize=NORMALIZE)
    failing = len(want.added) + len(want.deleted) + len(want.modified)
    dups = {canonical_key(k) for k in want.duplicate_keys}
    dup_rows = sum(canonical_key(tuple(r[k] for k in KEY)) in dups for r in rows + drifted)
    got = int(run.message("drift_no_drift").split()[1])
    assert failing > 0 and failing <= got <= failing + dup_rows
    _assert_no_password(project, postgres)


@pytest.mark.parametrize(
    "column, pg_type, spark_type, message",
    [
        ("amt", "double precision", "double", "floating-point values print differently"),
        ("at", "timestamp", "timestamp", "compare timestamptz"),
        ("note", "json", "string", "no exact comparison"),
    ],
)
def test_types_without_an_exact_comparison_are_refused(
    pg_project, postgres, column, pg_type, spark_type, message
):
    """Refused before any scan, naming the column, both types and the fix."""
    project, spark = pg_project, pg_project.spark
    table = f"public.refuse_{column}"
    postgres.psql(
        f"drop table if exists {table}; create table {table} (k text, n int, {column} {pg_type});"
    )
    spark.sql(f"drop table if exists {project.relation('refuse_lake')}")
    spark.sql(
        f"create table {project.relation('refuse_lake')} "
        f"(k string, n int, {column} {spark_type}) using parquet"
    )
    _jdbc_table(project, postgres, f"refuse_{column}", table)
    _sources(project, lake=["refuse_lake"], pg=[f"refuse_{column}"])
    _pair(
        project,
        f"refuse_{column}",
        "source('lake', 'refuse_lake')",
        f"source('pg', 'refuse_{column}')",
    )
    run = project.run("run", "--select", f"refuse_{column}__ranges")
    run.assert_failure()
    text = run.message(f"refuse_{column}__ranges")
    assert column in text and message in text and pg_type.split("(")[0] in text


def test_only_signatures_and_mismatched_leaves_leave_postgres(pg_project, postgres):
    """200,000 rows, 3 changed in PostgreSQL: the pair finds exactly those 3, and PostgreSQL sends
    the leaves' signatures plus the rows of the mismatched leaves (under 1% of the table); once the
    table is repaired, a build finds it identical, and the next one takes the quick check: one
    whole-table signature row is all that leaves."""
    project, spark = pg_project, pg_project.spark
    n = 200_000
    pg_sql = (
        "drop table if exists public.big; create table public.big as select g::bigint as id, "
        "md5(g::text) as v, ((g % 1000) / 100.0)::numeric(12,2) as amt from generate_series(0, "
        f"{n - 1}) g; analyze public.big;"
    )
    postgres.psql(pg_sql)
    spark.sql(f"drop table if exists {project.relation('big_lake')}")
    spark.sql(
        f"create table {project.relation('big_lake')} using parquet as select id, "
        "md5(cast(id as string)) as v, cast((id % 1000) / 100.0 as decimal(12,2)) as amt "
        f"from range({n})"
    )
    _jdbc_table(project, postgres, "big", "public.big")
    _sources(project, lake=["big_lake"], pg=["big"])
    pairs = project.root / "models" / "pairs"
    write_pair(
        PairOptions(
            name="big",
            source="source('lake', 'big_lake')",
            target="source('pg', 'big')",
            primary_key=("id",),
            block_count=96,  # 768 leaves of about 260 rows: each changed row selects one leaf
            max_depth=1,
            compare_unit_size=250,
        ),
        pairs,
    )
    changed = [7, 100_000, 199_999]
    postgres.psql(
        f"update public.big set amt = amt + 1 where id in ({', '.join(map(str, changed))});"
        "select pg_stat_statements_reset();"
    )
    project.run("build", "--select", "+big__summary").assert_success()
    rows = spark.table(project.relation("big__row_diff")).collect()
    assert sorted((r["id"], r["diff_type"], tuple(r["changed_columns"])) for r in rows) == [
        (i, "modified", ("amt",)) for i in changed
    ]
    leaves = spark.sql(
        f"select count(*) from {project.relation('big__block_hashes')} where side = 'target'"
    ).collect()[0][0]
    fetched = spark.sql(
        "select coalesce(sum(target_rows), 0) from "
        f"{project.relation('big__block_split')} where selected"
    ).collect()[0][0]
    sent = _rows_sent(postgres, "public.big")
    breakdown = postgres.psql(
        "select rows, left(query, 60) from pg_stat_statements "
        "where query like '%public.big%' order by rows desc"
    )
    # The catalog's few rows, one signature row a leaf, then a signature row per part of the
    # selected leaves and the rows of the parts that differ: fewer than those leaves' rows.
    assert leaves < sent < leaves + fetched, breakdown
    assert fetched < 3 * 400 and sent < n // 100, breakdown  # under 1% of the table left
    # After the row fetch, a write to a leaf it did not read leaves the result exact (the diff as
    # of the block pass); a write to one it read is flagged by the summary's check, which sends
    # one signature row per fetched leaf.
    status = f"select status from {project.relation('big__summary')}"
    postgres.psql("update public.big set v = 'x' where id = 50000;")
    postgres.psql("select pg_stat_statements_reset();")
    project.run("build", "--select", "big__summary").assert_success()
    assert spark.sql(status).collect()[0][0] == "complete"
    assert _rows_sent(postgres, "public.big") <= 3 + 10  # three leaves' signatures, the catalog's
    postgres.psql("update public.big set v = 'x' where id = 8;")
    project.run("build", "--select", "big__summary").assert_success()
    assert spark.sql(status).collect()[0][0] == "changed_during_run"
    postgres.psql("update public.big set v = md5(id::text) where id in (8, 50000);")
    # Repaired: identical; the build after that takes the quick check (two signature rows).
    postgres.psql(
        f"update public.big set amt = amt - 1 where id in ({', '.join(map(str, changed))});"
    )
    project.run("build", "--select", "+big__summary").assert_success()
    assert spark.table(project.relation("big__row_diff")).count() == 0
    postgres.psql("select pg_stat_statements_reset();")
    project.run("build", "--select", "+big__summary").assert_success()
    summary = spark.sql(
        f"select status, is_identical from {project.relation('big__summary')}"
    ).collect()[0]
    assert (summary[0], summary[1]) == ("complete", True)
    assert _rows_sent(postgres, "public.big") == 1
    # Drift found by that quick check (the last run was identical) is looked for in leaves: the
    # database never sends its every row.
    postgres.psql("update public.big set amt = 0 where id = 123456;")
    postgres.psql("select pg_stat_statements_reset();")
    project.run("build", "--select", "+big__summary").assert_success()
    rows = spark.table(project.relation("big__row_diff")).collect()
    assert [(r["id"], r["diff_type"]) for r in rows] == [(123456, "modified")]
    assert _rows_sent(postgres, "public.big") < n // 100


def test_preview_sizes_a_postgres_side_from_its_statistics(pg_project, postgres):
    """`table_diff.preview_pair` on the pair of the test above (or its own): the PostgreSQL side is
    sized by its planner's estimate, and nothing is read from it."""
    project = pg_project
    if not project.spark.catalog.tableExists(project.relation("big_lake")):
        test_only_signatures_and_mismatched_leaves_leave_postgres(pg_project, postgres)
    postgres.psql("analyze public.big; select pg_stat_statements_reset();")
    run = project.run("run-operation", "table_diff.preview_pair", "--args", "{pair: big}")
    run.assert_success()
    marker = "table_diff.preview_pair json: "
    report = json.loads(next(m for m in run.messages if m.startswith(marker))[len(marker) :])
    target = report["sides"]["target"]
    assert target["database"] == "public.big" and target["rows_estimate"] == 200_000
    assert "planner statistics" in target["estimate_from"]
    assert report["layout"]["larger_side"] == "source"  # never sampled from the database
    assert _rows_sent(postgres, "public.big") <= 10  # the catalog query's rows, no table row


def test_empty_sides(pg_project, postgres):
    """An empty PostgreSQL table against rows, and rows in PostgreSQL against an empty lake table:
    every row deleted, then every row added, as the oracle says."""
    project, spark = pg_project, pg_project.spark
    rows = [_row(random.Random(11)) | {"n": i} for i in range(30)]
    _load_pg(postgres, "public.empty_pg", [])
    _load_pg(postgres, "public.full_pg", rows)
    _load_lake(spark, project.relation("full_lake"), rows)
    _load_lake(spark, project.relation("empty_lake"), [])
    _jdbc_table(project, postgres, "empty_pg", "public.empty_pg")
    _jdbc_table(project, postgres, "full_pg", "public.full_pg")
    _sources(project, lake=["full_lake", "empty_lake"], pg=["empty_pg", "full_pg"])
    _pair(project, "to_empty", "source('lake', 'full_lake')", "source('pg', 'empty_pg')")
    _pair(project, "from_empty", "source('lake', 'empty_lake')", "source('pg', 'full_pg')")
    project.run("build", "--select", "+to_empty__summary", "+from_empty__summary").assert_success()
    _check_oracle(_answer(project, "to_empty"), rows, [])
    _check_oracle(_answer(project, "from_empty"), [], rows)
    assert sum(_answer(project, "to_empty").values()) == len(rows)
