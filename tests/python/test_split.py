"""The split walk on the driver (no Spark): whole-table rows of the quick check, and leaf rows."""

from __future__ import annotations

import pytest

from dbt_table_diff.split import plan_units, select_units


def _row(side, leaf_id, n_rows, h=(1, 2, 3, 4)):
    return {
        "side": side,
        "leaf_id": leaf_id,
        "n_rows": n_rows,
        "n_keys": n_rows,
        "h1_hi": h[0],
        "h1_lo": h[1],
        "h2_hi": h[2],
        "h2_lo": h[3],
    }


def _plan(rows, logs=None, block_count=1):
    return plan_units(
        rows,
        split_factor=2,
        depth=2,
        compare_unit_size=1,
        block_count=block_count,
        log=(logs.append if logs is not None else lambda _: None),
    )


def test_agreeing_whole_table_rows_mean_nothing_to_split():
    logs: list[str] = []
    assert _plan([_row("source", None, 10), _row("target", None, 10)], logs) == []
    assert any("identical by whole-table signature (10 rows each side)" in m for m in logs)


def test_differing_whole_table_rows_make_every_block_a_unit():
    """ADR 0020: the quick check found drift and no leaf was grouped, so every level-0 block (of
    split_factor ** depth leaves) is a unit of unknown rows: the row diff compares every row."""
    logs: list[str] = []
    units = _plan([_row("source", None, 10), _row("target", None, 11)], logs, block_count=3)
    assert [(u.level, u.block_id, u.leaf_lo, u.leaf_hi, u.reason) for u in units] == [
        (0, b, 4 * b, 4 * b + 3, "whole_table") for b in range(3)
    ]
    assert all(u.source_rows is None and u.target_rows is None for u in units)
    assert any("whole-table signatures differ (10 source rows, 11 target rows)" in m for m in logs)
    assert select_units(units, max_diff_rows=2) == [True, True, False]


@pytest.mark.parametrize(
    "rows, message",
    [
        ([_row("source", None, 10)], "for \\['source'\\] only"),
        (
            [_row("source", None, 10), _row("target", None, 10), _row("target", 3, 1)],
            "mixes whole-table",
        ),
    ],
)
def test_inconsistent_whole_table_rows_are_an_error(rows, message):
    with pytest.raises(ValueError, match=message):
        _plan(rows)


def test_leaf_rows_still_walk_to_the_differing_leaf():
    rows = [_row(s, leaf, 5) for s in ("source", "target") for leaf in range(4)]
    rows[-1] = _row("target", 3, 5, (9, 9, 9, 9))
    units = _plan(rows)
    assert [(u.leaf_lo, u.leaf_hi, u.reason) for u in units] == [(3, 3, "mismatch")]
