"""The classification of a three-way merge as a Python model (ADR 0040), and its conflict
resolution policies.

``classify`` reads the merge's candidates model (``table_diff.merge_candidates``) and returns its
rows with ``merge_status``, ``conflict_type`` and ``td_merged_from``: the columns the SQL
classification ``_merge_classified`` (macros/merge/_merge_outputs.sql) adds, by the same rules
(docs/semantics.md, "Three-way merge"), as Spark expressions. The output macros read either: given
this model they take its columns as they are. Without policies the rows are the SQL path's.

With ``resolve`` (column -> policy), a conflicting cell of a column with a policy is resolved:

* ``'ours'`` / ``'theirs'``: that side's value, NULL included;
* ``'max'`` / ``'min'``: the larger / smaller of ours and theirs in Spark's order of the column's
  type (NaN above every number), a NULL ignored;
* ``{'latest': COLUMN}``: the value of the side whose COLUMN (a merged, orderable column) is
  larger; a NULL or equal COLUMN on either side leaves the cell unresolved;
* ``{'python': 'pkg.module.function'}``: ``function(base, ours, theirs)`` called on the driver
  with the cell's values (``base`` is None when the key is not in base), its return the value.

Only the cells of an ``update_update`` conflict (changed on both sides to different values) or an
``insert_insert`` one (different on the two sides) are resolved; a key whose every conflicting
cell is resolved gets ``merge_status = 'resolved'`` (its ``conflict_type`` kept), and the merged
row takes the chosen values over the cell-wise merge. A key with one cell left unresolved stays a
``conflict`` (ours kept whole). ``update_delete`` and ``delete_update`` are rows, not cells: no
policy resolves them. Resolved keys carry ``td_resolutions`` (one struct per resolved cell:
column_name, policy, base / ours / theirs / chosen as strings) and ``resolved__<col>`` (the chosen
value in the column's type) for each column with a policy.

Everything runs in Spark except a ``python`` policy: the cells it resolves (and only those) are
collected to the driver, resolved there and joined back.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

BUILTIN_POLICIES = ("ours", "theirs", "max", "min")
ARG_POLICIES = ("latest", "python")
# Spark types max / min / latest cannot order.
_UNORDERED = ("array", "map", "struct", "variant")
RESOLUTION_TYPE = (
    "array<struct<column_name: string, policy: string, base: string, ours: string, "
    "theirs: string, chosen: string>>"
)
_FLAGS = ("td_in_base", "td_in_ours", "td_in_theirs", "td_duplicate_key")


class PolicyError(ValueError):
    """A resolution policy that cannot apply; the message names the merge, column and fix."""


@dataclass(frozen=True)
class Policy:
    column: str
    kind: str  # ours, theirs, max, min, latest, python
    arg: str | None = None  # latest: the ordering column; python: the dotted path

    @property
    def label(self) -> str:
        """How ``td_resolutions.policy`` and the CLI spell it: ``max``, ``latest:updated_at``."""
        return f"{self.kind}:{self.arg}" if self.arg else self.kind


def _fix() -> str:
    return (
        "Give a policy as 'ours', 'theirs', 'max', 'min', {'latest': 'ORDER_COLUMN'} or "
        "{'python': 'package.module.function'}."
    )


def parse_policies(merge: str, resolve: Mapping[str, Any] | None) -> tuple[Policy, ...]:
    """``{'amount': 'max', 'price': {'latest': 'updated_at'}}`` -> policies; a bad shape raises
    :class:`PolicyError` naming the merge, the column and the fix."""
    if resolve is None:
        return ()
    if not isinstance(resolve, Mapping):
        raise PolicyError(
            f"merge '{merge}': invalid resolve {resolve!r}. Expected a mapping of column to "
            f"policy, e.g. {{'amount': 'max'}}. {_fix()}"
        )
    out: list[Policy] = []
    seen: set[str] = set()
    for column, policy in resolve.items():
        where = f"merge '{merge}': invalid resolve policy for column '{column}'"
        if not isinstance(column, str) or not column.strip():
            raise PolicyError(f"merge '{merge}': invalid resolve column {column!r}. {_fix()}")
        if column.lower() in seen:
            raise PolicyError(f"{where}: the column has a policy already. Keep one.")
        seen.add(column.lower())
        if isinstance(policy, str) and policy in BUILTIN_POLICIES:
            out.append(Policy(column, policy))
            continue
        if isinstance(policy, Mapping) and len(policy) == 1:
            ((kind, arg),) = policy.items()
            if kind in ARG_POLICIES and isinstance(arg, str) and arg.strip():
                if kind == "python" and not _is_dotted(arg):
                    raise PolicyError(
                        f"{where}: {{'python': {arg!r}}}. Expected a dotted import path of a "
                        "function, 'package.module.function'."
                    )
                out.append(Policy(column, kind, arg.strip()))
                continue
        raise PolicyError(f"{where}: {policy!r}. {_fix()}")
    return tuple(out)


def _is_dotted(path: str) -> bool:
    parts = path.strip().split(".")
    return len(parts) >= 2 and all(p.isidentifier() for p in parts)


def load_function(merge: str, policy: Policy) -> Callable[..., Any]:
    """The function of a ``python`` policy, imported on the driver."""
    module_name, _, attr = policy.arg.rpartition(".")
    where = (
        f"merge '{merge}': resolve policy {{'python': '{policy.arg}'}} of column '{policy.column}'"
    )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PolicyError(
            f"{where}: cannot import module '{module_name}' on the driver ({exc}). Install it "
            "where dbt runs (or put it on PYTHONPATH), or fix the dotted path."
        ) from exc
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise PolicyError(
            f"{where}: module '{module_name}' has no function '{attr}'. Fix the dotted path: "
            "the function is called as f(base, ours, theirs)."
        )
    return fn


@dataclass(frozen=True)
class _Layout:
    key: list[str]
    columns: list[str]  # merged columns, the names after ``ours__``
    types: dict[str, Any]  # candidate column -> Spark DataType


def _layout(candidates) -> _Layout:
    names = candidates.columns
    lower = [n.lower() for n in names]
    missing = [
        c
        for c in (*_FLAGS, "ours_changed", "theirs_changed", "ours_theirs_differ")
        if c not in lower
    ]
    if missing or lower.index("td_in_base") == 0:
        raise ValueError(
            "table_diff merge classification: invalid candidates. Expected the table "
            "table_diff.merge_candidates builds (key columns, then td_in_base, ...); it lacks "
            f"{', '.join(missing) or 'key columns'}. Pass dbt.ref('<merge>__merge_candidates')."
        )
    key = names[: lower.index("td_in_base")]
    columns = [n[6:] for n in names if n.lower().startswith("ours__")]
    types = {f.name: f.dataType for f in candidates.schema.fields}
    return _Layout(key, columns, types)


def _check_policies(merge: str, policies: tuple[Policy, ...], layout: _Layout) -> tuple:
    """Policies with column names as the candidates spell them; unknown, key or unorderable
    columns raise :class:`PolicyError` before any data is read."""
    by_lower = {c.lower(): c for c in layout.columns}
    keys = {k.lower() for k in layout.key}
    merged = ", ".join(layout.columns) or "none"

    def column(name: str, what: str, policy: Policy) -> str:
        where = f"merge '{merge}': resolve policy '{policy.label}' of column '{policy.column}'"
        if name.lower() in keys:
            raise PolicyError(
                f"{where}: {what} '{name}' is a key column. Keys never conflict; name a merged "
                f"column ({merged})."
            )
        if name.lower() not in by_lower:
            raise PolicyError(
                f"{where}: {what} '{name}' is not a merged column of the candidates ({merged}). "
                "Fix the name, or drop the policy."
            )
        return by_lower[name.lower()]

    out = []
    for p in policies:
        col = column(p.column, "column", p)
        arg = column(p.arg, "ordering column", p) if p.kind == "latest" else p.arg
        for checked in [col] if p.kind in ("max", "min") else [arg] if p.kind == "latest" else []:
            type_name = layout.types[f"ours__{checked}"].simpleString()
            if type_name.split("<")[0] in _UNORDERED:
                raise PolicyError(
                    f"merge '{merge}': resolve policy '{p.label}' of column '{p.column}': "
                    f"column '{checked}' is {type_name}, which Spark cannot order. Use ours, "
                    "theirs or a python policy for it."
                )
        out.append(Policy(col, p.kind, arg))
    return tuple(out)


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _lit(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# The status rules of `_merge_classified` (macros/merge/_merge_outputs.sql), as one expression.
STATUS_SQL = """case
  when td_duplicate_key then 'duplicate_key'
  when td_in_base and td_in_ours and td_in_theirs then case
    when size(ours_changed) = 0 and size(theirs_changed) = 0 then 'unchanged'
    when size(theirs_changed) = 0 then 'ours_only'
    when size(ours_changed) = 0 then 'theirs_only'
    when size(ours_theirs_differ) = 0 then 'convergent'
    when exists(ours_changed, c -> array_contains(theirs_changed, c)
                and array_contains(ours_theirs_differ, c)) then 'conflict'
    else 'cell_merged' end
  when td_in_base and not td_in_ours and not td_in_theirs then 'convergent'
  when td_in_base and td_in_ours then if(size(ours_changed) = 0, 'theirs_only', 'conflict')
  when td_in_base and td_in_theirs then if(size(theirs_changed) = 0, 'ours_only', 'conflict')
  when td_in_ours and td_in_theirs then if(size(ours_theirs_differ) = 0, 'convergent', 'conflict')
  when td_in_ours then 'ours_only'
  else 'theirs_only' end"""

CONFLICT_TYPE_SQL = """case when merge_status != 'conflict' then cast(null as string)
  when td_in_base and td_in_ours and td_in_theirs then 'update_update'
  when td_in_base and td_in_ours then 'update_delete'
  when td_in_base then 'delete_update'
  else 'insert_insert' end"""

MERGED_FROM_SQL = """case
  when merge_status = 'theirs_only' then if(td_in_theirs, 'theirs', null)
  when merge_status = 'cell_merged' then 'cells'
  else if(td_in_ours, 'ours', null) end"""

# The cells in conflict of a key: changed on both sides to different values (update_update), or
# different on the two sides (insert_insert).
_CONFLICT_CELLS = """case conflict_type
  when 'update_update' then filter(ours_changed, c -> array_contains(theirs_changed, c)
                                   and array_contains(ours_theirs_differ, c))
  when 'insert_insert' then ours_theirs_differ
  else cast(array() as array<string>) end"""


def _resolves(p: Policy) -> str:
    """SQL: does policy `p` give the cell a value (NULL or equal `latest` ordering: no)."""
    if p.kind == "latest":
        o, t = _q(f"ours__{p.arg}"), _q(f"theirs__{p.arg}")
        return f"({o} is not null and {t} is not null and {o} != {t})"
    return "true"


def _value(p: Policy) -> str:
    """SQL: the value policy `p` chooses for its column's cell."""
    o, t = _q(f"ours__{p.column}"), _q(f"theirs__{p.column}")
    if p.kind == "ours":
        return o
    if p.kind == "theirs":
        return t
    if p.kind in ("max", "min"):
        return f"{'greatest' if p.kind == 'max' else 'least'}({o}, {t})"
    if p.kind == "latest":
        lo, lt = _q(f"ours__{p.arg}"), _q(f"theirs__{p.arg}")
        return f"if({lo} > {lt}, {o}, {t})"
    return _q(f"td_fn__{p.column}")


def _per_column(policies: tuple[Policy, ...], expr: Callable[[Policy], str], other: str) -> str:
    whens = " ".join(f"when {_lit(p.column)} then {expr(p)}" for p in policies)
    return f"case c {whens} else {other} end"


def classify(session, candidates, *, merge: str, resolve: Mapping[str, Any] | None = None):
    """The candidates' rows with merge_status, conflict_type, td_merged_from (and, with
    policies, td_resolutions and resolved__<col>): the merge's classified model."""
    from pyspark.sql import functions as F

    policies = parse_policies(merge, resolve)
    layout = _layout(candidates)
    policies = _check_policies(merge, policies, layout)
    functions = {p.column: load_function(merge, p) for p in policies if p.kind == "python"}

    out = candidates.withColumn("merge_status", F.expr(STATUS_SQL))
    out = out.withColumn("conflict_type", F.expr(CONFLICT_TYPE_SQL))
    if not policies:
        return out.withColumn("td_merged_from", F.expr(MERGED_FROM_SQL))

    base_columns = candidates.columns
    out = out.withColumn("td_conflict_cells", F.expr(_CONFLICT_CELLS))
    if functions:
        out = _join_function_values(session, out, layout, policies, functions, merge)
    resolvable = _per_column(policies, _resolves, "false")
    out = out.withColumn(
        "td_is_resolved",
        F.expr(
            "merge_status = 'conflict' and size(td_conflict_cells) > 0 and "
            f"forall(td_conflict_cells, c -> {resolvable})"
        ),
    )
    resolved_cols = [
        F.expr(
            f"if(td_is_resolved and array_contains(td_conflict_cells, {_lit(p.column)}), "
            f"{_value(p)}, null)"
        )
        .cast(layout.types[f"ours__{p.column}"])
        .alias(f"resolved__{p.column}")
        for p in policies
    ]
    out = out.select("*", *resolved_cols)

    def as_text(prefix: str):
        return lambda p: f"cast({_q(prefix + p.column)} as string)"

    record = (
        "named_struct('column_name', c, "
        f"'policy', {_per_column(policies, lambda p: _lit(p.label), 'null')}, "
        f"'base', {_per_column(policies, as_text('base__'), 'null')}, "
        f"'ours', {_per_column(policies, as_text('ours__'), 'null')}, "
        f"'theirs', {_per_column(policies, as_text('theirs__'), 'null')}, "
        f"'chosen', {_per_column(policies, as_text('resolved__'), 'null')})"
    )
    return out.select(
        *[_q(c) for c in base_columns],
        F.expr("if(td_is_resolved, 'resolved', merge_status)").alias("merge_status"),
        F.col("conflict_type"),
        F.expr(f"if(td_is_resolved, 'resolved', {MERGED_FROM_SQL})").alias("td_merged_from"),
        F.expr(
            f"if(td_is_resolved, transform(td_conflict_cells, c -> {record}), "
            f"cast(array() as {RESOLUTION_TYPE}))"
        )
        .cast(RESOLUTION_TYPE)
        .alias("td_resolutions"),
        *[_q(f"resolved__{p.column}") for p in policies],
    )


def _join_function_values(session, out, layout: _Layout, policies, functions, merge: str):
    """Call each ``python`` policy's function on the driver for the cells it may resolve (conflict
    cells of its column, in keys whose every other conflicting cell has a policy), and join the
    values back as ``td_fn__<col>``."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType

    covered = _per_column(policies, lambda p: "true", "false")
    cols = list(functions)
    needs = " or ".join(f"array_contains(td_conflict_cells, {_lit(c)})" for c in cols)
    wanted = out.where(
        f"merge_status = 'conflict' and ({needs}) and forall(td_conflict_cells, c -> {covered})"
    )
    fields = [*layout.key, "td_in_base", "td_conflict_cells"] + [
        f"{s}__{c}" for c in cols for s in ("base", "ours", "theirs")
    ]
    rows = []
    for r in wanted.select(*[_q(f) for f in fields]).toLocalIterator():
        values = []
        for c in cols:
            if c not in r["td_conflict_cells"]:
                values.append(None)
                continue
            base = r[f"base__{c}"] if r["td_in_base"] else None
            try:
                values.append(functions[c](base, r[f"ours__{c}"], r[f"theirs__{c}"]))
            except Exception as exc:
                key = {k: r[k] for k in layout.key}
                raise PolicyError(
                    f"merge '{merge}': resolve policy {{'python': '{_policy_arg(policies, c)}'}} "
                    f"of column '{c}' raised {type(exc).__name__}: {exc} (key {key}). Fix the "
                    "function, or resolve the column by another policy."
                ) from exc
        rows.append([r[k] for k in layout.key] + values)
    key_alias = [f"td_fk{i}" for i in range(len(layout.key))]
    schema = StructType(
        [StructField(a, layout.types[k]) for a, k in zip(key_alias, layout.key, strict=True)]
        + [StructField(f"td_fn__{c}", layout.types[f"ours__{c}"]) for c in cols]
    )
    try:
        values = session.createDataFrame(rows, schema, verifySchema=True)
    except (TypeError, ValueError) as exc:
        raise PolicyError(
            f"merge '{merge}': a python resolve policy of column(s) {', '.join(cols)} returned a "
            f"value that does not fit the column's type ({exc}). Return a value of the column's "
            "type (or None)."
        ) from exc
    on = [F.col(_q(k)).eqNullSafe(F.col(a)) for k, a in zip(layout.key, key_alias, strict=True)]
    return out.join(F.broadcast(values), on, "left").drop(*key_alias)


def _policy_arg(policies, column: str) -> str:
    return next(p.arg for p in policies if p.column == column)
