"""Three-way merge classification (Dolt's cell-wise semantics) over ``merge_candidates`` rows.

``table_diff.merge_candidates`` fetches, from the leaves whose signatures differ between base and
ours or base and theirs, one row per key with presence flags (``td_in_base`` / ``td_in_ours`` /
``td_in_theirs``), the changed-column arrays computed in SQL after normalisation
(``ours_changed``, ``theirs_changed``, ``ours_theirs_differ``) and ``base__`` / ``ours__`` /
``theirs__`` values of every merged column. Everything here is pure PySpark on that DataFrame:
one ``select`` classifies every key, one more projects each output; no per-column loop of
``withColumn``, no SparkSession built.

Per key (O / T = ours_changed / theirs_changed, D = ours_theirs_differ):

====================  =========================  ===========================
base / ours / theirs  merge_status (conflict)    merged row
====================  =========================  ===========================
r / r / r             unchanged                  r (not listed in ``merge``)
r / r / t             theirs_only                t
r / o / r             ours_only                  o
r / x / x             convergent                 x (ours)
r / - / -             convergent                 absent
r / o / t, O&T agree  cell_merged                base + ours' O + theirs' T
r / o / t, O&T&D      conflict (update_update)   ours
r / o / -  (O)        conflict (update_delete)   ours
r / r / -             theirs_only (delete)       absent
r / - / t  (T)        conflict (delete_update)   absent (ours)
r / - / r             ours_only (delete)         absent
- / o / -, - / - / t  ours_only / theirs_only    o / t
- / o / t             convergent / insert_insert o (ours)
====================  =========================  ===========================

Reads: ``merge`` and ``conflicts`` read the candidates once each. ``merged`` reads the candidates
once and ours once in full: the merged table is (ours rows whose key is not a candidate) union all
(resolved candidate rows), so unchanged rows are copied from ours and never joined to base or
theirs. Keys stored more than once on a side are not classified: their ours rows are copied as
they are, and the key-uniqueness check of :func:`constraint_violations` reports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FLAG_COLUMNS = ("td_in_base", "td_in_ours", "td_in_theirs", "td_duplicate_key")
ARRAY_COLUMNS = ("ours_changed", "theirs_changed", "ours_theirs_differ")
MERGE_STATUSES = ("unchanged", "ours_only", "theirs_only", "convergent", "cell_merged", "conflict")
CONFLICT_TYPES = ("update_update", "update_delete", "delete_update", "insert_insert")
SIDES = ("base", "ours", "theirs")


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _lit(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def candidate_layout(candidates) -> tuple[list[str], list[str]]:
    """(key columns, merged columns) of a candidates DataFrame, in table order.

    Key columns are the columns before ``td_in_base``; merged columns are the names after the
    ``ours__`` prefix. Raises ValueError naming what is missing when the frame is not candidates.
    """
    names = list(candidates.columns)
    missing = [c for c in (*FLAG_COLUMNS, *ARRAY_COLUMNS) if c not in names]
    if missing:
        raise ValueError(
            f"dbt_table_diff.merge: the candidates frame lacks column(s) {', '.join(missing)}. "
            "Pass the model built by table_diff.merge_candidates (ref('<name>__merge_candidates'))."
        )
    key = names[: names.index("td_in_base")]
    if not key:
        raise ValueError(
            "dbt_table_diff.merge: the candidates frame has no key columns before td_in_base."
        )
    columns = [n[len("ours__") :] for n in names if n.startswith("ours__")]
    for c in columns:
        for side in ("base", "theirs"):
            if f"{side}__{c}" not in names:
                raise ValueError(
                    f"dbt_table_diff.merge: the candidates frame lacks column {side}__{c}."
                )
    return key, columns


_STATUS_SQL = """case
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

_CONFLICT_SQL = """case when merge_status != 'conflict' then cast(null as string)
  when td_in_base and td_in_ours and td_in_theirs then 'update_update'
  when td_in_base and td_in_ours then 'update_delete'
  when td_in_base then 'delete_update'
  else 'insert_insert' end"""

# Where the merged row comes from: 'ours', 'theirs', 'cells' (cell_merged) or NULL (absent).
_SOURCE_SQL = """case
  when merge_status = 'theirs_only' then if(td_in_theirs, 'theirs', null)
  when merge_status = 'cell_merged' then 'cells'
  else if(td_in_ours, 'ours', null) end"""


def classify(session, candidates):
    """Candidates plus ``merge_status``, ``conflict_type`` and ``td_merged_from`` (one select each).

    ``merge_status`` is one of :data:`MERGE_STATUSES` or ``duplicate_key`` for keys stored more than
    once on a side (set apart, never classified).
    """
    del session  # pure DataFrame code; the parameter keeps the signature uniform
    candidate_layout(candidates)
    with_status = candidates.selectExpr("*", f"{_STATUS_SQL} as merge_status")
    return with_status.selectExpr(
        "*", f"{_CONFLICT_SQL} as conflict_type", f"{_SOURCE_SQL} as td_merged_from"
    )


def merge_rows(session, candidates):
    """``<name>__merge``: one row per changed key (unchanged and duplicate keys left out).

    Columns: key columns, merge_status, conflict_type, ours_changed, theirs_changed.
    """
    key, _ = candidate_layout(candidates)
    c = classify(session, candidates)
    return c.where("merge_status not in ('unchanged', 'duplicate_key')").selectExpr(
        *[_q(k) for k in key], "merge_status", "conflict_type", "ours_changed", "theirs_changed"
    )


def conflict_rows(session, candidates):
    """``<name>__conflicts``: key, conflict_type and base__/ours__/theirs__ of every column."""
    key, columns = candidate_layout(candidates)
    c = classify(session, candidates)
    values = [_q(f"{side}__{col}") for col in columns for side in SIDES]
    return c.where("merge_status = 'conflict'").selectExpr(
        *[_q(k) for k in key],
        "conflict_type",
        "td_in_base as in_base",
        "td_in_ours as in_ours",
        "td_in_theirs as in_theirs",
        *values,
    )


def _resolved_value(col: str) -> str:
    """SQL for a merged cell of a classified candidate row."""
    o, t, b = (_q(f"{side}__{col}") for side in ("ours", "theirs", "base"))
    name = _lit(col)
    return (
        f"case when td_merged_from = 'theirs' then {t} when td_merged_from = 'ours' then {o} "
        f"when array_contains(theirs_changed, {name}) then {t} "
        f"when array_contains(ours_changed, {name}) then {o} else {b} end as {_q(col)}"
    )


def merged_rows(
    session,
    candidates,
    ours,
    *,
    schema=None,
    table_filter: str | None = None,
):
    """``<name>__merged``: the merged table over the key and the merged columns.

    = (ours rows, after ``table_filter``, whose key is not a classified candidate, cast to the
    merged types; columns ours lacks are NULL) union all (resolved candidate rows). Conflicting keys
    keep ours. With a schema conflict in ``schema`` (the ``merge_schema_table`` model, on_schema_
    conflict='report') no data is merged: the result is empty.
    """
    from pyspark.sql import functions as F

    key, columns = candidate_layout(candidates)
    types = {f.name: f.dataType for f in candidates.schema.fields}
    c = classify(session, candidates)
    resolved = c.where("td_merged_from is not null").selectExpr(
        *[_q(k) for k in key], *[_resolved_value(col) for col in columns]
    )
    if schema is not None and schema.where("schema_conflict").limit(1).count() > 0:
        return resolved.where("false")

    rows = ours.alias("o")
    if table_filter:
        # On lines of its own, as the macros splice it: a trailing `-- comment` ends there.
        rows = rows.where(f"true and (\n{table_filter}\n)")
    ours_names = {n.lower(): n for n in rows.columns}
    for k in key:
        if k.lower() not in ours_names:
            raise ValueError(f"dbt_table_diff.merge: ours lacks key column '{k}'.")
    cand_keys = (
        c.where("merge_status != 'duplicate_key'")
        .selectExpr(*[f"{_q(k)} as {_q('__td_ck' + str(i))}" for i, k in enumerate(key)])
        .alias("c")
    )
    cond = None
    for i, k in enumerate(key):
        part = (
            F.col("o." + _q(ours_names[k.lower()]))
            .cast(types[k])
            .eqNullSafe(F.col("c." + _q(f"__td_ck{i}")))
        )
        cond = part if cond is None else cond & part
    kept = rows.join(cand_keys, on=cond, how="left_anti")
    projection = [F.col(_q(ours_names[k.lower()])).cast(types[k]).alias(k) for k in key]
    for col in columns:
        dtype = types[f"ours__{col}"]
        if col.lower() in ours_names:
            projection.append(F.col(_q(ours_names[col.lower()])).cast(dtype).alias(col))
        else:
            projection.append(F.lit(None).cast(dtype).alias(col))
    return kept.select(*projection).unionByName(resolved)


def constraint_violations(
    session,
    merged,
    key: Sequence[str],
    constraints: Sequence[str] = (),
):
    """Rows of ``merged`` that break a constraint: key columns, ``violation`` (the expression).

    ``constraints`` are SQL boolean expressions over the merged columns; like SQL CHECK, a row
    violates one when it evaluates to false (NULL passes). The key must also stay unique
    (``violation = 'unique key'``, one row per stored row) and non-NULL (``'key not null'``).
    Reads ``merged`` twice (the row checks and the per-key count).
    """
    del session
    key = list(key)
    if not key:
        raise ValueError("dbt_table_diff.merge: constraint_violations needs the key columns.")
    for e in constraints:
        if not isinstance(e, str) or not e.strip():
            raise ValueError(
                f"dbt_table_diff.merge: invalid constraint {e!r}. Expected a SQL boolean "
                "expression as a non-empty string, e.g. 'amount >= 0'."
            )
    keys = [_q(k) for k in key]
    checks = [f"if(({' or '.join(k + ' is null' for k in keys)}), 'key not null', null)"]
    checks += [f"if(coalesce(not ({e}), false), {_lit(e)}, null)" for e in constraints]
    row_level = merged.selectExpr(
        *keys, f"explode(filter(array({', '.join(checks)}), x -> x is not null)) as violation"
    )
    counted = merged.selectExpr(*keys, f"count(*) over (partition by {', '.join(keys)}) as __td_n")
    unique = counted.where("__td_n > 1").selectExpr(*keys, "'unique key' as violation")
    return row_level.unionByName(unique)


def merge_summary(
    session,
    candidates,
    *,
    schema=None,
    violations=None,
    constraints: Sequence[str] = (),
):
    """``<name>__merge_summary``: one row of counts from the candidates (no conflicts table).

    Columns: keys_checked (keys whose rows were read in full: those of the changed leaves, or
    with dense changes only the changed keys, so ``unchanged`` counts only the unchanged keys
    that shared a leaf with a change), one count per merge status and conflict
    type, duplicate_keys, changed_keys, schema_conflicts and schema_conflict_columns (from the
    ``merge_schema_table`` model), constraint_violations (from the violations model, else NULL),
    constraints, is_clean (no conflict of any kind).
    """
    from pyspark.sql import functions as F

    c = classify(session, candidates)
    aggs = [F.count(F.lit(1)).cast("bigint").alias("keys_checked")]
    aggs += [
        F.count(F.when(F.col("merge_status") == s, 1)).cast("bigint").alias(s)
        for s in MERGE_STATUSES
    ]
    aggs += [
        F.count(F.when(F.col("conflict_type") == t, 1)).cast("bigint").alias(t)
        for t in CONFLICT_TYPES
    ]
    aggs.append(
        F.count(F.when(F.col("merge_status") == "duplicate_key", 1))
        .cast("bigint")
        .alias("duplicate_keys")
    )
    row = c.agg(*aggs).collect()[0].asDict()
    conflict_cols: list[str] = []
    if schema is not None:
        conflict_cols = [
            r["column_name"]
            for r in schema.where("schema_conflict")
            .orderBy("position")
            .select("column_name")
            .collect()
        ]
    n_violations = None if violations is None else violations.count()
    changed = sum(row[s] for s in MERGE_STATUSES if s != "unchanged")
    out: dict[str, Any] = {
        **row,
        "changed_keys": changed,
        "schema_conflicts": len(conflict_cols),
        "schema_conflict_columns": conflict_cols,
        "constraint_violations": n_violations,
        "constraints": list(constraints),
    }
    out["is_clean"] = (
        out["conflict"] == 0
        and out["duplicate_keys"] == 0
        and not conflict_cols
        and not (n_violations or 0)
    )
    fields = (
        "keys_checked bigint, "
        + ", ".join(f"{s} bigint" for s in MERGE_STATUSES)
        + ", "
        + ", ".join(f"{t} bigint" for t in CONFLICT_TYPES)
        + ", duplicate_keys bigint, changed_keys bigint, schema_conflicts int, "
        "schema_conflict_columns array<string>, constraint_violations bigint, "
        "constraints array<string>, is_clean boolean"
    )
    names = [f.strip().split(" ")[0] for f in fields.split(", ")]
    return session.createDataFrame([tuple(out[n] for n in names)], fields)
