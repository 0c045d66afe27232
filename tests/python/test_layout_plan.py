"""The block layout planned from a size estimate (`_plan_layout`, `_plan_sides`, ADR 0030), for
sizes no test table reaches: the macros of macros/internal/_layout.sql and _spec.sql rendered by
Jinja itself, with the estimate faked, no dbt and no Spark.

The harness is tests/python/jinja_macros.py.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest
from jinja_macros import load_macros, macro_env

MAX_LEAVES, MAX_SAMPLE_KEYS, KEYS_PER_LEAF, DEFAULT_UNIT = 16384, 131072, 32, 10000


@pytest.fixture(scope="module")
def macros():
    """`table_diff`: the macros of _layout.sql and _spec.sql, callable as the package calls them;
    `estimates`: what the faked `estimated_rows` answers per relation."""
    estimates: dict[str, object] = {}
    # the kept leaves (ADR 0046): dbt's vars, flags and the last run's facts, set per test
    dbt_vars: dict[str, object] = {}
    last: dict[str, object] = {}
    flags = SimpleNamespace(FULL_REFRESH=False)
    namespace = SimpleNamespace(
        estimated_rows=lambda relation, spec, from_item: estimates[relation],
        _side_from=lambda spec, side, relation: relation,
        _key_type=lambda spec: "bigint",
        _number_var=lambda macro, name, default, minimum: dbt_vars.get(name, default),
        _pair_block_hashes=lambda: "pair__block_hashes",
        _last_leaves=lambda previous, memo=None: last.get("facts"),
    )
    env = macro_env(
        namespace,
        flags=flags,
        fromjson=json.loads,
        tojson=json.dumps,
        log=lambda *a, **k: None,
    )
    load_macros(env, namespace, "macros/internal/_layout.sql", "macros/internal/_spec.sql")
    return SimpleNamespace(
        table_diff=namespace, estimates=estimates, vars=dbt_vars, last=last, flags=flags
    )


def _spec(**options):
    spec = {
        "split_factor": 8,
        "compare_unit_size": None,
        "max_depth": 4,
        "block_count": None,
        "block_size": None,
    }
    spec.update(options)
    return spec


SIZES = [
    1,
    999,
    250_000,
    999_999,
    1_000_000,
    4_194_303,
    4_194_304,
    6_001_215,
    59_986_052,
    600_037_902,
    10**11,
]


@pytest.mark.parametrize("rows", SIZES)
def test_the_unit_and_the_leaves_follow_the_size(macros, rows):
    layout = macros.table_diff._plan_layout(_spec(), rows)
    unit = DEFAULT_UNIT if rows < 1_000_000 else max(math.ceil(rows / MAX_LEAVES), 250)
    assert layout["compare_unit_size"] == unit, layout
    wanted = max(math.ceil(rows / unit), 1)
    leaves = layout["leaf_count"]
    assert (
        leaves
        == layout["block_count"] * 8 ** layout["depth"]
        == layout["block_count"] * layout["leaves_per_block"]
    )
    # enough leaves for the unit, up to the cap, and never a level more than needed
    assert min(wanted, MAX_LEAVES) <= leaves <= MAX_LEAVES, (wanted, layout)
    assert leaves < 8 * wanted or layout["depth"] == 0, layout
    if rows >= MAX_LEAVES * 250:  # the floor of 250 rows no longer binds: the cap is reached
        assert (leaves, layout["block_count"], layout["depth"]) == (MAX_LEAVES, 32, 3), layout
    sampled = min(leaves * KEYS_PER_LEAF, MAX_SAMPLE_KEYS)
    fraction = min(sampled / rows, 1.0)
    assert layout["sample_fraction"] == (fraction if fraction < 0.5 else 1.0)


def test_tpch_sf1_plans_16384_leaves_of_367_rows(macros):
    layout = macros.table_diff._plan_layout(_spec(), 6_001_215)
    assert layout == {
        "estimated_rows": 6_001_215,
        "block_count": 32,
        "depth": 3,
        "leaf_count": 16384,
        "compare_unit_size": 367,
        "leaves_per_block": 512,
        "sample_fraction": MAX_SAMPLE_KEYS / 6_001_215,
    }


@pytest.mark.parametrize(
    "options, want",
    [
        # a unit the pair sets is kept: 6M rows of 10000 give 601 wanted leaves -> 64 x 8^2
        ({"compare_unit_size": 10000}, (64, 2, 4096, 10000)),
        # block_count fixes the level-0 blocks: no fewer blocks one level deeper, so the cap
        # stops the split short of the unit (64 x 8^3 and 7 x 8^4 would pass 16384 leaves)
        ({"block_count": 64}, (64, 2, 4096, 367)),
        ({"block_count": 7}, (7, 3, 7 * 8**3, 367)),
        # block_size sizes the level-0 blocks instead
        ({"block_size": 1_000_000}, (7, 3, 7 * 8**3, 367)),
        # max_depth stops the split
        ({"max_depth": 1}, (64, 1, 512, 367)),
        ({"split_factor": 2}, (64, 8, 16384, 367)),
    ],
)
def test_options_bound_the_large_layout(macros, options, want):
    layout = macros.table_diff._plan_layout(
        _spec(**{"max_depth": 8 if "split_factor" in options else 4, **options}), 6_001_215
    )
    got = (
        layout["block_count"],
        layout["depth"],
        layout["leaf_count"],
        layout["compare_unit_size"],
    )
    assert got == want, layout
    assert layout["leaf_count"] <= MAX_LEAVES


def test_the_larger_side_sized_or_not_plans_the_layout(macros):
    """`_plan_sides` plans from the larger estimate; a side Spark cannot size takes the largest
    estimate of the others; the sample is cut from the larger side (the first of equals)."""
    macros.estimates.update({"s": 1_000, "t": 6_001_215, "u": "unknown", "e": 6_001_215})
    plan = macros.table_diff._plan_sides(_spec(), [["source", "s"], ["target", "t"]])
    assert (plan["larger_side"], plan["layout"]["leaf_count"]) == ("target", MAX_LEAVES)
    plan = macros.table_diff._plan_sides(_spec(), [["source", "u"], ["target", "e"]])
    assert plan["estimates"] == [6_001_215, 6_001_215]
    assert (plan["larger_side"], plan["layout"]["leaf_count"]) == ("source", MAX_LEAVES)
    small = macros.table_diff._plan_sides(_spec(), [["source", "s"], ["target", "s"]])
    assert small["layout"]["leaf_count"] == 1 and small["layout"]["compare_unit_size"] == 10000


def test_the_unit_a_run_splits_with(macros):
    """`_layout_compare_unit`: the pair's unit, else its layout's, else the old default (a tracked
    layout stored before units followed the size)."""
    unit = macros.table_diff._layout_compare_unit
    assert unit({"compare_unit_size": 500}, {"compare_unit_size": 367}) == 500
    assert unit({"compare_unit_size": None}, {"compare_unit_size": 367}) == 367
    assert unit({"compare_unit_size": None}, {}) == DEFAULT_UNIT


def _pair_spec():
    key = [{"name": "id", "type": "bigint"}]
    return _spec(key=key, source="s", target="t", table_filter=None)


def _kept_of(macros):
    """`leaves_of` of the TPC-H SF1 layout, as the last run's spec stored it (JSON)."""
    spec = _pair_spec()
    layout = macros.table_diff._plan_layout(spec, 6_001_215)
    return json.loads(json.dumps(macros.table_diff._sampled_leaves_of(spec, layout)))


def _kept(macros, *, was=6_001_215, now=6_001_215, max_leaf=900, facts=None, of=None, **vars_):
    """`_kept_leaves` for the TPC-H SF1 layout, the last run's ranges cut for the same pair (or
    for `of`), estimated at `was` rows, its leaves holding at most `max_leaf` rows."""
    spec = _pair_spec()
    layout = macros.table_diff._plan_layout(spec, now)
    leaves_of = macros.table_diff._sampled_leaves_of(spec, layout)
    before = {"leaves_of": of or leaves_of, "layout": {"estimated_rows": was}}
    macros.last["facts"] = {
        "whole": 0,
        "same_run": True,
        "leaves": layout["leaf_count"],
        "max_leaf_rows": max_leaf,
        "source_rows": 6_001_215,
        "target_rows": 6_001_000,
        "spec": json.dumps(before),
        **(facts or {}),
    }
    macros.vars.clear()
    macros.vars.update(vars_)
    return macros.table_diff._kept_leaves(spec, layout, leaves_of, {})


def test_the_last_runs_leaves_are_kept_while_the_table_keeps_its_size(macros):
    """ADR 0046: the bounds of the last run are kept when they were cut for the same key, sides,
    filter and leaf tree, the block pass ran on them, the larger side's estimate moved by less
    than 5% and no leaf held more than 4 times the mean (about 366 rows here) plus 16."""
    assert _kept(macros) is True
    assert _kept(macros, now=6_001_215 * 104 // 100) is True  # grew 4%
    assert _kept(macros, now=6_001_215 * 106 // 100) is False  # grew 6%: a new sample
    assert _kept(macros, now=6_001_215 * 94 // 100) is False  # shrank 6%
    edge = 4 * 6_001_215 // MAX_LEAVES + 16  # 4x the larger side's mean rows a leaf, plus 16
    assert _kept(macros, max_leaf=edge) is True
    assert _kept(macros, max_leaf=edge + 1) is False  # a leaf grew beyond 4x: unbalanced
    assert _kept(macros, facts={"whole": 2}) is False  # the last run took the quick check
    assert _kept(macros, facts={"same_run": False}) is False  # its block pass did not finish
    assert _kept(macros, facts={"leaves": 4096}) is False  # another leaf tree
    assert _kept(macros, facts={"spec": None}) is False
    assert _kept(macros, table_diff_keep_leaves_growth=0) is False  # the var turns it off
    assert _kept(macros, now=6_001_215 * 106 // 100, table_diff_keep_leaves_growth=0.1) is True
    other = {"key": [{"name": "id", "type": "string"}], "key_type": "string"}
    assert _kept(macros, of={**_kept_of(macros), **other}) is False  # another key type
    assert _kept(macros, of={**_kept_of(macros), "table_filter": "x > 1"}) is False
    assert _kept(macros, of={**_kept_of(macros), "target": "t2"}) is False
    macros.flags.FULL_REFRESH = True
    try:
        assert _kept(macros) is False  # --full-refresh cuts a new sample
    finally:
        macros.flags.FULL_REFRESH = False
    macros.last["facts"] = None
    assert macros.table_diff._kept_leaves({}, {"leaf_count": 1}, {}, {}) is False  # first run
