"""Tolerances (ADR 0024) against the brute-force oracle.

Each example writes a few table pairs whose target values sit exactly on, just inside and just
outside each column's tolerance, across the fingerprint's cell boundaries (multiples of half the
tolerance), far off, and NULL, NaN or infinite on either side; scaffolds one pair per table pair
with `tolerance` (the real CLI code), builds them with one in-process `dbt build` and runs
`no_drift` with the same tolerances. The row diff, the summary's `is_identical` and the test's
failing rows must equal what `oracle.brute_force_diff(..., tolerance=...)` finds.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest
from depth import DEEP, SALT, examples, not_simplest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import brute_force_diff, canonical_key
from test_diff_property import _build_pairs, no_drift_failures, property_project

from dbt_table_diff.scaffold.options import PairOptions

SCHEMA = {
    "d": "double",  # abs
    "r": "double",  # rel
    "m": "decimal(18,6)",  # abs, exact
    "b": "bigint",  # abs, exact
    "ts": "timestamp",  # abs duration
    "s": "string",  # no tolerance: compared exactly beside the others
}
RULES = {
    "d": [{"abs": 0.5}, {"abs": 0.01}, {"abs": 2.5}],
    "r": [{"rel": 1e-6}, {"rel": 0.001}, {"rel": 0.05}],
    "m": [{"abs": 0.01}, {"abs": 0.25}, {"abs": 1}],
    "b": [{"abs": 1}, {"abs": 10}],
    "ts": [{"abs": "1 second"}, {"abs": "2 seconds"}, {"abs": "500 milliseconds"}],
}
# The CI depth puts the deep depth's pairs in fewer builds: one of six pairs against three of
# three (CONTRIBUTING.md).
PAIRS_PER_BATCH = 3 if DEEP else 6
EXAMPLES = examples(ci=1, deep=3)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
SPECIAL = [None, math.nan, math.inf, -math.inf]


def _double_pair(draw, width: float, rel: bool):
    """(source, target) doubles around the tolerance `width` (abs) or share (rel)."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from([*SPECIAL, 0.0, -0.0, 1.0])), draw(
            st.sampled_from([*SPECIAL, 0.0, -0.0, 1.0])
        )
    if rel:
        base = draw(st.sampled_from([1.0, -3.5, 1234.5678, 1e-300, 7e300]))
        base *= 1 + draw(st.integers(-5, 5)) * 1e-3
        step = abs(base) * width
    else:
        # a multiple of half the tolerance (a cell boundary), nudged to either side of it
        base = draw(st.integers(-2000, 2000)) * width / 2
        base = draw(
            st.sampled_from([base, math.nextafter(base, math.inf), math.nextafter(base, -math.inf)])
        )
        step = width
    sign = draw(st.sampled_from([1, -1]))
    edge = base + sign * step
    target = draw(
        st.sampled_from(
            [
                base,
                edge,  # on
                math.nextafter(edge, base),  # just inside
                math.nextafter(edge, edge + sign * abs(edge or 1.0)),  # just outside
                base + sign * step / 4,  # inside, maybe across a cell boundary
                base + sign * step * 0.75,
                base + sign * step * 3,  # far
                None,
                math.nan,
            ]
        )
    )
    return base, target


def _exact_pair(draw, width, scale: int):
    """(source, target) decimals (scale 6) or integers (scale 0) around the tolerance."""
    unit = Decimal(1).scaleb(-scale)
    w = Decimal(repr(width))
    base = Decimal(draw(st.integers(-(10**11), 10**11))).scaleb(-scale)
    if draw(st.booleans()):  # on a cell boundary (half the tolerance), or next to it
        base = (w / 2 * draw(st.integers(-1000, 1000))).quantize(unit) + draw(
            st.sampled_from([-unit, 0, unit])
        )
    sign = draw(st.sampled_from([1, -1]))
    offset = draw(st.sampled_from([0, w, w - unit, w + unit, (w / 2).quantize(unit), 3 * w]))
    target = None if draw(st.integers(0, 8)) == 0 else base + sign * offset
    if draw(st.integers(0, 8)) == 0:
        base = None
    if scale == 0:
        return (None if base is None else int(base)), (None if target is None else int(target))
    return base, target


def _ts_pair(draw, micros: int):
    base_us = draw(st.integers(946_684_800_000_000, 1_900_000_000_000_000))  # 2000 .. 2030
    if draw(st.booleans()):
        base_us = base_us - base_us % micros + draw(st.sampled_from([-1, 0, 1]))
    offset = draw(st.sampled_from([0, micros, micros - 1, micros + 1, micros // 2, 3 * micros]))
    target_us = base_us + draw(st.sampled_from([1, -1])) * offset
    as_ts = lambda us: EPOCH + dt.timedelta(microseconds=us)  # noqa: E731
    base, target = as_ts(base_us), as_ts(target_us)
    if draw(st.integers(0, 8)) == 0:
        target = None
    return base, target


@st.composite
def tolerance_pairs(draw):
    rules = {c: draw(st.sampled_from(options)) for c, options in RULES.items()}
    micros = {"1 second": 1_000_000, "2 seconds": 2_000_000, "500 milliseconds": 500_000}
    source, target = [], []
    for i in range(draw(st.integers(1, 25))):
        s_row, t_row = {"id": i}, {"id": i}
        # most rows equal, the others changed in one column only: a change the fingerprint
        # missed would leave its leaf equal and go unreported (leaves hold one or two rows)
        changed = draw(st.sampled_from([None, None, *RULES]))
        for col, rule in rules.items():
            if col in ("d", "r"):
                pair = _double_pair(draw, next(iter(rule.values())), col == "r")
            elif col == "m":
                pair = _exact_pair(draw, rule["abs"], 6)
            elif col == "b":
                pair = _exact_pair(draw, rule["abs"], 0)
            else:
                pair = _ts_pair(draw, micros[rule["abs"]])
            s_row[col], t_row[col] = pair if col == changed else (pair[0], pair[0])
        s_row["s"] = t_row["s"] = draw(st.sampled_from(["a", "é", None]))
        if changed is None and draw(st.integers(0, 9)) == 0:
            t_row["s"] = "b"
        kind = draw(st.integers(0, 19))
        if kind != 0:
            source.append(s_row)
        if kind != 1:
            target.append(t_row)
        if kind == 2:  # a duplicate key on the target
            target.append(dict(t_row))
    if draw(st.booleans()):  # a NULL key, the same on both sides
        source.append({"id": None, **{c: None for c in SCHEMA}})
        target.append({"id": None, **{c: None for c in SCHEMA}})
    return rules, source, target


def _write(spark, rows, table):
    schema = "id int, " + ", ".join(f"{c} {t}" for c, t in SCHEMA.items())
    spark.createDataFrame(rows, schema).write.mode("overwrite").format("parquet").saveAsTable(table)


@pytest.fixture(scope="module")
def tol_project(dbt_project_factory):
    return property_project(dbt_project_factory, "tolerance_property")


@pytest.mark.slow
def test_tolerance_matches_brute_force(tol_project):
    project = tol_project
    seen = {"within_only": 0, "modified": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        batch=st.lists(tolerance_pairs(), min_size=PAIRS_PER_BATCH, max_size=PAIRS_PER_BATCH),
        strategy=st.sampled_from(["range", "hash"]),
        quick=st.sampled_from([None, True, False]),
        salt=SALT,
    )
    def check(batch, strategy, quick, salt):
        not_simplest(salt)
        pairs, tables = [], []
        for i, (rules, source, target) in enumerate(batch):
            for side, rows in (("source", source), ("target", target)):
                _write(project.spark, rows, f"`{project.schema}`.`t{i}_{side}`")
                tables.append(f"t{i}_{side}")
            pairs.append(
                PairOptions(
                    name=f"t{i}",
                    source=f"source('gen', 't{i}_source')",
                    target=f"source('gen', 't{i}_target')",
                    primary_key=("id",),
                    strategy=strategy,
                    block_count=2,
                    compare_unit_size=1,
                    check_duplicate_keys=True,
                    quick_check=quick,
                    tolerance=rules,
                )
            )
        _build_pairs(project, pairs, tables)
        tests = {
            f"drift_t{i}": (
                f"t{i}_source",
                {
                    "compare_to": f"source('gen', 't{i}_target')",
                    "primary_key": ["id"],
                    "check_duplicate_keys": True,
                    "tolerance": rules,
                },
            )
            for i, (rules, _source, _target) in enumerate(batch)
        }
        failures = no_drift_failures(project, tests)

        for i, (rules, source, target) in enumerate(batch):
            where = f"pair t{i} {rules} ({strategy}, quick={quick})"
            expected = brute_force_diff(
                source, target, ["id"], list(SCHEMA), types=SCHEMA, tolerance=rules
            )
            got = {"added": set(), "deleted": set(), "modified": {}, "duplicate_keys": set()}
            for row in project.spark.table(project.relation(f"t{i}__row_diff")).collect():
                key = canonical_key((row["id"],))
                if row["diff_type"] == "modified":
                    got["modified"][key] = tuple(row["changed_columns"])
                elif row["diff_type"] == "duplicate_key":
                    got["duplicate_keys"].add(key)
                else:
                    got[row["diff_type"]].add(key)
            want = expected.canonical()
            for kind in ("added", "deleted", "duplicate_keys"):
                assert got[kind] == set(want[kind]), f"{where}: {kind}"
            assert got["modified"] == want["modified"], where
            summary = project.spark.table(project.relation(f"t{i}__summary")).first()
            assert summary["is_identical"] == expected.is_clean, where
            c = expected.counts()
            total = c["added"] + c["deleted"] + c["modified"]
            total += c["duplicate_key_rows_source"] + c["duplicate_key_rows_target"]
            assert failures[f"drift_t{i}"] == total, f"no_drift {where}: {failures}"
            exact = brute_force_diff(source, target, ["id"], list(SCHEMA), types=SCHEMA)
            seen["within_only"] += len(exact.modified) > len(expected.modified)
            seen["modified"] += len(expected.modified)

    check()
    # the examples did exercise values equal only within the tolerance, and real differences
    assert seen["within_only"] > 0 and seen["modified"] > 0, seen
