"""Per-column statistics of a pair (`NAME__column_stats`), `no_drift`'s most changed columns, and
the first rows of each kind of change in the CLI and the logs (ADR 0021).

The generated pairs come from the property test's strategies and helpers (`test_diff_property`):
hostile values (NULLs everywhere, NaN / -0.0, decimals, timestamps, unicode), duplicate and NULL
keys, empty and one-sided tables; every count is checked against `oracle.brute_force_diff`, with
Spark's ANSI mode off and on. Partial runs (`max_diff_rows`) must never claim complete counts.
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest
import yaml
from depth import SALT, examples, not_simplest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from oracle import brute_force_diff, canonical_key
from strategies import quote_ident, write_table
from test_diff_property import (
    _build_pairs,
    _expected,
    _force_ansi,
    _run_batch,
    cases,
    check_column_stats,
    property_project,
    rows_from_spark_key,
)

from dbt_table_diff.report.read import KINDS, read_pair
from dbt_table_diff.report.text import format_summary
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair
from dbt_table_diff.split import StaleRunError


@pytest.fixture(scope="module")
def stats_project(dbt_project_factory):
    return property_project(dbt_project_factory, "column_stats")


# One dbt invocation per test and ANSI mode (each builds or tests five pairs at once): a pair's
# models cost seconds each on the shared two cores, and a shrinking pass would repeat them.
ONE_BUILD = {
    "max_examples": 1,
    "deadline": None,
    "database": None,
    "phases": [Phase.generate],
    "suppress_health_check": list(HealthCheck),
}
# Random batches per test and ANSI mode (CONTRIBUTING.md: the CI and the deep depth).
EXAMPLES = examples(ci=1, deep=2)
SEEN: dict[str, int] = {"partial": 0, "complete": 0, "modified": 0, "no_drift_messages": 0}


def _sort_key(key: tuple) -> tuple:
    """Spark's ascending order of key tuples: NULL first, strings by code point (UTF-8 binary)."""
    return tuple((v is not None, v) for v in key)


def _first_by_key(expected, kind: str, n: int) -> list[tuple]:
    """The oracle's first ``n`` (key, side) entries of a kind, in key order (then side)."""
    if kind == "duplicate_key":
        entries = [
            (k, side)
            for k, (rs, rt) in expected.duplicate_rows_by_key.items()
            for side, count in (("source", rs), ("target", rt))
            for _ in range(count)
        ]
    else:
        keys = {"added": expected.added, "deleted": expected.deleted}.get(kind)
        side = {"added": "target", "deleted": "source"}.get(kind, "both")
        entries = [(k, side) for k in (keys if keys is not None else expected.modified)]
    return sorted(entries, key=lambda e: (_sort_key(e[0]), e[1]))[:n]


def _check_cli(project, name: str, case, expected, where: str, per_class: int) -> None:
    """`read_pair(per_class=n)` and `format_summary`: per kind, its first n rows by key, each
    modified row with the oracle's changed columns as old -> new, and the rest counted. A partial
    run shows rows it found (in key order) and says "at least"."""
    spec = case.pair.spec
    relation = project.relation(f"{name}__summary")
    summary, rows = read_pair(project.spark, relation, per_class=per_class)
    text = format_summary(summary, rows, spec.key_names, limit=per_class)
    partial = summary["is_partial"]
    kinds = [r["diff_type"] for r in rows]
    assert kinds == sorted(kinds, key=KINDS.index), where  # added, deleted, modified, duplicates
    want_all = expected.canonical()
    for kind in KINDS:
        got = [r for r in rows if r["diff_type"] == kind]
        keys = [(canonical_key(tuple(rows_from_spark_key(spec, r))), r["side"]) for r in got]
        assert len(got) <= per_class, where
        if partial or (kind == "duplicate_key" and not case.check_duplicate_keys):
            # which rows a partial run (or, without check_duplicate_keys, which duplicates) holds
            # depends on the blocks: the rows shown are the oracle's, in key order
            pool = want_all["duplicate_keys" if kind == "duplicate_key" else kind]
            assert all(k in pool for k, _ in keys), where
            raw = [(tuple(rows_from_spark_key(spec, r)), r["side"]) for r in got]
            assert raw == sorted(raw, key=lambda e: (_sort_key(e[0]), e[1])), where
        else:
            want = _first_by_key(expected, kind, per_class)
            assert keys == [(canonical_key(k), side) for k, side in want], f"{where}: {kind}"
            total = summary[{"duplicate_key": "duplicate_key_rows"}.get(kind, f"rows_{kind}")]
            if total > len(got):
                assert f"... {total - len(got)} more by key" in text, where
        for r in got:
            if kind == "modified":
                key = canonical_key(tuple(rows_from_spark_key(spec, r)))
                changed = want_all["modified"][key]
                assert tuple(r["changed_columns"]) == changed, where
                assert all(f"{c}: " in text for c in changed), where
    line = next((x for x in text.splitlines() if x.startswith("  changed columns ")), "")
    if partial:
        assert "differences     at least:" in text, where
        assert "matched keys" not in line and ("partial result" in line or line.endswith("none")), (
            where
        )
    elif expected.modified:
        columns = [r["column_name"] for r in summary["column_stats"]]
        order = sorted(
            expected.column_changes().items(), key=lambda c: (-c[1], columns.index(c[0]))
        )
        positions = [line.find(f"{c} {n}") for c, n in order[:5]]
        assert -1 not in positions and positions == sorted(positions), (where, line)
        assert (
            line.endswith(f"of {expected.matched_keys} matched keys")
            or not case.check_duplicate_keys
        )


@st.composite
def limited_cases(draw):
    """The property test's cases, some with a max_diff_rows small enough to cut the diff short."""
    case = draw(cases())
    return dataclasses.replace(case, max_diff_rows=draw(st.sampled_from([None, 1, 2, 4])))


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [False, True], ids=["ansi_off", "ansi_on"])
def test_column_stats_and_first_rows_match_brute_force(stats_project, monkeypatch, ansi):
    _force_ansi(monkeypatch, ansi)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(batch=st.lists(limited_cases(), min_size=6, max_size=6), salt=SALT)
    def check(batch, salt):
        not_simplest(salt)
        batch[0] = dataclasses.replace(batch[0], max_diff_rows=None)  # one complete pair at least
        run = _run_batch(stats_project, batch)
        assert stats_project.rows("ansi_probe") == [("true" if ansi else "false",)]
        for i, case in enumerate(batch):
            expected = _expected(case)
            spec = case.pair.spec
            where = f"pair p{i} (max_diff_rows={case.max_diff_rows}; log={case.pair.log})"
            summary = stats_project.spark.table(stats_project.relation(f"p{i}__summary")).first()
            diff = stats_project.spark.table(stats_project.relation(f"p{i}__row_diff")).collect()
            dups = {
                canonical_key(tuple(rows_from_spark_key(spec, r.asDict())))
                for r in diff
                if r["diff_type"] == "duplicate_key"
            }
            check_column_stats(
                stats_project, f"p{i}", case, expected, dups, summary.asDict(), where
            )
            assert summary["is_partial"] == (
                case.max_diff_rows is not None and len(diff) >= case.max_diff_rows
            ), where
            _check_cli(stats_project, f"p{i}", case, expected, where, per_class=2)
            SEEN["partial" if summary["is_partial"] else "complete"] += 1
            SEEN["modified"] += bool(expected.modified)
            # the log of the model: the most changed column, with its count
            if expected.modified and not summary["is_partial"]:
                name, n = max(expected.column_changes().items(), key=lambda item: item[1])
                assert any(
                    "table_diff.column_stats" in m and f"{name} {n}" in m for m in run.messages
                ), where

    check()
    assert SEEN["complete"], SEEN


# A pair whose every kind of change is known by hand: NULL keys, a duplicate key, unicode, a
# decimal, '' against NULL, NaN against NaN (equal) and -0.0 against 0.0 (equal).
HAND_SOURCE = """
select * from values
  (cast(null as bigint), 'x', cast(1.10 as decimal(10,2)), cast('NaN' as double)),
  (1, 'a', 1.00, 0.0), (2, 'b', 2.00, 1.0), (3, 'ç', 3.00, -0.0), (4, '', 4.00, 2.0),
  (5, 'e', 5.00, 3.0), (6, 'gone', 6.00, 4.0), (7, 'dup', 7.00, 5.0), (7, 'dup', 7.00, 5.0),
  (8, 'h', 8.00, 6.0)
  as t(id, name, amount, score)
"""
HAND_TARGET = """
select * from values
  (cast(null as bigint), 'X', cast(1.10 as decimal(10,2)), cast('NaN' as double)),
  (1, 'a', 1.00, 0.0), (2, 'B', 2.50, 1.0), (3, 'ç', 3.00, 0.0), (4, null, 4.00, 2.0),
  (5, 'e', 5.00, 3.5), (7, 'dup', 7.00, 5.0), (8, 'h', 8.00, 6.0), (9, 'new', 9.00, 7.0),
  (10, 'new2', 10.00, 8.0)
  as t(id, name, amount, score)
"""


def _hand_options(pairs: dict[str, dict]) -> list[PairOptions]:
    """The hand pair under each name in ``pairs``, with its options."""
    return [
        PairOptions(
            name=name,
            source="source('gen', 'hand_source')",
            target="source('gen', 'hand_target')",
            primary_key=("id",),
            block_count=1,
            max_depth=0,
            **options,
        )
        for name, options in pairs.items()
    ]


# The hand pairs of the tests below, built once (one dbt run for the module, not one per test:
# 2 fewer). hand_run is the plain pair again, for the test that replaces its statistics.
HAND_PAIRS = {
    "hand": {},
    "hand_cut": {"max_diff_rows": 3},
    "hand_keys": {"keys_only": True},
    "hand_run": {},
}


@pytest.fixture(scope="module")
def hand_build(stats_project):
    """The hand tables and HAND_PAIRS built in one dbt run; its result."""
    spark, schema = stats_project.spark, stats_project.schema
    for side, sql in (("source", HAND_SOURCE), ("target", HAND_TARGET)):
        spark.sql(f"drop table if exists `{schema}`.hand_{side}")
        spark.sql(f"create table `{schema}`.hand_{side} using parquet as {sql}")
    return _build_pairs(stats_project, _hand_options(HAND_PAIRS), ["hand_source", "hand_target"])


def test_hand_built_pair_stats_text_and_log(stats_project, hand_build):
    run = hand_build
    spark = stats_project.spark
    src = [r.asDict() for r in spark.table(f"`{stats_project.schema}`.hand_source").collect()]
    tgt = [r.asDict() for r in spark.table(f"`{stats_project.schema}`.hand_target").collect()]
    expected = brute_force_diff(src, tgt, ["id"], ["name", "amount", "score"])
    # NULL, 1, 2, 3, 4, 5, 8 are stored once on each side; 7 twice in the source
    assert expected.matched_keys == 7
    assert expected.column_changes() == {"name": 3, "amount": 1, "score": 1}
    stats = stats_project.rows("hand__column_stats", order_by="column_position")
    assert [r[:6] for r in stats] == [
        ("name", 1, 3, 7, 3 / 7, False),
        ("amount", 2, 1, 7, 1 / 7, False),
        ("score", 3, 1, 7, 1 / 7, False),
    ]
    summary, rows = read_pair(spark, stats_project.relation("hand__summary"), per_class=1)
    text = format_summary(summary, rows, ["id"], limit=1)
    assert text.splitlines()[6:] == [
        "  changed columns name 3 (42.9%), amount 1 (14.3%), score 1 (14.3%) of 7 matched keys",
        "  added 2         id=9",
        "                  ... 1 more by key",
        "  deleted 1       id=6",
        "  modified 4      id=NULL  name: 'x' -> 'X'",
        "                  ... 3 more by key",
        "  duplicate_key 3 id=7 (source)",
        "                  ... 2 more by key",
    ], text
    summary, rows = read_pair(spark, stats_project.relation("hand__summary"), per_class=5)
    text = format_summary(summary, rows, ["id"], limit=5)
    assert "  modified 4      id=NULL  name: 'x' -> 'X'" in text
    assert "                  id=2  name: 'b' -> 'B'; amount: 2.00 -> 2.50" in text
    assert "                  id=4  name: '' -> NULL" in text
    assert "                  id=5  score: 3.0 -> 3.5" in text
    assert "more by key" not in text
    # hand's line (hand_run's is the same; hand_cut's says "partial"; hand_keys has no statistics)
    log = next(
        m
        for m in run.messages
        if m.startswith("table_diff.column_stats") and "changed columns: " in m
    )
    assert (
        "changed columns: name 3 (42.86%), amount 1 (14.29%), score 1 (14.29%) of 7 matched keys"
        in log
    )
    assert "    id=NULL  name: 'x' -> 'X'" in log and "    id=4  name: '' -> NULL" in log
    assert "  duplicate_key (3):\n    id=7 (source)\n    id=7 (source)\n    id=7 (target)" in log


def _changes_text(expected, columns: list[str], most: int = 5) -> str:
    """What no_drift's DIFFER line says after 'most changed columns: ', from the oracle."""
    m = expected.matched_keys
    order = sorted(expected.column_changes().items(), key=lambda c: (-c[1], columns.index(c[0])))
    parts = [f"{c} {n}" + (f" ({round(100.0 * n / m, 2)}%)" if m else "") for c, n in order[:most]]
    more = f", and {len(order) - most} more" if len(order) > most else ""
    return ", ".join(parts) + f" of {m} matched keys" + more


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [False, True], ids=["ansi_off", "ansi_on"])
def test_no_drift_names_the_most_changed_columns(stats_project, monkeypatch, ansi):
    """no_drift on generated pairs: its DIFFER line names the columns that changed most with the
    oracle's counts and share of matched keys, and its log the first rows of each kind (var
    table_diff_sample_rows) with the oracle's count of each kind."""
    _force_ansi(monkeypatch, ansi)
    project = stats_project

    # Every batch holds a modified row somewhere: with two examples, hypothesis's first (often the
    # simplest) and one more could otherwise leave the message under test unseen in a mode.
    def any_modified(batch: list) -> bool:
        return any(_expected(case).modified for case in batch)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(batch=st.lists(cases(), min_size=4, max_size=4).filter(any_modified), salt=SALT)
    def check(batch, salt):
        not_simplest(salt)
        tables, tests = [], {}
        for i, case in enumerate(batch):
            spec = case.pair.spec
            for side, rows in (("source", case.pair.source), ("target", case.pair.target)):
                write_table(project.spark, spec, rows, f"`{project.schema}`.`nd{i}_{side}`")
                tables.append(f"nd{i}_{side}")
            arguments = {
                "compare_to": f"source('gen', 'nd{i}_target')",
                "primary_key": spec.key_names,
            }
            if case.exclude:
                arguments["exclude_columns"] = case.exclude
            if case.normalize:
                arguments["normalize"] = case.normalize
            if case.filter_column:  # as the oracle's row_filter (`_expected`)
                arguments["table_filter"] = f"{quote_ident(case.filter_column)} % 3 != 0"
            tests[f"nd{i}_source"] = {"name": f"nd_{i}", "arguments": arguments}
        _build_pairs(project, [], tables)  # declares the tables as source gen; checks ANSI
        assert project.rows("ansi_probe") == [("true" if ansi else "false",)]
        sources = {
            "version": 2,
            "sources": [
                {
                    "name": "gen",
                    "schema": project.schema,
                    "tables": [
                        {"name": t, "data_tests": [{"table_diff.no_drift": tests[t]}]}
                        if t in tests
                        else {"name": t}
                        for t in tables
                    ],
                }
            ],
        }
        (project.root / "models" / "pairs" / "_gen__sources.yml").write_text(
            yaml.safe_dump(sources, sort_keys=False, allow_unicode=True)
        )
        run = project.run("test", "--select", "source:gen", "--vars", "table_diff_sample_rows: 2")
        for i, case in enumerate(batch):
            expected = _expected(case)
            columns = [c for c in case.pair.spec.value_names if c not in case.exclude]
            where = f"no_drift nd_{i} (log={case.pair.log})"
            line = next((m for m in run.messages if "DIFFER" in m and f"nd{i}_source" in m), None)
            # (duplicates both sides hold identically leave the whole-table signatures equal)
            if not expected.is_clean_without_duplicate_check:
                assert run.status(f"nd_{i}") == "fail", (where, run.describe())
                assert line is not None, where
            if expected.modified:
                assert f"; most changed columns: {_changes_text(expected, columns)};" in line, (
                    where,
                    line,
                )
                SEEN["no_drift_messages"] += 1
            elif line is not None:
                assert "most changed columns" not in line, where
            if line is None:
                continue
            counts = {
                "added": len(expected.added),
                "deleted": len(expected.deleted),
                "modified": len(expected.modified),
                "duplicate_key": expected.duplicate_key_rows_source
                + expected.duplicate_key_rows_target,
            }
            assert "First rows of each kind (model -> compare_to):" in line, where
            for kind, n in counts.items():
                header = f"\n  {kind} ({n}" + (", first 2 by key" if n > 2 else "") + "):\n"
                assert (header in line) == (n > 0), (where, kind, line)

    check()
    assert SEEN["no_drift_messages"] > 0, SEEN


def test_partial_and_key_only_hand_built_pairs(stats_project, hand_build):
    """max_diff_rows=3 on the hand pair (10 differing rows): every statistic says partial, the
    share and the matched keys are NULL, the counts are lower bounds, and the CLI says so. A
    key-only pair has no statistics row, and its summary and CLI text still read."""
    spark = stats_project.spark
    stats = stats_project.rows("hand_cut__column_stats", order_by="column_position")
    assert [(r[0], r[3], r[4], r[5]) for r in stats] == [
        ("name", None, None, True),
        ("amount", None, None, True),
        ("score", None, None, True),
    ]
    # the row diff keeps the first 3 rows by key: NULL, 2 and 4, all modified
    assert [r[2] for r in stats] == [3, 1, 0]
    summary, rows = read_pair(spark, stats_project.relation("hand_cut__summary"), per_class=5)
    assert summary["is_partial"] is True and len(rows) == 3
    text = format_summary(summary, rows, ["id"], limit=5)
    assert "  differences     at least: added " in text, text
    assert "(partial: max_diff_rows reached)" in text, text
    line = next(x for x in text.splitlines() if x.startswith("  changed columns"))
    assert line == "  changed columns at least name 3, amount 1 (partial result: no share)", line
    assert "  modified 3+     id=NULL  name: 'x' -> 'X'" in text, text
    assert stats_project.rows("hand_keys__column_stats") == []
    summary, rows = read_pair(spark, stats_project.relation("hand_keys__summary"), per_class=5)
    assert summary["column_stats"] == [] and summary["keys_only"] is True
    text = format_summary(summary, rows, ["id"], limit=5)
    assert "changed columns" not in text and "  added 2         id=9" in text, text


def test_column_stats_of_another_run_are_refused(stats_project, hand_build):
    """ADR 0011: a summary refuses column statistics another run left; read_pair too."""
    # hand_run was built by hand_build; a test since may have replaced models/pairs: its models
    # again (no run), over the same tables.
    pairs_dir = stats_project.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    write_pair(_hand_options({"hand_run": HAND_PAIRS["hand_run"]})[0], pairs_dir)
    (pairs_dir / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {stats_project.schema}\n    tables:\n"
        "      - name: hand_source\n      - name: hand_target\n"
    )
    spark = stats_project.spark
    new_run = ["hand_run__ranges", "hand_run__block_hashes", "hand_run__block_split"]
    stats_project.run("run", "--select", *new_run, "hand_run__row_diff").assert_success()
    run = stats_project.run("run", "--select", "hand_run__summary")
    assert run.status("hand_run__summary") == "error", run.describe()
    message = run.message("hand_run__summary")
    assert "invalid column_stats" in message and "hand_run__column_stats" in message, message
    stats_project.run("run", "--select", "hand_run__column_stats+").assert_success()
    summary, _ = read_pair(spark, stats_project.relation("hand_run__summary"))
    assert {r["run_id"] for r in summary["column_stats"]} == {summary["run_id"]}
    relation = stats_project.relation("hand_run__column_stats")
    table = spark.table(relation)
    other = [{**r.asDict(), "run_id": "another run"} for r in table.collect()]
    spark.createDataFrame(other, table.schema).write.insertInto(relation, overwrite=True)
    with pytest.raises(StaleRunError, match="hand_run__column_stats belongs to run 'another run'"):
        read_pair(spark, stats_project.relation("hand_run__summary"))
