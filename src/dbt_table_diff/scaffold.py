"""``table-diff scaffold pair``: write the thin model files of a two-way diff pipeline.

Each SQL model is a single macro call. The split step is a Python model calling
:func:`dbt_table_diff.split.block_split` (``split='python'``, the default: dbt-spark ``method:
session`` with this package's submission method, or Databricks), or, with ``split='sql'``, a SQL
model calling the macro ``table_diff.block_split``, which writes the same rows and runs wherever
SQL runs: the Spark Thrift Server, which cannot run Python models (ADR 0025).
Options go to the ranges model only: it stores the resolved spec with its leaves and every
downstream model reads it from there, so the options of a pair cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The option parsers of the CLI and the error type, re-exported (they live in scaffold_args).
from dbt_table_diff.scaffold_args import NORMALIZE_RULES as NORMALIZE_RULES
from dbt_table_diff.scaffold_args import TRUNCATE_UNITS as TRUNCATE_UNITS
from dbt_table_diff.scaffold_args import ScaffoldError
from dbt_table_diff.scaffold_args import parse_column_map as parse_column_map
from dbt_table_diff.scaffold_args import parse_normalize as parse_normalize
from dbt_table_diff.scaffold_args import parse_tolerance as parse_tolerance
from dbt_table_diff.scaffold_docs import properties_yml

_RELATION_EXPR = re.compile(
    r"^\s*(ref|source)\(\s*('[^']*'|\"[^\"]*\")(\s*,\s*('[^']*'|\"[^\"]*\"))*\s*\)\s*$"
)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODEL_SUFFIXES = ("ranges", "block_hashes", "block_split", "row_diff", "column_stats", "summary")
REPAIR_DIRECTIONS = ("source_to_target", "target_to_source")
# The package's table materialization (macros/materializations/table_diff_table.sql): the format of
# every table a scaffolded pipeline writes is chosen at run time by the var table_diff_file_format.
MATERIALIZATION = "table_diff_table"
SPLIT_STEPS = ("python", "sql")
LIMITS = ("max_added", "max_deleted", "max_modified", "max_duplicate_key_rows")
_LIMIT = re.compile(r"^([0-9]+|[0-9]*\.?[0-9]+%)$")


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
    # Also write NAME__repair (the actions that make one side equal the other): the direction.
    repair: str | None = None
    # Changes track (ADR 0019): NAME__file_hashes keeps per-file signatures between runs.
    track: bool | None = None
    # A `pair_matches` test on NAME__summary: `dbt build` fails on drift with the diff built.
    test: bool | None = None
    # Target column -> source column, for columns (keys included) named differently.
    column_map: dict[str, str] = field(default_factory=dict)
    # Limits of the `pair_matches` test per kind (with `test`): a count or a share ('0.1%').
    limits: dict[str, int | str] = field(default_factory=dict)
    # Column -> {'abs': number or duration text} or {'rel': number} (ADR 0024).
    tolerance: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The split step: a Python model (default) or the SQL macro (a Thrift Server target, ADR 0025).
    split: str = "python"
    # Several targets (replicas of the source, ADR 0028): one signature pass over the source and
    # every replica, then each replica's pair models NAME__REPLICA__*; `target` is the first.
    replicas: tuple[str, ...] = ()


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
    if opts.repair is not None and opts.repair not in REPAIR_DIRECTIONS:
        raise ScaffoldError(
            f"invalid --repair '{opts.repair}'. Expected {' or '.join(REPAIR_DIRECTIONS)}"
            " (source_to_target writes the target)."
        )
    if opts.column_map and opts.track:
        raise ScaffoldError(
            "give --column-map or --track, not both: the track reads the target's files by their "
            "stored names (diff a view that renames the target's columns instead)."
        )
    if opts.column_map and opts.repair:
        raise ScaffoldError(
            "give --column-map or --repair, not both: the repair writes rows under one side's "
            "column names (repair a pair of views that share the names instead)."
        )
    for limit, value in opts.limits.items():
        if limit not in LIMITS:
            raise ScaffoldError(f"invalid limit '{limit}'. Expected one of {', '.join(LIMITS)}.")
        if not _LIMIT.match(str(value)):
            raise ScaffoldError(
                f"invalid --{limit.replace('_', '-')} '{value}'. Expected a whole number of rows "
                "or a share of the source's rows such as 0.1%."
            )
        if str(value).endswith("%") and float(str(value)[:-1]) > 100:
            raise ScaffoldError(f"invalid --{limit.replace('_', '-')} '{value}': over 100%.")
    if opts.limits and not opts.test:
        raise ScaffoldError(
            "--max-added / --max-deleted / --max-modified / --max-duplicate-key-rows are limits "
            "of the pair's test: add --test."
        )
    if opts.split not in SPLIT_STEPS:
        raise ScaffoldError(
            f"invalid --split '{opts.split}'. Expected python (a Python model: dbt-spark method "
            "session, or Databricks) or sql (a SQL model: any target, the Thrift Server included)."
        )
    if opts.quick_check not in (None, True, False, "auto"):
        raise ScaffoldError(
            f"invalid --quick-check '{opts.quick_check}'. Expected auto, true or false."
        )
    if opts.replicas:
        from dbt_table_diff.scaffold_replicas import validate_replicas

        validate_replicas(opts)


def jinja_literal(value: Any) -> str:
    """A Python value as a Jinja literal (strings single-quoted with escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
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
    if opts.replicas:
        from dbt_table_diff.scaffold_replicas import render_replica_set

        return render_replica_set(opts)
    n = opts.name
    header = _header(n)
    files = {
        f"{n}__ranges.sql": _ranges_file(opts),
        f"{n}__block_hashes.sql": _block_hashes_file(opts),
        f"{n}__row_diff.sql": header
        + "{{ table_diff.row_diff(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_split=ref('{n}__block_split'),\n"
        + f"    source={opts.source},\n    target={opts.target}"
        + (f",\n    file_hashes=ref('{n}__file_hashes')" if opts.track else "")
        + "\n) }}\n",
        f"{n}__column_stats.sql": header
        + "{{ table_diff.column_stats(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes'),\n"
        + f"    block_split=ref('{n}__block_split'),\n    row_diff=ref('{n}__row_diff')"
        + "\n) }}\n",
        f"{n}__summary.sql": header
        + "{{ table_diff.diff_summary(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes'),\n"
        + f"    block_split=ref('{n}__block_split'),\n    row_diff=ref('{n}__row_diff')"
        + (f",\n    file_hashes=ref('{n}__file_hashes')" if opts.track else "")
        + f",\n    column_stats=ref('{n}__column_stats')"
        + "\n) }}\n",
        f"_{n}__models.yml": properties_yml(opts),
    }
    files.update(_split_file(opts, header))
    if opts.track:
        files[f"{n}__file_hashes.sql"] = (
            header
            + "-- The pair's changes track: per-file signatures kept between runs (ADR 0019).\n"
            + "{{ table_diff.file_hashes(\n"
            + f"    ranges=ref('{n}__ranges'),\n"
            + f"    source={opts.source},\n    target={opts.target}\n) }}}}\n"
        )
    if opts.repair:
        files[f"{n}__repair.sql"] = (
            header
            + "-- Nothing is written to a side until you run:\n"
            + f'--   dbt run-operation table_diff.apply_repair --args "{{pair: {n}}}"\n'
            + "{{ table_diff.repair_rows(\n"
            + f"    ranges=ref('{n}__ranges'),\n    row_diff=ref('{n}__row_diff'),\n"
            + f"    summary=ref('{n}__summary'),\n"
            + f"    source={opts.source},\n    target={opts.target},\n"
            + f"    direction={jinja_literal(opts.repair)}\n) }}}}\n"
        )
    return files


def _ranges_file(opts: PairOptions) -> str:
    """NAME__ranges: the one model that takes the options (``target`` a list for a replica set)."""
    kwargs = [
        ("source", opts.source),
        ("target", _targets(opts)),
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
        "track": opts.track,
        "column_map": opts.column_map or None,
        "tolerance": opts.tolerance or None,
    }
    kwargs += [(k, jinja_literal(v)) for k, v in optional.items() if v is not None]
    args = ",\n    ".join(f"{k}={v}" for k, v in kwargs)
    return (
        _header(opts.name)
        + "-- Options of the pair live here; downstream models read them from this table.\n"
        + f"{{{{ table_diff.key_ranges(\n    {args}\n) }}}}\n"
    )


def _block_hashes_file(opts: PairOptions) -> str:
    """NAME__block_hashes: one signature pass over the source and the target(s)."""
    return (
        _header(opts.name)
        + "{{ table_diff.block_hashes(\n"
        + f"    ranges=ref('{opts.name}__ranges'),\n"
        + f"    source={opts.source},\n    target={_targets(opts)}"
        + (f",\n    file_hashes=ref('{opts.name}__file_hashes')" if opts.track else "")
        + "\n) }}\n"
    )


def _header(n: str) -> str:
    # Tables, whatever the project's default: downstream models read ranges and units by value, and
    # a view would re-run the sample and the scans on every read. The package's table
    # materialization writes Delta when the session has it (var table_diff_file_format, ADR 0015):
    # a killed build then leaves the last result readable, which the summary records by version.
    return (
        f"-- table_diff pair '{n}', written by `table-diff scaffold pair`.\n"
        f"{{{{ config(materialized='{MATERIALIZATION}') }}}}\n"
    )


def _targets(opts: PairOptions) -> str:
    """The ``target`` argument: the relation, or a replica set's list of them."""
    return f"[{', '.join(opts.replicas)}]" if opts.replicas else opts.target


def _split_file(opts: PairOptions, header: str) -> dict[str, str]:
    """The split step's model: the Python model, or with ``split='sql'`` the SQL macro's."""
    n = opts.name
    if opts.split == "sql":
        return {
            f"{n}__block_split.sql": header
            + "-- The split step in SQL (--split sql): runs on any target, the Thrift Server too.\n"
            + "{{ table_diff.block_split(\n"
            + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes')\n) }}}}\n"
        }
    return {
        f"{n}__block_split.py": (
            f'"""table_diff pair \'{n}\': recursive split of mismatched blocks '
            "(written by `table-diff scaffold pair`).\n\n"
            "A Python model: dbt-spark method session (with dbt-table-diff) or Databricks. For the "
            "Spark\nThrift Server, scaffold the pair with --split sql.\n"
            '"""\n\n\n'
            "def model(dbt, session):\n"
            f'    dbt.config(materialized="{MATERIALIZATION}")\n'
            "    from dbt_table_diff.split import block_split\n\n"
            "    return block_split(\n"
            f'        session, dbt.ref("{n}__ranges"), dbt.ref("{n}__block_hashes")\n'
            "    )\n"
        )
    }


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
    """Write the pair's files into ``directory``; refuse to overwrite unless ``force``.

    The split step is one model in either language: scaffolding with the other ``split`` replaces
    ``NAME__block_split.py`` by ``.sql`` or back (dbt refuses two models of one name), so the file
    of the other language counts as one to overwrite."""
    files = render_pair(opts)
    other = Path(directory) / f"{opts.name}__block_split.{'py' if opts.split == 'sql' else 'sql'}"
    if other.exists() and not force:
        raise ScaffoldError(
            f"refusing to overwrite {other} (the split step, now --split {opts.split}). "
            "Pass --force to replace it."
        )
    written = write_files(files, directory, force=force)
    if other.exists():
        other.unlink()
    return written
