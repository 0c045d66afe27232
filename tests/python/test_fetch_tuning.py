"""When the row fetch takes the narrow (key, row hash) pass first (`_takes_narrow_pass`, ADR 0033
and ADR 0048), for tables no test table reaches: the macros of macros/internal/_fetch_tuning.sql
rendered by Jinja itself, the vars faked, no dbt and no Spark (as test_layout_plan.py does).
The paths themselves are held to the oracle by test_diff_property.py with the vars forcing each."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jinja_macros import load_macros, macro_env

LEAVES = 16384


@pytest.fixture()
def narrow():
    """`narrow(selected_leaves, selected_rows, **vars)`: the decision for LEAVES leaves."""
    dbt_vars: dict[str, object] = {}
    namespace = SimpleNamespace(
        _number_var=lambda macro, name, default, minimum, whole=False: dbt_vars.get(name, default)
    )
    load_macros(macro_env(namespace), namespace, "macros/internal/_fetch_tuning.sql")

    def decide(selected_leaves, selected_rows, spec=None, **vars_):
        dbt_vars.clear()
        dbt_vars.update(vars_)
        return namespace._takes_narrow_pass(spec or {}, selected_leaves, LEAVES, selected_rows)

    return decide


def test_from_half_the_leaves_whatever_the_rows(narrow):
    assert narrow(LEAVES // 2, 1000) is True
    assert narrow(LEAVES, None) is True
    assert narrow(LEAVES // 2 - 1, 9_999_999) is False


def test_from_a_quarter_of_the_leaves_when_they_hold_many_rows(narrow):
    """TPC-H SF10 at 0.01%: 31% of the leaves, 19.4M rows a side (ADR 0048)."""
    assert narrow(5096, 19_400_000) is True
    assert narrow(LEAVES // 4, 10_000_000) is True
    # SF1 at 0.1%: the same share, 1.9M rows: the full rows are joined.
    assert narrow(5096, 1_900_000) is False
    # Many rows in few leaves: under a quarter, never.
    assert narrow(LEAVES // 4 - 1, 500_000_000) is False
    # Rows unknown (a caller that does not count them): the share alone.
    assert narrow(5096, None) is False


def test_the_vars_move_both_thresholds(narrow):
    assert narrow(5096, 1_900_000, table_diff_dense_rows=1_000_000) is True
    assert narrow(5096, 19_400_000, table_diff_dense_rows=20_000_000) is False
    assert narrow(100, 0, table_diff_dense_leaf_share=0.0) is True
    assert narrow(3000, 19_400_000, table_diff_dense_leaf_share=0.3) is True
    assert narrow(2000, 19_400_000, table_diff_dense_leaf_share=0.3) is False


def test_never_above_one_nor_with_a_database_side(narrow):
    """A share above 1 means never (the full rows joined), even with every leaf and many rows."""
    assert narrow(LEAVES, 10**9, table_diff_dense_leaf_share=2.0) is False
    assert narrow(LEAVES, 10**9, spec={"databases": {"target": {}}}) is False
