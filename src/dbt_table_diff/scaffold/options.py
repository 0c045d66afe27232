"""The options of ``table-diff scaffold pair`` and their checks, before anything is written.

A pair is one source and one target, or one source and several replicas (ADR 0028); the checks
say which argument is wrong and how to fix it (:class:`ScaffoldError`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dbt_table_diff.scaffold.args import ScaffoldError
from dbt_table_diff.scaffold.schema import Option, options_of

# A dbt relation expression (`ref(...)` / `source(...)`) and a model-name prefix: what a pair's
# and a merge's sides and names must look like.
RELATION_EXPR = re.compile(
    r"^\s*(ref|source)\(\s*('[^']*'|\"[^\"]*\")(\s*,\s*('[^']*'|\"[^\"]*\"))*\s*\)\s*$"
)
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LIMITS = tuple(o.name for o in options_of("pair") if o.kind == "limit")
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


def _check_value(opt: Option, value: Any) -> None:
    """The schema's generic checks of one option (its minimum, its choices); unset passes."""
    if value is None:
        return
    if opt.minimum is not None and value < opt.minimum:
        raise ScaffoldError(
            f"invalid {opt.label()} {value}. Expected a whole number >= {opt.minimum}."
        )
    if opt.choices and value not in opt.choices:
        expected = opt.expected or " or ".join(str(c) for c in opt.choices)
        raise ScaffoldError(f"invalid {opt.label()} '{value}'. Expected {expected}.")


def validate(opts: PairOptions) -> None:
    if not NAME.match(opts.name):
        raise ScaffoldError(
            f"invalid NAME '{opts.name}'. Expected a model-name prefix of letters, digits and "
            "underscores (e.g. orders_replica)."
        )
    for arg, value in (("--source", opts.source), ("--target", opts.target)):
        if not RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid {arg} "{value}". Expected a dbt relation expression such as '
                "\"ref('orders')\" or \"source('replica', 'orders')\"."
            )
    if not opts.primary_key:
        raise ScaffoldError("missing --primary-key. Name the key column(s): --primary-key order_id")
    if opts.columns and opts.exclude_columns:
        raise ScaffoldError("give --columns or --exclude-columns, not both.")
    if opts.block_count is not None and opts.block_size is not None:
        raise ScaffoldError("give --block-count or --block-size, not both.")
    for opt in options_of("pair"):
        if opt.kind != "limit":  # the limits are one mapping, `limits`, checked below
            _check_value(opt, getattr(opts, opt.name))
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
    if opts.replicas:
        validate_replicas(opts)


def replica_name(expr: str) -> str:
    """A replica's name: its ``ref()`` / ``source()``'s table (the last argument), lower case."""
    return "".join(re.findall(r"'([^']*)'|\"([^\"]*)\"", expr)[-1]).lower()


def validate_replicas(opts: PairOptions) -> None:
    """A replica set's own rules (the macro checks the same, and the columns, before any scan)."""
    for value in opts.replicas:
        if not RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid --target "{value}". Expected a dbt relation expression such as '
                "\"source('replica', 'orders')\"."
            )
    names = [replica_name(t) for t in opts.replicas]
    for name, expr in zip(names, opts.replicas, strict=True):
        if not NAME.match(name):
            raise ScaffoldError(
                f"invalid --target \"{expr}\": its table name '{name}' names the replica's models "
                f"({opts.name}__{name}__summary) and must be letters, digits and underscores."
            )
        if names.count(name) > 1:
            raise ScaffoldError(
                f"invalid --target: two replicas are named '{name}' (each replica's models are "
                "named after its table). Diff a view of one under another name, or scaffold a "
                "separate pair for it."
            )
    for opt in options_of("pair"):
        if "replicas" not in opt.modes and getattr(opts, opt.name):
            raise ScaffoldError(
                f"give {opt.label()} or several --target, not both: it belongs to one target. "
                "Scaffold a separate pair for the replica that needs it."
            )
