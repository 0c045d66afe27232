"""The block layout planned from a size estimate (`_plan_layout`, `_plan_sides`, ADR 0030), for
sizes no test table reaches: the macros of macros/internal/_layout.sql and _spec.sql rendered by
Jinja itself, with the estimate faked, no dbt and no Spark.

dbt's `return()` ends a macro by raising; the harness does the same, so the macros run unchanged.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_LEAVES, MAX_SAMPLE_KEYS, KEYS_PER_LEAF, DEFAULT_UNIT = 16384, 131072, 32, 10000


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def _raise_return(value):
    raise _Return(value)


def _call(macro, *args, **kwargs):
    try:
        macro(*args, **kwargs)
    except _Return as done:
        return done.value
    return None


@pytest.fixture(scope="module")
def macros():
    """`table_diff`: the macros of _layout.sql and _spec.sql, callable as the package calls them;
    `estimates`: what the faked `estimated_rows` answers per relation."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    estimates: dict[str, object] = {}
    namespace = SimpleNamespace(
        estimated_rows=lambda relation, spec, from_item: estimates[relation],
        _side_from=lambda spec, side, relation: relation,
    )
    env.globals.update({"return": _raise_return, "table_diff": namespace})
    for name in ("_layout.sql", "_spec.sql"):
        # A template module exports no name that starts with "_": renamed, then called by it.
        text = (REPO_ROOT / "macros" / "internal" / name).read_text()
        module = env.from_string(text.replace("{% macro _", "{% macro private__")).module
        for attr in dir(module):
            macro = getattr(module, attr)
            if isinstance(macro, jinja2.runtime.Macro):
                called = "_" + attr[len("private__") :] if attr.startswith("private__") else attr
                setattr(namespace, called, lambda *a, _m=macro, **k: _call(_m, *a, **k))
    return SimpleNamespace(table_diff=namespace, estimates=estimates)


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
