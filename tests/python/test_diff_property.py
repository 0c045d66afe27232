"""Property test: the block-hash pipeline reports exactly what a brute-force comparison finds.

Each hypothesis example draws a batch of random table pairs (hostile values from
``strategies.table_pairs``: NULLs everywhere, NaN/-0.0, decimals, timestamps, unicode, duplicate and
NULL keys, one-sided and empty tables) with random pipeline options (strategy range or hash, tiny
blocks so the split really recurses, column exclusion, normalisation rules, a table_filter), writes
them as parquet tables, scaffolds one pipeline per pair with the real CLI code, runs ONE in-process
``dbt build`` over all of them, and compares every pair's row diff and summary with
``oracle.brute_force_diff``. Runs with Spark's ANSI mode off (dbt-spark's setting) and on.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from typing import Any

import pytest
from depth import DEEP, SALT, examples, not_simplest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracle import brute_force_diff, canonical_key
from plans import full_reads, rows_scanned
from strategies import (
    RANGE_KEY_TYPES,
    TablePair,
    _from_spark_value,
    corner_pairs,
    quote_ident,
    table_pairs,
    table_specs,
    to_spark_df,
    write_table,
)

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

PAIRS_PER_BATCH = 6
# Random batches per ANSI mode, after the corner batch (corner_cases). The CI depth runs the four
# row-fetch paths (ROW_FETCH_PATHS) once each over the two modes; the deep one every path in every
# mode.
EXAMPLES_PER_MODE = examples(ci=1, deep=4)
PAIR_STATS: dict[str, int] = {"pairs": 0, "recursed": 0, "diff_rows": 0, "quick": 0}


@dataclass
class Case:
    pair: TablePair
    strategy: str
    block_count: int
    split_factor: int
    compare_unit_size: int
    max_depth: int
    exclude: list[str] = field(default_factory=list)
    normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    filter_column: str | None = None  # integral key column filtered with `% 3 != 0`
    check_duplicate_keys: bool = True
    quick_check: bool | str | None = None  # None: the default, 'auto'
    max_diff_rows: int | None = None  # None: the default (100000, never reached here)
    # source column -> the target's name for it (written so, diffed with column_map)
    rename: dict[str, str] = field(default_factory=dict)


def _normalize_rules(draw, spec) -> dict[str, dict[str, Any]]:
    rules: dict[str, dict[str, Any]] = {}
    for name in spec.value_names:
        t = spec.types[name]
        if not draw(st.integers(0, 3)) == 0:
            continue
        if t in ("double", "float") or t.startswith("decimal"):
            rules[name] = {"round": draw(st.integers(0, 3))}
        elif t == "timestamp":
            rules[name] = {"truncate": draw(st.sampled_from(["second", "minute", "day"]))}
        elif t == "string":
            rules[name] = draw(
                st.sampled_from([{"trim": True}, {"lower": True}, {"trim": True, "lower": True}])
            )
    return rules


@st.composite
def cases(draw) -> Case:
    pair = draw(table_pairs(table_specs(key_types=RANGE_KEY_TYPES), max_rows=40))
    spec = pair.spec
    values = spec.value_names
    exclude = [draw(st.sampled_from(values))] if len(values) > 1 and draw(st.booleans()) else []
    integral_keys = [k for k in spec.key_names if spec.types[k] in ("int", "bigint")]
    filter_column = (
        draw(st.sampled_from(integral_keys))
        if integral_keys and draw(st.integers(0, 3)) == 0
        else None
    )
    return Case(
        pair=pair,
        strategy=draw(st.sampled_from(["range", "hash"])),
        block_count=draw(st.integers(1, 3)),
        split_factor=draw(st.integers(2, 3)),
        compare_unit_size=draw(st.integers(1, 4)),
        max_depth=draw(st.integers(0, 3)),
        exclude=exclude,
        normalize={k: v for k, v in _normalize_rules(draw, spec).items() if k not in exclude},
        filter_column=filter_column,
        check_duplicate_keys=draw(st.booleans()),
        # 'auto' reads the previous example's result of the same pair name, so both its branches run
        quick_check=draw(st.sampled_from([None, True, False])),
    )


def corner_cases(ansi: bool) -> list[Case]:
    """The corner pairs (strategies.corner_pairs: every hostile value and change, each range key
    type, both drift directions, empty and one-sided) under options that make each path run: both
    strategies, a split several levels deep, the duplicate check on and off, the quick check on,
    off and by default, an excluded column, each normalisation rule, a table filter. At the CI
    depth each ANSI mode takes every other pair (every value type in both modes, each key type
    and each empty side in one); the deep depth builds them all in both."""
    pairs = corner_pairs()
    rules = {
        "v2_double": {"round": 2},
        "v3_float": {"round": 0},
        "v10_decimal_10_2_": {"round": 1},
        "v7_timestamp": {"truncate": "second"},
        "v4_string": {"trim": True, "lower": True},
        "ship-date": {"lower": True},
    }
    out = []
    for i, pair in enumerate(pairs):
        integral = pair.spec.key[0].type in ("int", "bigint")
        out.append(
            Case(
                pair=pair,
                strategy=("range", "hash")[i % 2],
                block_count=1 + i % 3,
                split_factor=2 + i % 2,
                compare_unit_size=1 + i % 4,
                max_depth=3 - i % 3,
                exclude=["v6_date"] if i % 3 == 1 else [],
                normalize=rules if i % 3 == 2 else {},
                filter_column="k" if integral and i % 2 == 1 else None,
                check_duplicate_keys=i % 4 != 3,
                quick_check=(None, True, False)[i % 3],
            )
        )
    return out if DEEP else out[int(ansi) :: 2]


@st.composite
def mapped_cases(draw) -> Case:
    """A case whose target stores some columns (keys included) under other names."""
    case = draw(cases())
    spec = case.pair.spec
    names = spec.names
    renamed = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
    # the filter (in the source's names) on a renamed key column: every scan of the target,
    # the summary's write check included, reads it through the projection
    integral_keys = [k for k in spec.key_names if spec.types[k] in ("int", "bigint")]
    if integral_keys and draw(st.booleans()):
        case.filter_column = draw(st.sampled_from(integral_keys))
        renamed = [*renamed, case.filter_column] if case.filter_column not in renamed else renamed
    case.rename = {n: f"{n}__t" for n in renamed}
    return case


def _write_side(project, case: Case, side: str, rows, table: str) -> None:
    """One side as a parquet table; a target with ``case.rename`` stores those columns renamed."""
    spec = case.pair.spec
    if side == "target" and case.rename:
        df = to_spark_df(project.spark, spec, rows)
        df = df.toDF(*[case.rename.get(c, c) for c in df.columns])
        df.write.mode("overwrite").format("parquet").saveAsTable(table)
    else:
        write_table(project.spark, spec, rows, table)


def _expected(case: Case):
    spec = case.pair.spec
    columns = [c for c in spec.value_names if c not in case.exclude]
    row_filter = None
    if case.filter_column:
        col = case.filter_column

        def row_filter(row, col=col):
            return row[col] is not None and row[col] % 3 != 0

    return brute_force_diff(
        case.pair.source,
        case.pair.target,
        spec.key_names,
        columns,
        case.normalize,
        row_filter,
        types=spec.types,
    )


def property_project(dbt_project_factory, name: str):
    """A project with table_diff installed, its schema, and the `ansi_probe` model (what ANSI mode
    dbt's queries ran with); `_build_pairs` scaffolds pairs into it."""
    project = dbt_project_factory(
        name,
        packages=True,
        project_config={"flags": {"send_anonymous_usage_stats": False, "partial_parse": True}},
    )
    project.write("models/ansi_probe.sql", "select '${spark.sql.ansi.enabled}' as ansi\n")
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    return project


@pytest.fixture(scope="module")
def diff_project(dbt_project_factory):
    return property_project(dbt_project_factory, "diff_property")


def _force_ansi(monkeypatch, enabled: bool) -> None:
    """dbt-spark pins ANSI off in every query's session conf; override it for this test only."""
    from dbt.adapters.spark.connections import SparkCredentials

    original = SparkCredentials.__post_init__

    def post_init(self):
        original(self)
        self.server_side_parameters["spark.sql.ansi.enabled"] = "true" if enabled else "false"

    monkeypatch.setattr(SparkCredentials, "__post_init__", post_init)


def _build_pairs(
    project, pairs: list[PairOptions], tables: list[str], row_fetch: dict | None = None
):
    """Scaffold ``pairs`` into models/pairs (replacing earlier ones), declare ``tables`` as the
    source ``gen`` in the project's schema, and build them with one in-process dbt run.
    ``row_fetch``: dbt vars choosing the row diff's path (narrow key pass first, or not)."""
    pairs_dir = project.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    pairs_dir.mkdir(parents=True)  # also with no pair: the sources alone
    for opts in pairs:
        write_pair(opts, pairs_dir)
    (pairs_dir / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {project.schema}\n    tables:\n"
        + "".join(f"      - name: {t}\n" for t in tables)
    )
    args = ["build", "--select", "pairs", "ansi_probe"]
    if row_fetch:
        args += ["--vars", json.dumps(row_fetch)]
    return project.run(*args).assert_success()


# The row diff's two paths (macros/diff/row_diff.sql, macros/internal/_row_diff.sql): full rows of
# the selected leaves joined directly (with the selected leaves also as key-range predicates where
# few runs of them are, as by default here, or never), or the differing keys found first on a
# narrow (key, hash) projection,
# then their rows fetched by a broadcast semi join (or, over the broadcast limit, joined in full).
# The full-row join filters rows by their leaf (whole-fetch share above 1: never skipped), or, with
# any leaf selected and no key range, fetches every row (share 0; ADR 0030).
ROW_FETCH_PATHS = [
    {"table_diff_dense_leaf_share": 2.0, "table_diff_whole_fetch_leaf_share": 2.0},
    {
        "table_diff_dense_leaf_share": 2.0,
        "table_diff_key_range_limit": 0,
        "table_diff_whole_fetch_leaf_share": 0.0,
    },
    {"table_diff_dense_leaf_share": 0.0},
    {"table_diff_dense_leaf_share": 0.0, "table_diff_broadcast_key_limit": 0},
]


def _run_batch(project, batch: list[Case], row_fetch: dict | None = None) -> None:
    pairs, tables = [], []
    for i, case in enumerate(batch):
        spec = case.pair.spec
        for side, rows in (("source", case.pair.source), ("target", case.pair.target)):
            _write_side(project, case, side, rows, f"`{project.schema}`.`p{i}_{side}`")
            tables.append(f"p{i}_{side}")
        pairs.append(
            PairOptions(
                name=f"p{i}",
                source=f"source('gen', 'p{i}_source')",
                target=f"source('gen', 'p{i}_target')",
                primary_key=tuple(spec.key_names),
                exclude_columns=tuple(case.exclude),
                table_filter=(
                    f"{quote_ident(case.filter_column)} % 3 != 0" if case.filter_column else None
                ),
                strategy=case.strategy,
                block_count=case.block_count,
                split_factor=case.split_factor,
                compare_unit_size=case.compare_unit_size,
                max_depth=case.max_depth,
                normalize=case.normalize,
                check_duplicate_keys=case.check_duplicate_keys or None,
                quick_check=case.quick_check,
                max_diff_rows=case.max_diff_rows,
                column_map={t: s for s, t in case.rename.items()},
            )
        )
    return _build_pairs(project, pairs, tables, row_fetch)


def _check_batch(project, batch: list[Case], ansi: bool) -> None:
    assert project.rows("ansi_probe") == [("true" if ansi else "false",)]
    for i, case in enumerate(batch):
        spec = case.pair.spec
        expected = _expected(case)
        where = f"pair p{i} ({case.strategy}, blocks={case.block_count}, f={case.split_factor}, "
        where += f"unit={case.compare_unit_size}, depth={case.max_depth}, "
        where += f"dups={case.check_duplicate_keys}, quick={case.quick_check}; log={case.pair.log})"
        diff = project.spark.table(project.relation(f"p{i}__row_diff")).collect()
        duplicates, _ = expected.assert_row_diff(
            [row.asDict() for row in diff],
            lambda d, spec=spec: rows_from_spark_key(spec, d),
            exact_duplicates=case.check_duplicate_keys,
            where=where,
        )
        summary = project.spark.table(project.relation(f"p{i}__summary")).first().asDict()
        check_column_stats(project, f"p{i}", case, expected, duplicates, summary, where)
        counts = expected.counts()
        for field_name in (
            "rows_source",
            "rows_target",
            "null_key_rows_source",
            "null_key_rows_target",
        ):
            assert summary[field_name] == counts[field_name], f"{where}: {field_name}"
        clean = (
            expected.is_clean
            if case.check_duplicate_keys
            else expected.is_clean_without_duplicate_check
        )
        assert summary["is_identical"] == clean, where
        assert summary["is_partial"] is False, where
        levels = project.spark.table(project.relation(f"p{i}__block_split")).collect()
        hashes = project.spark.table(project.relation(f"p{i}__block_hashes")).collect()
        whole = [h for h in hashes if h["leaf_id"] is None]
        if whole:
            # the quick check's result, and no leaf rows: identical sides leave nothing to split;
            # different ones make every block a unit (ADR 0020), the row diff compares every row
            assert not case.check_duplicate_keys and case.quick_check is not False, where
            assert len(whole) == len(hashes) == 2, where
            sums = {
                h["side"]: (h["n_rows"], h["h1_hi"], h["h1_lo"], h["h2_hi"], h["h2_lo"])
                for h in whole
            }
            if sums["source"] == sums["target"]:
                assert clean and levels == [], where
            else:
                assert levels and {u["reason"] for u in levels} == {"whole_table"}, where
                assert all(u["selected"] and u["level"] == 0 for u in levels), where
        PAIR_STATS["quick"] += bool(whole)
        PAIR_STATS["pairs"] += 1
        PAIR_STATS["recursed"] += any(u["level"] > 0 for u in levels)
        PAIR_STATS["diff_rows"] += len(diff)


def check_column_stats(project, name, case, expected, reported_dups, summary, where) -> None:
    """NAME__column_stats against the oracle: one row per compared column in table order, the
    modified keys in which each changed, and the matched keys (keys stored once on each side).
    Without check_duplicate_keys, a duplicate key both sides hold identically in a block they
    hold identically is never seen: its source rows count as matched (unchanged), as documented.
    A partial run: no matched keys, no share, and only lower bounds."""
    stats = [
        r.asDict()
        for r in project.spark.table(project.relation(f"{name}__column_stats"))
        .orderBy("column_position")
        .collect()
    ]
    columns = [c for c in case.pair.spec.value_names if c not in case.exclude]
    assert [r["column_name"] for r in stats] == columns, where
    assert [r["column_position"] for r in stats] == list(range(1, len(columns) + 1)), where
    assert {r["run_id"] for r in stats} <= {summary["run_id"]}, where
    changes = expected.column_changes()
    if summary["is_partial"]:
        for r in stats:
            assert r["is_partial"] is True, where
            assert r["matched_keys"] is None and r["changed_share"] is None, where
            assert 0 <= r["rows_changed"] <= changes.get(r["column_name"], 0), where
        return
    unseen = [k for k in expected.symmetric_duplicate_keys if canonical_key(k) not in reported_dups]
    matched = expected.matched_keys + sum(expected.duplicate_rows_by_key[k][0] for k in unseen)
    if case.check_duplicate_keys:
        assert not unseen, where
    for r in stats:
        n = changes.get(r["column_name"], 0)
        assert (r["rows_changed"], r["matched_keys"], r["is_partial"]) == (n, matched, False), where
        if matched:
            assert r["changed_share"] == pytest.approx(n / matched, rel=1e-12), where
        else:
            assert r["changed_share"] is None, where


def rows_from_spark_key(spec, d: dict) -> list:
    """Key values of a row diff row, converted like the strategies convert table rows."""
    return [_from_spark_value(d[k]) for k in spec.key_names]


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [False, True], ids=["ansi_off", "ansi_on"])
def test_pipeline_matches_brute_force(diff_project, monkeypatch, ansi):
    _force_ansi(monkeypatch, ansi)
    runs = iter(range(2 * ansi, 10**6))  # ANSI on starts at the third path

    @settings(
        max_examples=EXAMPLES_PER_MODE,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(batch=st.lists(cases(), min_size=PAIRS_PER_BATCH, max_size=PAIRS_PER_BATCH), salt=SALT)
    @example(batch=corner_cases(ansi), salt=1)
    def check(batch, salt):
        not_simplest(salt)
        # each example takes the next row-fetch path: the corner batch and the random ones
        _run_batch(diff_project, batch, ROW_FETCH_PATHS[next(runs) % len(ROW_FETCH_PATHS)])
        _check_batch(diff_project, batch, ansi)

    check()
    print(f"property test ({'ANSI on' if ansi else 'ANSI off'}): cumulative {PAIR_STATS}")


@pytest.mark.slow
def test_column_map_matches_brute_force(diff_project):
    """Targets storing random columns (keys included) under other names: the pair with
    column_map reports, under the source's names, exactly what the oracle finds on the unrenamed
    tables, and so does no_drift (with check_duplicate_keys, so its failing rows are exactly the
    oracle's differing rows)."""
    runs = iter(range(10**6))

    @settings(
        max_examples=examples(ci=1, deep=2),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        batch=st.lists(mapped_cases(), min_size=PAIRS_PER_BATCH, max_size=PAIRS_PER_BATCH),
        salt=SALT,
    )
    def check(batch, salt):
        not_simplest(salt)
        _run_batch(diff_project, batch, ROW_FETCH_PATHS[next(runs) % len(ROW_FETCH_PATHS)])
        _check_batch(diff_project, batch, ansi=False)
        for i, case in enumerate(batch):
            summary = diff_project.spark.table(diff_project.relation(f"p{i}__summary")).first()
            want = {t: s for s, t in case.rename.items()}
            assert json.loads(summary["column_map"]) == want, f"pair p{i}"
        _check_no_drift(diff_project, batch)

    check()


def _check_no_drift(project, batch: list[Case]) -> None:
    """no_drift on each pair of ``batch`` (as ``_run_batch`` wrote them) with its column_map."""
    tests = {}
    for i, case in enumerate(batch):
        args = {
            "compare_to": f"source('gen', 'p{i}_target')",
            "primary_key": case.pair.spec.key_names,
            "exclude_columns": case.exclude or None,
            "normalize": case.normalize or None,
            "table_filter": (
                f"{quote_ident(case.filter_column)} % 3 != 0" if case.filter_column else None
            ),
            "check_duplicate_keys": True,
            "column_map": {t: s for s, t in case.rename.items()},
        }
        tests[f"drift_p{i}"] = (f"p{i}_source", {k: v for k, v in args.items() if v is not None})
    failures = no_drift_failures(project, tests)
    for i, case in enumerate(batch):
        c = _expected(case).counts()
        total = c["added"] + c["deleted"] + c["modified"]
        total += c["duplicate_key_rows_source"] + c["duplicate_key_rows_target"]
        assert failures[f"drift_p{i}"] == total, f"no_drift p{i} ({case.rename}): {failures}"


def no_drift_failures(project, tests: dict[str, tuple[str, dict]]) -> dict[str, int]:
    """Run `no_drift` tests {name: (table of source `gen`, arguments)} on the tables `_build_pairs`
    declared (a warning, not an error, when rows differ): failing rows per test name."""
    tables = [
        {
            "name": table,
            "data_tests": [
                {"table_diff.no_drift": {**args, "config": {"severity": "warn", "alias": name}}}
            ],
        }
        for name, (table, args) in tests.items()
    ]
    # JSON is YAML: the hostile column names need no YAML quoting rules.
    (project.root / "models" / "pairs" / "_gen__drift.yml").write_text(
        json.dumps(
            {
                "version": 2,
                "sources": [{"name": "gen_drift", "schema": project.schema, "tables": tables}],
            }
        )
    )
    run = project.run("test", "--select", "source:gen_drift")
    assert run.success, run.describe()
    return {r.node.alias: r.failures for r in run.node_results}


def test_recursion_really_splits(diff_project, dbt_project_factory):
    """Deterministic: 300 rows, 1 level-0 block, split factor 2, depth 3: the walk must descend."""
    spark = diff_project.spark
    schema = diff_project.schema
    spark.sql(f"drop table if exists `{schema}`.rec_source")
    spark.sql(f"drop table if exists `{schema}`.rec_target")
    spark.sql(
        f"create table `{schema}`.rec_source using parquet as "
        "select id, concat('v', id) as v, cast(id * 1.5 as double) as d from range(300)"
    )
    spark.sql(
        f"create table `{schema}`.rec_target using parquet as "
        "select id, if(id in (17, 250), 'changed', concat('v', id)) as v, "
        "cast(id * 1.5 as double) as d "
        "from range(300) where id != 123 union all select 1000 as id, 'new', 0.0"
    )
    _build_pairs(
        diff_project,
        [
            PairOptions(
                name="rec",
                source="source('gen', 'rec_source')",
                target="source('gen', 'rec_target')",
                primary_key=("id",),
                block_count=1,
                split_factor=2,
                compare_unit_size=10,
                max_depth=4,
                quick_check=False,  # the walk, not the quick check (ADR 0020: whole_table units)
            )
        ],
        ["rec_source", "rec_target"],
    )
    units = spark.table(diff_project.relation("rec__block_split")).collect()
    assert max(u["level"] for u in units) >= 3, units
    # only the units around the changes are fetched: far fewer rows than the tables hold
    assert sum(u["source_rows"] for u in units) < 150, units
    diff = {
        (r["id"], r["diff_type"], tuple(r["changed_columns"]))
        for r in spark.table(diff_project.relation("rec__row_diff")).collect()
    }
    assert diff == {
        (17, "modified", ("v",)),
        (250, "modified", ("v",)),
        (123, "deleted", ()),
        (1000, "added", ()),
    }
    summary = spark.table(diff_project.relation("rec__summary")).first()
    assert (summary["rows_source"], summary["rows_target"]) == (300, 300)
    assert summary["blocks_mismatched"] == 1 and summary["units_mismatched"] >= 3


def _id_pair(name: str, **options) -> PairOptions:
    """A pair of the tables ``<name>_source`` / ``<name>_target`` of source ``gen``, key ``id``."""
    return PairOptions(
        name=name,
        source=f"source('gen', '{name}_source')",
        target=f"source('gen', '{name}_target')",
        primary_key=("id",),
        **options,
    )


def _compiled(project, model: str) -> str:
    """The SQL of ``model`` as the last dbt invocation compiled it."""
    return next((project.root / "target" / "compiled").rglob(f"{model}.sql")).read_text()


def test_reads_per_path(diff_project):
    """ADR 0033 (which replaces ADR 0020's rule of two reads at most): how many times each path of
    the pair, and of no_drift, reads each table, counted from the executed plans of the whole dbt
    run (the key sample's key-only scan aside), equals what docs/how-it-works.md says.
    Identical: once (a first run's leaf pass; then the quick check, ADR 0009: one whole-table
    row per side, no leaf pass).
    Drift found by the quick check: no leaf pass follows; its one unit is every leaf, so the row
    diff names the differing keys on a narrow (key, row hash) pass and fetches their rows: three.
    'auto' then skips the check while the sides differ: the leaf pass, then the fetch of the
    mismatched leaves, two when few leaves differ, three when at least half do (the narrow pass
    first). no_drift: the same, with and without its quick check."""
    spark, schema = diff_project.spark, diff_project.schema
    body = "select id, concat('v', id) as v, if(id % 7 = 0, null, id * 0.5) as d from range(2000)"
    for table in ("qc_source", "qc_target"):
        spark.sql(f"drop table if exists `{schema}`.{table}")
        spark.sql(f"create table `{schema}`.{table} using parquet as {body}")
    spark.sql(f"drop table if exists {diff_project.relation('qc__block_hashes')}")
    tables = {f"{schema}.qc_source": 2000, f"{schema}.qc_target": 2000}

    def build(quick_check=None):
        opts = _id_pair("qc", block_count=4, quick_check=quick_check)
        reads = full_reads(
            spark,
            tables,
            {"v", "d"},
            lambda: _build_pairs(diff_project, [opts], ["qc_source", "qc_target"]),
        )
        hashes = spark.table(diff_project.relation("qc__block_hashes")).collect()
        ranges = spark.table(diff_project.relation("qc__ranges")).collect()
        planned = json.loads(ranges[0]["spec"])["quick_check_planned"]
        # ADR 0031: a run that key_ranges planned for the quick check cuts no key sample (every
        # bound NULL); any other range layout has a bound from its sample on every leaf but 0.
        bounds = {r["leaf_id"]: r["lower_bound"] for r in ranges}
        assert planned is (set(bounds.values()) == {None}), (planned, bounds)
        assert planned is (any(h["leaf_id"] is None for h in hashes)), planned
        summary = spark.table(diff_project.relation("qc__summary")).first()
        diff = spark.table(diff_project.relation("qc__row_diff")).collect()
        PLANNED.append(planned)
        KEPT.append(json.loads(ranges[0]["spec"])["leaves_kept"])
        BOUNDS.append(bounds)
        return reads, hashes, summary, sorted((r["id"], r["diff_type"]) for r in diff)

    PLANNED: list[bool] = []
    KEPT: list[bool] = []
    BOUNDS: list[dict] = []

    def retarget(change: str) -> None:
        spark.sql(f"drop table `{schema}`.qc_target")
        spark.sql(f"create table `{schema}`.qc_target using parquet as {change}")

    def no_drift(quick_check: bool) -> tuple[dict[str, float], str]:
        """no_drift on qc_target against qc_source, run by `dbt test`: (reads, status)."""
        pairs_dir = diff_project.root / "models" / "pairs"
        (pairs_dir / "_gen__sources.yml").write_text(
            f"version: 2\nsources:\n  - name: gen\n    schema: {schema}\n    tables:\n"
            "      - name: qc_source\n      - name: qc_target\n        data_tests:\n"
            "          - table_diff.no_drift:\n              name: qc_no_drift\n"
            "              arguments:\n                compare_to: source('gen', 'qc_source')\n"
            "                primary_key: [id]\n"
            f"                quick_check: {str(quick_check).lower()}\n"
        )
        holder = {}
        reads = full_reads(
            spark,
            tables,
            {"v", "d"},
            lambda: holder.update(run=diff_project.run("test", "--select", "qc_no_drift")),
        )
        return reads, holder["run"].status("qc_no_drift")

    reads, hashes, summary, diff = build()  # a first run groups leaves ('auto')
    assert all(h["leaf_id"] is not None for h in hashes) and summary["is_identical"]
    seen = {"identical, first run": reads}
    reads, hashes, summary, diff = build()  # the last run was identical: the quick check
    assert sorted((h["side"], h["leaf_id"], h["n_rows"]) for h in hashes) == [
        ("source", None, 2000),
        ("target", None, 2000),
    ]
    assert summary["is_identical"] and summary["leaves_total"] >= 4 and diff == []
    assert (summary["rows_source"], summary["rows_target"]) == (2000, 2000)
    assert spark.table(diff_project.relation("qc__block_split")).count() == 0
    seen["identical"] = reads

    retarget(f"select id, if(id = 1234, 'changed', v) as v, d from ({body})")
    reads, hashes, summary, diff = build()  # the last run was identical: quick check first
    assert [h["leaf_id"] for h in hashes] == [None, None]  # and no leaf pass after it
    units = spark.table(diff_project.relation("qc__block_split")).collect()
    assert {u["reason"] for u in units} == {"whole_table"} and all(u["selected"] for u in units)
    assert summary["blocks_mismatched"] == summary["blocks_total"]
    assert not summary["is_identical"] and summary["rows_modified"] == 1
    assert summary["status"] == "complete" and diff == [(1234, "modified")]
    seen["drift after identical"] = reads

    reads, hashes, summary, diff = build()  # 'auto': the last run found drift, no quick check
    assert all(h["leaf_id"] is not None for h in hashes) and len(hashes) >= 8
    assert summary["blocks_mismatched"] == 1 and diff == [(1234, "modified")]
    seen["sparse drift"] = reads
    reads, _, summary, _ = build(quick_check=True)
    assert summary["rows_modified"] == 1
    seen["drift, quick check forced"] = reads

    retarget(f"select id, if(id % 5 = 0, 'changed', v) as v, d from ({body})")
    reads, hashes, summary, diff = build()
    assert summary["leaves_total"] == len(hashes) // 2 and len(diff) == 400
    assert summary["rows_modified"] == 400 and summary["units_mismatched"] >= 4
    seen["dense drift"] = reads
    for quick_check in (True, False):
        reads, status = no_drift(quick_check)
        assert status == "fail", quick_check
        seen[f"no_drift, quick_check {quick_check}"] = reads
    # 'auto' after dense drift (ADR 0031): every leaf differed and every row was fetched, so the
    # next run takes the quick check, and the one after it groups leaves again
    reads, hashes, summary, diff = build()
    assert [h["leaf_id"] for h in hashes] == [None, None] and len(diff) == 400
    assert summary["rows_modified"] == 400 and summary["status"] == "complete"
    seen["dense drift, run after"] = reads
    reads, hashes, summary, diff = build()
    assert None not in {h["leaf_id"] for h in hashes} and summary["rows_modified"] == 400
    # most leaves differ in one run of leaves: key ranges fetch them (ADR 0010), no quick check
    retarget(f"select id, if(id >= 800, 'changed', v) as v, d from ({body})")
    reads, hashes, summary, diff = build()  # the last run had every leaf different
    assert [h["leaf_id"] for h in hashes] == [None, None] and summary["rows_modified"] == 1200
    seen["clustered drift after dense"] = reads
    for _ in range(2):  # after a quick check; then after clustered drift
        reads, hashes, summary, diff = build()
        assert None not in {h["leaf_id"] for h in hashes}, hashes
        assert summary["rows_modified"] == 1200 and len(diff) == 1200
        assert summary["units_mismatched"] < summary["leaves_total"], summary
    seen["clustered drift"] = reads
    retarget(body)
    reads, status = no_drift(True)
    assert status == "pass"
    seen["no_drift identical"] = reads

    # First run, identical (planned), drift after identical (planned), sparse drift, forced
    # quick check (planned), dense drift; after it (planned), leaves again; clustered drift after
    # dense (planned), leaves again, clustered drift in one run of leaves.
    assert PLANNED == [False, True, True, False, True, False, True, False, True, False, False], (
        PLANNED
    )
    # ADR 0046: only the last run keeps its leaves (the run before it grouped the same table's
    # leaves, balanced, at the same size); every run before followed a quick check, planned one
    # or changed the table. The kept bounds are the last run's, and its diff was checked above.
    assert KEPT == [False] * 10 + [True], KEPT
    assert BOUNDS[-1] == BOUNDS[-2] and None not in list(BOUNDS[-1].values())[1:], BOUNDS[-2:]
    most = {what: max(r.values()) for what, r in seen.items()}
    assert most == {
        "identical, first run": 1,
        "identical": 1,
        "drift after identical": 3,
        "sparse drift": 2,
        "drift, quick check forced": 3,
        "dense drift": 3,
        "no_drift, quick_check True": 3,
        "no_drift, quick_check False": 3,
        "dense drift, run after": 3,
        "clustered drift after dense": 3,
        "clustered drift": 3,
        "no_drift identical": 1,
    }, seen


# Key shapes of the key-range fetch test: the key columns as expressions of `id` (0 .. 8000, the
# table's order on disk), and what the predicate's literal looks like in the compiled SQL.
KEY_SHAPES = {
    "bigint": ({"id": "id"}, "cast((7"),
    "string": ({"k": "concat('ключ-', lpad(cast(id as string), 5, '0'))"}, "cast(X'D0BA"),
    "date": ({"k": "date_add(date'1999-12-01', cast(id as int))"}, "date_from_unix_date("),
    "timestamp": ({"k": "timestamp_micros(id * 1000003 - 4000000000)"}, "timestamp_micros(("),
    "decimal": ({"k": "cast((id - 4000) * 0.001 as decimal(12,3))"}, "BD) as decimal(12,3))"),
    "composite": (
        {"day": "date_add(date'2020-01-01', cast(id div 100 as int))", "seq": "100 - id % 100"},
        "date_from_unix_date(",
    ),
    "partitioned": (
        {"day": "date_add(date'2020-01-01', cast(id div 100 as int))", "seq": "100 - id % 100"},
        "date_from_unix_date(",
    ),
}


# The row-fetch paths the key-range test compares: the fetch by literal key ranges, and by leaf
# alone (every row read).
KEY_RANGE_FETCHES = {
    "key_ranges": {"table_diff_dense_leaf_share": 2.0},
    "leaves_only": {"table_diff_dense_leaf_share": 2.0, "table_diff_key_range_limit": 0},
}


@pytest.fixture(scope="module")
def key_range_builds(diff_project) -> dict[str, dict]:
    """Every KEY_SHAPES pair built together, once per KEY_RANGE_FETCHES path: 2 dbt builds for
    the seven shapes instead of 2 per shape (12 fewer). Per shape: the source's read partitions,
    and per path the compiled row diff, its rows (key, type, changed columns) and the rows its
    query scans of the two sides, taken before the next build; asserted by the test, per shape."""
    spark, schema = diff_project.spark, diff_project.schema
    built: dict[str, dict] = {}
    pairs, tables = [], []
    # Spark writes timestamps as INT96 by default, which parquet keeps no statistics for: nothing
    # could be skipped. TIMESTAMP_MICROS files have them.
    written_as = spark.conf.get("spark.sql.parquet.outputTimestampType")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        for shape, (keys, _) in KEY_SHAPES.items():
            ids = ", ".join(
                ["id"] + [f"{expr} as {name}" for name, expr in keys.items() if name != "id"]
            )
            body = f"select {ids}, concat('v', id) as v, id * 0.5 as d from range(8000)"
            names = ", ".join(["id"] + [name for name in keys if name != "id"])
            queries = {
                f"kr_{shape}_source": body,
                f"kr_{shape}_target": f"select {names}, if(id = 7990, 'changed', v) as v, d "
                f"from ({body}) where id != 7901 union all select {ids}, 'new', 1.0 "
                "from range(8000, 8001)",
            }
            layout = "partitioned by (day)" if shape == "partitioned" else ""
            distribute = "" if layout else "/*+ repartition_by_range(8, id) */"
            for table, query in queries.items():
                spark.sql(f"drop table if exists `{schema}`.{table}")
                spark.sql(
                    f"create table `{schema}`.{table} using parquet {layout} as select "
                    f"{distribute} * from ({query}) as q sort by id"
                )
            tables += list(queries)
            built[shape] = {
                "partitions": spark.sql(
                    f"select * from `{schema}`.kr_{shape}_source"
                ).rdd.getNumPartitions(),
                "scanned": tuple(f"{schema}.{t}" for t in queries),
            }
            pairs.append(
                PairOptions(
                    name=f"kr_{shape}",
                    source=f"source('gen', 'kr_{shape}_source')",
                    target=f"source('gen', 'kr_{shape}_target')",
                    primary_key=tuple(keys),
                    block_count=8,
                    compare_unit_size=100,
                )
            )
    finally:
        spark.conf.set("spark.sql.parquet.outputTimestampType", written_as)
    for path, row_fetch in KEY_RANGE_FETCHES.items():
        _build_pairs(diff_project, pairs, tables, row_fetch)
        for shape, (keys, _) in KEY_SHAPES.items():
            compiled = _compiled(diff_project, f"kr_{shape}__row_diff")
            rows = spark.table(diff_project.relation(f"kr_{shape}__row_diff")).collect()
            diff = sorted(
                (
                    r["id"] if "id" in keys else r["source__id"] or r["target__id"],
                    r["diff_type"],
                    tuple(r["changed_columns"]),
                )
                for r in rows
            )
            scanned = rows_scanned(spark, compiled, built[shape]["scanned"])
            built[shape][path] = (compiled, diff, scanned)
    return built


@pytest.mark.parametrize("shape", list(KEY_SHAPES))
def test_sparse_fetch_skips_row_groups_of_key_ordered_tables(key_range_builds, shape):
    """ADR 0010: on tables stored in key order (or partitioned by the key's first column), drift
    among the newest keys makes the sparse row diff state its few runs of selected leaves as
    literal ranges of the key's first column, which Spark pushes to the parquet reader (or prunes
    partitions with): the final plan reads a fraction of the rows, and the same rows differ as when
    the fetch finds them by leaf alone (var `table_diff_key_range_limit: 0`, every row read)."""
    _, literal = KEY_SHAPES[shape]
    built = key_range_builds[shape]
    assert built["partitions"] >= 2
    compiled, diff, pruned = built["key_ranges"]
    assert diff == [(7901, "deleted", ()), (7990, "modified", ("v",)), (8000, "added", ())]
    assert literal in compiled, compiled  # the key ranges, as literals of the column's type
    compiled, same, scanned = built["leaves_only"]
    assert same == diff and literal not in compiled
    assert scanned == 8000 + 8000  # every row of both sides
    assert 0 < pruned <= 2 * 8000 // 4, pruned  # the last file or two (partitions) of each side


def test_partitioned_tables_without_statistics_get_a_real_layout(diff_project):
    """Spark sizes a partitioned table without statistics at 8 EiB (`spark.sql.defaultSizeInBytes`),
    which would make the key sample empty and the pair one leaf. The estimate lists the table's
    files through an always-true partition filter instead (no count). A view over such a table
    has no partition column: it takes the other side's estimate, and only a pair where neither
    side can be sized counts rows (one side, once), with a log line that says how to avoid it."""
    spark, schema = diff_project.spark, diff_project.schema
    body = "select id, concat('v', id) as v, id % 30 as p from range(6000)"
    changed = f"select id, if(id = 4321, 'changed', v) as v, p from ({body})"
    for table, query in (("ps_source", body), ("ps_copy", changed)):
        spark.sql(f"drop table if exists `{schema}`.{table}")
        spark.sql(f"create table `{schema}`.{table} using parquet partitioned by (p) as {query}")
    views = {"ps_target": "ps_copy", "pv_source": "ps_source", "pv_target": "ps_copy"}
    for view, table in views.items():
        spark.sql(f"create or replace view `{schema}`.{view} as select * from `{schema}`.{table}")
    plan = spark.sql(f"explain cost select * from `{schema}`.ps_source").collect()[0][0]
    assert "sizeInBytes=8.0 EiB" in plan  # what Spark reports without the partition filter
    run = _build_pairs(
        diff_project,
        [_id_pair("ps", compare_unit_size=100), _id_pair("pv", compare_unit_size=100)],
        ["ps_source", "ps_target", "pv_source", "pv_target"],
    )
    counted = [m for m in run.messages if "no size statistics" in m]
    assert len(counted) == 1, counted  # the view-over-view pair only, its first side only
    assert "counting the rows of" in counted[0] and "pv_source to plan" in counted[0]
    assert "ANALYZE TABLE" in counted[0]
    for pair in ("ps", "pv"):
        leaves = spark.table(diff_project.relation(f"{pair}__ranges")).count()
        assert leaves >= 30, (pair, leaves)  # 6000 rows in leaves of about 100 (one leaf before)
        diff = spark.table(diff_project.relation(f"{pair}__row_diff")).collect()
        assert [(r["id"], r["diff_type"], r["changed_columns"]) for r in diff] == [
            (4321, "modified", ["v"])
        ]


@pytest.mark.parametrize("ansi", [True], ids=["ansi_on"])
def test_fingerprint_sums_survive_64_bit_overflow(diff_project, monkeypatch, ansi):
    """4000 rows in ONE leaf: a plain sum of 64-bit row hashes overflows (and throws under ANSI);
    the 32-bit split sums are exact, equal to Python's big-integer sum of the same hashes, and a
    single changed row is still found."""
    from pyspark.sql import functions as F

    _force_ansi(monkeypatch, ansi)
    spark = diff_project.spark
    schema = diff_project.schema
    for name, changed in (("ovf_source", "v"), ("ovf_target", "if(id = 2999, 'x', v)")):
        spark.sql(f"drop table if exists `{schema}`.{name}")
        spark.sql(
            f"create table `{schema}`.{name} using parquet as select id, {changed} as v "
            "from (select id, concat('value-', id) as v from range(4000))"
        )
    _build_pairs(
        diff_project,
        [
            PairOptions(
                name="ovf",
                source="source('gen', 'ovf_source')",
                target="source('gen', 'ovf_target')",
                primary_key=("id",),
                block_count=1,
                max_depth=0,
                compare_unit_size=100000,
            )
        ],
        ["ovf_source", "ovf_target"],
    )
    assert diff_project.rows("ansi_probe") == [("true",)]

    # Spec v1 fingerprint of a row with no NULLs: xxhash64(salt, mask=0, id, v).
    fp = F.xxhash64(F.lit("table_diff:v1:a"), F.lit(0).cast("bigint"), F.col("id"), F.col("v"))
    hashes = [r[0] for r in spark.table(f"`{schema}`.ovf_source").select(fp).collect()]
    exact = sum(hashes)
    running, overflowed = 0, False
    for h in hashes:
        running += h
        overflowed |= not (-(2**63) <= running < 2**63)
    assert overflowed, "test data must push a naive 64-bit running sum out of range"

    leaf = (
        spark.table(diff_project.relation("ovf__block_hashes")).where("side = 'source'").collect()
    )
    assert len(leaf) == 1 and leaf[0]["n_rows"] == 4000
    assert leaf[0]["h1_hi"] * 2**32 + leaf[0]["h1_lo"] == exact
    diff = spark.table(diff_project.relation("ovf__row_diff")).collect()
    assert [(r["id"], r["diff_type"], list(r["changed_columns"])) for r in diff] == [
        (2999, "modified", ["v"])
    ]


# Key sets for the leaf lookup (macros/internal/_expressions.sql `_leaf_plan`), each with the way
# rows must find their leaf: a grid cell joined to the bounds (one integral key whose bounds spread
# evenly enough), or the binary search (skewed keys: too many bounds in one cell; a span too wide
# for exact bigint cell arithmetic; a string key).
LEAF_KEY_SETS = {
    # 3000 consecutive ids, shuffled on disk: at most one bound per cell
    "uniform_bigint": ("bigint", "grid", "select id as k from range(3000)"),
    # dense ids plus a sparse tail: several bounds share a cell
    "dense_tail_int": (
        "int",
        "grid",
        "select cast(id - 1500 as int) as k from range(3000) "
        "union all select cast(id * 97 + 5000 as int) from range(200)",
    ),
    # nearly all keys in a narrow band, a few far out: one cell would hold most bounds
    "skewed_bigint": (
        "bigint",
        "search",
        "select id as k from range(3000) union all select id * 1000000000000 from range(1, 40)",
    ),
    # the whole bigint range: cell arithmetic could overflow, so no grid
    "extreme_bigint": (
        "bigint",
        "search",
        "select id * 3074457345618258 as k from range(-3000, 3000) "
        "union all select -9223372036854775807 union all select 9223372036854775807",
    ),
    # (order, line) as TPC-H's lineitem: the grid on the first column, bounds compared whole
    # inside a cell (several share a first column), NULL second columns and NULL first columns
    "composite_order_line": (
        "bigint,int",
        "grid",
        "select id div 4 as k1, cast(pmod(id, 4) + 1 as int) as k2 from range(6000) "
        "union all select id * 8, cast(null as int) from range(60) "
        "union all select cast(null as bigint), cast(id as int) from range(5)",
    ),
    # many keys with a NULL first column: bounds with a NULL first column, so no grid
    "composite_null_first": (
        "bigint,int",
        "search",
        "select cast(null as bigint) as k1, cast(id as int) as k2 from range(1500) "
        "union all select id, 1 from range(1500)",
    ),
}


def _leaf_key_set(key_set: str) -> tuple[list[str], str, str, str]:
    """A LEAF_KEY_SETS entry's key column names, its key expression over alias ``t``, and its two
    tables."""
    key_types = LEAF_KEY_SETS[key_set][0]
    names = ["k"] if "," not in key_types else [f"k{i + 1}" for i in range(2)]
    fields = ", ".join(f"'{n}', t.{n}" for n in names)
    key = f"t.{names[0]}" if len(names) == 1 else f"named_struct({fields})"
    return names, key, f"leaf_{key_set}_source", f"leaf_{key_set}_target"


@pytest.fixture(scope="module")
def leaf_builds(diff_project) -> dict[str, tuple[str, str]]:
    """The tables of every LEAF_KEY_SETS entry and their pairs leaf_<key set>, built in one dbt
    build (one instead of six); each pair's compiled block hashes file and SQL, read right after
    it."""
    spark, schema = diff_project.spark, diff_project.schema
    pairs, tables = [], []
    for key_set, (key_types, _, keys_sql) in LEAF_KEY_SETS.items():
        names, _, src, tgt = _leaf_key_set(key_set)
        typed = ", ".join(
            f"cast({n} as {t}) as {n}" for n, t in zip(names, key_types.split(","), strict=True)
        )
        nulls = ", ".join(f"cast(null as {t})" for t in key_types.split(","))
        k = ", ".join(names)
        body = (
            f"select {typed}, concat('v', {k}) as v from ({keys_sql}) as keys "
            f"union all select {nulls}, 'null key' "
            f"distribute by pmod(xxhash64({k}, 'disk'), 3) sort by xxhash64({k}, 'order')"
        )
        first = names[0]
        for table, change in ((src, ""), (tgt, f" where {first} is null or pmod({first}, 7) != 3")):
            spark.sql(f"drop table if exists `{schema}`.{table}")
            spark.sql(
                f"create table `{schema}`.{table} using parquet as select * from ({body}){change}"
            )
        tables += [src, tgt]
        pairs.append(
            PairOptions(
                name=f"leaf_{key_set}",
                source=f"source('gen', '{src}')",
                target=f"source('gen', '{tgt}')",
                primary_key=tuple(names),
                compare_unit_size=10,
            )
        )
    _build_pairs(diff_project, pairs, tables)
    run_dir = diff_project.root / "target" / "run"
    compiled = {s: next(run_dir.rglob(f"leaf_{s}__block_hashes.sql")) for s in LEAF_KEY_SETS}
    return {s: (str(path), path.read_text()) for s, path in compiled.items()}


@pytest.mark.parametrize("key_set", list(LEAF_KEY_SETS))
def test_every_row_lands_in_the_leaf_its_key_range_names(diff_project, leaf_builds, key_set):
    """Leaves are PK ranges: block_hashes' per-leaf row counts equal a brute-force assignment of
    every row (NULL keys included) to the leaf whose [lower_bound, upper_bound) holds its key.
    A leaf function that were wrong but the same on both sides would still give a correct diff,
    which is why the oracle test alone cannot catch it."""
    _, way, _ = LEAF_KEY_SETS[key_set]
    spark, schema = diff_project.spark, diff_project.schema
    names, key, src, tgt = _leaf_key_set(key_set)
    first = names[0]
    name = f"leaf_{key_set}"
    compiled, sql = leaf_builds[key_set]
    marker = {"grid": "td_g.__td_first", "search": "aggregate(sequence("}[way]
    assert marker in sql, f"{key_set}: expected the {way} leaf lookup in {compiled}"
    leaves = spark.table(diff_project.relation(f"{name}__ranges")).count()
    assert leaves > 100, f"{key_set}: only {leaves} leaves; the layout did not split"
    ranges = diff_project.relation(f"{name}__ranges")
    for side, table in (("source", src), ("target", tgt)):
        want = {
            (r[0], r[1])
            for r in spark.sql(
                f"select leaf_id, count(*) from (select {key} as key, max(r.leaf_id) as leaf_id "
                f"from `{schema}`.{table} as t join {ranges} as r "
                f"on r.lower_bound is null or r.lower_bound <= {key} "
                "group by 1) as x group by leaf_id"
            ).collect()
        }
        # one NULL key row: the join above gives it leaf 0 (only leaf 0 has a NULL lower bound)
        got = {
            (r[0], r[1])
            for r in spark.sql(
                f"select leaf_id, n_rows from {diff_project.relation(name + '__block_hashes')} "
                f"where side = '{side}'"
            ).collect()
        }
        assert got == want, f"{key_set} {side}: leaf counts differ: {sorted(got ^ want)[:10]}"
    modified_or_deleted = spark.sql(
        f"select count(*) from {diff_project.relation(name + '__row_diff')}"
    ).first()[0]
    expected_deleted = spark.sql(
        f"select count(*) from `{schema}`.{src} where pmod({first}, 7) = 3"
    ).first()[0]
    assert modified_or_deleted == expected_deleted, key_set
