"""Brute-force oracle for NESTED columns (array, struct, map, variant): equality and changed_paths.

Plain Python, written from the contract alone (no SQL, no code shared with the package), like
``oracle.py`` for flat columns. It states what a pair's ``NAME__row_diff`` must hold for tables
whose compared columns may be nested to any depth:

Types and values
----------------
A column type is a :class:`Scalar` (``'int'``, ``'decimal(10,2)'``, ...), :class:`Array`,
:class:`Struct` (fields by position), :class:`Map` (scalar keys) or :class:`Variant`. Python values:
NULL is ``None`` at every depth; an array is a ``list``; a struct a ``tuple`` of its field values;
a map an :class:`NMap` (entries in *insertion order*, which the oracle ignores and the test
writes as is); a variant its JSON text; scalars as in ``strategies.py`` (naive UTC timestamps).

Equality (:func:`values_equal`)
-------------------------------
* arrays ordered, element by element; struct fields by position; maps as sets of entries
  (insertion order is no difference);
* NULL element, NULL field, NULL map value, empty collection and NULL collection are all distinct
  from one another (NULL equals only NULL);
* scalars with the flat rules: ``-0.0`` equals ``0.0``, NaN equals NaN (whatever its payload),
  decimals by value, timestamps exact to the microsecond, strings and binaries exact;
* a variant by its JSON value (objects unordered, numbers by value). The test's variant values
  never put two texts of one JSON value on the two sides except as the same text, so only "same
  text is equal, another value differs" is asserted through it.

Paths (:func:`differing_paths`, :func:`changed_paths`)
------------------------------------------------------
The column name at the top; a struct field ``parent.field`` (the field in backticks unless it
matches ``[A-Za-z_][A-Za-z0-9_]*``); an array element ``parent[i]`` (0-based); a map entry
``parent['key']`` for string keys (``\\`` and ``'`` inside written ``\\\\`` and ``\\'``: one
Spark string literal, so no key's path is a prefix of another's), ``parent[key]`` for other key
types, ``key`` as Spark's ``cast(key as string)`` prints it.

What differs where: a NULL container against a non-NULL one differs at the container's path; two
non-NULL structs are compared field by field, arrays element by element (an index on one side
only: ``a[i]`` differs), maps entry by entry by key (a key on one side only, also with a NULL value
on that side: ``m['k']`` differs); leaves by value. Reported: the sorted (plain string sort),
distinct, *minimal* paths (none with a reported ancestor). ``changed_paths`` of a modified row:
column by column in table order, a flat column its own name, a nested column its paths; the whole
list cut to its first ``limit`` entries. Added, deleted and duplicate-key rows: empty.

Rows (:func:`brute_force_nested_diff`): keys are scalar and match null-safely; a key stored more
than once on either side gives one ``duplicate_key`` row per stored row on both sides (side
``source`` / ``target``); ``deleted`` (side ``source``) = only in the source, ``added`` (side
``target``) = only in the target, ``modified`` (side ``both``) = once on each side with a changed
column.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "Scalar",
    "Array",
    "Struct",
    "Map",
    "Variant",
    "NType",
    "NMap",
    "is_nested",
    "ddl",
    "values_equal",
    "differing_paths",
    "changed_paths",
    "render_path",
    "NestedDiff",
    "brute_force_nested_diff",
    "DEFAULT_PATHS_LIMIT",
]

DEFAULT_PATHS_LIMIT = 20
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------------------------------
# Types and values
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    name: str  # a Spark SQL type: 'int', 'bigint', 'double', 'decimal(10,2)', 'timestamp', ...


@dataclass(frozen=True)
class Array:
    element: NType


@dataclass(frozen=True)
class Struct:
    fields: tuple[tuple[str, NType], ...]


@dataclass(frozen=True)
class Map:
    key: Scalar
    value: NType


@dataclass(frozen=True)
class Variant:
    pass


NType = Scalar | Array | Struct | Map | Variant


@dataclass(frozen=True)
class NMap:
    """A map value: its entries in insertion order (keys distinct, never NULL)."""

    entries: tuple[tuple[Any, Any], ...]

    def __post_init__(self) -> None:
        keys = [_leaf_canon(k) for k, _ in self.entries]
        if len(set(keys)) != len(keys) or any(k is None for k, _ in self.entries):
            raise ValueError(f"map keys must be distinct and non-NULL: {self.entries!r}")

    def as_dict(self) -> dict:
        return {_leaf_canon(k): (k, v) for k, v in self.entries}


def is_nested(t: NType) -> bool:
    """True for array, struct, map and variant columns (their changes are reported as paths)."""
    return not isinstance(t, Scalar)


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def ddl(t: NType) -> str:
    """The Spark DDL of a type, field names quoted: ``array<struct<`x`:int>>``."""
    if isinstance(t, Scalar):
        return t.name
    if isinstance(t, Variant):
        return "variant"
    if isinstance(t, Array):
        return f"array<{ddl(t.element)}>"
    if isinstance(t, Map):
        return f"map<{ddl(t.key)},{ddl(t.value)}>"
    return "struct<" + ",".join(f"{_quote(n)}:{ddl(ft)}" for n, ft in t.fields) + ">"


# --------------------------------------------------------------------------------------------------
# Leaves
# --------------------------------------------------------------------------------------------------

_NULL = ("null",)
_NAN = ("nan",)


def _leaf_canon(v) -> Any:
    """Hashable form of a scalar; equal forms <=> equal by the flat rules."""
    if v is None:
        return _NULL
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, float):
        if math.isnan(v):
            return _NAN
        return ("num", v + 0.0 if v == 0 else v)  # -0.0 -> 0.0
    if isinstance(v, Decimal):
        if v.is_nan():
            return _NAN
        return ("num", v)  # Decimal compares and hashes by value
    if isinstance(v, int):
        return ("num", v)
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(v))
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return ("ts", v)
    if isinstance(v, _dt.date):
        return ("date", v)
    raise TypeError(f"not a scalar value: {v!r}")


def _json_canon(value) -> Any:
    if isinstance(value, dict):
        return ("obj", frozenset((k, _json_canon(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("arr", tuple(_json_canon(v) for v in value))
    if isinstance(value, bool) or value is None:
        return ("lit", value)
    if isinstance(value, (int, Decimal)):
        return ("num", Decimal(value))
    return ("str", value)


def _variant_canon(text: str) -> Any:
    return _json_canon(json.loads(text, parse_float=Decimal))


def _leaf_equal(t: NType, a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(t, Variant):
        return _variant_canon(a) == _variant_canon(b)
    return _leaf_canon(a) == _leaf_canon(b)


# --------------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------------
# A path is a tuple of steps below the column: ("field", name), ("index", i), ("key", type, key).


def _key_text(key_type: Scalar, key) -> str:
    """``cast(key as string)`` in Spark, for the map key types the test uses."""
    t = key_type.name.strip().lower()
    if t == "string":
        return "'" + key.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if t in ("int", "bigint", "smallint", "tinyint"):
        return str(int(key))
    if t == "date":
        return key.isoformat()
    if t.startswith("decimal"):
        return format(key, "f")  # plain notation at the value's own scale (the column's)
    if t == "boolean":
        return "true" if key else "false"
    raise ValueError(f"no cast-to-string rule for map key type {key_type.name!r}")


def render_path(column: str, steps: Sequence[tuple]) -> str:
    out = column
    for step in steps:
        if step[0] == "field":
            name = step[1]
            out += "." + (name if _IDENT.fullmatch(name) else _quote(name))
        elif step[0] == "index":
            out += f"[{step[1]}]"
        else:
            out += f"[{_key_text(step[1], step[2])}]"
    return out


def _walk(t: NType, a, b, steps: tuple, out: list[tuple]) -> None:
    """Append the steps of every minimal node where ``a`` and ``b`` differ."""
    if a is None or b is None:
        if not (a is None and b is None):
            out.append(steps)  # NULL vs a value (or a container): differs here, nowhere below
        return
    if isinstance(t, (Scalar, Variant)):
        if not _leaf_equal(t, a, b):
            out.append(steps)
        return
    if isinstance(t, Struct):
        if len(a) != len(t.fields) or len(b) != len(t.fields):
            raise ValueError(f"struct value of the wrong width for {ddl(t)}")
        for (name, ft), fa, fb in zip(t.fields, a, b, strict=True):
            _walk(ft, fa, fb, (*steps, ("field", name)), out)
        return
    if isinstance(t, Array):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                out.append((*steps, ("index", i)))  # an element on one side only
            else:
                _walk(t.element, a[i], b[i], (*steps, ("index", i)), out)
        return
    if isinstance(t, Map):
        da, db = a.as_dict(), b.as_dict()
        for canon in {**da, **db}:
            key = (da.get(canon) or db[canon])[0]
            step = (*steps, ("key", t.key, key))
            if canon not in da or canon not in db:
                out.append(step)  # a key on one side only (whatever its value, NULL too)
            else:
                _walk(t.value, da[canon][1], db[canon][1], step, out)
        return
    raise TypeError(f"unknown type {t!r}")


def _minimal(paths: list[tuple]) -> list[tuple]:
    """Drop every path that has an ancestor (a strict prefix) in ``paths``; drop repeats."""
    unique = list(dict.fromkeys(paths))
    found = set(unique)
    return [p for p in unique if not any(p[:n] in found for n in range(len(p)))]


def differing_paths(column: str, t: NType, a, b) -> list[str]:
    """Sorted, distinct, minimal paths (rendered) at which ``a`` and ``b`` differ; [] if equal."""
    out: list[tuple] = []
    _walk(t, a, b, (), out)
    return sorted({render_path(column, p) for p in _minimal(out)})


def values_equal(t: NType, a, b) -> bool:
    out: list[tuple] = []
    _walk(t, a, b, (), out)
    return not out


def changed_paths(
    columns: Sequence[tuple[str, NType]], source: Mapping, target: Mapping, limit: int
) -> tuple[list[str], list[str]]:
    """(changed_columns, changed_paths) of a key stored once on each side."""
    changed, paths = [], []
    for name, t in columns:
        diff = differing_paths(name, t, source[name], target[name])
        if not diff:
            continue
        changed.append(name)
        paths.extend([name] if not is_nested(t) else diff)
    return changed, paths[:limit]


# --------------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NestedDiff:
    """What the row diff and the summary of a pair must hold."""

    # (canonical key, diff_type, side, changed_columns, changed_paths) -> how many rows
    rows: Counter
    counts: dict
    # canonical key -> (source row or None, target row or None) of every key stored at most once
    # on each side (what the row diff's source__COL / target__COL must hold)
    rows_by_key: dict

    @property
    def is_identical(self) -> bool:
        return not self.rows


def canonical_key(values: Sequence) -> tuple:
    return tuple(_leaf_canon(v) for v in values)


def brute_force_nested_diff(
    source: Sequence[Mapping],
    target: Sequence[Mapping],
    key: Sequence[str],
    columns: Sequence[tuple[str, NType]],
    limit: int = DEFAULT_PATHS_LIMIT,
) -> NestedDiff:
    by_key: dict[tuple, dict[str, list]] = {}
    for side, rows in (("source", source), ("target", target)):
        for row in rows:
            k = canonical_key([row[c] for c in key])
            by_key.setdefault(k, {"source": [], "target": []})[side].append(row)
    out: Counter = Counter()
    rows_by_key = {}
    counts = dict.fromkeys(("added", "deleted", "modified", "duplicate_key_rows"), 0)
    for k, sides in by_key.items():
        src, tgt = sides["source"], sides["target"]
        if len(src) > 1 or len(tgt) > 1:
            for side, rows in (("source", src), ("target", tgt)):
                if rows:
                    out[(k, "duplicate_key", side, (), ())] += len(rows)
                    counts["duplicate_key_rows"] += len(rows)
            continue
        rows_by_key[k] = (src[0] if src else None, tgt[0] if tgt else None)
        if not tgt:
            out[(k, "deleted", "source", (), ())] += 1
            counts["deleted"] += 1
        elif not src:
            out[(k, "added", "target", (), ())] += 1
            counts["added"] += 1
        else:
            changed, paths = changed_paths(columns, src[0], tgt[0], limit)
            if changed:
                out[(k, "modified", "both", tuple(changed), tuple(paths))] += 1
                counts["modified"] += 1
    counts["rows_source"] = len(source)
    counts["rows_target"] = len(target)
    for side, rows in (("source", source), ("target", target)):
        counts[f"null_key_rows_{side}"] = sum(any(r[c] is None for c in key) for r in rows)
    return NestedDiff(out, counts, rows_by_key)
