"""``table-diff scaffold pair``: write the thin model files of a two-way diff pipeline.

Each SQL model is a single macro call; the Python model calls
:func:`dbt_table_diff.split.block_split`.
Options go to the ranges model only: it stores the resolved spec with its leaves and every
downstream model reads it from there, so the options of a pair cannot drift apart.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_RELATION_EXPR = re.compile(
    r"^\s*(ref|source)\(\s*('[^']*'|\"[^\"]*\")(\s*,\s*('[^']*'|\"[^\"]*\"))*\s*\)\s*$"
)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODEL_SUFFIXES = ("ranges", "block_hashes", "block_split", "row_diff", "summary")
NORMALIZE_RULES = {"round": int, "truncate": str, "trim": bool, "lower": bool}
TRUNCATE_UNITS = ("millisecond", "second", "minute", "hour", "day")


class ScaffoldError(ValueError):
    """Bad scaffold input; the message names the argument and the fix."""


@dataclass(frozen=True)
class PairOptions:
    name: str
    source: str
    target: str
    primary_key: tuple[str, ...]
    columns: tuple[str, ...] = ()
    exclude_columns: tuple[str, ...] = ()
    table_filter: str | None = None
    strategy: str | None = None
    block_count: int | None = None
    block_size: int | None = None
    split_factor: int | None = None
    compare_unit_size: int | None = None
    max_depth: int | None = None
    max_diff_rows: int | None = None
    normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    check_duplicate_keys: bool | None = None
    quick_check: bool | str | None = None  # True, False or "auto" (the default when None)
    keys_only: bool | None = None  # compare only which keys exist (no column values)
    # A Delta / Iceberg side read at this version (number) or timestamp (text), not its current one.
    source_as_of: int | str | None = None
    target_as_of: int | str | None = None


def parse_normalize(items: list[str]) -> dict[str, dict[str, Any]]:
    """``['amount:round=2', 'name:trim', 'ts:truncate=second']`` -> rules per column."""
    rules: dict[str, dict[str, Any]] = {}
    for item in items:
        col, sep, rule = item.partition(":")
        name, _, arg = rule.partition("=")
        if not sep or not col or name not in NORMALIZE_RULES:
            raise ScaffoldError(
                f"invalid --normalize '{item}'. Expected COLUMN:RULE[=ARG] with RULE one of "
                "round=N, truncate=UNIT, trim, lower. Example: --normalize amount:round=2"
            )
        if name == "round":
            if not arg.isdigit() or int(arg) > 38:
                raise ScaffoldError(
                    f"invalid --normalize '{item}'. Expected round=N with N from 0 to 38."
                )
            value: Any = int(arg)
        elif name == "truncate":
            if arg not in TRUNCATE_UNITS:
                raise ScaffoldError(
                    f"invalid --normalize '{item}'. Expected truncate=UNIT with UNIT one of "
                    f"{', '.join(TRUNCATE_UNITS)}."
                )
            value = arg
        else:
            if arg:
                raise ScaffoldError(f"invalid --normalize '{item}'. '{name}' takes no value.")
            value = True
        rules.setdefault(col, {})[name] = value
    return rules


def validate(opts: PairOptions) -> None:
    if not _NAME.match(opts.name):
        raise ScaffoldError(
            f"invalid NAME '{opts.name}'. Expected a model-name prefix of letters, digits and "
            "underscores (e.g. orders_replica)."
        )
    for arg, value in (("--source", opts.source), ("--target", opts.target)):
        if not _RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid {arg} "{value}". Expected a dbt relation expression such as '
                "\"ref('orders')\" or \"source('replica', 'orders')\"."
            )
    if not opts.primary_key:
        raise ScaffoldError("missing --primary-key. Name the key column(s): --primary-key order_id")
    if opts.columns and opts.exclude_columns:
        raise ScaffoldError("give --columns or --exclude-columns, not both.")
    if opts.strategy not in (None, "range", "hash"):
        raise ScaffoldError(f"invalid --strategy '{opts.strategy}'. Expected range or hash.")
    if opts.block_count is not None and opts.block_size is not None:
        raise ScaffoldError("give --block-count or --block-size, not both.")
    for arg, value, minimum in (
        ("--block-count", opts.block_count, 1),
        ("--block-size", opts.block_size, 1),
        ("--split-factor", opts.split_factor, 2),
        ("--compare-unit-size", opts.compare_unit_size, 1),
        ("--max-depth", opts.max_depth, 0),
        ("--max-diff-rows", opts.max_diff_rows, 1),
    ):
        if value is not None and value < minimum:
            raise ScaffoldError(f"invalid {arg} {value}. Expected a whole number >= {minimum}.")
    if opts.quick_check not in (None, True, False, "auto"):
        raise ScaffoldError(
            f"invalid --quick-check '{opts.quick_check}'. Expected auto, true or false."
        )


def jinja_literal(value: Any) -> str:
    """A Python value as a Jinja literal (strings single-quoted with escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(jinja_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{jinja_literal(k)}: {jinja_literal(v)}" for k, v in value.items())
            + "}"
        )
    raise TypeError(f"cannot render {value!r} as a Jinja literal")


def render_pair(opts: PairOptions) -> dict[str, str]:
    """File name -> content for the pair's models and properties."""
    validate(opts)
    n = opts.name
    kwargs = [
        ("source", opts.source),
        ("target", opts.target),
        ("primary_key", jinja_literal(list(opts.primary_key))),
    ]
    optional = {
        "columns": list(opts.columns) or None,
        "exclude_columns": list(opts.exclude_columns) or None,
        "table_filter": opts.table_filter,
        "strategy": opts.strategy,
        "block_count": opts.block_count,
        "block_size": opts.block_size,
        "split_factor": opts.split_factor,
        "compare_unit_size": opts.compare_unit_size,
        "max_depth": opts.max_depth,
        "max_diff_rows": opts.max_diff_rows,
        "normalize": opts.normalize or None,
        "check_duplicate_keys": opts.check_duplicate_keys,
        "quick_check": opts.quick_check,
        "keys_only": opts.keys_only,
        "source_as_of": opts.source_as_of,
        "target_as_of": opts.target_as_of,
    }
    kwargs += [(k, jinja_literal(v)) for k, v in optional.items() if v is not None]
    args = ",\n    ".join(f"{k}={v}" for k, v in kwargs)
    # Tables, whatever the project's default: downstream models read ranges and units by value, and
    # a view would re-run the sample and the scans on every read.
    header = (
        f"-- table_diff pair '{n}', written by `table-diff scaffold pair`.\n"
        "{{ config(materialized='table') }}\n"
    )
    files = {
        f"{n}__ranges.sql": header
        + "-- Options of the pair live here; downstream models read them from this table.\n"
        + f"{{{{ table_diff.key_ranges(\n    {args}\n) }}}}\n",
        f"{n}__block_hashes.sql": header
        + "{{ table_diff.block_hashes(\n"
        + f"    ranges=ref('{n}__ranges'),\n"
        + f"    source={opts.source},\n    target={opts.target}\n) }}}}\n",
        f"{n}__block_split.py": (
            f'"""table_diff pair \'{n}\': recursive split of mismatched blocks '
            '(written by `table-diff scaffold pair`)."""\n\n\n'
            "def model(dbt, session):\n"
            '    dbt.config(materialized="table")\n'
            "    from dbt_table_diff.split import block_split\n\n"
            "    return block_split(\n"
            f'        session, dbt.ref("{n}__ranges"), dbt.ref("{n}__block_hashes")\n'
            "    )\n"
        ),
        f"{n}__row_diff.sql": header
        + "{{ table_diff.row_diff(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_split=ref('{n}__block_split'),\n"
        + f"    source={opts.source},\n    target={opts.target}\n) }}}}\n",
        f"{n}__summary.sql": header
        + "{{ table_diff.diff_summary(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes'),\n"
        + f"    block_split=ref('{n}__block_split'),\n    row_diff=ref('{n}__row_diff')\n) }}}}\n",
        f"_{n}__models.yml": _properties_yml(opts),
    }
    return files


# Every column of NAME__summary (macros/diff/diff_summary.sql), as `dbt docs` shows it.
SUMMARY_COLUMNS = (
    ("source_relation", "The source side (relation or `ref`)."),
    ("target_relation", "The target side."),
    ("rows_source", "Rows of the source (after table_filter)."),
    ("rows_target", "Rows of the target (after table_filter)."),
    ("blocks_total", "Level-0 blocks of the layout."),
    ("blocks_mismatched", "Level-0 blocks whose signatures differ (or hold duplicate keys)."),
    ("leaves_total", "Leaves (finest blocks) of the layout."),
    ("units_mismatched", "Compare units the split step produced."),
    ("rows_added", "Rows only in the target."),
    ("rows_deleted", "Rows only in the source."),
    ("rows_modified", "Keys on both sides whose compared columns differ."),
    ("duplicate_key_rows", "Rows of keys stored more than once on a side."),
    ("null_key_rows_source", "Source rows with a NULL key component."),
    ("null_key_rows_target", "Target rows with a NULL key component."),
    ("max_diff_rows", "The limit of differing rows kept."),
    ("max_diff_rows_reached", "Whether the limit was reached (same as is_partial)."),
    ("is_partial", "True when max_diff_rows stopped the diff early; counts are then lower bounds."),
    ("is_identical", "True when no row differs (and no side changed during the run)."),
    ("source_changed_during_run", "The source was written while the pair ran (NULL: unknown)."),
    ("target_changed_during_run", "The target was written while the pair ran (NULL: unknown)."),
    ("status", "complete, partial or changed_during_run."),
    ("key_columns", "The primary key columns."),
    ("columns_compared", "The non-key columns compared, in table order."),
    ("keys_only", "True when only key existence was compared."),
    ("strategy", "range or hash."),
    ("hash_spec_version", "Version of the row fingerprint."),
    ("run_id", "The run of the pair (the invocation that built its ranges)."),
    ("source_format", "Table format of the source (delta, iceberg, parquet, ...)."),
    ("source_version", "Version of the source every pass read (NULL without versions)."),
    ("target_format", "Table format of the target."),
    ("target_version", "Version of the target every pass read."),
    ("generated_at", "When the summary was built."),
)


def _column_entries(columns: list[tuple[str, str]]) -> str:
    return "".join(
        f"      - name: {name}\n        description: {json.dumps(text)}\n" for name, text in columns
    )


def _properties_yml(opts: PairOptions) -> str:
    n, src, tgt = opts.name, opts.source, opts.target
    row_diff = [(k, "Key column (from the side the row is on).") for k in opts.primary_key]
    for c in opts.columns:  # the compared columns, when the scaffold knows them
        row_diff.append((f"source__{c}", f"{c} on the source (NULL for added rows)."))
        row_diff.append((f"target__{c}", f"{c} on the target (NULL for deleted rows)."))
    row_diff_columns = _column_entries(row_diff)
    summary_columns = _column_entries(list(SUMMARY_COLUMNS))
    return f"""version: 2

# table_diff pair '{n}': {src} (source) vs {tgt} (target), key {", ".join(opts.primary_key)}.
models:
  - name: {n}__ranges
    description: >
      Key ranges of pair {n}: one row per leaf (finest block). Leaf 0 is open below, the last
      leaf open above; bounds are half-open, so each row of either side belongs to one leaf.
      `spec` holds the resolved options every downstream model of the pair uses.
    columns:
      - name: leaf_id
        description: Leaf number, in key order for strategy range.
      - name: block_id
        description: Level-0 block holding the leaf.
      - name: lower_bound
        description: Smallest key of the leaf (inclusive); NULL for leaf 0 and for strategy hash.
      - name: upper_bound
        description: Lower bound of the next leaf (exclusive); NULL for the last leaf.
      - name: spec
        description: JSON of the resolved options, column types and block layout.
      - name: run_id
        description: The run (the invocation that built this table); every model of the pair has it.
  - name: {n}__block_hashes
    description: >
      One pass over each side of pair {n}: per leaf and side, row count, distinct keys, rows with a
      NULL key component, and overflow-safe sums of the two 64-bit halves of every row's
      fingerprint. When the quick check found the sides identical: one whole-table row per side
      (leaf_id NULL) instead, and no leaf pass was run.
    columns:
      - name: side
        description: "'source' or 'target'."
      - name: leaf_id
        description: Leaf of {n}__ranges; NULL for a whole-table row of the quick check.
      - name: n_rows
        description: Rows of the side in the leaf.
      - name: n_keys
        description: Distinct keys of the side in the leaf (fewer than n_rows means duplicate keys).
      - name: n_null_key_rows
        description: Rows whose key has a NULL component.
      - name: h1_hi
        description: Sum of the high 32 bits of the rows' first 64-bit hash (exact, no overflow).
      - name: h1_lo
        description: Sum of the low 32 bits of the rows' first 64-bit hash.
      - name: h2_hi
        description: Sum of the high 32 bits of the rows' second 64-bit hash.
      - name: h2_lo
        description: Sum of the low 32 bits of the rows' second 64-bit hash.
      - name: run_id
        description: The run of {n}__ranges this pass belongs to.
      - name: started_at
        description: When the block pass started (a side written after it is flagged).
  - name: {n}__block_split
    description: >
      Compare units of pair {n}: blocks whose signatures differ (or hold duplicate keys), split
      recursively by the split factor until small enough. `selected` is false for units left out
      once max_diff_rows was reached.
    columns:
      - name: unit_id
        description: Unit number in key order.
      - name: level
        description: Tree level of the unit (0 = level-0 block).
      - name: block_id
        description: Block number of the unit at its level.
      - name: level0_block_id
        description: Level-0 block holding the unit.
      - name: leaf_lo
        description: First leaf of the unit.
      - name: leaf_hi
        description: Last leaf of the unit (inclusive).
      - name: reason
        description: "mismatch, duplicate_keys or both."
      - name: source_rows
        description: Source rows in the unit.
      - name: target_rows
        description: Target rows in the unit.
      - name: selected
        description: Whether the row diff fetched this unit's rows.
      - name: run_id
        description: The run of {n}__ranges this split belongs to.
  - name: {n}__row_diff
    description: >
      Rows of pair {n} that differ, fetched only from the compare units: added (only in target),
      deleted (only in source), modified (with changed_columns) and duplicate_key rows.
    columns:
      - name: diff_type
        description: added, deleted, modified or duplicate_key.
      - name: side
        description: Where the row is (source, target, or both for modified).
      - name: changed_columns
        description: Compared columns whose values differ, in table order (modified rows).
      - name: run_id
        description: The run of {n}__ranges these rows belong to.
{row_diff_columns}  - name: {n}__summary
    description: >
      One-row summary of pair {n}: rows per side, blocks total and mismatched, added / deleted /
      modified / duplicate-key / NULL-key counts, whether the result is partial, run id.
    columns:
{summary_columns}"""


def write_files(files: dict[str, str], directory: Path, *, force: bool = False) -> list[Path]:
    """Write ``files`` (name -> content) into ``directory``; refuse to overwrite unless forced."""
    directory = Path(directory)
    existing = [directory / f for f in files if (directory / f).exists()]
    if existing and not force:
        names = ", ".join(str(p) for p in existing)
        raise ScaffoldError(f"refusing to overwrite {names}. Pass --force to replace them.")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in files.items():
        path = directory / name
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


def write_pair(opts: PairOptions, directory: Path, *, force: bool = False) -> list[Path]:
    """Write the pair's files into ``directory``; refuse to overwrite unless ``force``."""
    return write_files(render_pair(opts), directory, force=force)
