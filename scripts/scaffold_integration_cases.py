#!/usr/bin/env python3
"""Regenerate the diff pairs of the integration-test case matrix (integration_tests/models/cases).

Each case's pair is written by ``table-diff scaffold pair`` exactly as a user would, then the
case's tests are attached to the generated properties file: ``diff_matches_expected`` on
``<pair>__row_diff`` (against the hand-written ``<case>__expected`` seed) and
``summary_matches_expected`` on ``<pair>__summary`` (against ``expected_summaries``). Run it after
the scaffold's output changes; it overwrites the pair files (``--force``) and nothing else. Input
models, seeds, expectations and singular tests are maintained by hand.

Usage: ``python scripts/scaffold_integration_cases.py [--cli path/to/table-diff]``
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "integration_tests"


@dataclass(frozen=True)
class Case:
    name: str  # case_name in expected_summaries
    folder: str  # models/cases/<folder>
    source: str
    target: str
    key: tuple[str, ...]
    expected: str  # expected seed
    options: tuple[str, ...] = ()
    subset: bool = False  # partial result: only "every reported row is expected"
    pair: str = field(default="")

    @property
    def pair_name(self) -> str:
        return self.pair or f"{self.name}_diff"


# Small tables split so that every key has a leaf of its own: whether a row is skipped or fetched
# then depends on its own fingerprint alone (cases asserting fingerprint semantics).
ONE_KEY_PER_LEAF = ("--block-count", "32", "--compare-unit-size", "1")


def _ref(name: str) -> str:
    return f"ref('{name}')"


CASES = (
    Case(
        "identical",
        "identical",
        "identical__source",
        "identical__target",
        ("id",),
        "identical__expected",
    ),
    Case(
        "empty_source",
        "empty_source",
        "empty_sides__empty",
        "empty_sides__rows",
        ("id",),
        "empty_source__expected",
    ),
    Case(
        "empty_target",
        "empty_target",
        "empty_sides__rows",
        "empty_sides__empty",
        ("id",),
        "empty_target__expected",
    ),
    Case(
        "range_edges",
        "range_edges",
        "range_edges__source",
        "range_edges__target",
        ("id",),
        "range_edges__expected",
        (
            "--strategy",
            "range",
            "--block-count",
            "4",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "2",
        ),
    ),
    Case(
        "nulls_lookalike",
        "nulls_lookalike",
        "nulls_lookalike__source",
        "nulls_lookalike__target",
        ("id",),
        "nulls_lookalike__expected",
        ONE_KEY_PER_LEAF,
    ),
    Case(
        "value_types",
        "value_types",
        "value_types__source",
        "value_types__target",
        ("id",),
        "value_types__expected",
        ONE_KEY_PER_LEAF,
    ),
    Case(
        "duplicates",
        "duplicates",
        "duplicates__source",
        "duplicates__target",
        ("id",),
        "duplicates__expected",
        # Key 5 holds the same two rows on both sides: reported only when every block is checked.
        (
            "--block-count",
            "3",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "1",
            "--check-duplicate-keys",
        ),
    ),
    Case(
        "null_keys",
        "null_keys",
        "null_keys__source",
        "null_keys__target",
        ("id",),
        "null_keys__expected",
    ),
    Case(
        "composite_range",
        "composite",
        "composite__source",
        "composite__target",
        ("k_str", "k_int", "k_date"),
        "composite__expected",
        (
            "--strategy",
            "range",
            "--block-count",
            "3",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "2",
        ),
    ),
    Case(
        "composite_hash",
        "composite",
        "composite__source",
        "composite__target",
        ("k_str", "k_int", "k_date"),
        "composite__expected",
        (
            "--strategy",
            "hash",
            "--block-count",
            "3",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "2",
        ),
    ),
    Case(
        "table_filter",
        "table_filter",
        "table_filter__source",
        "table_filter__target",
        ("id",),
        "table_filter__expected",
        ("--table-filter", "in_scope"),
    ),
    Case(
        "exclude_columns",
        "column_selection",
        "column_selection__source",
        "column_selection__target",
        ("id",),
        "exclude_columns__expected",
        ("--exclude-columns", "c"),
    ),
    Case(
        "columns",
        "column_selection",
        "column_selection__source",
        "column_selection__target",
        ("id",),
        "columns__expected",
        ("--columns", "a"),
    ),
    Case(
        "normalize",
        "normalize",
        "normalize__source",
        "normalize__target",
        ("id",),
        "normalize__expected",
        (
            *ONE_KEY_PER_LEAF,
            "--normalize",
            "amt:round=2",
            "--normalize",
            "price:round=2",
            "--normalize",
            "ts:truncate=second",
            "--normalize",
            "name:trim",
            "--normalize",
            "name:lower",
        ),
    ),
    Case(
        "recursion",
        "recursion",
        "recursion__source",
        "recursion__target",
        ("id",),
        "recursion__expected",
        (
            "--block-count",
            "2",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "5",
            "--max-depth",
            "3",
        ),
    ),
    Case(
        "max_diff_rows",
        "max_diff_rows",
        "recursion__source",
        "max_diff_rows__target",
        ("id",),
        "max_diff_rows__expected",
        (
            "--block-count",
            "4",
            "--split-factor",
            "2",
            "--compare-unit-size",
            "5",
            "--max-depth",
            "3",
            "--max-diff-rows",
            "5",
        ),
        subset=True,
    ),
    Case(
        "widening",
        "widening",
        "widening__source",
        "widening__target",
        ("id",),
        "widening__expected",
        ONE_KEY_PER_LEAF,
    ),
)


def _attach_tests(yml: str, case: Case) -> str:
    pair = case.pair_name
    row_diff_tests = (
        "    data_tests:\n"
        f"      # Case {case.name}: the rows reported equal the hand-written expectation"
        + (" (a subset of it: the result is partial)" if case.subset else "")
        + ".\n"
        "      - diff_matches_expected:\n"
        "          arguments:\n"
        f"            expected: ref('{case.expected}')\n"
        f"            key_columns: [{', '.join(case.key)}]\n"
        + ("            subset: true\n" if case.subset else "")
    )
    summary_tests = (
        "    data_tests:\n"
        f"      # Case {case.name}: counts and flags equal the case's row of expected_summaries.\n"
        "      - summary_matches_expected:\n"
        "          arguments:\n"
        "            expected: ref('expected_summaries')\n"
        f"            case_name: {case.name}\n"
    )
    for model, block in (
        (f"{pair}__row_diff", row_diff_tests),
        (f"{pair}__summary", summary_tests),
    ):
        pattern = re.compile(
            rf"(  - name: {model}\n    description: >\n(?:      .*\n)+)(    columns:\n)"
        )
        yml, n = pattern.subn(lambda m, block=block: m.group(1) + block + m.group(2), yml)
        if n != 1:
            raise SystemExit(f"cannot find the properties of {model} in the scaffolded yml")
    return yml


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=shutil.which("table-diff") or "table-diff")
    args = parser.parse_args()
    for case in CASES:
        folder = Path("models") / "cases" / case.folder
        cmd = [
            args.cli,
            "scaffold",
            "pair",
            case.pair_name,
            "--source",
            _ref(case.source),
            "--target",
            _ref(case.target),
            *[a for k in case.key for a in ("--primary-key", k)],
            *case.options,
            "--dir",
            str(folder),
            "--force",
        ]
        subprocess.run(cmd, cwd=PROJECT, check=True, stdout=subprocess.DEVNULL)
        yml_path = PROJECT / folder / f"_{case.pair_name}__models.yml"
        yml_path.write_text(_attach_tests(yml_path.read_text(), case))
        print(f"{case.name}: {folder}/{case.pair_name}__*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
