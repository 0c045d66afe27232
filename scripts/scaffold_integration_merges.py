#!/usr/bin/env python3
"""Regenerate the three-way merges of the integration-test merge cases (models/merge_cases).

Each case's merge is written by ``table-diff scaffold merge`` exactly as a user would, then the
case's tests are attached to the generated properties file: ``rows_match_expected`` on
``NAME__merge_schema`` (against ``expected_merge_schemas``), ``NAME__merge``, ``NAME__merged``,
``NAME__conflicts`` and ``NAME__merge_violations`` (against the hand-written
``<case>__expected_*`` seeds), and ``merge_summary_matches_expected`` on ``NAME__merge_summary``
(against ``expected_merge_summaries``). The scaffold's own ``no_merge_conflicts`` test (severity
warn) stays; conflict-free cases also get one at severity error. Run it after the scaffold's output
changes; it overwrites the merge files (``--force``) and nothing else. Seeds, expectations and
singular tests are maintained by hand.

Usage: ``python scripts/scaffold_integration_merges.py [--cli path/to/table-diff]``
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "integration_tests"


@dataclass(frozen=True)
class MergeCase:
    name: str  # case_name in expected_merge_summaries / expected_merge_schemas
    folder: str  # models/merge_cases/<folder>
    inputs: str  # seeds <inputs>__base, __ours, __theirs
    key: tuple[str, ...]
    options: tuple[str, ...] = ()
    expected: str = ""  # prefix of the <expected>__expected_* seeds (default: inputs)
    conflicts: bool = True  # NAME__conflicts is materialised and compared
    violations: bool = False  # a <expected>__expected_violations seed lists the violations
    conflict_free: bool = False  # also attach no_merge_conflicts at severity error

    @property
    def merge_name(self) -> str:
        return f"{self.name}_merge"

    @property
    def expected_prefix(self) -> str:
        return self.expected or self.inputs


CASES = (
    # Every row of DESIGN.md's semantics table plus the NULL cases, one key each; one hash leaf, so
    # every key is fetched and the unchanged ones are classified and left out of NAME__merge.
    MergeCase(
        "semantics",
        "semantics",
        "semantics",
        ("id",),
        ("--leaf-count", "1", "--constraint", "qty >= 0"),
        violations=True,
    ),
    # The same inputs on 64 leaves: unchanged leaves are skipped, their rows copied from ours.
    MergeCase(
        "semantics_sparse",
        "semantics",
        "semantics",
        ("id",),
        ("--leaf-count", "64", "--constraint", "qty >= 0"),
        violations=True,
    ),
    # String + int key with NULL components and a duplicated key; no data conflict.
    MergeCase(
        "composite_key",
        "composite_key",
        "composite_key",
        ("k_str", "k_int"),
        ("--no-materialize-conflicts",),
        conflicts=False,
        violations=True,
        conflict_free=True,
    ),
    # Columns added on one side (each), one dropped on one side: merged with NULLs.
    MergeCase(
        "schema_added",
        "schema_added",
        "schema_added",
        ("id",),
        conflict_free=True,
    ),
    # A column added on both sides with one type, a type widened on both / one side.
    MergeCase("schema_converge", "schema_converge", "schema_converge", ("id",)),
    # Schema conflicts, reported instead of failing the build: nothing is merged.
    MergeCase(
        "schema_conflict",
        "schema_conflict",
        "schema_conflict",
        ("id",),
        ("--on-schema-conflict", "report"),
    ),
)


def _ref(name: str) -> str:
    return f"ref('{name}')"


def _match(comment: str, expected: str, extra: tuple[str, ...] = ()) -> str:
    """One rows_match_expected item of a data_tests list (6-space indent)."""
    return (
        f"      # {comment}\n"
        "      - rows_match_expected:\n"
        "          arguments:\n"
        f"            expected: ref('{expected}')\n" + "".join(f"            {e}\n" for e in extra)
    )


def _tests_by_model(case: MergeCase) -> dict[str, str]:
    """NAME__<model> -> data_tests items to attach (the text under ``data_tests:``)."""
    n, e = case.merge_name, case.expected_prefix
    arrays = "array_columns: [ours_changed, theirs_changed]"
    tests = {
        f"{n}__merge_schema": _match(
            f"Case {case.name}: one row per column with the hand-written status and types.",
            "expected_merge_schemas",
            (f"case_name: {case.name}",),
        ),
        f"{n}__merge": _match(
            f"Case {case.name}: exactly the changed keys, with status and changed columns.",
            f"{e}__expected_merge",
            (arrays,),
        ),
        f"{n}__merged": _match(
            f"Case {case.name}: the merged table, row for row, in the merged column types.",
            f"{e}__expected_merged",
        ),
        f"{n}__merge_summary": (
            f"      # Case {case.name}: counts and flags as in expected_merge_summaries.\n"
            "      - merge_summary_matches_expected:\n"
            "          arguments:\n"
            "            expected: ref('expected_merge_summaries')\n"
            f"            case_name: {case.name}\n"
        ),
    }
    if case.conflicts:
        tests[f"{n}__conflicts"] = _match(
            f"Case {case.name}: every conflicting key with its base / ours / theirs values.",
            f"{e}__expected_conflicts",
        )
    if case.violations:
        tests[f"{n}__merge_violations"] = _match(
            f"Case {case.name}: every violating row of the merged table.",
            f"{e}__expected_violations",
        )
    if case.conflict_free:
        tests[f"{n}__merge"] += (
            f"      # Case {case.name} has no conflict: the test at severity error must pass.\n"
            "      - table_diff.no_merge_conflicts:\n"
            f"          name: {n}__no_merge_conflicts_error\n"
            "          arguments:\n"
            f"            merge_schema: ref('{n}__merge_schema')\n"
            "          config:\n"
            "            severity: error\n"
        )
    return tests


def _attach_tests(yml: str, case: MergeCase) -> str:
    for model, items in _tests_by_model(case).items():
        entry = rf"  - name: {re.escape(model)}\n    description: >\n(?:      .*\n)+"
        if model == f"{case.merge_name}__merge":
            # The scaffold already lists no_merge_conflicts (warn): append to that list.
            pattern = re.compile(rf"({entry}    data_tests:\n(?:      .*\n)+)(    columns:\n)")
            yml, n = pattern.subn(lambda m, items=items: m.group(1) + items + m.group(2), yml)
        else:
            pattern = re.compile(rf"({entry})")
            block = "    data_tests:\n" + items
            yml, n = pattern.subn(lambda m, block=block: m.group(1) + block, yml)
        if n != 1:
            raise SystemExit(f"cannot find the properties of {model} in the scaffolded yml")
    return yml


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=shutil.which("table-diff") or "table-diff")
    args = parser.parse_args()
    for case in CASES:
        folder = Path("models") / "merge_cases" / case.folder
        cmd = [
            args.cli,
            "scaffold",
            "merge",
            case.merge_name,
            "--base",
            _ref(f"{case.inputs}__base"),
            "--ours",
            _ref(f"{case.inputs}__ours"),
            "--theirs",
            _ref(f"{case.inputs}__theirs"),
            *[a for k in case.key for a in ("--primary-key", k)],
            *case.options,
            "--dir",
            str(folder),
            "--force",
        ]
        subprocess.run(cmd, cwd=PROJECT, check=True, stdout=subprocess.DEVNULL)
        yml_path = PROJECT / folder / f"_{case.merge_name}__merge_models.yml"
        yml_path.write_text(_attach_tests(yml_path.read_text(), case))
        print(f"{case.name}: {folder}/{case.merge_name}__*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
