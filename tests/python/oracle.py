"""Brute-force correctness oracle for table_diff: two-way diff and three-way merge.

This module is deliberately written in plain Python over lists of row dicts and
shares no code (and no Spark SQL) with the product. Its only job is to state the
semantics of DESIGN.md ("Semantics (decided)", "Row fingerprint",
"Three-way merge") as directly as possible, so that the SQL/Python pipeline can be
checked against it on hostile, randomly generated tables.

Value semantics (``values_equal`` / ``canonical_value``)
-------------------------------------------------------
* NULL (``None``) equals NULL and differs from every value, including ``''``,
  ``0``, ``b''``, ``False`` and NaN.
* Floats: NaN equals NaN; ``-0.0`` equals ``0.0``; otherwise ``==``.
* Decimals compare by numeric value (``Decimal('1.10') == Decimal('1.1')``).
  Numbers of different Python types compare by value (``1 == 1.0``), which is
  what comparing after a cast to a common type means; ``bool`` is *not* a number
  here (``True != 1``).
* ``bytes``/``bytearray``/``memoryview`` compare as bytes; str, date, datetime by
  ``==`` (a ``date`` never equals a ``datetime``); aware datetimes are converted
  to naive UTC first.
* Lists/tuples (arrays, structs, ``pyspark.sql.Row``) and dicts (maps)
  recursively with the same rules; maps compare as sets of entries (key order
  irrelevant).

``canonical_value`` maps a value to a hashable form such that
``canonical_value(a) == canonical_value(b)`` iff ``values_equal(a, b)``; keys are
matched on it (null-safe, NaN/-0.0 aware), so the oracle never relies on
``None == None`` or NaN identity.

Normalisation rules (``normalise_value``), applied to compared non-key columns only
---------------------------------------------------------------------------------
Rules are a dict; several may be combined; they are applied in the fixed order
trim -> lower -> round -> truncate. A rule that does not apply to the value's type
is ignored (e.g. ``trim`` on an int); an unknown rule name raises ``ValueError``.
NULL stays NULL.

* ``{"round": N}`` - Spark ``round(x, N)``: HALF_UP (ties away from zero).
  - ``Decimal``: ``quantize(10**-N, ROUND_HALF_UP)`` in a 100-digit context
    (exact, no 28-digit default-context truncation).
  - ``float``: like Spark, which rounds ``BigDecimal(Double.toString(x))``: the
    *shortest repr* of the double is rounded half-up as a decimal, then converted
    back to a double. So ``round(2.675, 2) == 2.68`` and ``round(1.005, 2) ==
    1.01`` (Python's builtin ``round`` gives 2.67 / 1.0 - deliberately not used).
    NaN and +-inf pass through unchanged; ``-0.0`` rounds to ``0.0`` as in Spark.
    Known theoretical divergence: JDK 17's ``Double.toString`` is occasionally not
    the shortest representation (JDK-4511638, fixed in JDK 19); this could only
    change a tie decision at the ~17th significant digit.
  - FLOAT (float32) columns: Spark rounds ``BigDecimal(f.toDouble)`` and casts the
    result back to float32. Pass ``spark_type="float"`` (or ``types=`` to
    ``brute_force_diff``) to get the float32 result; without it the double result
    is returned, which only differs in equality decisions when N exceeds ~7
    significant digits.
  - ints: N >= 0 is the identity; N < 0 rounds to tens/hundreds HALF_UP like
    Spark (``round(125, -1) == 130``, ``round(-125, -1) == -130``).
* ``{"truncate": unit}`` - ``date_trunc`` floor for timestamps (naive = UTC):
  unit in microsecond, millisecond, second, minute, hour, day, week (Monday),
  month, quarter, year. Dates are only changed by week/month/quarter/year.
* ``{"trim": True}`` - strip leading/trailing U+0020 spaces only, like Spark
  ``trim`` (tabs, NBSP, newlines are kept).
* ``{"lower": True}`` - ``str.lower`` (Unicode full lowercase incl. final sigma,
  matching Spark/Java ``toLowerCase`` on the cases checked: 'İ' -> 'i̇',
  'ΣΑΣ' -> 'σας'). Not ``casefold``: 'ß' stays 'ß'.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext

__all__ = [
    "NULL_MARKER",
    "canonical_value",
    "canonical_key",
    "values_equal",
    "normalise_value",
    "TwoWayDiff",
    "brute_force_diff",
    "MergeRow",
    "brute_force_merge",
    "merge_counts",
    "merged_table",
    "spark_order",
    "MERGE_STATUSES",
    "CONFLICT_TYPES",
]

# --------------------------------------------------------------------------------------
# Canonical values and equality
# --------------------------------------------------------------------------------------

NULL_MARKER = ("null",)
_NAN = ("num", "NaN")


def _to_naive_utc(value: _dt.datetime) -> _dt.datetime:
    if value.tzinfo is not None and value.utcoffset() is not None:
        return value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return value.replace(tzinfo=None)


def canonical_value(value) -> tuple:
    """Hashable, type-tagged form of ``value``; equal forms <=> ``values_equal``."""
    if value is None:
        return NULL_MARKER
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, Decimal):
        if value.is_nan():
            return _NAN
        # Decimal hashes/compares by value across scales and with int/float.
        return ("num", value)
    if isinstance(value, numbers.Number):
        if isinstance(value, numbers.Integral):
            return ("num", int(value))
        if isinstance(value, numbers.Real):
            f = float(value)
            if math.isnan(f):
                return _NAN
            return ("num", f + 0.0 if f == 0 else f)  # -0.0 -> 0.0 (also equal anyway)
        return ("num", value)  # complex etc.: plain ==
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(value))
    if isinstance(value, _dt.datetime):
        return ("ts", _to_naive_utc(value))
    if isinstance(value, _dt.date):
        return ("date", value)
    if isinstance(value, Mapping):
        entries = frozenset((canonical_value(k), canonical_value(v)) for k, v in value.items())
        return ("map", entries)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(canonical_value(v) for v in value))
    return ("other", value)


def canonical_key(key: Sequence) -> tuple:
    """Canonical (hashable, null-safe, NaN/-0.0 aware) form of a key tuple."""
    return tuple(canonical_value(v) for v in key)


def values_equal(a, b) -> bool:
    """NULL-safe, NaN/-0.0/decimal-scale aware equality (see module docstring)."""
    return canonical_value(a) == canonical_value(b)


# --------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------

_RULE_ORDER = ("trim", "lower", "round", "truncate")
_TRUNC_UNITS = (
    "microsecond",
    "millisecond",
    "second",
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "quarter",
    "year",
)


def _round_half_up_decimal(d: Decimal, n: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = max(100, d.adjusted() + n + 10)  # exact for every double / decimal(38,s)
        return d.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP)


def _to_float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _round_value(value, n: int, spark_type: str | None):
    if isinstance(value, bool):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            return value
        return _round_half_up_decimal(value, n)
    if isinstance(value, numbers.Integral):
        if n >= 0:
            return value
        return int(_round_half_up_decimal(Decimal(int(value)), n))
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            return value
        r = float(_round_half_up_decimal(Decimal(repr(f)), n))
        r = r + 0.0 if r == 0 else r  # Spark: BigDecimal has no negative zero
        if spark_type is not None and spark_type.strip().lower() in ("float", "real"):
            r = _to_float32(r)
        return r
    return value


def _truncate_value(value, unit: str):
    if unit not in _TRUNC_UNITS:
        raise ValueError(f"unknown truncate unit {unit!r}; expected one of {_TRUNC_UNITS}")
    if isinstance(value, _dt.datetime):
        v = _to_naive_utc(value)
        if unit == "microsecond":
            return v
        if unit == "millisecond":
            return v.replace(microsecond=v.microsecond - v.microsecond % 1000)
        if unit == "second":
            return v.replace(microsecond=0)
        if unit == "minute":
            return v.replace(second=0, microsecond=0)
        if unit == "hour":
            return v.replace(minute=0, second=0, microsecond=0)
        day = v.replace(hour=0, minute=0, second=0, microsecond=0)
        if unit == "day":
            return day
        return _dt.datetime.combine(_truncate_date(day.date(), unit), _dt.time())
    if isinstance(value, _dt.date):
        if unit in ("week", "month", "quarter", "year"):
            return _truncate_date(value, unit)
        return value
    return value


def _truncate_date(d: _dt.date, unit: str) -> _dt.date:
    if unit == "week":
        return d - _dt.timedelta(days=d.weekday())
    if unit == "month":
        return d.replace(day=1)
    if unit == "quarter":
        return d.replace(month=(d.month - 1) // 3 * 3 + 1, day=1)
    if unit == "year":
        return d.replace(month=1, day=1)
    return d


def normalise_value(value, rules: dict | None, *, spark_type: str | None = None) -> object:
    """Apply per-column normalisation ``rules`` to ``value`` (see module docstring).

    ``spark_type`` is optional and only used to return a float32 result when a FLOAT
    column is rounded.
    """
    if value is None or not rules:
        return value
    unknown = set(rules) - set(_RULE_ORDER)
    if unknown:
        raise ValueError(f"unknown normalisation rule(s) {sorted(unknown)}")
    v = value
    if rules.get("trim") and isinstance(v, str):
        v = v.strip(" ")
    if rules.get("lower") and isinstance(v, str):
        v = v.lower()
    if rules.get("round") is not None and rules.get("round") is not False:
        n = rules["round"]
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"round expects an int number of digits, got {n!r}")
        v = _round_value(v, n, spark_type)
    if rules.get("truncate"):
        v = _truncate_value(v, str(rules["truncate"]).lower())
    return v


# --------------------------------------------------------------------------------------
# Two-way diff
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoWayDiff:
    """Expected outcome of diffing source against target.

    Key tuples are the *raw* key values (the source's spelling when the key is on
    both sides, else the first occurrence); use ``canonical_key`` to compare them
    with keys collected from Spark when float/decimal keys are involved.
    """

    added: frozenset  # key tuples only in target
    deleted: frozenset  # key tuples only in source
    modified: dict  # key tuple -> tuple of changed column names, in `columns` order
    duplicate_keys: frozenset  # key tuples appearing more than once on EITHER side
    null_key_rows_source: int  # rows whose key has at least one NULL component
    null_key_rows_target: int
    rows_source: int  # after row_filter
    rows_target: int
    # Rows (on each side) whose key is in duplicate_keys: the rows the product reports
    # as diff_type='duplicate_key' ("every such row, no cross product"). A key that is
    # duplicated on one side contributes its single row on the other side too.
    duplicate_key_rows_source: int = 0
    duplicate_key_rows_target: int = 0
    # Duplicate keys whose rows are the same multiset on both sides (after normalisation): without
    # check_duplicate_keys such a key is reported only if something else in its block differs.
    symmetric_duplicate_keys: frozenset = frozenset()
    # Keys stored exactly once on each side (NULL keys included): the unchanged and the modified.
    matched_keys: int = 0
    # Rows per side of every duplicate key: raw key tuple -> (source rows, target rows).
    duplicate_rows_by_key: dict = field(default_factory=dict)

    def column_changes(self) -> dict:
        """Compared column -> modified keys in which it changed (columns that never did: absent)."""
        return dict(Counter(c for changed in self.modified.values() for c in changed))

    @property
    def is_clean_without_duplicate_check(self) -> bool:
        """True when the pair must be reported identical without check_duplicate_keys."""
        asymmetric = self.duplicate_keys - self.symmetric_duplicate_keys
        return not (self.added or self.deleted or self.modified or asymmetric)

    @property
    def is_clean(self) -> bool:
        """True when ``no_drift`` must pass (nothing added/deleted/modified/duplicated)."""
        return not (self.added or self.deleted or self.modified or self.duplicate_keys)

    def counts(self) -> dict:
        return {
            "added": len(self.added),
            "deleted": len(self.deleted),
            "modified": len(self.modified),
            "duplicate_keys": len(self.duplicate_keys),
            "duplicate_key_rows_source": self.duplicate_key_rows_source,
            "duplicate_key_rows_target": self.duplicate_key_rows_target,
            "null_key_rows_source": self.null_key_rows_source,
            "null_key_rows_target": self.null_key_rows_target,
            "rows_source": self.rows_source,
            "rows_target": self.rows_target,
        }

    def canonical(self) -> dict:
        """Key sets in canonical form (for comparisons robust to NaN/-0.0/scale)."""
        return {
            "added": frozenset(canonical_key(k) for k in self.added),
            "deleted": frozenset(canonical_key(k) for k in self.deleted),
            "modified": {canonical_key(k): v for k, v in self.modified.items()},
            "duplicate_keys": frozenset(canonical_key(k) for k in self.duplicate_keys),
        }

    def assert_row_diff(
        self, rows: Sequence[Mapping], key_of, *, exact_duplicates: bool, where: str
    ) -> tuple[frozenset, dict]:
        """A row diff model's rows (dicts) against this answer: added, deleted and modified keys
        exactly, each reported once, with exactly the changed columns. Duplicate keys exactly
        with ``exact_duplicates`` (check_duplicate_keys, rows per side too); without it, every
        key whose rows differ between the sides and none the oracle lacks (a key held alike by
        both is reported only where its block differs). ``key_of(row)`` gives a row's key values
        as the oracle's rows hold them. Returns the reported duplicate keys (canonical) and the
        duplicate rows by side."""
        got: dict = {"added": set(), "deleted": set(), "modified": {}}
        duplicates: set = set()
        dup_rows = {"source": 0, "target": 0}
        for d in rows:
            key = canonical_key(tuple(key_of(d)))
            kind = d["diff_type"]
            if kind == "duplicate_key":
                duplicates.add(key)
                dup_rows[d["side"]] += 1
            elif kind == "modified":
                assert key not in got["modified"], f"{where}: key {key} reported twice"
                got["modified"][key] = tuple(d["changed_columns"])
            else:
                assert key not in got[kind], f"{where}: key {key} reported twice as {kind}"
                got[kind].add(key)
        want = self.canonical()
        assert got["added"] == set(want["added"]), where
        assert got["deleted"] == set(want["deleted"]), where
        assert got["modified"] == want["modified"], where
        if exact_duplicates:
            assert duplicates == set(want["duplicate_keys"]), where
            expected_rows = {
                "source": self.duplicate_key_rows_source,
                "target": self.duplicate_key_rows_target,
            }
            assert dup_rows == expected_rows, where
        else:
            symmetric = {canonical_key(k) for k in self.symmetric_duplicate_keys}
            assert set(want["duplicate_keys"]) - symmetric <= duplicates, where
            assert duplicates <= set(want["duplicate_keys"]), where
        return frozenset(duplicates), dup_rows


def _as_dict(row) -> Mapping:
    if isinstance(row, Mapping):
        return row
    as_dict = getattr(row, "asDict", None)
    if as_dict is not None:  # pyspark.sql.Row
        return as_dict()
    raise TypeError(f"rows must be mappings (or pyspark Rows), got {type(row).__name__}")


def _key_of(row: Mapping, key: Sequence[str]) -> tuple:
    return tuple(row[k] for k in key)


def _check_columns(key: Sequence[str], columns: Sequence[str]) -> None:
    if not key:
        raise ValueError("key must name at least one column")
    if len(set(key)) != len(key) or len(set(columns)) != len(columns):
        raise ValueError("duplicate column names in key/columns")
    overlap = set(key) & set(columns)
    if overlap:
        raise ValueError(f"key columns may not also be compared columns: {sorted(overlap)}")


def brute_force_diff(
    source_rows: Iterable,
    target_rows: Iterable,
    key: list[str],
    columns: list[str],
    normalize: dict[str, dict] | None = None,
    row_filter: Callable[[Mapping], bool] | None = None,
    *,
    types: dict[str, str] | None = None,
    tolerance: dict[str, dict] | None = None,
) -> TwoWayDiff:
    """Brute-force two-way diff (see DESIGN.md "Semantics (decided)").

    * ``row_filter`` (mirrors ``table_filter``) is applied to both sides first; every
      count is after filtering.
    * Keys match on ``canonical_key``: NULL-safe, NaN == NaN, -0.0 == 0.0, decimals by
      value. Keys are never normalised; ``normalize`` rules for key columns are ignored.
    * A key present more than once on either side is only in ``duplicate_keys``.
    * A key present exactly once on both sides is modified when some column of
      ``columns`` differs after normalisation; changed columns are in ``columns`` order.
    * ``types`` (optional, column -> Spark type) only matters for rounding FLOAT columns and
      for tolerances (float / double columns compare in double, others exactly).
    * ``tolerance`` (column -> ``{'abs': n}``, ``{'rel': n}`` or ``{'abs': 'N unit'}``): two
      normalised values are equal when ``values_equal`` or within it (``within_tolerance``).
    """
    tolerance = tolerance or {}
    key = list(key)
    columns = list(columns)
    _check_columns(key, columns)
    normalize = normalize or {}
    types = types or {}

    needed = (*key, *columns)

    def prepare(rows) -> list[Mapping]:
        out = [_as_dict(r) for r in rows]
        if row_filter is not None:
            out = [r for r in out if row_filter(r)]
        for r in out:
            missing = [c for c in needed if c not in r]
            if missing:
                raise KeyError(f"row {r!r} lacks column(s) {missing}")
        return out

    src = prepare(source_rows)
    tgt = prepare(target_rows)

    raw_key: dict[tuple, tuple] = {}
    groups_s: dict[tuple, list[Mapping]] = {}
    groups_t: dict[tuple, list[Mapping]] = {}
    null_s = null_t = 0
    for rows, groups, side in ((src, groups_s, "s"), (tgt, groups_t, "t")):
        for r in rows:
            k = _key_of(r, key)
            if any(v is None for v in k):
                if side == "s":
                    null_s += 1
                else:
                    null_t += 1
            ck = canonical_key(k)
            raw_key.setdefault(ck, k)
            groups.setdefault(ck, []).append(r)

    added, deleted, dups, symmetric = set(), set(), set(), set()
    modified: dict[tuple, tuple] = {}

    def row_bag(rows: list[Mapping]) -> Counter:
        return Counter(
            tuple(
                canonical_value(normalise_value(r[c], normalize.get(c), spark_type=types.get(c)))
                for c in columns
            )
            for r in rows
        )

    dup_rows_s = dup_rows_t = matched = 0
    dup_rows_by_key: dict[tuple, tuple[int, int]] = {}
    for ck, k in raw_key.items():
        rs = groups_s.get(ck, [])
        rt = groups_t.get(ck, [])
        if len(rs) > 1 or len(rt) > 1:
            dups.add(k)
            dup_rows_by_key[k] = (len(rs), len(rt))
            if row_bag(rs) == row_bag(rt):
                symmetric.add(k)
            dup_rows_s += len(rs)
            dup_rows_t += len(rt)
        elif not rt:
            deleted.add(k)
        elif not rs:
            added.add(k)
        else:
            matched += 1
            a, b = rs[0], rt[0]
            changed = tuple(
                c
                for c in columns
                if not within_tolerance(
                    normalise_value(a[c], normalize.get(c), spark_type=types.get(c)),
                    normalise_value(b[c], normalize.get(c), spark_type=types.get(c)),
                    tolerance.get(c),
                    types.get(c),
                )
            )
            if changed:
                modified[k] = changed

    return TwoWayDiff(
        added=frozenset(added),
        deleted=frozenset(deleted),
        modified=modified,
        duplicate_keys=frozenset(dups),
        null_key_rows_source=null_s,
        null_key_rows_target=null_t,
        rows_source=len(src),
        rows_target=len(tgt),
        duplicate_key_rows_source=dup_rows_s,
        duplicate_key_rows_target=dup_rows_t,
        symmetric_duplicate_keys=frozenset(symmetric),
        matched_keys=matched,
        duplicate_rows_by_key=dup_rows_by_key,
    )


# --------------------------------------------------------------------------------------
# Three-way merge (Dolt cell-wise semantics)
# --------------------------------------------------------------------------------------

MERGE_STATUSES = ("unchanged", "ours_only", "theirs_only", "convergent", "cell_merged", "conflict")
CONFLICT_TYPES = ("update_update", "update_delete", "delete_update", "insert_insert")


@dataclass(frozen=True)
class MergeRow:
    """Classification of one key of a three-way merge.

    ``ours_changed`` / ``theirs_changed`` are the compared columns (``columns`` order)
    whose cell differs between base and that side, where a cell of an absent row
    counts as different from any cell of a present row. Hence:
      * update: the columns whose values changed (by ``values_equal``);
      * insert (absent in base, present on the side): *all* columns;
      * delete (present in base, absent on the side): *all* columns;
      * absent in both base and the side, or unchanged: ``()``.
    ``merged`` is the merged row as a dict over key + columns, or None when the key
    is absent from the merged table.
    """

    key: tuple
    status: str  # one of MERGE_STATUSES, or 'resolved' (every conflicting cell resolved)
    conflict_type: str | None  # one of CONFLICT_TYPES when status is 'conflict' or 'resolved'
    ours_changed: tuple
    theirs_changed: tuple
    merged: dict | None = field(default=None, compare=True)
    # Cells resolved by a policy (status 'resolved'): (column, policy label, chosen value).
    resolutions: tuple = ()


def _index_unique(
    rows: Iterable, key: Sequence[str], columns: Sequence[str], side: str
) -> dict[tuple, Mapping]:
    out: dict[tuple, Mapping] = {}
    for r in rows:
        r = _as_dict(r)
        missing = [c for c in (*key, *columns) if c not in r]
        if missing:
            raise KeyError(f"{side} row {r!r} lacks column(s) {missing}")
        ck = canonical_key(_key_of(r, key))
        assert ck not in out, f"{side}: key {_key_of(r, key)!r} is not unique"
        out[ck] = r
    return out


_DURATION_UNITS = {
    "microsecond": 1,
    "millisecond": 1_000,
    "second": 1_000_000,
    "minute": 60_000_000,
    "hour": 3_600_000_000,
    "day": 86_400_000_000,
}


def duration_micros(text: str) -> int:
    """'2 seconds' -> 2000000 (the units a timestamp tolerance takes)."""
    number, unit = text.split()
    return int(Decimal(number) * _DURATION_UNITS[unit.lower().rstrip("s")])


def within_tolerance(a, b, rule: Mapping | None, spark_type: str | None = None) -> bool:
    """Equal under a column's tolerance, by definition (docs/semantics.md, ADR 0024):
    ``values_equal``, or both present with ``|a - b| <= abs`` (timestamps: in microseconds;
    float and double in double arithmetic, integers and decimals exactly) or
    ``|a - b| <= rel * max(|a|, |b|)`` (in double). NULL, NaN and infinities are equal only to
    themselves (their differences are NULL or NaN)."""
    if values_equal(a, b):
        return True
    if not rule or a is None or b is None:
        return False
    ((kind, limit),) = rule.items()
    if isinstance(a, _dt.datetime):
        delta = _to_naive_utc(a) - _to_naive_utc(b)
        return abs(delta // _dt.timedelta(microseconds=1)) <= duration_micros(limit)
    fractional = (spark_type or "").lower() in ("float", "double")
    if kind == "rel" or fractional:
        fa, fb = float(a), float(b)
        if not (math.isfinite(fa) and math.isfinite(fb)):
            return False
        diff = abs(fa - fb)
        bound = float(limit) * max(abs(fa), abs(fb)) if kind == "rel" else float(limit)
        return diff <= bound
    return abs(Decimal(a) - Decimal(b)) <= Decimal(repr(limit))


def _changed(base: Mapping | None, side: Mapping | None, columns: Sequence[str]) -> tuple:
    if base is None and side is None:
        return ()
    if base is None or side is None:
        return tuple(columns)
    return tuple(c for c in columns if not values_equal(base[c], side[c]))


def spark_order(a, b) -> int:
    """-1 / 0 / 1: how Spark orders two present values of one type (``>``, ``greatest``): numbers
    by value with NaN above every number and equal to itself, -0.0 equal to 0.0; strings by code
    point (= UTF-8 bytes); bytes unsigned; timestamps as instants."""
    if isinstance(a, float) or isinstance(b, float):
        a_nan = isinstance(a, float) and math.isnan(a)
        b_nan = isinstance(b, float) and math.isnan(b)
        if a_nan or b_nan:
            return (a_nan > b_nan) - (a_nan < b_nan)
    if isinstance(a, _dt.datetime):
        a, b = _to_naive_utc(a), _to_naive_utc(b)
    return (a > b) - (a < b)


def _resolve_cell(policy, c: str, b, o: Mapping, t: Mapping) -> tuple[bool, object]:
    """(resolved?, value) of conflicting cell `c` under `policy` (docs/semantics.md), by
    definition: ours / theirs take that side; max / min the larger / smaller present value; latest
    the side whose ordering column is larger (NULL or equal: unresolved); a callable is called as
    f(base, ours, theirs), base None when the key is not in base."""
    if policy == "ours":
        return True, o[c]
    if policy == "theirs":
        return True, t[c]
    if policy in ("max", "min"):
        if o[c] is None or t[c] is None:
            return True, t[c] if o[c] is None else o[c]
        larger = o[c] if spark_order(o[c], t[c]) >= 0 else t[c]
        smaller = t[c] if larger is o[c] else o[c]
        return True, larger if policy == "max" else smaller
    ((kind, arg),) = policy.items()
    if kind == "latest":
        if o[arg] is None or t[arg] is None or spark_order(o[arg], t[arg]) == 0:
            return False, None
        return True, o[c] if spark_order(o[arg], t[arg]) > 0 else t[c]
    assert kind == "python" and callable(arg), policy
    return True, arg(b[c] if b is not None else None, o[c], t[c])


def _label(policy) -> str:
    if isinstance(policy, str):
        return policy
    ((kind, arg),) = policy.items()
    return f"{kind}:{arg if isinstance(arg, str) else f'{arg.__module__}.{arg.__name__}'}"


def brute_force_merge(
    base_rows: Iterable,
    ours_rows: Iterable,
    theirs_rows: Iterable,
    key: list[str],
    columns: list[str],
    resolve: Mapping | None = None,
) -> dict[tuple, MergeRow]:
    """Classify every key of base/ours/theirs per DESIGN.md "Three-way merge".

    Rules (O / T = ours_changed / theirs_changed, rows keyed null-safely):

    ====================  =========================  ===========================
    base / ours / theirs  status (conflict_type)     merged
    ====================  =========================  ===========================
    r / r / r             unchanged                  r
    r / r / t             theirs_only                t
    r / o / r             ours_only                  o
    r / x / x  (x == x)   convergent                 x (ours' spelling)
    r / - / -             convergent                 absent
    r / o / t, O&T all    cell_merged                base + ours' O cells +
      agree, rows differ                             theirs' T cells
    r / o / t, a cell in  conflict (update_update)   ours
      O&T differs
    r / o / -             conflict (update_delete)   ours
    r / r / -             theirs_only (delete)       absent
    r / - / t             conflict (delete_update)   absent (ours)
    r / - / r             ours_only (delete)         absent
    - / o / -             ours_only (insert)         o
    - / - / t             theirs_only (insert)       t
    - / o / t, o == t     convergent                 o
    - / o / t, o != t     conflict (insert_insert)   ours
    ====================  =========================  ===========================

    With ``resolve`` (column -> 'ours' | 'theirs' | 'max' | 'min' | {'latest': COLUMN} |
    {'python': callable}), an update_update or insert_insert conflict whose every conflicting cell
    (update_update: changed on both sides to different values; insert_insert: different on the two
    sides) a policy resolves is ``resolved``: its conflict_type kept, merged = the cell_merged row
    (update_update) or ours (insert_insert) with the chosen values.

    "rows differ/equal" compares all ``columns`` with ``values_equal``. A cell_merged
    row may equal ours or theirs (e.g. theirs' changes are a subset of ours' agreeing
    changes); it is still cell_merged because both sides changed it. Keys must be
    unique per side (asserted).
    """
    key = list(key)
    columns = list(columns)
    _check_columns(key, columns)
    base = _index_unique(base_rows, key, columns, "base")
    ours = _index_unique(ours_rows, key, columns, "ours")
    theirs = _index_unique(theirs_rows, key, columns, "theirs")

    def project(r: Mapping) -> dict:
        return {c: r[c] for c in (*key, *columns)}

    order: list[tuple] = []
    seen = set()
    for idx in (base, ours, theirs):
        for ck in idx:
            if ck not in seen:
                seen.add(ck)
                order.append(ck)

    result: dict[tuple, MergeRow] = {}
    for ck in order:
        b, o, t = base.get(ck), ours.get(ck), theirs.get(ck)
        raw = _key_of(next(r for r in (b, o, t) if r is not None), key)
        oc = _changed(b, o, columns)
        tc = _changed(b, t, columns)
        conflict = None
        if b is not None:
            if o is not None and t is not None:
                if not oc and not tc:
                    status, merged = "unchanged", project(b)
                elif not tc:
                    status, merged = "ours_only", project(o)
                elif not oc:
                    status, merged = "theirs_only", project(t)
                elif not _changed(o, t, columns):
                    status, merged = "convergent", project(o)
                elif any(not values_equal(o[c], t[c]) for c in set(oc) & set(tc)):
                    status, conflict, merged = "conflict", "update_update", project(o)
                else:
                    status = "cell_merged"
                    merged = project(b)
                    merged.update({k: o[k] for k in key})
                    for c in tc:
                        merged[c] = t[c]
                    for c in oc:
                        merged[c] = o[c]
            elif o is None and t is None:
                status, merged = "convergent", None
            elif t is None:  # theirs deleted
                if not oc:
                    status, merged = "theirs_only", None
                else:
                    status, conflict, merged = "conflict", "update_delete", project(o)
            else:  # ours deleted
                if not tc:
                    status, merged = "ours_only", None
                else:
                    status, conflict, merged = "conflict", "delete_update", None
        else:
            if o is not None and t is not None:
                if not _changed(o, t, columns):
                    status, merged = "convergent", project(o)
                else:
                    status, conflict, merged = "conflict", "insert_insert", project(o)
            elif o is not None:
                status, merged = "ours_only", project(o)
            else:
                status, merged = "theirs_only", project(t)
        resolutions: tuple = ()
        if resolve and conflict in ("update_update", "insert_insert"):
            cells = [
                c
                for c in columns
                if not values_equal(o[c], t[c])
                and (conflict == "insert_insert" or (c in oc and c in tc))
            ]
            chosen = {
                c: _resolve_cell(resolve[c], c, b, o, t) if c in resolve else (False, None)
                for c in cells
            }
            if cells and all(ok for ok, _ in chosen.values()):
                status = "resolved"
                if conflict == "update_update":
                    merged = project(b)
                    merged.update({k: o[k] for k in key})
                    merged.update({c: t[c] for c in tc})
                    merged.update({c: o[c] for c in oc})
                else:
                    merged = project(o)
                merged.update({c: v for c, (_, v) in chosen.items()})
                resolutions = tuple((c, _label(resolve[c]), v) for c, (_, v) in chosen.items())
        result[raw] = MergeRow(
            key=raw,
            status=status,
            conflict_type=conflict,
            ours_changed=oc,
            theirs_changed=tc,
            merged=merged,
            resolutions=resolutions,
        )
    return result


def merge_counts(result: Mapping[tuple, MergeRow]) -> dict:
    """Counts per status and per conflict type (shape of ``<name>__merge_summary``)."""
    statuses = Counter(r.status for r in result.values())
    conflicts = Counter(r.conflict_type for r in result.values() if r.status == "conflict")
    out = {s: statuses.get(s, 0) for s in MERGE_STATUSES}
    if statuses.get("resolved"):
        out["resolved"] = statuses["resolved"]
    out.update({c: conflicts.get(c, 0) for c in CONFLICT_TYPES})
    return out


def merged_table(result: Mapping[tuple, MergeRow]) -> list[dict]:
    """The rows of the merged table (``<name>__merged``)."""
    return [r.merged for r in result.values() if r.merged is not None]
