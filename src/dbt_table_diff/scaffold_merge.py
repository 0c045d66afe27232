"""``table-diff scaffold merge``: write the thin model files of a three-way merge.

Models (NAME = the merge's prefix):

* ``NAME__merge_schema`` (SQL): the schema phase, one row per column; fails the build on a schema
  conflict unless ``on_schema_conflict='report'``.
* ``NAME__merge_candidates`` (SQL): rows of the keys of leaves that changed on either side.
* ``NAME__merge`` (Python): one row per changed key with merge_status / conflict_type.
* ``NAME__merged`` (Python): the merged table.
* ``NAME__conflicts`` (Python, unless ``materialize_conflicts=False``).
* ``NAME__merge_violations`` (Python): constraint and key violations of the merged table.
* ``NAME__merge_summary`` (Python): one row of counts, computed from the candidates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbt_table_diff.scaffold import (
    _NAME,
    _RELATION_EXPR,
    MATERIALIZATION,
    ScaffoldError,
    jinja_literal,
    write_files,
)

ON_SCHEMA_CONFLICT = ("error", "report")
STRATEGIES = ("hash", "range")


@dataclass(frozen=True)
class MergeOptions:
    name: str
    base: str
    ours: str
    theirs: str
    primary_key: tuple[str, ...]
    columns: tuple[str, ...] = ()
    exclude_columns: tuple[str, ...] = ()
    table_filter: str | None = None
    normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    leaf_count: int | None = None
    strategy: str | None = None
    on_schema_conflict: str = "error"
    constraints: tuple[str, ...] = ()
    materialize_conflicts: bool = True


def validate_merge(opts: MergeOptions) -> None:
    if not _NAME.match(opts.name):
        raise ScaffoldError(
            f"invalid NAME '{opts.name}'. Expected a model-name prefix of letters, digits and "
            "underscores (e.g. orders_merge)."
        )
    for arg, value in (("--base", opts.base), ("--ours", opts.ours), ("--theirs", opts.theirs)):
        if not isinstance(value, str) or not _RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid {arg} "{value}". Expected a dbt relation expression such as '
                "\"ref('orders')\" or \"source('replica', 'orders')\"."
            )
    if not opts.primary_key or any(not k or not k.strip() for k in opts.primary_key):
        raise ScaffoldError("missing --primary-key. Name the key column(s): --primary-key order_id")
    if opts.columns and opts.exclude_columns:
        raise ScaffoldError("give --columns or --exclude-columns, not both.")
    if opts.leaf_count is not None and opts.leaf_count < 1:
        raise ScaffoldError(
            f"invalid --leaf-count {opts.leaf_count}. Expected a whole number >= 1."
        )
    if opts.strategy is not None and opts.strategy not in STRATEGIES:
        raise ScaffoldError(f"invalid --strategy '{opts.strategy}'. Expected hash or range.")
    if opts.on_schema_conflict not in ON_SCHEMA_CONFLICT:
        raise ScaffoldError(
            f"invalid --on-schema-conflict '{opts.on_schema_conflict}'. Expected error or report."
        )
    for c in opts.constraints:
        if not isinstance(c, str) or not c.strip():
            raise ScaffoldError(
                f"invalid --constraint {c!r}. Expected a SQL boolean expression "
                "such as 'amount >= 0'."
            )


# The Python model files are written as ruff would format them (double quotes, lines <= 100
# characters), so a project that lints its models with ruff accepts them as generated.
_LINE_LENGTH = 100
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def _py_str(value: str) -> str:
    """A Python string literal, double-quoted unless that needs more escapes (ruff's choice)."""
    if '"' in value and "'" not in value:
        return repr(value)
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid Python literal


def _py_list_arg(indent: int, prefix: str, values: Sequence[str]) -> str:
    """An argument line ``prefix[values],``; one value per line when it would not fit."""
    pad = " " * indent
    line = f"{pad}{prefix}[{', '.join(_py_str(v) for v in values)}],"
    if len(line) <= _LINE_LENGTH or not values:
        return line + "\n"
    inner = "".join(f"{pad}    {_py_str(v)},\n" for v in values)
    return f"{pad}{prefix}[\n{inner}{pad}],\n"


def _py_args(indent: int, head: str, args: Sequence[str], tail: str = "") -> str:
    """``head(args)tail`` on one line when it fits, else one argument per line (trailing comma)."""
    pad = " " * indent
    line = f"{pad}{head}({', '.join(args)}){tail}"
    if len(line) <= _LINE_LENGTH:
        return line + "\n"
    inner = "".join(f"{pad}    {a},\n" for a in args)
    return f"{pad}{head}(\n{inner}{pad}){tail}\n"


def _python_relation(expr: str) -> str:
    """``ref('x')`` / ``source('a', 'b')`` as the Python model's ``dbt.ref("x")`` call."""
    kind = expr.strip().split("(", 1)[0].strip()
    names = [m.group(1) if m.group(1) is not None else m.group(2) for m in _QUOTED.finditer(expr)]
    return f"dbt.{kind}({', '.join(_py_str(n) for n in names)})"


def render_merge(opts: MergeOptions) -> dict[str, str]:
    """File name -> content for the merge's models and properties."""
    validate_merge(opts)
    n = opts.name
    rels = [("base", opts.base), ("ours", opts.ours), ("theirs", opts.theirs)]
    common = rels + [("primary_key", jinja_literal(list(opts.primary_key)))]
    shared = {
        "columns": list(opts.columns) or None,
        "exclude_columns": list(opts.exclude_columns) or None,
        "normalize": opts.normalize or None,
    }
    schema_kwargs = common + [(k, jinja_literal(v)) for k, v in shared.items() if v is not None]
    schema_kwargs.append(("on_schema_conflict", jinja_literal(opts.on_schema_conflict)))
    cand_optional = {
        **shared,
        "table_filter": opts.table_filter,
        "leaf_count": opts.leaf_count,
        "strategy": opts.strategy,
        "on_schema_conflict": opts.on_schema_conflict,
    }
    cand_kwargs = common + [
        (k, jinja_literal(v)) for k, v in cand_optional.items() if v is not None
    ]

    def call(macro: str, kwargs: list[tuple[str, str]]) -> str:
        args = ",\n    ".join(f"{k}={v}" for k, v in kwargs)
        return f"{{{{ table_diff.{macro}(\n    {args}\n) }}}}\n"

    header = (
        f"-- table_diff merge '{n}', written by `table-diff scaffold merge`.\n"
        f"{{{{ config(materialized='{MATERIALIZATION}') }}}}\n"
    )

    def py(doc: str, body: str) -> str:
        return (
            f'"""table_diff merge \'{n}\', written by `table-diff scaffold merge`.\n\n'
            f'{doc}.\n"""\n\n\n'
            "def model(dbt, session):\n"
            f'    dbt.config(materialized="{MATERIALIZATION}")\n'
            "    from dbt_table_diff import merge\n\n"
            f"{body}"
        )

    cand = f'dbt.ref("{n}__merge_candidates")'
    table_filter = "None" if opts.table_filter is None else _py_str(opts.table_filter)
    files = {
        f"{n}__merge_schema.sql": header + call("merge_schema_table", schema_kwargs),
        f"{n}__merge_candidates.sql": header
        + "-- Options of the merge live here and in the schema model (keep them in step).\n"
        + call("merge_candidates", cand_kwargs),
        f"{n}__merge.py": py(
            "One row per changed key",
            _py_args(4, "return merge.merge_rows", ["session", cand]),
        ),
        f"{n}__merged.py": py(
            "The merged table",
            "    return merge.merged_rows(\n"
            f"        session,\n        {cand},\n        {_python_relation(opts.ours)},\n"
            f'        schema=dbt.ref("{n}__merge_schema"),\n'
            f"        table_filter={table_filter},\n    )\n",
        ),
        f"{n}__merge_violations.py": py(
            "Constraint and key violations of the merged table",
            "    return merge.constraint_violations(\n"
            f'        session,\n        dbt.ref("{n}__merged"),\n'
            + _py_list_arg(8, "", opts.primary_key)
            + _py_list_arg(8, "", opts.constraints)
            + "    )\n",
        ),
        f"{n}__merge_summary.py": py(
            "One-row summary",
            "    return merge.merge_summary(\n"
            f"        session,\n        {cand},\n"
            f'        schema=dbt.ref("{n}__merge_schema"),\n'
            f'        violations=dbt.ref("{n}__merge_violations"),\n'
            + _py_list_arg(8, "constraints=", opts.constraints)
            + "    )\n",
        ),
        f"_{n}__merge_models.yml": _properties_yml(opts),
    }
    if opts.materialize_conflicts:
        files[f"{n}__conflicts.py"] = py(
            "Conflicting keys with every side's values",
            _py_args(4, "return merge.conflict_rows", ["session", cand]),
        )
    return files


def _properties_yml(opts: MergeOptions) -> str:
    n = opts.name
    conflicts = (
        f"""  - name: {n}__conflicts
    description: >
      Conflicting keys of merge {n}: key, conflict_type (update_update, update_delete,
      delete_update, insert_insert), in_base / in_ours / in_theirs, and base__ / ours__ / theirs__
      values of every merged column. The merged table keeps ours for these keys.
"""
        if opts.materialize_conflicts
        else ""
    )
    return f"""version: 2

# table_diff merge '{n}': base {opts.base}, ours {opts.ours}, theirs {opts.theirs},
# key {", ".join(opts.primary_key)}.
models:
  - name: {n}__merge_schema
    description: >
      Schema phase of merge {n}: one row per column with its type on each side, the status
      (unchanged, added_*, dropped_*, type_changed_*, type_conflict), the merged type, and
      schema_conflict / reason. A conflict fails the build unless on_schema_conflict is 'report'.
    columns:
      - name: position
        description: Position of the column (base order, then columns added on a side).
      - name: column_name
        description: The column.
      - name: status
        description: unchanged, added_*, dropped_*, type_changed_* or type_conflict.
      - name: base_type
        description: Type in base (NULL when absent).
      - name: ours_type
        description: Type in ours (NULL when absent).
      - name: theirs_type
        description: Type in theirs (NULL when absent).
      - name: merged_type
        description: Type of the column in the merged table (NULL when dropped or in conflict).
      - name: reason
        description: Why a schema conflict is one (NULL otherwise).
      - name: schema_conflict
        description: True when the column's changes conflict.
  - name: {n}__merge_candidates
    description: >
      Rows of merge {n} from the hash leaves whose signatures differ between base and ours or base
      and theirs: key, presence flags, changed-column arrays and base__ / ours__ / theirs__ values.
      Unchanged leaves are never fetched.
  - name: {n}__merge
    description: >
      One row per changed key of merge {n}: merge_status (ours_only, theirs_only, convergent,
      cell_merged, conflict), conflict_type, and ours_changed / theirs_changed (columns changed
      from base, table order; all columns for an insert or a delete).
    data_tests:
      # Fails (as a warning; set severity: error to fail the build) on every conflicting key and
      # every schema conflict of the merge.
      - table_diff.no_merge_conflicts:
          name: {n}__no_merge_conflicts
          arguments:
            merge_schema: ref('{n}__merge_schema')
          config:
            severity: warn
    columns:
      - name: merge_status
        description: ours_only, theirs_only, convergent, cell_merged or conflict.
      - name: conflict_type
        description: update_update, update_delete, delete_update or insert_insert; NULL otherwise.
      - name: ours_changed
        description: Columns ours changed from base, in table order.
      - name: theirs_changed
        description: Columns theirs changed from base, in table order.
  - name: {n}__merged
    description: >
      The merged table of merge {n}: ours rows of unchanged keys plus the resolved changed keys
      (clean merges applied, conflicts keep ours), over the key and the merged columns. Empty when
      a schema conflict was reported.
{conflicts}  - name: {n}__merge_violations
    description: >
      Rows of {n}__merged that break a constraint ({"; ".join(opts.constraints) or "none given"}),
      a NULL key component ('key not null') or key uniqueness ('unique key').
    columns:
      - name: violation
        description: The constraint the row breaks ('key not null', 'unique key' or a --constraint).
  - name: {n}__merge_summary
    description: >
      One-row summary of merge {n}: keys checked, counts per merge status and conflict type,
      duplicate keys, schema conflicts, constraint violations, is_clean.
    columns:
      - name: keys_checked
        description: Keys whose rows were read in full (those of changed leaves).
      - name: unchanged
        description: Checked keys that no side changed.
      - name: ours_only
        description: Keys only ours changed (ours taken).
      - name: theirs_only
        description: Keys only theirs changed (theirs taken).
      - name: convergent
        description: Keys both sides changed the same way.
      - name: cell_merged
        description: Keys both sides changed in different cells (merged cell by cell).
      - name: conflict
        description: Conflicting keys (ours kept).
      - name: update_update
        description: Conflicts where both sides changed the same cell differently.
      - name: update_delete
        description: Conflicts where ours updated and theirs deleted.
      - name: delete_update
        description: Conflicts where ours deleted and theirs updated.
      - name: insert_insert
        description: Conflicts where both sides inserted the key with different values.
      - name: duplicate_keys
        description: Keys stored more than once on a side.
      - name: changed_keys
        description: Keys changed on either side.
      - name: schema_conflicts
        description: Columns in schema conflict.
      - name: schema_conflict_columns
        description: Names of the columns in schema conflict.
      - name: constraint_violations
        description: Rows of the merged table that break a constraint.
      - name: constraints
        description: The constraints checked.
      - name: is_clean
        description: True when no conflict, schema conflict or violation was found.
"""


def write_merge(opts: MergeOptions, directory: Path, *, force: bool = False) -> list[Path]:
    """Write the merge's files into ``directory``; refuse to overwrite unless ``force``."""
    return write_files(render_merge(opts), directory, force=force)
