"""Hypothesis strategies for hostile table pairs and three-way merges, plus Spark helpers.

Row representation shared with ``oracle.py``: a row is a ``dict`` column name -> Python
value, with these Python types per Spark SQL type:

=============  =============================================================
int, bigint    ``int`` within the type's range
double         ``float`` (NaN incl. non-canonical payloads, +-inf, -0.0, subnormals)
float          ``float`` exactly representable as float32 (so Spark stores it exactly)
decimal(p,s)   ``decimal.Decimal`` fitting the precision/scale
string         ``str`` (valid Unicode, no lone surrogates; may contain '\\x00')
boolean        ``bool``
date           ``datetime.date`` in 0001-01-01 .. 9999-12-31
timestamp      naive ``datetime.datetime`` meaning UTC, 1900-01-01 .. 2200-12-31,
               microsecond precision
binary         ``bytes``
=============  =============================================================
``None`` is NULL, in any position (base keys excepted, see ``table_pairs``).

Spark requirements (``to_spark_df`` / ``write_table``): the SparkSession must run with
``spark.sql.session.timeZone=UTC`` so that what SQL sees (date_trunc, casts to
string/date) matches the naive-UTC datetimes of the oracle; ``to_spark_df`` raises
otherwise. Naive datetimes are sent as aware UTC datetimes (pyspark would otherwise
interpret naive datetimes in the *Python process's* local time zone, and collects them
back in that zone: ``rows_from_spark`` converts them back to naive UTC).

What Spark accepted when this was written (pyspark 4.3, parquet): column names with
spaces/dashes/uppercase, '\\x00' inside strings, dates 0001-01-01..9999-12-31,
timestamps 1900..2200 with microseconds, -0.0 and NaN in double and float columns,
decimal(38,10) extremes. What it refused: table names with spaces (invalid identifier
in the session catalog) - so only *column* names are hostile here; timestamps in year 1
cannot be collected back by pyspark (``fromtimestamp`` overflows), hence the 1900 floor.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from functools import cache

from hypothesis import strategies as st

try:  # the oracle lives next to this file; support both package and rootdir imports
    from .oracle import canonical_key, values_equal
except ImportError:  # pragma: no cover
    from oracle import canonical_key, values_equal

__all__ = [
    "Column",
    "TableSpec",
    "TablePair",
    "ThreeWay",
    "KEY_TYPES",
    "RANGE_KEY_TYPES",
    "VALUE_TYPES",
    "DECIMAL_TYPES",
    "quote_ident",
    "parse_decimal",
    "spark_data_type",
    "column_names",
    "table_specs",
    "values_of",
    "nullable",
    "key_values",
    "rows_for",
    "table_pairs",
    "three_way",
    "edge_values",
    "to_spark_df",
    "write_table",
    "rows_from_spark",
    "read_table",
    "require_utc_session",
]

# --------------------------------------------------------------------------------------
# Table specs
# --------------------------------------------------------------------------------------

KEY_TYPES = ("bigint", "int", "string")
# Key types whose bounds the row fetch also states as literals (ADR 0010): the diff's property
# test draws keys from these too.
RANGE_KEY_TYPES = (*KEY_TYPES, "date", "timestamp", "decimal(12,3)")
DECIMAL_TYPES = (
    "decimal(38,10)",
    "decimal(10,2)",
    "decimal(38,0)",
    "decimal(38,38)",
    "decimal(18,6)",
    "decimal(1,0)",
    "decimal(5,5)",
)
VALUE_TYPES = (
    "int",
    "bigint",
    "double",
    "float",
    "decimal",  # placeholder: drawn from DECIMAL_TYPES or a random decimal(p,s)
    "string",
    "boolean",
    "date",
    "timestamp",
    "binary",
)
ALL_CONCRETE_TYPES = tuple(t for t in VALUE_TYPES if t != "decimal") + DECIMAL_TYPES

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
FLOAT32_MAX = struct.unpack("f", struct.pack("I", 0x7F7FFFFF))[0]
FLOAT32_MIN_SUB = struct.unpack("f", struct.pack("I", 0x00000001))[0]
DATE_MIN, DATE_MAX = _dt.date(1, 1, 1), _dt.date(9999, 12, 31)
TS_MIN, TS_MAX = _dt.datetime(1900, 1, 1), _dt.datetime(2200, 12, 31, 23, 59, 59, 999999)

_DECIMAL_RE = re.compile(r"^\s*decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$", re.I)


def parse_decimal(type_str: str) -> tuple[int, int] | None:
    """``'decimal(38,10)' -> (38, 10)``; None for non-decimal types."""
    m = _DECIMAL_RE.match(type_str)
    return (int(m.group(1)), int(m.group(2))) if m else None


def quote_ident(name: str) -> str:
    """Backtick-quote a Spark identifier."""
    return "`" + name.replace("`", "``") + "`"


def spark_data_type(type_str: str):
    """Spark ``DataType`` for one of the type strings used here."""
    from pyspark.sql import types as T

    dec = parse_decimal(type_str)
    if dec:
        return T.DecimalType(*dec)
    return {
        "int": T.IntegerType(),
        "bigint": T.LongType(),
        "double": T.DoubleType(),
        "float": T.FloatType(),
        "string": T.StringType(),
        "boolean": T.BooleanType(),
        "date": T.DateType(),
        "timestamp": T.TimestampType(),
        "binary": T.BinaryType(),
    }[type_str.strip().lower()]


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # Spark SQL type, e.g. 'bigint', 'decimal(38,10)'


@dataclass(frozen=True)
class TableSpec:
    key: tuple[Column, ...]
    values: tuple[Column, ...]

    @property
    def columns(self) -> tuple[Column, ...]:
        return self.key + self.values

    @property
    def key_names(self) -> list[str]:
        return [c.name for c in self.key]

    @property
    def value_names(self) -> list[str]:
        """The compared non-key columns, in table order (``columns`` of the oracle)."""
        return [c.name for c in self.values]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def types(self) -> dict[str, str]:
        return {c.name: c.type for c in self.columns}

    def struct_type(self):
        from pyspark.sql import types as T

        return T.StructType(
            [T.StructField(c.name, spark_data_type(c.type), nullable=True) for c in self.columns]
        )

    def ddl(self) -> str:
        """``\\`a\\` bigint, \\`Unit Price\\` double, ...`` (quoted)."""
        return ", ".join(f"{quote_ident(c.name)} {c.type}" for c in self.columns)


_FANCY_NAMES = (
    "Unit Price",
    "ship-date",
    "OrderID",
    "Customer Name",
    "net-amount",
    "Qty",
    "Ship Date",
    "Amount USD",
)
_plain_names = st.builds(
    str.__add__,
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_"), max_size=7),
).filter(lambda s: "__" not in s)


@st.composite
def _column_name(draw, fancy: bool = True) -> str:
    if fancy and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(_FANCY_NAMES))
    return draw(_plain_names)


@cache
def column_names(n: int, fancy: bool = True) -> st.SearchStrategy[list[str]]:
    """``n`` distinct column names, never colliding case-insensitively."""
    return st.lists(_column_name(fancy), min_size=n, max_size=n, unique_by=str.lower)


@st.composite
def _decimal_type(draw) -> str:
    if draw(st.booleans()):
        return draw(st.sampled_from(DECIMAL_TYPES))
    p = draw(st.integers(1, 38))
    s = draw(st.integers(0, p))
    return f"decimal({p},{s})"


@st.composite
def _value_type(draw) -> str:
    t = draw(st.sampled_from(VALUE_TYPES))
    return draw(_decimal_type()) if t == "decimal" else t


@st.composite
def table_specs(
    draw,
    min_value_columns: int = 1,
    max_value_columns: int = 6,
    key_columns: int | None = None,
    fancy_names: bool = True,
    value_types: st.SearchStrategy[str] | None = None,
    key_types: tuple[str, ...] = KEY_TYPES,
) -> TableSpec:
    """1-2 key columns among ``key_types`` (bigint/int/string), 1-6 value columns of every type."""
    nk = key_columns if key_columns is not None else draw(st.integers(1, 2))
    nv = draw(st.integers(min_value_columns, max_value_columns))
    names = draw(column_names(nk + nv, fancy_names))
    ktypes = [draw(st.sampled_from(key_types)) for _ in range(nk)]
    vtypes = [draw(value_types if value_types is not None else _value_type()) for _ in range(nv)]
    if value_types is None and nv >= 2 and draw(st.integers(0, 3)) == 3:
        # two adjacent string columns: room for ('ab','c') vs ('a','bc') shifts
        at = draw(st.integers(0, nv - 2))
        vtypes[at : at + 2] = ["string", "string"]
    return TableSpec(
        key=tuple(Column(n, t) for n, t in zip(names[:nk], ktypes, strict=True)),
        values=tuple(Column(n, t) for n, t in zip(names[nk:], vtypes, strict=True)),
    )


# --------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------


def _f64(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits))[0]


def _f32(hex_bits: str) -> float:
    return struct.unpack(">f", bytes.fromhex(hex_bits))[0]


_EDGE_DOUBLES = (
    0.0,
    -0.0,
    math.nan,
    -math.nan,
    _f64("7ff8000000000bad"),  # NaN with a payload
    _f64("fff0000000000001"),  # signalling-ish negative NaN
    math.inf,
    -math.inf,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    0.1,
    2.675,
    1.005,
    0.5,
    -2.5,
    1e16,
    9007199254740993.0,
    1.0,
    -1.0,
)
_EDGE_FLOATS = (
    0.0,
    -0.0,
    math.nan,
    _f32("7fc00bad"),
    math.inf,
    -math.inf,
    FLOAT32_MAX,
    -FLOAT32_MAX,
    FLOAT32_MIN_SUB,
    _f32("3dcccccd"),  # 0.1f
    1.0,
    -2.5,
    16777217.0 - 1.0,
)

_HOSTILE_STRINGS = (
    "",
    " ",
    "  ",
    "a",
    "A",
    "ab",
    "c",
    "a|b",
    "|",
    "||",
    ",",
    ";",
    "\t",
    "\n",
    "\r\n",
    "\\",
    '"',
    "'",
    "`",
    "\x00",
    "a\x00",
    "\x00a",
    "\x01",
    "NULL",
    "null",
    "None",
    "\\N",
    "NaN",
    "-0",
    "0",
    "1e3",
    "\u00e9",  # é precomposed
    "e\u0301",  # é decomposed (combining acute)
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",  # family emoji (ZWJ sequence)
    "\U0001f642",
    "\u0645\u0631\u062d\u0628\u0627",  # Arabic (RTL)
    "\u05e9\u05dc\u05d5\u05dd",  # Hebrew (RTL)
    "\u202eabc",  # right-to-left override
    "\u00df",  # ß
    "SS",
    "\u0130",  # İ
    "\u03a3\u0391\u03a3",  # ΣΑΣ
    "\ufb01",  # ﬁ ligature
    "\u00a0",  # NBSP
    " a",
    "a ",
    " a ",
    "\ufeff",  # BOM
    "\U0010fffd",
    "\uffff",
)
# Any code point except lone surrogates (not encodable as UTF-8, so not storable).
_CHARS = st.characters(exclude_categories=("Cs",))
_unicode_text = st.text(_CHARS, max_size=12)
_lookalike_text = st.text(st.sampled_from("ab| ,\x00"), max_size=5)
_long_text = st.builds(
    lambda s, n: (s * (n // len(s) + 1))[:n],
    st.text(_CHARS, min_size=1, max_size=4),
    st.integers(1000, 5000),
)


@st.composite
def _strings(draw) -> str:
    kind = draw(st.integers(0, 19))
    if kind < 6:
        return draw(st.sampled_from(_HOSTILE_STRINGS))
    if kind < 11:
        return draw(_lookalike_text)
    if kind == 19:
        return draw(_long_text)
    return draw(_unicode_text)


def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.one_of(
        st.integers(-1000, 1000),
        st.sampled_from((0, 1, -1, lo, hi, lo + 1, hi - 1)),
        st.integers(lo, hi),
    )


def _decimal_from_unscaled(unscaled: int, scale: int) -> Decimal:
    # String construction is exact (no 28-digit context rounding).
    return Decimal(f"{unscaled}E-{scale}")


def _decimal_limit(p: int, s: int) -> Decimal:
    """The largest value of decimal(p, s)."""
    return _decimal_from_unscaled(10**p - 1, s)


def _decimals(p: int, s: int) -> st.SearchStrategy[Decimal]:
    top = 10**p - 1
    edges = [0, 1, -1, top, -top, top // 2, 5, 5 * 10 ** max(0, s - 1)]  # 5: ties for round
    if p - s >= 1:
        edges += [10**s, -(10**s)]  # 1 and -1
    edges = sorted({u for u in edges if -top <= u <= top})
    small = min(1000, top)
    return st.builds(
        _decimal_from_unscaled,
        st.one_of(st.sampled_from(edges), st.integers(-small, small), st.integers(-top, top)),
        st.just(s),
    )


@cache
def _base_values(type_str: str) -> st.SearchStrategy:
    t = type_str.strip().lower()
    dec = parse_decimal(t)
    if dec:
        return _decimals(*dec)
    if t == "int":
        return _ints(INT_MIN, INT_MAX)
    if t == "bigint":
        return _ints(BIGINT_MIN, BIGINT_MAX)
    if t == "double":
        return st.one_of(
            st.sampled_from(_EDGE_DOUBLES),
            st.floats(-1e6, 1e6),
            st.floats(allow_nan=True, allow_infinity=True),
        )
    if t == "float":
        return st.one_of(
            st.sampled_from(_EDGE_FLOATS),
            st.floats(-1e6, 1e6, width=32),
            st.floats(allow_nan=True, allow_infinity=True, width=32),
        )
    if t == "string":
        return _strings()
    if t == "boolean":
        return st.booleans()
    if t == "date":
        return st.one_of(
            st.sampled_from(
                (
                    _dt.date(1970, 1, 1),
                    _dt.date(1969, 12, 31),
                    _dt.date(1582, 10, 4),
                    _dt.date(1582, 10, 15),
                    _dt.date(1900, 1, 1),
                    _dt.date(2000, 2, 29),
                    DATE_MIN,
                    DATE_MAX,
                )
            ),
            st.dates(_dt.date(1900, 1, 1), _dt.date(2200, 12, 31)),
            st.dates(DATE_MIN, DATE_MAX),
        )
    if t == "timestamp":
        return st.one_of(
            st.sampled_from(
                (
                    _dt.datetime(1970, 1, 1),
                    _dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
                    _dt.datetime(1970, 1, 1, 0, 0, 0, 1),
                    _dt.datetime(2038, 1, 19, 3, 14, 8),
                    _dt.datetime(2000, 2, 29, 12, 0, 0, 500000),
                    TS_MIN,
                    TS_MAX,
                )
            ),
            st.datetimes(TS_MIN, TS_MAX),
        )
    if t == "binary":
        return st.one_of(
            st.sampled_from((b"", b"\x00", b"\x00\x00", b"|", b"\xff", b"a", b"ab", b"c")),
            st.binary(max_size=16),
        )
    raise ValueError(f"unsupported type {type_str!r}")


@st.composite
def nullable(draw, base: st.SearchStrategy, null_one_in: int = 6):
    """``base`` or NULL (about one in ``null_one_in``); shrinks towards NULL."""
    if draw(st.integers(0, null_one_in - 1)) == 0:
        return None
    return draw(base)


@cache
def values_of(type_str: str, null: bool = True) -> st.SearchStrategy:
    """Hostile values of a Spark SQL type (NULL included unless ``null=False``)."""
    base = _base_values(type_str)
    return nullable(base) if null else base


def edge_values(type_str: str) -> list:
    """Deterministic edge values of a type (NULL included), for hand-written checks."""
    t = type_str.strip().lower()
    dec = parse_decimal(t)
    if dec:
        p, s = dec
        top = 10**p - 1
        us = [0, 1, -1, top, -top, top // 2]
        if p - s >= 1:
            us += [10**s, -(10**s)]
        return [None] + [_decimal_from_unscaled(u, s) for u in us]
    return [None] + list(
        {
            "int": (0, 1, -1, INT_MIN, INT_MAX),
            "bigint": (0, 1, -1, BIGINT_MIN, BIGINT_MAX),
            "double": _EDGE_DOUBLES,
            "float": _EDGE_FLOATS,
            "string": _HOSTILE_STRINGS + ("x" * 5000, "\U0001f642" * 1500),
            "boolean": (True, False),
            "date": (DATE_MIN, DATE_MAX, _dt.date(1582, 10, 4), _dt.date(1970, 1, 1)),
            "timestamp": (
                TS_MIN,
                TS_MAX,
                _dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
                _dt.datetime(1970, 1, 1, 0, 0, 0, 1),
            ),
            "binary": (b"", b"\x00", b"|", b"\xff" * 3, bytes(range(256))),
        }[t]
    )


@cache
def key_values(type_str: str) -> st.SearchStrategy:
    """Non-NULL key values (small ranges so that keys collide and interleave)."""
    t = type_str.strip().lower()
    if t == "int":
        return st.one_of(st.integers(-50, 50), _ints(INT_MIN, INT_MAX))
    if t == "bigint":
        return st.one_of(st.integers(-50, 50), _ints(BIGINT_MIN, BIGINT_MAX))
    if t == "string":
        return st.one_of(
            st.text(st.sampled_from("abc"), max_size=3), _strings().filter(lambda s: len(s) < 100)
        )
    if t == "date":
        near = st.integers(-40, 40).map(lambda d: _dt.date(2000, 1, 1) + _dt.timedelta(days=d))
        return st.one_of(near, st.sampled_from((DATE_MIN, DATE_MAX)), st.dates(DATE_MIN, DATE_MAX))
    if t == "timestamp":
        near = st.integers(-40, 40).map(
            lambda us: _dt.datetime(1970, 1, 1) + _dt.timedelta(microseconds=us)
        )
        return st.one_of(near, st.sampled_from((TS_MIN, TS_MAX)), st.datetimes(TS_MIN, TS_MAX))
    dec = parse_decimal(t)
    if dec:
        p, s = dec
        near = st.integers(-40, 40).map(lambda u: _decimal_from_unscaled(u, s))
        return st.one_of(near, _decimals(p, s))
    raise ValueError(f"unsupported key type {type_str!r}")


@cache
def _key_tuple(spec: TableSpec) -> st.SearchStrategy[tuple]:
    return st.tuples(*(key_values(c.type) for c in spec.key))


@cache
def _value_dict(spec: TableSpec) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({c.name: values_of(c.type) for c in spec.values})


def _make_row(spec: TableSpec, key: tuple, values: dict) -> dict:
    row = dict(zip(spec.key_names, key, strict=True))
    row.update(values)
    return row


@st.composite
def rows_for(draw, spec: TableSpec, min_size: int = 0, max_size: int = 60) -> list[dict]:
    """Rows with unique, non-NULL keys (in key-canonical sense)."""
    # Draw the size first (uniform), so that mid-sized tables are as common as tiny ones.
    size = draw(st.integers(min_size, max(min_size, max_size)))
    keys = draw(st.lists(_key_tuple(spec), min_size=size, max_size=size, unique_by=canonical_key))
    vals = draw(st.lists(_value_dict(spec), min_size=len(keys), max_size=len(keys)))
    all_null = draw(st.integers(0, 4)) == 0
    rows = [_make_row(spec, k, v) for k, v in zip(keys, vals, strict=True)]
    if all_null and rows:  # one all-NULL row (every value column NULL)
        i = draw(st.integers(0, len(rows) - 1))
        rows[i].update({c: None for c in spec.value_names})
    return rows


# --------------------------------------------------------------------------------------
# Cell mutations
# --------------------------------------------------------------------------------------


def _bump(type_str: str, v):
    """A deterministic small change; never returns a value equal to ``v``."""
    t = type_str.strip().lower()
    dec = parse_decimal(t)
    if v is None:
        return _default_value(t)
    if dec:
        p, s = dec
        ulp = _decimal_from_unscaled(1, s)
        top = _decimal_from_unscaled(10**p - 1, s)
        with localcontext() as ctx:  # exact: the default context has only 28 digits
            ctx.prec = 100
            return v + ulp if v + ulp <= top else v - ulp
    if t in ("int", "bigint"):
        hi = INT_MAX if t == "int" else BIGINT_MAX
        return v + 1 if v < hi else v - 1
    if t in ("double", "float"):
        if math.isnan(v) or math.isinf(v):
            return 1.0
        nxt = math.nextafter(v, math.inf) if t == "double" else _next_float32(v)
        if math.isinf(nxt):
            return v / 2 if v != 0 else 1.0
        return nxt
    if t == "string":
        return v + "x" if len(v) < 5000 else v[:-1]
    if t == "boolean":
        return not v
    if t == "date":
        return v + _dt.timedelta(days=1) if v < DATE_MAX else v - _dt.timedelta(days=1)
    if t == "timestamp":
        step = _dt.timedelta(microseconds=1)
        return v + step if v < TS_MAX else v - step
    if t == "binary":
        return v + b"\x00"
    raise ValueError(type_str)


def _next_float32(v: float) -> float:
    bits = struct.unpack("<i", struct.pack("<f", v))[0]
    if v == 0:
        return FLOAT32_MIN_SUB
    bits = bits + 1 if v > 0 else bits - 1
    return struct.unpack("<f", struct.pack("<i", bits))[0]


def _default_value(t: str):
    dec = parse_decimal(t)
    if dec:
        return _decimal_from_unscaled(0, dec[1])
    return {
        "int": 0,
        "bigint": 0,
        "double": 0.0,
        "float": 0.0,
        "string": "",
        "boolean": False,
        "date": _dt.date(1970, 1, 1),
        "timestamp": _dt.datetime(1970, 1, 1),
        "binary": b"",
    }[t]


def _equivalent(type_str: str, v):
    """A different Python spelling of an equal value (a no-op edit), or ``v``."""
    t = type_str.strip().lower()
    if v is None:
        return None
    if t in ("double", "float") and isinstance(v, float):
        if math.isnan(v):
            return _f64("7ff8000000000bad") if t == "double" else _f32("7fc00bad")
        if v == 0:
            return -v  # -0.0 <-> 0.0
        return v
    dec = parse_decimal(t)
    if dec and isinstance(v, Decimal):
        # Same value, shorter spelling (Spark stores it at the column's scale anyway).
        with localcontext() as ctx:  # exact: the default context has only 28 digits
            ctx.prec = 100
            return v.normalize() if v != 0 else Decimal("-0")
    return v


@st.composite
def _distinct_value(draw, type_str: str, old, avoid=()):
    """A value of the type that differs (by ``values_equal``) from ``old`` and ``avoid``."""
    kind = draw(st.sampled_from(("random", "to_null", "near")))
    if kind == "to_null":
        v = None
    elif kind == "near":
        v = _bump(type_str, old)
    else:
        v = draw(values_of(type_str))
    banned = [old, *avoid]
    default = _default_value(type_str.strip().lower())
    # None, default and bump(default) are pairwise distinct, so with at most two banned
    # values one of them always qualifies.
    for cand in (v, _bump(type_str, v), None, default, _bump(type_str, default)):
        if not any(values_equal(cand, b) for b in banned):
            return cand
    raise AssertionError("could not find a distinct value")  # pragma: no cover


@st.composite
def _mutate_cell(draw, type_str: str, old):
    """New value of a modified cell: random, to/from NULL, near, or an equivalent no-op."""
    kind = draw(st.sampled_from(("random", "to_null", "from_null", "near", "equivalent")))
    if kind == "to_null":
        return None
    if kind == "from_null":
        return draw(values_of(type_str, null=False))
    if kind == "near":
        return _bump(type_str, old)
    if kind == "equivalent":
        return _equivalent(type_str, old)
    return draw(values_of(type_str))


# --------------------------------------------------------------------------------------
# Keys outside the existing range
# --------------------------------------------------------------------------------------


def _sortable(k: tuple) -> bool:
    return all(v is not None for v in k)


def _outside_key(spec: TableSpec, keys: list[tuple], below: bool, delta: int, tail) -> tuple | None:
    """A key strictly before the minimum (or after the maximum) of ``keys``."""
    keys = [k for k in keys if _sortable(k)]
    if not keys:
        return None
    ref = min(keys) if below else max(keys)
    first_t = spec.key[0].type
    v = ref[0]
    step = {"date": _dt.timedelta(days=1), "timestamp": _dt.timedelta(microseconds=1)}.get(first_t)
    dec = parse_decimal(first_t)
    if first_t in ("int", "bigint"):
        lo, hi = (INT_MIN, INT_MAX) if first_t == "int" else (BIGINT_MIN, BIGINT_MAX)
        nv = v - 1 - delta if below else v + 1 + delta
        if not lo <= nv <= hi:
            nv = v - 1 if below else v + 1
            if not lo <= nv <= hi:
                return None
    elif step is not None or dec:
        if dec:
            lo, hi = -_decimal_limit(*dec), _decimal_limit(*dec)
            step = _decimal_from_unscaled(1, dec[1])
        else:
            lo, hi = (DATE_MIN, DATE_MAX) if first_t == "date" else (TS_MIN, TS_MAX)
        nv = None
        for d in (1 + delta, 1):
            try:
                candidate = v - step * d if below else v + step * d
            except OverflowError:  # a date or datetime beyond Python's range
                continue
            if lo <= candidate <= hi:
                nv = candidate
                break
        if nv is None:
            return None
    else:
        if below:
            if v == "":
                return None  # '' is the smallest string; only NULL sorts lower
            nv = v[: max(0, len(v) - 1 - delta)]
        else:
            nv = v + tail
    return (nv, *ref[1:])


# --------------------------------------------------------------------------------------
# Two-way pairs
# --------------------------------------------------------------------------------------


@dataclass
class TablePair:
    spec: TableSpec
    source: list[dict]
    target: list[dict]
    log: list[str] = field(default_factory=list)  # what the mutations did (for debugging)

    def swapped(self) -> TablePair:
        return TablePair(self.spec, self.target, self.source, [*self.log, "swap"])


def _pick(draw, n: int, max_count: int) -> list[int]:
    """Up to ``max_count`` distinct indices below ``n`` (count drawn uniformly first)."""
    if n == 0 or max_count <= 0:
        return []
    k = draw(st.integers(0, min(n, max_count)))
    # lists(sampled_from(...), unique=True) samples without replacement: no rejections.
    return draw(st.lists(st.sampled_from(range(n)), unique=True, min_size=k, max_size=k))


@st.composite
def table_pairs(
    draw,
    specs: st.SearchStrategy[TableSpec] | None = None,
    max_rows: int = 60,
    allow_duplicates: bool = True,
    allow_null_keys: bool = True,
) -> TablePair:
    """A (source, target) pair: a base table and a mutated copy.

    Mutations: deletes; inserts (random new keys, keys before the minimum and after the
    maximum); modified cells (random, to/from NULL, +-1 ulp/µs/day/char, equivalent
    no-ops NaN->other-NaN, -0.0<->0.0, decimal rescale); cross-column shifts ('ab','c'
    -> 'a','bc') and NULL swaps between same-typed columns; duplicated keys on either
    side; NULL key components on either side; then maybe swap roles or empty a side.
    """
    spec = draw(specs if specs is not None else table_specs())
    base = draw(rows_for(spec, max_size=max_rows))
    source = [dict(r) for r in base]
    target = [dict(r) for r in base]
    log: list[str] = []
    n = len(base)
    budget = max(2, max_rows // 4)
    keys_seen = {canonical_key(tuple(r[k] for k in spec.key_names)) for r in base}

    # deletes
    deleted = set(_pick(draw, n, budget))
    if deleted:
        log.append(f"delete {sorted(deleted)}")

    # modifications
    vcols = list(spec.values)
    for i in _pick(draw, n, budget):
        if i in deleted:
            continue
        row = target[i]
        kind = draw(st.sampled_from(("cells", "cells", "shift", "null_swap")))
        if kind == "shift":
            strs = [c.name for c in vcols if c.type == "string"]
            if len(strs) >= 2:
                a, b = draw(st.permutations(strs))[:2]
                va, vb = row[a], row[b]
                if va is not None and vb is not None and va:
                    row[a], row[b] = va[:-1], va[-1:] + vb
                    log.append(f"shift {i} {a}->{b}")
                    continue
        if kind == "null_swap":
            by_type: dict[str, list[str]] = {}
            for c in vcols:
                by_type.setdefault(c.type, []).append(c.name)
            pairs = [names for names in by_type.values() if len(names) >= 2]
            if pairs:
                names = draw(st.sampled_from(pairs))
                a, b = names[0], names[1]
                if (row[a] is None) != (row[b] is None):
                    row[a], row[b] = row[b], row[a]
                    log.append(f"null_swap {i} {a}<->{b}")
                    continue
        cols = draw(st.lists(st.sampled_from(vcols), min_size=1, unique=True))
        for c in cols:
            row[c.name] = draw(_mutate_cell(c.type, row[c.name]))
        log.append(f"modify {i} {[c.name for c in cols]}")
    target = [r for i, r in enumerate(target) if i not in deleted]

    # inserts (into target: 'added'; into source: 'deleted' rows that were never in base)
    existing = [tuple(r[k] for k in spec.key_names) for r in base]
    for side_name, side in (("target", target), ("source", source)):
        count = draw(st.integers(0, budget // (1 if side_name == "target" else 2)))
        for _ in range(count):
            where = draw(st.sampled_from(("random", "below", "above")))
            k = None
            if where != "random":
                k = _outside_key(
                    spec,
                    existing,
                    below=where == "below",
                    delta=draw(st.integers(0, 3)),
                    tail=draw(st.sampled_from(("a", "\x00", "\U0010fffd", " "))),
                )
            if k is None:
                k = draw(_key_tuple(spec))
            ck = canonical_key(k)
            if ck in keys_seen:
                continue
            keys_seen.add(ck)
            existing.append(k)
            side.append(_make_row(spec, k, draw(_value_dict(spec))))
            log.append(f"insert {side_name} {where} {k!r}")

    # duplicate keys on either side
    if allow_duplicates and draw(st.integers(0, 2)) == 0:
        for _ in range(draw(st.integers(1, 3))):
            side_name = draw(st.sampled_from(("source", "target")))
            side = source if side_name == "source" else target
            if not side:
                continue
            j = draw(st.integers(0, len(side) - 1))
            dup = dict(side[j])
            if draw(st.booleans()) and vcols:
                c = draw(st.sampled_from(vcols))
                dup[c.name] = draw(_mutate_cell(c.type, dup[c.name]))
            side.insert(draw(st.integers(0, len(side))), dup)
            log.append(f"duplicate {side_name} {tuple(dup[k] for k in spec.key_names)!r}")

    # NULL key components on either side
    if allow_null_keys and draw(st.integers(0, 2)) == 0:
        for _ in range(draw(st.integers(1, 3))):
            side_name = draw(st.sampled_from(("source", "target")))
            side = source if side_name == "source" else target
            kcols = draw(st.lists(st.sampled_from(spec.key_names), min_size=1, unique=True))
            if side and draw(st.booleans()):
                j = draw(st.integers(0, len(side) - 1))
                row = side[j] = dict(side[j])
            else:
                row = _make_row(spec, draw(_key_tuple(spec)), draw(_value_dict(spec)))
                side.append(row)
            for kc in kcols:
                row[kc] = None
            log.append(f"null_key {side_name} {tuple(row[k] for k in spec.key_names)!r}")

    pair = TablePair(spec, source, target, log)
    if draw(st.booleans()):
        pair = pair.swapped()
    empty = draw(st.integers(0, 11))  # 0 (the simplest draw) keeps both sides
    if empty == 11:
        pair = TablePair(spec, [], pair.target, [*pair.log, "empty source"])
    elif empty == 10:
        pair = TablePair(spec, pair.source, [], [*pair.log, "empty target"])
    return pair


# --------------------------------------------------------------------------------------
# Corners pinned as explicit examples (tests/python/depth.py: the CI depth draws few random
# examples, so every corner that matters is in a fixed pair that every run checks)
# --------------------------------------------------------------------------------------

# Value columns of the corner pairs: every concrete type, decimals at the edges of their scales.
CORNER_VALUE_TYPES = ALL_CONCRETE_TYPES


def _corner_keys(type_str: str, n: int) -> list:
    """``n`` distinct non-NULL keys of a key type, the type's extremes at both ends, in order."""
    t = type_str.strip().lower()
    dec = parse_decimal(t)
    if t in ("int", "bigint"):
        lo, hi = (INT_MIN, INT_MAX) if t == "int" else (BIGINT_MIN, BIGINT_MAX)
        return [lo, *range(-(n // 2) + 1, n - n // 2 - 1), hi][:n]
    if t == "string":
        # Collation traps side by side: case, '-' and '_', accents, spaces, '\x00', astral.
        fixed = ["", "\x00", " ", "-a", "A", "_a", "a", "a ", "a-b", "a_b", "aB", "ab", "\u00e9"]
        fixed.append("\U0010fffd")
        # code point order is UTF-8 byte order, Spark's: '' first, U+10FFFD last
        return sorted([*fixed[1:-1], *(f"k{i:04d}" for i in range(n - len(fixed))), ""])[
            : n - 1
        ] + ["\U0010fffd"]
    if t == "date":
        middle = [_dt.date(2000, 1, 1) + _dt.timedelta(days=i) for i in range(n - 2)]
        return [DATE_MIN, *middle, DATE_MAX][:n]
    if t == "timestamp":
        middle = [_dt.datetime(1970, 1, 1) + _dt.timedelta(microseconds=i) for i in range(n - 2)]
        return [TS_MIN, *middle, TS_MAX][:n]
    if dec:
        p, s = dec
        top = _decimal_limit(p, s)
        middle = [_decimal_from_unscaled(u, s) for u in range(-(n // 2) + 1, n - n // 2 - 1)]
        return [-top, *middle, top][:n]
    raise ValueError(f"unsupported key type {type_str!r}")


def _differs(type_str: str, old, start: int) -> object:
    """The first edge value of the type from index ``start`` on that differs from ``old``."""
    edges = edge_values(type_str)
    for j in range(len(edges)):
        cand = edges[(start + j) % len(edges)]
        if not values_equal(cand, old):
            return cand
    return _bump(type_str, old)  # pragma: no cover - every type has two distinct edges


def corner_pair(key_type: str = "bigint", value_types: tuple = CORNER_VALUE_TYPES) -> TablePair:
    """One deterministic pair holding every two-way corner at once.

    Every edge value of every value type on the source (NULL, NaN payloads, +-0.0, +-inf,
    subnormals, decimals at the edges of their scale, '' / 'NULL' / '\\N', unicode and
    right-to-left text, dates and timestamps at the ends of their ranges, binary), under column
    names with spaces, dashes and capitals; the target spells each unchanged cell another way
    (-0.0 for 0.0, another NaN payload, a decimal's shorter form), changes one cell per column
    (to and from NULL, to a neighbour), swaps a NULL between two string columns and shifts a
    character from one to the other ('ab', 'c' -> 'a', 'bc'), deletes the first and the last
    key, adds keys below, inside and above the source's range, stores a key twice with equal
    rows on the source and twice with different rows on the target, and holds rows whose key is
    NULL on both sides; one row is NULL in every value column."""
    values = tuple(
        Column(f"v{i}_{re.sub(r'[^a-z0-9]', '_', t)}", t) for i, t in enumerate(value_types)
    ) + (Column("Unit Price", "string"), Column("ship-date", "string"))
    spec = TableSpec(key=(Column("k", key_type),), values=values)
    n = max(len(edge_values(c.type)) for c in values) + 4
    keys = _corner_keys(key_type, n + 3)
    # the type's extremes (first and last) and a middle key: only in the target
    below, above, inside = keys[0], keys[-1], keys[len(keys) // 2]
    base_keys = [k for k in keys if k not in (below, above, inside)][:n]
    source = []
    for i, k in enumerate(base_keys):
        row = {"k": k}
        for j, c in enumerate(values):
            edges = edge_values(c.type)
            row[c.name] = edges[(i + j) % len(edges)]
        source.append(row)
    source[1].update({c.name: None for c in values})  # the all-NULL row
    a, b = "Unit Price", "ship-date"
    source[2].update({a: None, b: "x"})  # NULL swap: (NULL, 'x') -> ('x', NULL)
    source[3].update({a: "ab", b: "c"})  # shift: ('ab', 'c') -> ('a', 'bc')
    target = [{c: _equivalent(spec.types[c], v) for c, v in r.items()} for r in source]
    target[2].update({a: "x", b: None})
    target[3].update({a: "a", b: "bc"})
    log = ["corner pair", "null_swap 2", "shift 3"]
    for j, c in enumerate(values[:-2]):
        i = 4 + (j * 3) % (n - 6)  # one changed cell per column, over several rows
        target[i][c.name] = _differs(c.type, source[i][c.name], i + j + 1)
        log.append(f"modify {i} {c.name}")
    # a key twice on the source with equal rows, twice on the target with different rows
    source.append(dict(source[5]))
    twice = dict(target[6])
    twice[values[0].name] = _differs(values[0].type, twice[values[0].name], 0)
    target.append(twice)
    # the first and last base keys deleted; keys below, inside and above added
    target = [r for i, r in enumerate(target) if i not in (0, n - 1)]
    for k in (below, inside, above):
        target.append({"k": k, **{c.name: edge_values(c.type)[-1] for c in values}})
    log += ["delete first and last", "insert below, inside, above", "duplicates 5 and 6"]
    # NULL keys on both sides
    for side in (source, target):
        side.append({"k": None, **{c.name: edge_values(c.type)[1] for c in values}})
    return TablePair(spec, source, target, log)


def corner_pairs() -> list[TablePair]:
    """The corner pair on each range key type (strings in collation-trap order, dates,
    timestamps and decimals at their extremes), the drift in both directions, and the empty and
    one-sided pairs: what the property tests pin as explicit examples."""
    pairs = [corner_pair(t) for t in RANGE_KEY_TYPES]
    pairs[1] = pairs[1].swapped()  # the other drift direction
    spec = pairs[0].spec
    pairs += [
        TablePair(spec, [], [], ["empty sides"]),
        TablePair(spec, pairs[0].source, [], ["empty target"]),
        TablePair(spec, [], pairs[0].target, ["empty source"]),
    ]
    return pairs


# --------------------------------------------------------------------------------------
# Three-way
# --------------------------------------------------------------------------------------


@dataclass
class ThreeWay:
    spec: TableSpec
    base: list[dict]
    ours: list[dict]
    theirs: list[dict]
    # (raw key tuple, scenario name) per key: what the generator meant to produce
    plan: list[tuple] = field(default_factory=list)


_ROW_SCENARIOS = (
    "keep",
    "ours_upd",
    "theirs_upd",
    "both_same",
    "both_disjoint",
    "both_overlap_same",
    "both_conflict",
    "ours_del",
    "theirs_del",
    "both_del",
    "upd_del",
    "del_upd",
    "ours_noop",  # an edit that writes equal values (NaN->NaN, -0.0->0.0): unchanged
)
_INSERT_SCENARIOS = ("ours_ins", "theirs_ins", "both_ins_same", "both_ins_diff")


@st.composite
def _update(draw, spec: TableSpec, row: dict, cols: list[Column], avoid_row: dict | None = None):
    out = dict(row)
    for c in cols:
        avoid = () if avoid_row is None else (avoid_row[c.name],)
        out[c.name] = draw(_distinct_value(c.type, row[c.name], avoid))
    return out


@st.composite
def three_way(draw, specs: st.SearchStrategy[TableSpec] | None = None, max_rows: int = 40):
    """(base, ours, theirs) with unique keys per side and overlapping edits.

    Per base row a scenario (keep, one-sided update/delete, same change on both,
    disjoint cells, overlapping cells with equal values, same cell to different values,
    update vs delete both ways, both deleted, no-op equivalent writes); plus new keys
    inserted by ours, theirs, both identically or both differently. Updated cells always
    differ from base (NULL->value and value->NULL included); rows may be all-NULL.
    """
    spec = draw(specs if specs is not None else table_specs())
    base = draw(rows_for(spec, max_size=max_rows))
    if draw(st.integers(0, 3)) == 0:  # a unique key with a NULL component
        k = list(draw(_key_tuple(spec)))
        k[draw(st.integers(0, len(k) - 1))] = None
        if canonical_key(tuple(k)) not in {
            canonical_key(tuple(r[n] for n in spec.key_names)) for r in base
        }:
            base.append(_make_row(spec, tuple(k), draw(_value_dict(spec))))
    vcols = list(spec.values)
    ours: list[dict] = []
    theirs: list[dict] = []
    plan: list[tuple] = []

    def some_cols(min_size=1, pool=None):
        return draw(st.lists(st.sampled_from(pool or vcols), min_size=min_size, unique=True))

    for r in base:
        sc = draw(st.sampled_from(_ROW_SCENARIOS))
        o: dict | None = dict(r)
        t: dict | None = dict(r)
        if sc == "ours_upd":
            o = draw(_update(spec, r, some_cols()))
        elif sc == "theirs_upd":
            t = draw(_update(spec, r, some_cols()))
        elif sc == "both_same":
            o = draw(_update(spec, r, some_cols()))
            t = dict(o)
        elif sc == "both_disjoint" and len(vcols) >= 2:
            perm = draw(st.permutations(vcols))
            cut = draw(st.integers(1, len(perm) - 1))
            o = draw(_update(spec, r, perm[:cut]))
            t = draw(_update(spec, r, some_cols(pool=perm[cut:])))
        elif sc == "both_overlap_same" and len(vcols) >= 2:
            perm = draw(st.permutations(vcols))
            shared = perm[:1]
            o = draw(_update(spec, r, shared + some_cols(0, perm[1:])))
            t = dict(r)
            t.update({c.name: o[c.name] for c in shared})
            rest = [c for c in perm[1:] if values_equal(o[c.name], r[c.name])]
            if rest:
                t = draw(_update(spec, t, some_cols(0, rest)))
        elif sc == "both_conflict":
            cols = some_cols()
            o = draw(_update(spec, r, cols))
            t = draw(_update(spec, r, cols, avoid_row=o))
        elif sc == "ours_del":
            o = None
        elif sc == "theirs_del":
            t = None
        elif sc == "both_del":
            o = t = None
        elif sc == "upd_del":
            o, t = draw(_update(spec, r, some_cols())), None
        elif sc == "del_upd":
            o, t = None, draw(_update(spec, r, some_cols()))
        elif sc == "ours_noop":
            o = {k: _equivalent(spec.types[k], v) for k, v in r.items()}
            for kn in spec.key_names:
                o[kn] = r[kn]
        else:
            sc = "keep" if sc in ("keep", "both_disjoint", "both_overlap_same") else sc
        if o is not None:
            ours.append(o)
        if t is not None:
            theirs.append(t)
        plan.append((tuple(r[k] for k in spec.key_names), sc))

    seen = {canonical_key(tuple(r[k] for k in spec.key_names)) for r in base}
    for _ in range(draw(st.integers(0, max(1, max_rows // 5)))):
        k = draw(_key_tuple(spec))
        ck = canonical_key(k)
        if ck in seen:
            continue
        seen.add(ck)
        sc = draw(st.sampled_from(_INSERT_SCENARIOS))
        row = _make_row(spec, k, draw(_value_dict(spec)))
        if draw(st.integers(0, 5)) == 0:
            row.update({c: None for c in spec.value_names})
        if sc in ("ours_ins", "both_ins_same", "both_ins_diff"):
            ours.append(row)
        if sc == "theirs_ins" or sc == "both_ins_same":
            theirs.append(dict(row))
        if sc == "both_ins_diff":
            theirs.append(draw(_update(spec, row, some_cols())))
        plan.append((k, sc))

    rnd = draw(st.randoms(use_true_random=False))
    rnd.shuffle(ours)
    rnd.shuffle(theirs)
    return ThreeWay(spec, base, ours, theirs, plan)


def _changed(spec: TableSpec, row: dict, cols: list[Column], shift: int, avoid: dict | None = None):
    """``row`` with each of ``cols`` set to an edge value that differs from it (and from
    ``avoid``'s value of the column)."""
    out = dict(row)
    for c in cols:
        v = _differs(c.type, row[c.name], shift)
        if avoid is not None and values_equal(v, avoid[c.name]):
            v = _differs(c.type, row[c.name], shift + 1)
            if values_equal(v, avoid[c.name]):
                v = (
                    None
                    if row[c.name] is not None and avoid[c.name] is not None
                    else _bump(c.type, v)
                )
        out[c.name] = v
    return out


def corner_three_way(key_type: str = "bigint") -> ThreeWay:
    """A deterministic (base, ours, theirs) with every row scenario of ``three_way`` on the
    corner pair's hostile values (each scenario twice, on other rows and columns), a unique
    key with a NULL component, and each insert scenario, one row of them all-NULL."""
    pair = corner_pair(key_type)
    spec = pair.spec
    seen: set = set()
    base = []
    for r in pair.source:  # unique keys; the NULL key once (a unique key with a NULL component)
        ck = canonical_key(tuple(r[k] for k in spec.key_names))
        if ck not in seen:
            seen.add(ck)
            base.append(dict(r))
    vcols = list(spec.values)
    ours: list[dict] = []
    theirs: list[dict] = []
    plan: list[tuple] = []
    for i, r in enumerate(base):
        sc = _ROW_SCENARIOS[i % len(_ROW_SCENARIOS)]
        one = [vcols[i % len(vcols)]]
        other = [vcols[(i + 7) % len(vcols)]]
        o: dict | None = dict(r)
        t: dict | None = dict(r)
        if sc == "ours_upd":
            o = _changed(spec, r, one, i)
        elif sc == "theirs_upd":
            t = _changed(spec, r, one, i)
        elif sc == "both_same":
            o = _changed(spec, r, one + other, i)
            t = dict(o)
        elif sc == "both_disjoint":
            o, t = _changed(spec, r, one, i), _changed(spec, r, other, i)
        elif sc == "both_overlap_same":
            o = _changed(spec, r, one + other, i)
            t = _changed(spec, r, one, i)
        elif sc == "both_conflict":
            o = _changed(spec, r, one, i)
            t = _changed(spec, r, one, i + 1, avoid=o)
        elif sc == "ours_del":
            o = None
        elif sc == "theirs_del":
            t = None
        elif sc == "both_del":
            o = t = None
        elif sc == "upd_del":
            o, t = _changed(spec, r, one, i), None
        elif sc == "del_upd":
            o, t = None, _changed(spec, r, one, i)
        elif sc == "ours_noop":
            o = {k: _equivalent(spec.types[k], v) for k, v in r.items()}
            for kn in spec.key_names:
                o[kn] = r[kn]
        if o is not None:
            ours.append(o)
        if t is not None:
            theirs.append(t)
        plan.append((tuple(r[k] for k in spec.key_names), sc))
    # inserts on keys the base never held (the added keys of the corner pair)
    new_keys = [
        r["k"] for r in pair.target if canonical_key((r["k"],)) not in seen and r["k"] is not None
    ]
    extra = _corner_keys(key_type, len(base) + 20)
    new_keys += [k for k in extra if canonical_key((k,)) not in seen and k not in new_keys]
    for j, sc in enumerate(_INSERT_SCENARIOS * 2):
        k = new_keys[j]
        row = {
            "k": k,
            **{c.name: edge_values(c.type)[(j + 2) % len(edge_values(c.type))] for c in vcols},
        }
        if j == 0:
            row.update({c.name: None for c in vcols})
        if sc in ("ours_ins", "both_ins_same", "both_ins_diff"):
            ours.append(row)
        if sc in ("theirs_ins", "both_ins_same"):
            theirs.append(dict(row))
        if sc == "both_ins_diff":
            theirs.append(_changed(spec, row, [vcols[j % len(vcols)]], j))
        plan.append(((k,), sc))
    ours.reverse()  # the sides in another order than the base
    theirs = theirs[1::2] + theirs[::2]
    return ThreeWay(spec, base, ours, theirs, plan)


# --------------------------------------------------------------------------------------
# Spark helpers
# --------------------------------------------------------------------------------------


def require_utc_session(spark) -> None:
    tz = spark.conf.get("spark.sql.session.timeZone")
    if tz not in ("UTC", "Etc/UTC", "GMT", "Z", "+00:00"):
        raise ValueError(
            f"spark.sql.session.timeZone must be UTC for the oracle's naive-UTC timestamps, "
            f"got {tz!r}"
        )


def _to_spark_value(v):
    if isinstance(v, _dt.datetime) and v.tzinfo is None:
        return v.replace(tzinfo=_dt.timezone.utc)
    return v


def to_spark_df(spark, spec: TableSpec, rows: list[dict]):
    """DataFrame with an explicit schema (DecimalType(p,s), naive-UTC timestamps)."""
    require_utc_session(spark)
    data = [tuple(_to_spark_value(r[n]) for n in spec.names) for r in rows]
    return spark.createDataFrame(data, spec.struct_type(), verifySchema=True)


def write_table(spark, spec: TableSpec, rows: list[dict], table_name: str) -> None:
    """Save ``rows`` as a parquet table (``saveAsTable``, mode overwrite).

    ``table_name`` is passed verbatim to ``saveAsTable``: quote parts with backticks
    yourself (e.g. ``"`my_schema`.`src`"``).
    """
    to_spark_df(spark, spec, rows).write.mode("overwrite").format("parquet").saveAsTable(table_name)


def _from_spark_value(v):
    if isinstance(v, _dt.datetime):
        # pyspark returns naive datetimes in the Python process's local zone.
        # astimezone() on a naive datetime assumes local time, matching fromtimestamp().
        return v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    return v


def rows_from_spark(spec: TableSpec, spark_rows) -> list[dict]:
    """Collected ``Row``s -> oracle row dicts (timestamps as naive UTC, bytes)."""
    out = []
    for r in spark_rows:
        d = r.asDict() if hasattr(r, "asDict") else dict(r)
        out.append({n: _from_spark_value(d[n]) for n in spec.names})
    return out


def read_table(spark, spec: TableSpec, table_name: str) -> list[dict]:
    return rows_from_spark(spec, spark.table(table_name).collect())
