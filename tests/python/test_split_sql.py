"""The split step in SQL (``table_diff.block_split``, ADR 0025) against the Python step.

The Python model's function, :func:`dbt_table_diff.split.block_split`, is the oracle: on the same
ranges and block_hashes tables, the SQL macro's table must hold the same rows (unit_id, level,
block and leaf range, rows per side, reason, ``selected``, run_id), in the same types, and log the
same lines. The leaf tables are generated: random layouts (block count, split factor, depth),
compare unit sizes and max_diff_rows; leaves missing on one side, changed counts, duplicate keys,
differences that cancel in a parent block's sums, hash sums near 2^62 whose block sums pass 2^63
(a bigint sum would wrap or fail), the quick check's whole-table rows, an empty table; and the bad
inputs both steps refuse (another run's block_hashes, one whole-table row, mixed rows, a bad side).

One dbt run builds every case (ANSI on, forced as in test_diff_property); the compiled SQL of each
case then runs again with ANSI off, so both modes are checked on every case. Each random layout's
compiled SQL (its options are literals in it) also runs on four more leaf tables, ANSI on or off:
many tables for the cost of one query each rather than one dbt model each.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from test_diff_property import _force_ansi
from test_spec import example

from dbt_table_diff.split import StaleRunError, block_split, plan_units, select_units

HASH_COLUMNS = ("h1_hi", "h1_lo", "h2_hi", "h2_lo")
RUN = "run-current"


@dataclass
class Case:
    name: str
    split_factor: int
    depth: int
    block_count: int
    compare_unit_size: int
    max_diff_rows: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    hashes_run: str = RUN
    error: str | None = None  # a fragment of the message both steps fail with

    @property
    def label(self) -> str:
        return f"src_{self.name} vs tgt_{self.name}"

    def spec(self) -> dict[str, Any]:
        data = example()
        leaves = self.split_factor**self.depth
        data.update(
            source=f"src_{self.name}",
            target=f"tgt_{self.name}",
            split_factor=self.split_factor,
            compare_unit_size=self.compare_unit_size,
            max_diff_rows=self.max_diff_rows,
            run_id=RUN,
            ranges=f"ranges_{self.name}",
        )
        data["layout"].update(
            block_count=self.block_count,
            depth=self.depth,
            leaf_count=self.block_count * leaves,
            leaves_per_block=leaves,
        )
        return data


def _sig(rng: random.Random, n: int, big: bool) -> dict[str, int]:
    """A leaf signature of n rows: the sums of n high (signed) and low (unsigned) 32-bit halves;
    ``big``: sums near 2^62, so that a level-0 block of a few such leaves passes 2^63."""
    if big:
        return {
            "n_rows": n,
            "n_keys": n,
            "h1_hi": rng.choice([-1, 1]) * rng.randint(2**61, 2**62),
            "h1_lo": rng.randint(2**61, 2**62),
            "h2_hi": rng.choice([-1, 1]) * rng.randint(2**61, 2**62),
            "h2_lo": rng.randint(2**61, 2**62),
        }
    return {
        "n_rows": n,
        "n_keys": n,
        "h1_hi": sum(rng.randint(-(2**31), 2**31 - 1) for _ in range(min(n, 3))),
        "h1_lo": sum(rng.randint(0, 2**32 - 1) for _ in range(min(n, 3))),
        "h2_hi": sum(rng.randint(-(2**31), 2**31 - 1) for _ in range(min(n, 3))),
        "h2_lo": sum(rng.randint(0, 2**32 - 1) for _ in range(min(n, 3))),
    }


def _random_layout(rng: random.Random, name: str) -> Case:
    f = rng.choice([2, 2, 3, 4, 8])
    depth = rng.randint(0, 4)
    block_count = rng.randint(1, 5)
    while block_count * f**depth > 600:
        depth -= 1
    return Case(
        name=name,
        split_factor=f,
        depth=depth,
        block_count=block_count,
        compare_unit_size=rng.choice([1, 3, 10, 40, 200, 10000]),
        max_diff_rows=rng.choice([1, 2, 5, 20, 100000]),
    )


def _random_rows(rng: random.Random, case: Case) -> list[dict[str, Any]]:
    """Leaf rows for the case's layout: which leaves exist on which side, how many differ and how
    (hash sums, row counts, both), duplicate keys, cancelling differences, huge sums."""
    f, depth = case.split_factor, case.depth
    leaf_count = case.block_count * f**depth
    presence = rng.choice(["dense", "dense", "sparse", "one_side", "few"])
    p_change = rng.choice([0.0, 0.02, 0.1, 0.4])
    p_dup = rng.choice([0.0, 0.0, 0.05, 0.3])
    big = rng.random() < 0.25
    target: dict[int, dict[str, int]] = {}
    source: dict[int, dict[str, int]] = {}
    for leaf in range(leaf_count):
        if presence == "sparse" and rng.random() < 0.5:
            continue
        if presence == "few" and rng.random() < 0.9:
            continue
        sig = _sig(rng, rng.randint(0, 60), big)
        source[leaf], target[leaf] = dict(sig), dict(sig)
        if presence == "one_side" and rng.random() < 0.1:
            del (source if rng.random() < 0.5 else target)[leaf]
            continue
        if rng.random() < p_change:
            kind = rng.choice(["hash", "count", "both"])
            changed = target[leaf] if rng.random() < 0.5 else source[leaf]
            if kind in ("hash", "both"):
                changed[rng.choice(HASH_COLUMNS)] += rng.choice([-1, 1]) * rng.randint(1, 2**33)
            if kind in ("count", "both"):
                delta = rng.randint(-changed["n_rows"], 5) or 1
                changed["n_rows"] += delta
                changed["n_keys"] = changed["n_rows"]
        for sig_of_side in (source, target):
            if leaf in sig_of_side and sig_of_side[leaf]["n_rows"] > 1 and rng.random() < p_dup:
                sig_of_side[leaf]["n_keys"] -= rng.randint(1, sig_of_side[leaf]["n_rows"] - 1)
    # Differences that cancel in the sums of the block above two leaves: the walk never sees them.
    if depth >= 1 and rng.random() < 0.3:
        for lo in range(0, leaf_count, f):
            if lo in target and lo + 1 in target and rng.random() < 0.5:
                d = rng.randint(1, 2**20)
                target[lo]["h2_lo"] += d
                target[lo + 1]["h2_lo"] -= d
    rows = [
        {"side": side, "leaf_id": leaf, **sig}
        for side, sigs in (("source", source), ("target", target))
        for leaf, sig in sigs.items()
    ]
    rng.shuffle(rows)
    return rows


def _whole(name: str, block_count: int, max_diff_rows: int, differ: bool) -> Case:
    case = Case(name, 4, 2, block_count, 10, max_diff_rows)
    sig = {"n_rows": 1000, "n_keys": 1000, "h1_hi": -5, "h1_lo": 2**40, "h2_hi": 7, "h2_lo": 2**41}
    case.rows = [
        {"side": "source", "leaf_id": None, **sig},
        {"side": "target", "leaf_id": None, **sig, "h2_lo": sig["h2_lo"] + int(differ)},
    ]
    return case


def _special_cases() -> list[Case]:
    one = {"n_rows": 10, "n_keys": 10, "h1_hi": 3, "h1_lo": 4, "h2_hi": 5, "h2_lo": 6}
    # Four leaves whose low sums are 2^62 each on the source, 0 on the target: each leaf differs,
    # and so does the level-0 block (2^64 against 0), which a bigint sum wraps to equal (ANSI
    # off) or fails on (ANSI on).
    wrap = Case("wrap", 2, 2, 1, 1, 100000)
    wrap.rows = [
        {"side": side, "leaf_id": leaf, **one, "h1_lo": 2**62 if side == "source" else 0}
        for side in ("source", "target")
        for leaf in range(4)
    ]
    identical = Case("identical", 3, 2, 2, 5, 100)
    identical.rows = [
        {"side": s, "leaf_id": leaf, **one} for s in ("source", "target") for leaf in range(18)
    ]
    stale = Case("stale", 2, 1, 1, 1, 10, rows=list(wrap.rows), hashes_run="run-before")
    stale.error = "It holds run 'run-before'"
    half = Case("half_whole", 2, 1, 1, 1, 10, rows=_whole("x", 1, 1, True).rows[:1])
    half.error = "whole-table signature"
    mixed = Case("mixed", 2, 1, 1, 1, 10, rows=[*_whole("x", 1, 1, True).rows, wrap.rows[0]])
    mixed.error = "mix"
    bad_side = Case("bad_side", 2, 1, 1, 1, 10, rows=[{**wrap.rows[0], "side": "both"}])
    bad_side.error = "side"
    return [
        wrap,
        identical,
        Case("empty", 2, 3, 2, 1, 5),
        _whole("whole_same", 3, 2, False),
        _whole("whole_partial", 5, 2, True),
        _whole("whole_all", 3, 100000, True),
        stale,
        half,
        mixed,
        bad_side,
    ]


RNG = random.Random(7)
RANDOM = [_random_layout(RNG, f"r{i}") for i in range(6)]
for _case in RANDOM:
    _case.rows = _random_rows(RNG, _case)
CASES = _special_cases() + RANDOM
# More leaf tables for each random layout, run through that case's compiled SQL (the layout's
# parameters are literals in it): many tables per dbt model, at the cost of one query each.
VARIANTS = [(c, v, _random_rows(RNG, c)) for c in RANDOM for v in range(4)]


@pytest.fixture(scope="module")
def split_project(dbt_project_factory, spark):
    """Every case's ranges and block_hashes (views over two tables), one SQL split model per case,
    built in one dbt run with ANSI on."""
    project = dbt_project_factory("split_sql", packages=True)
    schema = project.schema
    spark.sql(f"create schema if not exists `{schema}`")
    hashes = [
        (c.name, r["side"], r["leaf_id"], r["n_rows"], r["n_keys"], *[r[h] for h in HASH_COLUMNS])
        + (c.hashes_run,)
        for c in CASES
        for r in c.rows
    ] + [
        (f"{c.name}_v{v}", r["side"], r["leaf_id"], r["n_rows"], r["n_keys"])
        + tuple(r[h] for h in HASH_COLUMNS)
        + (RUN,)
        for c, v, rows in VARIANTS
        for r in rows
    ]
    columns = (
        "case_name string, side string, leaf_id int, n_rows bigint, n_keys bigint, h1_hi bigint, "
        "h1_lo bigint, h2_hi bigint, h2_lo bigint, run_id string"
    )
    spark.createDataFrame(hashes, columns).write.saveAsTable(f"`{schema}`.`all_hashes`")
    ranges = [(c.name, i, json.dumps(c.spec())) for c in CASES for i in range(2)]
    spark.createDataFrame(ranges, "case_name string, leaf_id int, spec string").write.saveAsTable(
        f"`{schema}`.`all_ranges`"
    )
    names = [c.name for c in CASES] + [f"{c.name}_v{v}" for c, v, _ in VARIANTS]
    for name in names:
        for kind, cols in (
            ("hashes", "side, leaf_id, n_rows, n_keys, h1_hi, h1_lo, h2_hi, h2_lo, run_id"),
            ("ranges", "leaf_id, spec"),
        ):
            if kind == "hashes" or name in {c.name for c in CASES}:
                spark.sql(
                    f"create view `{schema}`.`{kind}_{name}` as select {cols} "
                    f"from `{schema}`.`all_{kind}` where case_name = '{name}'"
                )
    for c in CASES:
        project.write(
            f"models/split_{c.name}.sql",
            "{{ config(materialized='table') }}\n"
            f"{{{{ table_diff.block_split(source('cases', 'ranges_{c.name}'), "
            f"source('cases', 'hashes_{c.name}')) }}}}\n",
        )
    tables = "".join(f"      - name: {k}_{c.name}\n" for c in CASES for k in ("ranges", "hashes"))
    project.write(
        "models/_sources.yml",
        f"version: 2\nsources:\n  - name: cases\n    schema: {schema}\n    tables:\n{tables}",
    )
    with pytest.MonkeyPatch.context() as mp:
        _force_ansi(mp, True)
        run = project.run("run")
    return project, run


def _oracle(
    spark, schema: str, case: Case, hashes: str | None = None
) -> tuple[list[tuple], list[tuple], list[str]]:
    logs: list[str] = []
    df = block_split(
        spark,
        spark.table(f"`{schema}`.`ranges_{case.name}`"),
        spark.table(f"`{schema}`.`{hashes or 'hashes_' + case.name}`"),
        log=logs.append,
    )
    return sorted(tuple(r) for r in df.collect()), df.dtypes, logs


def _labelled(messages: list[str], case: Case) -> list[str]:
    return [m for m in messages if f"split {case.label}:" in m]


@pytest.mark.parametrize("case", [c for c in CASES if c.error is None], ids=lambda c: c.name)
def test_sql_split_equals_the_python_split(split_project, spark, case):
    project, run = split_project
    assert run.status(f"split_{case.name}") == "success", run.describe()
    want, want_types, want_logs = _oracle(spark, project.schema, case)
    table = spark.table(project.relation(f"split_{case.name}"))
    assert table.dtypes == want_types
    assert sorted(tuple(r) for r in table.collect()) == want
    assert _labelled(run.messages, case) == [m for m in want_logs if case.label in m]
    # The early stop's line names no pair, in either step.
    assert all(m in run.messages for m in want_logs if case.label not in m)
    # The same SQL with ANSI off (dbt ran it with ANSI on).
    assert _run_compiled(spark, project, case, case.name, ansi=False) == want


def _run_compiled(spark, project, case: Case, hashes_name: str, *, ansi: bool) -> list[tuple]:
    """The case's compiled SQL on the leaf table ``hashes_<hashes_name>``, with ANSI on or off."""
    compiled = next(project.root.glob(f"target/compiled/*/models/split_{case.name}.sql"))
    sql = re.sub(rf"\bhashes_{case.name}\b", f"hashes_{hashes_name}", compiled.read_text())
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        return sorted(tuple(r) for r in spark.sql(sql).collect())
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


@pytest.mark.parametrize("variant", range(4))
def test_sql_split_equals_the_python_split_on_more_leaf_tables(split_project, spark, variant):
    """Each random layout's compiled SQL on four more leaf tables (ANSI on, then off)."""
    project, run = split_project
    for case, v, _ in VARIANTS:
        if v != variant:
            continue
        name = f"{case.name}_v{v}"
        want, _, _ = _oracle(spark, project.schema, case, hashes=f"hashes_{name}")
        assert _run_compiled(spark, project, case, name, ansi=variant % 2 == 0) == want, name


@pytest.mark.parametrize("case", [c for c in CASES if c.error], ids=lambda c: c.name)
def test_sql_split_refuses_what_the_python_split_refuses(split_project, spark, case):
    project, run = split_project
    with pytest.raises(ValueError, match=re.escape(case.error)) as python_error:
        _oracle(spark, project.schema, case)
    assert run.status(f"split_{case.name}") == "error"
    message = run.message(f"split_{case.name}")
    assert case.error in message
    assert (
        f"table_diff.block_split: invalid block_hashes '{project.schema}.hashes_{case.name}'"
        in (message)
    )
    assert "dbt build --select <pair>__" in message
    if case.hashes_run != RUN:
        assert isinstance(python_error.value, StaleRunError)
        assert f"current run '{RUN}'" in message and "__ranges+" in message


def test_the_cases_cover_the_walk():
    """The generated leaf tables reach what the comparison is meant to check (else it would pass
    vacuously): units at every level, every reason, partial selections, many tables with units.
    Counted on the Python walk, which the tests above hold the SQL to."""
    levels, reasons, partial, with_units = set(), set(), 0, 0
    tables = [(c, c.rows) for c in CASES if c.error is None] + [(c, r) for c, _, r in VARIANTS]
    for case, rows in tables:
        units = plan_units(
            rows,
            split_factor=case.split_factor,
            depth=case.depth,
            compare_unit_size=case.compare_unit_size,
            block_count=case.block_count,
            log=lambda _: None,
        )
        levels |= {u.level for u in units}
        reasons |= {u.reason for u in units}
        partial += not all(select_units(units, case.max_diff_rows))
        with_units += bool(units)
        if case.name == "wrap":
            assert [(u.level, u.reason) for u in units] == [(2, "mismatch")] * 4
    assert levels == {0, 1, 2, 3, 4}
    assert reasons == {"mismatch", "duplicate_keys", "mismatch+duplicate_keys", "whole_table"}
    assert partial >= 10 and with_units >= 20
