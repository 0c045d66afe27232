"""Tests of the brute-force oracle and of the hypothesis strategies themselves.

The oracle is only useful if it is trustworthy, so every semantic rule of DESIGN.md is
pinned here by hand-written cases, cross-checked against a second, naive formulation,
and the strategies are shown to produce data that Spark stores faithfully.
"""

from __future__ import annotations

import datetime as dt
import math
import struct
import uuid
from decimal import Decimal, localcontext

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from . import oracle as O
    from . import strategies as S
except ImportError:  # tests/python is not a package: rootdir-relative imports
    import oracle as O
    import strategies as S

NAN = float("nan")
PURE = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ======================================================================================
# values_equal / canonical_value
# ======================================================================================

EQUAL = [
    (None, None),
    (NAN, NAN),
    (NAN, -NAN),
    (NAN, struct.unpack(">d", bytes.fromhex("7ff8000000000bad"))[0]),
    (-0.0, 0.0),
    (Decimal("1.10"), Decimal("1.1")),
    (Decimal("0E-10"), Decimal("-0")),
    (Decimal("1"), 1),
    (1, 1.0),
    ("", ""),
    ("a", "a"),
    (b"ab", bytearray(b"ab")),
    (b"", memoryview(b"")),
    (True, True),
    (dt.date(2024, 1, 2), dt.date(2024, 1, 2)),
    (dt.datetime(2024, 1, 2, 3, 4, 5, 6), dt.datetime(2024, 1, 2, 3, 4, 5, 6)),
    (
        dt.datetime(2024, 1, 2, 3, 4, 5, 6),
        dt.datetime(2024, 1, 2, 4, 4, 5, 6, tzinfo=dt.timezone(dt.timedelta(hours=1))),
    ),
    ([1, None, NAN], [1, None, NAN]),
    ((1, [-0.0]), [1, (0.0,)]),
    ({"a": NAN, "b": None}, {"b": None, "a": NAN}),
    ({"k": [Decimal("1.0")]}, {"k": [Decimal("1.00")]}),
]
DIFFERENT = [
    (None, ""),
    ("", None),
    (None, 0),
    (None, 0.0),
    (None, NAN),
    (None, False),
    (None, b""),
    (None, []),
    ("", " "),
    ("a", "A"),
    ("\u00e9", "e\u0301"),  # precomposed vs decomposed: not normalised
    (NAN, 0.0),
    (NAN, math.inf),
    (math.inf, -math.inf),
    (0.1, Decimal("0.1")),  # float 0.1 is not exactly 1/10
    (Decimal("1.1"), Decimal("1.11")),
    (True, 1),
    (False, 0),
    ("1", 1),
    (b"a", "a"),
    (dt.date(2024, 1, 2), dt.datetime(2024, 1, 2)),
    (dt.datetime(2024, 1, 2, 0, 0, 0, 1), dt.datetime(2024, 1, 2)),
    ([1, None], [None, 1]),
    ([1], [1, None]),
    ({"a": 1}, {"a": 1, "b": None}),
    ({"a": None}, {"b": None}),
]


@pytest.mark.parametrize(("a", "b"), EQUAL)
def test_values_equal(a, b):
    assert O.values_equal(a, b)
    assert O.values_equal(b, a)
    assert hash(O.canonical_value(a)) == hash(O.canonical_value(b))


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_values_differ(a, b):
    assert not O.values_equal(a, b)
    assert not O.values_equal(b, a)


def _reference_equal(a, b) -> bool:
    """A second, rule-by-rule statement of value equality (no canonical forms)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (bytes, bytearray)) or isinstance(b, (bytes, bytearray)):
        return (
            isinstance(a, (bytes, bytearray))
            and isinstance(b, (bytes, bytearray))
            and bytes(a) == bytes(b)
        )
    if isinstance(a, dt.datetime) or isinstance(b, dt.datetime):
        return isinstance(a, dt.datetime) and isinstance(b, dt.datetime) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return type(a) is type(b) and a == b


@st.composite
def _value_pairs(draw):
    t = draw(st.sampled_from(S.ALL_CONCRETE_TYPES))
    a = draw(S.values_of(t))
    how = draw(st.sampled_from(("independent", "same", "equivalent", "bump", "other_type")))
    if how == "same":
        b = a
    elif how == "equivalent":
        b = S._equivalent(t, a)
    elif how == "bump":
        b = S._bump(t, a)
    elif how == "other_type":
        b = draw(S.values_of(draw(st.sampled_from(S.ALL_CONCRETE_TYPES))))
    else:
        b = draw(S.values_of(t))
    return t, a, b, how


@PURE
@given(_value_pairs())
def test_values_equal_agrees_with_reference(pair):
    t, a, b, how = pair
    # The reference is type-strict; the oracle compares numbers across types by value.
    mixed_numbers = {type(a), type(b)} <= {int, float, Decimal} and type(a) is not type(b)
    if not mixed_numbers:
        assert O.values_equal(a, b) == _reference_equal(a, b), (t, a, b)
    assert O.values_equal(a, b) == O.values_equal(b, a)
    assert O.values_equal(a, a)
    if how in ("same", "equivalent"):
        assert O.values_equal(a, b)
    if how == "bump":
        assert not O.values_equal(a, b)
    if O.values_equal(a, b):
        assert hash(O.canonical_value(a)) == hash(O.canonical_value(b))


# ======================================================================================
# normalise_value
# ======================================================================================


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (2.675, 2, 2.68),  # Spark rounds the shortest repr: Python's round() gives 2.67
        (1.005, 2, 1.01),
        (0.15, 1, 0.2),
        (0.25, 1, 0.3),
        (2.5, 0, 3.0),
        (-2.5, 0, -3.0),  # HALF_UP = ties away from zero
        (-0.125, 2, -0.13),
        (1234.5678, -2, 1200.0),
        (5e-324, 2, 0.0),
        (1e300, 2, 1e300),
        (Decimal("1.005"), 2, Decimal("1.01")),
        (Decimal("-1.005"), 2, Decimal("-1.01")),
        (Decimal("1.004999999999999999999999999999999"), 2, Decimal("1.00")),
        (
            Decimal("9999999999999999999999999999.9999999995"),
            9,
            Decimal("10000000000000000000000000000.000000000"),
        ),
        (Decimal("1.1"), 3, Decimal("1.100")),
        (125, -1, 130),
        (-125, -1, -130),
        (124, -1, 120),
        (7, 2, 7),
    ],
)
def test_round_half_up(value, digits, expected):
    got = O.normalise_value(value, {"round": digits})
    assert type(got) is type(expected)
    assert got == expected


def test_round_special_floats():
    assert math.isnan(O.normalise_value(NAN, {"round": 2}))
    assert O.normalise_value(math.inf, {"round": 2}) == math.inf
    assert O.normalise_value(-math.inf, {"round": 2}) == -math.inf
    r = O.normalise_value(-0.0, {"round": 1})
    assert r == 0.0 and math.copysign(1, r) == 1.0  # Spark: round(-0.0, 1) = 0.0
    assert O.normalise_value(-0.04, {"round": 1}) == 0.0
    assert O.normalise_value(True, {"round": 0}) is True  # not a number here
    assert O.normalise_value("1.25", {"round": 1}) == "1.25"  # rule not applicable


def test_round_float32():
    f = struct.unpack("f", struct.pack("f", 0.1))[0]  # 0.1f as a double
    assert O.normalise_value(f, {"round": 1}) == 0.1
    assert O.normalise_value(f, {"round": 1}, spark_type="float") == f  # float32 result
    # Two float32 values that differ only below the rounding digit normalise equal.
    a, b = (struct.unpack("f", struct.pack("f", x))[0] for x in (1.2344, 1.2341))
    assert O.normalise_value(a, {"round": 3}, spark_type="float") == O.normalise_value(
        b, {"round": 3}, spark_type="float"
    )


TS = dt.datetime(2024, 5, 17, 13, 45, 59, 123456)  # a Friday


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("microsecond", TS),
        ("millisecond", dt.datetime(2024, 5, 17, 13, 45, 59, 123000)),
        ("second", dt.datetime(2024, 5, 17, 13, 45, 59)),
        ("minute", dt.datetime(2024, 5, 17, 13, 45)),
        ("hour", dt.datetime(2024, 5, 17, 13)),
        ("day", dt.datetime(2024, 5, 17)),
        ("week", dt.datetime(2024, 5, 13)),
        ("month", dt.datetime(2024, 5, 1)),
        ("quarter", dt.datetime(2024, 4, 1)),
        ("year", dt.datetime(2024, 1, 1)),
        ("HOUR", dt.datetime(2024, 5, 17, 13)),
    ],
)
def test_truncate_timestamp(unit, expected):
    assert O.normalise_value(TS, {"truncate": unit}) == expected


def test_truncate_floors_before_epoch_and_dates():
    pre = dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert O.normalise_value(pre, {"truncate": "day"}) == dt.datetime(1969, 12, 31)
    assert O.normalise_value(pre, {"truncate": "second"}) == dt.datetime(1969, 12, 31, 23, 59, 59)
    aware = dt.datetime(2024, 1, 1, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert O.normalise_value(aware, {"truncate": "day"}) == dt.datetime(2023, 12, 31)
    d = dt.date(2024, 5, 17)
    assert O.normalise_value(d, {"truncate": "day"}) == d
    assert O.normalise_value(d, {"truncate": "second"}) == d
    assert O.normalise_value(d, {"truncate": "month"}) == dt.date(2024, 5, 1)
    assert O.normalise_value(d, {"truncate": "week"}) == dt.date(2024, 5, 13)
    with pytest.raises(ValueError):
        O.normalise_value(TS, {"truncate": "fortnight"})


@pytest.mark.parametrize(
    ("value", "rules", "expected"),
    [
        ("  a b  ", {"trim": True}, "a b"),
        ("\ta\t", {"trim": True}, "\ta\t"),  # Spark trim strips spaces only
        ("\u00a0a\u00a0", {"trim": True}, "\u00a0a\u00a0"),
        ("\na \n", {"trim": True}, "\na \n"),
        (" ", {"trim": True}, ""),  # '' is not NULL
        ("ÀB", {"lower": True}, "àb"),
        ("\u03a3\u0391\u03a3", {"lower": True}, "\u03c3\u03b1\u03c2"),  # final sigma like Spark
        ("\u0130", {"lower": True}, "i\u0307"),  # like Java toLowerCase
        ("\u00df", {"lower": True}, "\u00df"),  # lower, not casefold
        ("  AB ", {"trim": True, "lower": True}, "ab"),
        ("AB", {"trim": False, "lower": False}, "AB"),
        (1.25, {"trim": True, "lower": True}, 1.25),
        (dt.datetime(2024, 1, 1, 1), {"round": 2, "trim": True}, dt.datetime(2024, 1, 1, 1)),
        (3.14159, {"round": 2, "trim": True}, 3.14),
    ],
)
def test_string_rules(value, rules, expected):
    assert O.normalise_value(value, rules) == expected


@pytest.mark.parametrize(
    "rules",
    [
        {"round": 2},
        {"truncate": "day"},
        {"trim": True},
        {"lower": True},
        {"trim": True, "round": 1},
    ],
)
def test_null_stays_null(rules):
    assert O.normalise_value(None, rules) is None


def test_no_rules_and_unknown_rules():
    assert O.normalise_value(2.675, None) == 2.675
    assert O.normalise_value(2.675, {}) == 2.675
    with pytest.raises(ValueError):
        O.normalise_value("a", {"upper": True})
    with pytest.raises(ValueError):
        O.normalise_value(1.0, {"round": 1.5})


# ======================================================================================
# brute_force_diff: hand-written cases
# ======================================================================================


def r(id_, **cols):
    return {"id": id_, **cols}


def test_identical_tables_are_clean():
    rows = [r(1, a="x", b=1.0), r(2, a=None, b=NAN), r(3, a="", b=-0.0)]
    d = O.brute_force_diff(rows, list(reversed(rows)), ["id"], ["a", "b"])
    assert d.is_clean
    assert d == O.TwoWayDiff(frozenset(), frozenset(), {}, frozenset(), 0, 0, 3, 3, matched_keys=3)


def test_matched_keys_and_column_changes():
    """Matched keys are stored exactly once on each side (a NULL key too); a duplicate key, an
    added and a deleted one are not. Column changes count the modified keys per column."""
    src = [r(None, a="x", b=1.0), r(1, a="x", b=1.0), r(2, a="y", b=NAN), r(3, a="z", b=0.0)]
    src += [r(4, a="d", b=1.0), r(4, a="d", b=1.0), r(5, a="gone", b=None)]
    tgt = [r(None, a="X", b=1.0), r(1, a="x", b=2.0), r(2, a="y", b=NAN), r(3, a="Z", b=-0.0)]
    tgt += [r(4, a="d", b=1.0), r(6, a="new", b=None)]
    d = O.brute_force_diff(src, tgt, ["id"], ["a", "b"])
    assert d.matched_keys == 4  # None, 1, 2, 3
    assert d.column_changes() == {"a": 2, "b": 1}  # None: a; 1: b; 3: a (-0.0 == 0.0)
    assert d.duplicate_rows_by_key == {(4,): (2, 1)}
    # every source row is matched, deleted or a duplicate key's
    assert d.rows_source == d.matched_keys + len(d.deleted) + d.duplicate_key_rows_source


def test_null_versus_empty_string_zero_and_nan():
    src = [r(1, a=None), r(2, a=""), r(3, a=None), r(4, a=None), r(5, a=None)]
    tgt = [r(1, a=""), r(2, a=None), r(3, a=None), r(4, a=0), r(5, a=NAN)]
    d = O.brute_force_diff(src, tgt, ["id"], ["a"])
    assert d.modified == {(1,): ("a",), (2,): ("a",), (4,): ("a",), (5,): ("a",)}
    assert not d.added and not d.deleted and not d.duplicate_keys


def test_nan_negative_zero_and_decimal_scale_are_no_change():
    src = [r(1, f=NAN, d=Decimal("1.10")), r(2, f=-0.0, d=Decimal("0")), r(3, f=1.0, d=None)]
    tgt = [r(1, f=NAN, d=Decimal("1.1")), r(2, f=0.0, d=Decimal("0E-10")), r(3, f=NAN, d=None)]
    d = O.brute_force_diff(src, tgt, ["id"], ["f", "d"])
    assert d.modified == {(3,): ("f",)}


def test_added_deleted_modified():
    src = [r(1, a=1), r(2, a=2), r(3, a=3)]
    tgt = [r(2, a=2), r(3, a=30), r(4, a=4), r(0, a=0)]
    d = O.brute_force_diff(src, tgt, ["id"], ["a"])
    assert d.added == {(4,), (0,)}
    assert d.deleted == {(1,)}
    assert d.modified == {(3,): ("a",)}
    assert (d.rows_source, d.rows_target) == (3, 4)
    assert not d.is_clean


def test_changed_columns_in_table_order():
    cols = ["z", "a", "m", "b"]
    src = [r(1, z=1, a=1, m=1, b=1)]
    tgt = [r(1, b=2, a=2, z=2, m=1)]  # dict order in the row must not matter
    d = O.brute_force_diff(src, tgt, ["id"], cols)
    assert d.modified == {(1,): ("z", "a", "b")}


def test_lookalike_shift_and_null_swap_across_columns():
    src = [r(1, a="ab", b="c"), r(2, a=None, b="x"), r(3, a="a|b", b=""), r(4, a="", b=None)]
    tgt = [r(1, a="a", b="bc"), r(2, a="x", b=None), r(3, a="a", b="b|"), r(4, a=None, b="")]
    d = O.brute_force_diff(src, tgt, ["id"], ["a", "b"])
    assert d.modified == {k: ("a", "b") for k in [(1,), (2,), (3,), (4,)]}


def test_duplicate_keys_are_never_added_deleted_or_modified():
    src = [r(1, a=1), r(1, a=1), r(2, a=2), r(3, a=3), r(3, a=3), r(5, a=5)]
    tgt = [r(1, a=9), r(2, a=2), r(2, a=2), r(4, a=4), r(4, a=40), r(4, a=4), r(5, a=50)]
    d = O.brute_force_diff(src, tgt, ["id"], ["a"])
    # 1: dup in source (present once in target, with a different value)
    # 2: dup in target only; 3: dup in source, absent from target; 4: triple in target only
    assert d.duplicate_keys == {(1,), (2,), (3,), (4,)}
    assert not d.added and not d.deleted
    assert d.modified == {(5,): ("a",)}
    assert d.duplicate_key_rows_source == 2 + 1 + 2  # keys 1, 2, 3
    assert d.duplicate_key_rows_target == 1 + 2 + 3  # keys 1, 2, 4


def test_identical_duplicates_on_both_sides_are_still_reported():
    rows = [r(7, a=1), r(7, a=1)]
    d = O.brute_force_diff(rows, rows, ["id"], ["a"])
    assert d.duplicate_keys == {(7,)} and not d.is_clean


def test_null_key_components_match_null_safely_and_are_counted():
    key = ["k1", "k2"]
    src = [
        {"k1": None, "k2": "a", "v": 1},
        {"k1": None, "k2": None, "v": 2},
        {"k1": None, "k2": "b", "v": 3},
        {"k1": 1, "k2": "a", "v": 4},
    ]
    tgt = [
        {"k1": None, "k2": "a", "v": 1},  # same key, same row: unchanged
        {"k1": None, "k2": None, "v": 20},  # all-NULL key matches all-NULL key: modified
        {"k1": 1, "k2": None, "v": 5},  # not the same key as (None, 'b') nor (1, 'a')
        {"k1": 1, "k2": "a", "v": 4},
    ]
    d = O.brute_force_diff(src, tgt, key, ["v"])
    assert d.modified == {(None, None): ("v",)}
    assert d.deleted == {(None, "b")}
    assert d.added == {(1, None)}
    assert (d.null_key_rows_source, d.null_key_rows_target) == (3, 3)


def test_null_key_duplicated_on_one_side():
    src = [{"id": None, "v": 1}, {"id": None, "v": 1}, {"id": 1, "v": 1}]
    tgt = [{"id": None, "v": 1}, {"id": 1, "v": 1}]
    d = O.brute_force_diff(src, tgt, ["id"], ["v"])
    assert d.duplicate_keys == {(None,)}
    assert (d.null_key_rows_source, d.null_key_rows_target) == (2, 1)
    assert d.duplicate_key_rows_source == 2 and d.duplicate_key_rows_target == 1


def test_float_and_decimal_keys_match_canonically():
    src = [{"id": NAN, "v": 1}, {"id": -0.0, "v": 1}, {"id": Decimal("1.0"), "v": 1}]
    tgt = [{"id": float("nan"), "v": 2}, {"id": 0.0, "v": 1}, {"id": Decimal("1.00"), "v": 1}]
    d = O.brute_force_diff(src, tgt, ["id"], ["v"])
    assert not d.added and not d.deleted and not d.duplicate_keys
    assert [O.canonical_key(k) for k in d.modified] == [O.canonical_key((NAN,))]


def test_keys_are_never_normalised():
    src = [{"id": " a", "v": "X "}, {"id": "B", "v": "y"}]
    tgt = [{"id": "a", "v": "x"}, {"id": "b", "v": "Y"}]
    norm = {"id": {"trim": True, "lower": True}, "v": {"trim": True, "lower": True}}
    d = O.brute_force_diff(src, tgt, ["id"], ["v"], normalize=norm)
    assert d.deleted == {(" a",), ("B",)}
    assert d.added == {("a",), ("b",)}
    assert not d.modified


def test_normalisation_rules_in_diff():
    cols = ["price", "ts", "name", "qty", "amount"]
    src = [
        {
            "id": 1,
            "price": 2.675,
            "ts": dt.datetime(2024, 1, 1, 10, 0, 0, 1),
            "name": " Ann ",
            "qty": 5,
            "amount": Decimal("1.005"),
        },
        {
            "id": 2,
            "price": 1.0,
            "ts": dt.datetime(2024, 1, 1, 10),
            "name": "bob",
            "qty": 5,
            "amount": Decimal("1.004"),
        },
        {"id": 3, "price": None, "ts": None, "name": None, "qty": None, "amount": None},
    ]
    tgt = [
        {
            "id": 1,
            "price": 2.68,
            "ts": dt.datetime(2024, 1, 1, 10, 0, 0, 999999),
            "name": "ann",
            "qty": 5,
            "amount": Decimal("1.01"),
        },
        {
            "id": 2,
            "price": 1.006,
            "ts": dt.datetime(2024, 1, 1, 10, 0, 1),
            "name": "Bob\t",
            "qty": 6,
            "amount": Decimal("1.005"),
        },
        {"id": 3, "price": 0.0, "ts": None, "name": "", "qty": None, "amount": None},
    ]
    norm = {
        "price": {"round": 2},
        "ts": {"truncate": "second"},
        "name": {"trim": True, "lower": True},
        "amount": {"round": 2},
    }
    d = O.brute_force_diff(src, tgt, ["id"], cols, normalize=norm)
    assert d.modified == {
        (2,): ("price", "ts", "name", "qty", "amount"),
        (3,): ("price", "name"),  # NULL stays NULL: differs from 0.0 and '' after rules
    }
    # Without normalisation key 1 differs in every normalised column.
    d0 = O.brute_force_diff(src, tgt, ["id"], cols)
    assert d0.modified[(1,)] == ("price", "ts", "name", "amount")


def test_round_float32_through_types():
    f = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731
    src = [{"id": 1, "v": f(0.1)}]
    tgt = [{"id": 1, "v": f(0.1000001)}]
    d = O.brute_force_diff(src, tgt, ["id"], ["v"], {"v": {"round": 3}}, types={"v": "float"})
    assert not d.modified


def test_row_filter_applies_to_both_sides_first():
    src = [r(1, a=1, keep=True), r(2, a=2, keep=False), r(2, a=2, keep=True), r(3, a=3, keep=False)]
    tgt = [r(1, a=10, keep=False), r(2, a=2, keep=True), r(3, a=30, keep=True)]
    d = O.brute_force_diff(src, tgt, ["id"], ["a"], row_filter=lambda row: row["keep"])
    # 1 only survives in source -> deleted; 2's duplicate was filtered out -> unchanged;
    # 3 only survives in target -> added.
    assert d.deleted == {(1,)} and d.added == {(3,)}
    assert not d.modified and not d.duplicate_keys
    assert (d.rows_source, d.rows_target) == (2, 2)


def test_row_filter_counts_null_keys_after_filtering():
    src = [{"id": None, "v": 1, "keep": False}, {"id": None, "v": 1, "keep": True}]
    d = O.brute_force_diff(src, [], ["id"], ["v"], row_filter=lambda row: row["keep"])
    assert d.null_key_rows_source == 1 and d.deleted == {(None,)} and not d.duplicate_keys


def test_empty_and_one_sided_tables():
    rows = [r(1, a=1), r(2, a=None)]
    assert O.brute_force_diff([], [], ["id"], ["a"]).is_clean
    d = O.brute_force_diff(rows, [], ["id"], ["a"])
    assert d.deleted == {(1,), (2,)} and not d.added and (d.rows_source, d.rows_target) == (2, 0)
    d = O.brute_force_diff([], rows, ["id"], ["a"])
    assert d.added == {(1,), (2,)} and not d.deleted


def test_pyspark_rows_are_accepted():
    from collections import namedtuple

    class FakeRow(namedtuple("FakeRow", "id a")):
        def asDict(self):
            return self._asdict()

    d = O.brute_force_diff([FakeRow(1, "x")], [{"id": 1, "a": "y"}], ["id"], ["a"])
    assert d.modified == {(1,): ("a",)}


def test_bad_arguments():
    with pytest.raises(ValueError):
        O.brute_force_diff([], [], [], ["a"])
    with pytest.raises(ValueError):
        O.brute_force_diff([], [], ["id"], ["id", "a"])
    with pytest.raises(KeyError):
        O.brute_force_diff([{"id": 1}], [], ["id"], ["a"])


# ======================================================================================
# brute_force_diff: properties
# ======================================================================================


def _naive_diff(src, tgt, key, cols):
    """O(n*m) formulation: group keys by pairwise values_equal, no hashing."""

    def same_key(r1, r2):
        return all(O.values_equal(r1[k], r2[k]) for k in key)

    reps: list[dict] = []
    for row in [*src, *tgt]:
        if not any(same_key(row, rep) for rep in reps):
            reps.append(row)
    out = {"added": set(), "deleted": set(), "modified": {}, "dups": set()}
    for rep in reps:
        ms = [x for x in src if same_key(x, rep)]
        mt = [x for x in tgt if same_key(x, rep)]
        ck = O.canonical_key(tuple(rep[k] for k in key))
        if len(ms) > 1 or len(mt) > 1:
            out["dups"].add(ck)
        elif not mt:
            out["deleted"].add(ck)
        elif not ms:
            out["added"].add(ck)
        else:
            ch = tuple(c for c in cols if not _reference_equal(ms[0][c], mt[0][c]))
            if ch:
                out["modified"][ck] = ch
    return out


@PURE
@given(S.table_pairs(max_rows=25))
def test_oracle_matches_naive_formulation(pair):
    spec = pair.spec
    d = O.brute_force_diff(pair.source, pair.target, spec.key_names, spec.value_names)
    n = _naive_diff(pair.source, pair.target, spec.key_names, spec.value_names)
    c = d.canonical()
    assert c["added"] == n["added"]
    assert c["deleted"] == n["deleted"]
    assert c["modified"] == n["modified"]
    assert c["duplicate_keys"] == n["dups"]
    null = lambda rows: sum(any(x[k] is None for k in spec.key_names) for x in rows)  # noqa: E731
    assert d.null_key_rows_source == null(pair.source)
    assert d.null_key_rows_target == null(pair.target)
    # Every key lands in exactly one bucket, and row counts add up.
    all_keys = {O.canonical_key(tuple(x[k] for k in spec.key_names)) for x in pair.source}
    all_keys |= {O.canonical_key(tuple(x[k] for k in spec.key_names)) for x in pair.target}
    buckets = [c["added"], c["deleted"], set(c["modified"]), c["duplicate_keys"]]
    assert sum(len(b) for b in buckets) == len(set().union(*buckets))
    assert set().union(*buckets) <= all_keys
    assert (d.rows_source, d.rows_target) == (len(pair.source), len(pair.target))
    dup_rows_s = len(pair.source) - (len(all_keys) - len(c["added"]) - len(c["duplicate_keys"]))
    assert d.duplicate_key_rows_source == dup_rows_s


@PURE
@given(S.table_pairs(max_rows=40))
def test_oracle_is_symmetric(pair):
    spec = pair.spec
    fwd = O.brute_force_diff(pair.source, pair.target, spec.key_names, spec.value_names)
    bwd = O.brute_force_diff(pair.target, pair.source, spec.key_names, spec.value_names)
    f, b = fwd.canonical(), bwd.canonical()
    assert f["added"] == b["deleted"]
    assert f["deleted"] == b["added"]
    assert f["modified"] == b["modified"]
    assert f["duplicate_keys"] == b["duplicate_keys"]
    assert (fwd.null_key_rows_source, fwd.null_key_rows_target) == (
        bwd.null_key_rows_target,
        bwd.null_key_rows_source,
    )
    assert (fwd.rows_source, fwd.rows_target) == (bwd.rows_target, bwd.rows_source)
    assert (fwd.duplicate_key_rows_source, fwd.duplicate_key_rows_target) == (
        bwd.duplicate_key_rows_target,
        bwd.duplicate_key_rows_source,
    )


@PURE
@given(S.table_pairs(max_rows=30), st.randoms(use_true_random=False))
def test_oracle_ignores_row_order_and_self_diff_is_clean(pair, rnd):
    spec = pair.spec
    shuffled = list(pair.target)
    rnd.shuffle(shuffled)
    d1 = O.brute_force_diff(pair.source, pair.target, spec.key_names, spec.value_names)
    d2 = O.brute_force_diff(pair.source, shuffled, spec.key_names, spec.value_names)
    assert d1.canonical() == d2.canonical() and d1.counts() == d2.counts()
    same = list(pair.source)
    rnd.shuffle(same)
    self_diff = O.brute_force_diff(pair.source, same, spec.key_names, spec.value_names)
    assert not self_diff.added and not self_diff.deleted and not self_diff.modified
    source_keys = [O.canonical_key(tuple(x[k] for k in spec.key_names)) for x in pair.source]
    assert self_diff.is_clean == (len(set(source_keys)) == len(source_keys))


# ======================================================================================
# brute_force_merge: every row of the DESIGN.md table
# ======================================================================================

K, C = ["id"], ["a", "b"]


def m(id_, a, b):
    return {"id": id_, "a": a, "b": b}


def merge_one(base, ours, theirs):
    res = O.brute_force_merge(
        [base] if base else [], [ours] if ours else [], [theirs] if theirs else [], K, C
    )
    assert len(res) == 1
    return next(iter(res.values()))


BASE = m(1, "x", 1)


@pytest.mark.parametrize(
    ("ours", "theirs", "status", "ctype", "oc", "tc", "merged"),
    [
        (BASE, BASE, "unchanged", None, (), (), BASE),
        (BASE, m(1, "x", 2), "theirs_only", None, (), ("b",), m(1, "x", 2)),
        (m(1, "y", 1), BASE, "ours_only", None, ("a",), (), m(1, "y", 1)),
        (m(1, "y", 2), m(1, "y", 2), "convergent", None, ("a", "b"), ("a", "b"), m(1, "y", 2)),
        (None, None, "convergent", None, ("a", "b"), ("a", "b"), None),  # both deleted
        (m(1, "y", 1), m(1, "x", 2), "cell_merged", None, ("a",), ("b",), m(1, "y", 2)),
        (m(1, "y", 1), m(1, "z", 1), "conflict", "update_update", ("a",), ("a",), m(1, "y", 1)),
        (
            m(1, "y", 2),
            m(1, "z", 2),
            "conflict",
            "update_update",
            ("a", "b"),
            ("a", "b"),
            m(1, "y", 2),
        ),
        (m(1, "y", 1), None, "conflict", "update_delete", ("a",), ("a", "b"), m(1, "y", 1)),
        (None, m(1, "x", 2), "conflict", "delete_update", ("a", "b"), ("b",), None),
        (BASE, None, "theirs_only", None, (), ("a", "b"), None),  # one-sided delete
        (None, BASE, "ours_only", None, ("a", "b"), (), None),
        # NULL edits: value -> NULL on one side, the other cell on the other side.
        (m(1, None, 1), m(1, "x", None), "cell_merged", None, ("a",), ("b",), m(1, None, None)),
        # value -> NULL vs value -> '' on the same cell: a conflict ('' is not NULL)
        (m(1, None, 1), m(1, "", 1), "conflict", "update_update", ("a",), ("a",), m(1, None, 1)),
        # same change plus a disjoint change: cell-merged, not a conflict
        (m(1, "y", 1), m(1, "y", 2), "cell_merged", None, ("a",), ("a", "b"), m(1, "y", 2)),
    ],
)
def test_merge_table_rows(ours, theirs, status, ctype, oc, tc, merged):
    row = merge_one(BASE, ours, theirs)
    assert (row.key, row.status, row.conflict_type) == ((1,), status, ctype)
    assert (row.ours_changed, row.theirs_changed) == (oc, tc)
    assert row.merged == merged


@pytest.mark.parametrize(
    ("ours", "theirs", "status", "ctype", "merged"),
    [
        (m(1, "o", 1), None, "ours_only", None, m(1, "o", 1)),
        (None, m(1, "t", 1), "theirs_only", None, m(1, "t", 1)),
        (m(1, "o", NAN), m(1, "o", NAN), "convergent", None, m(1, "o", NAN)),
        (m(1, None, None), m(1, None, None), "convergent", None, m(1, None, None)),
        (m(1, "o", 1), m(1, "t", 1), "conflict", "insert_insert", m(1, "o", 1)),
        (m(1, None, None), m(1, "", None), "conflict", "insert_insert", m(1, None, None)),
    ],
)
def test_merge_inserts(ours, theirs, status, ctype, merged):
    row = merge_one(None, ours, theirs)
    assert (row.status, row.conflict_type) == (status, ctype)
    assert row.ours_changed == (("a", "b") if ours else ())
    assert row.theirs_changed == (("a", "b") if theirs else ())
    assert (row.merged is None) == (merged is None)
    if merged is not None:
        assert all(O.values_equal(row.merged[c], merged[c]) for c in ["id", *C])


def test_merge_equal_spellings_are_unchanged():
    base = m(1, -0.0, Decimal("1.10"))
    ours = m(1, 0.0, Decimal("1.1"))
    theirs = m(1, -0.0, Decimal("1.100"))
    row = merge_one(base, ours, theirs)
    assert row.status == "unchanged" and row.ours_changed == () and row.theirs_changed == ()


def test_merge_many_keys_counts_and_merged_table():
    base = [m(1, "a", 1), m(2, "b", 2), m(3, "c", 3), m(4, "d", 4), m(None, "n", 0)]
    ours = [m(1, "A", 1), m(2, "b", 2), m(4, "d", 40), m(5, "e", 5), m(None, "n", 0)]
    theirs = [m(1, "a", 10), m(3, "c", 3), m(4, "d", 41), m(5, "e", 5), m(None, "N", 0)]
    res = O.brute_force_merge(base, ours, theirs, K, C)
    assert {k: (v.status, v.conflict_type) for k, v in res.items()} == {
        (1,): ("cell_merged", None),
        (2,): ("theirs_only", None),  # deleted by theirs, untouched by ours
        (3,): ("ours_only", None),  # deleted by ours, untouched by theirs
        (4,): ("conflict", "update_update"),
        (None,): ("theirs_only", None),  # NULL key matched null-safely
        (5,): ("convergent", None),
    }
    counts = O.merge_counts(res)
    assert counts["conflict"] == 1 and counts["update_update"] == 1 and counts["insert_insert"] == 0
    assert sorted(O.merged_table(res), key=lambda x: (x["id"] is None, x["id"] or 0)) == [
        m(1, "A", 10),
        m(4, "d", 40),
        m(5, "e", 5),
        m(None, "N", 0),
    ]


def test_merge_requires_unique_keys():
    with pytest.raises(AssertionError):
        O.brute_force_merge([m(1, "a", 1), m(1, "b", 1)], [], [], K, C)


EXPECTED_BY_SCENARIO = {
    "keep": {("unchanged", None)},
    "ours_noop": {("unchanged", None)},
    "ours_upd": {("ours_only", None)},
    "theirs_upd": {("theirs_only", None)},
    "ours_del": {("ours_only", None)},
    "theirs_del": {("theirs_only", None)},
    "both_same": {("convergent", None)},
    "both_del": {("convergent", None)},
    "both_disjoint": {("cell_merged", None)},
    "both_overlap_same": {("cell_merged", None), ("convergent", None)},
    "both_conflict": {("conflict", "update_update")},
    "upd_del": {("conflict", "update_delete")},
    "del_upd": {("conflict", "delete_update")},
    "ours_ins": {("ours_only", None)},
    "theirs_ins": {("theirs_only", None)},
    "both_ins_same": {("convergent", None)},
    "both_ins_diff": {("conflict", "insert_insert")},
}


@PURE
@given(S.three_way(max_rows=25))
def test_merge_matches_generator_intent(tw):
    spec = tw.spec
    res = O.brute_force_merge(tw.base, tw.ours, tw.theirs, spec.key_names, spec.value_names)
    by_ck = {O.canonical_key(k): v for k, v in res.items()}
    assert len(by_ck) == len(tw.plan)
    for k, scenario in tw.plan:
        got = by_ck[O.canonical_key(k)]
        assert (got.status, got.conflict_type) in EXPECTED_BY_SCENARIO[scenario], (k, scenario)
        assert got.status in O.MERGE_STATUSES
        assert (got.conflict_type is not None) == (got.status == "conflict")


def _merged_by_ck(res, key):
    return {O.canonical_key(tuple(row[k] for k in key)): row for row in O.merged_table(res)}


@PURE
@given(S.three_way(max_rows=25))
def test_merge_swap_ours_theirs(tw):
    spec = tw.spec
    key, cols = spec.key_names, spec.value_names
    a = O.brute_force_merge(tw.base, tw.ours, tw.theirs, key, cols)
    b = O.brute_force_merge(tw.base, tw.theirs, tw.ours, key, cols)
    flip_status = {"ours_only": "theirs_only", "theirs_only": "ours_only"}
    flip_conflict = {"update_delete": "delete_update", "delete_update": "update_delete"}
    bb = {O.canonical_key(k): v for k, v in b.items()}
    for k, x in a.items():
        y = bb[O.canonical_key(k)]
        assert y.status == flip_status.get(x.status, x.status)
        assert y.conflict_type == flip_conflict.get(x.conflict_type, x.conflict_type)
        assert (y.ours_changed, y.theirs_changed) == (x.theirs_changed, x.ours_changed)
        if x.status != "conflict":  # outside conflicts, the merge is symmetric
            assert (x.merged is None) == (y.merged is None)
            if x.merged is not None:
                assert all(O.values_equal(x.merged[c], y.merged[c]) for c in x.merged)


@PURE
@given(S.three_way(max_rows=25))
def test_merge_with_untouched_ours_is_theirs(tw):
    spec = tw.spec
    key, cols = spec.key_names, spec.value_names
    res = O.brute_force_merge(tw.base, tw.base, tw.theirs, key, cols)
    assert all(v.status in ("unchanged", "theirs_only") for v in res.values())
    merged = _merged_by_ck(res, key)
    theirs = {O.canonical_key(tuple(x[k] for k in key)): x for x in tw.theirs}
    assert merged.keys() == theirs.keys()
    for ck, row in merged.items():
        assert all(O.values_equal(row[c], theirs[ck][c]) for c in cols)
    # and merging a side with itself converges everywhere it changed
    res = O.brute_force_merge(tw.base, tw.ours, tw.ours, key, cols)
    assert all(v.status in ("unchanged", "convergent") for v in res.values())


# ======================================================================================
# Strategies produce values of the declared types
# ======================================================================================


def _fits(type_str, v) -> bool:
    if v is None:
        return True
    dec = S.parse_decimal(type_str)
    if dec:
        p, s = dec
        if not isinstance(v, Decimal) or not v.is_finite():
            return False
        with localcontext() as ctx:
            ctx.prec = 100
            q = v.scaleb(s)
            return q == q.to_integral_value() and abs(q) < Decimal(10) ** p
    if type_str == "int":
        return type(v) is int and S.INT_MIN <= v <= S.INT_MAX
    if type_str == "bigint":
        return type(v) is int and S.BIGINT_MIN <= v <= S.BIGINT_MAX
    if type_str == "double":
        return type(v) is float
    if type_str == "float":
        return type(v) is float and (
            math.isnan(v) or struct.unpack("f", struct.pack("f", v))[0] == v
        )
    if type_str == "string":
        return type(v) is str and all(not 0xD800 <= ord(ch) <= 0xDFFF for ch in v)
    if type_str == "boolean":
        return type(v) is bool
    if type_str == "date":
        return type(v) is dt.date
    if type_str == "timestamp":
        return type(v) is dt.datetime and v.tzinfo is None and S.TS_MIN <= v <= S.TS_MAX
    if type_str == "binary":
        return type(v) is bytes
    return False


@settings(PURE, max_examples=50)
@given(S.table_pairs(max_rows=30))
def test_table_pairs_are_well_typed(pair):
    spec = pair.spec
    assert 1 <= len(spec.key) <= 2 and 1 <= len(spec.values) <= 6
    assert len({n.lower() for n in spec.names}) == len(spec.names)
    assert all(c.type in S.KEY_TYPES for c in spec.key)
    for row in [*pair.source, *pair.target]:
        assert set(row) == set(spec.names)
        for c in spec.columns:
            assert _fits(c.type, row[c.name]), (c, row[c.name])


@settings(PURE, max_examples=50)
@given(S.three_way(max_rows=30))
def test_three_way_is_well_typed_with_unique_keys(tw):
    spec = tw.spec
    for side in (tw.base, tw.ours, tw.theirs):
        cks = [O.canonical_key(tuple(x[k] for k in spec.key_names)) for x in side]
        assert len(cks) == len(set(cks))
        for row in side:
            assert set(row) == set(spec.names)
            assert all(_fits(c.type, row[c.name]) for c in spec.columns)


def test_edge_values_are_well_typed():
    for t in S.ALL_CONCRETE_TYPES:
        for v in S.edge_values(t):
            assert _fits(t, v), (t, v)


# ======================================================================================
# Spark round trip: the strategies' data is stored faithfully
# ======================================================================================


@pytest.fixture(scope="module")
def _oracle_spark(request, tmp_path_factory):
    """The suite's one SparkSession when there is one, else a light local[2] session.

    Order of preference: the active session; the shared ``spark`` fixture of conftest.py
    (the suite allows one JVM/metastore only); a session of our own (no Hive support),
    stopped at module teardown. The session time zone is forced to UTC meanwhile.
    """
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    created = False
    if spark is None:
        try:
            spark = request.getfixturevalue("spark")
        except pytest.FixtureLookupError:
            warehouse = tmp_path_factory.mktemp("oracle_warehouse")
            spark = (
                SparkSession.builder.master("local[2]")
                .appName("table_diff-oracle-tests")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.warehouse.dir", str(warehouse))
                .getOrCreate()
            )
            created = True
    old_tz = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.session.timeZone", old_tz)
        if created:
            spark.stop()


@pytest.fixture(scope="module")
def _oracle_db(_oracle_spark, tmp_path_factory):
    name = f"oracle_rt_{uuid.uuid4().hex[:8]}"
    location = tmp_path_factory.mktemp("oracle_db")
    _oracle_spark.sql(f"CREATE DATABASE {name} LOCATION '{location}'")
    try:
        yield name
    finally:
        _oracle_spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


EDGE_SPEC = S.TableSpec(
    key=(S.Column("id", "bigint"),),
    values=tuple(
        S.Column(name, t)
        for name, t in zip(
            [
                "i",
                "Big Int",
                "dbl",
                "ship-date f",
                "UnitPrice",
                "d10_2",
                "d38_0",
                "d38_38",
                "s",
                "flag",
                "day",
                "ts",
                "bin",
            ],
            [
                "int",
                "bigint",
                "double",
                "float",
                "decimal(38,10)",
                "decimal(10,2)",
                "decimal(38,0)",
                "decimal(38,38)",
                "string",
                "boolean",
                "date",
                "timestamp",
                "binary",
            ],
            strict=True,
        )
    ),
)


def _edge_rows(spec):
    columns = {c.name: S.edge_values(c.type) for c in spec.values}
    n = max(len(v) for v in columns.values())
    return [
        {"id": i, **{name: vals[i % len(vals)] for name, vals in columns.items()}} for i in range(n)
    ]


def _assert_same_rows(spec, expected, got):
    assert len(got) == len(expected)
    by_key = {O.canonical_key(tuple(x[k] for k in spec.key_names)): x for x in got}
    assert len(by_key) == len(got)
    for row in expected:
        back = by_key[O.canonical_key(tuple(row[k] for k in spec.key_names))]
        for c in spec.columns:
            assert O.values_equal(row[c.name], back[c.name]), (c, row[c.name], back[c.name])


def test_spark_round_trip_edge_values(_oracle_spark, _oracle_db):
    rows = _edge_rows(EDGE_SPEC)
    df = S.to_spark_df(_oracle_spark, EDGE_SPEC, rows)
    assert [f.name for f in df.schema.fields] == EDGE_SPEC.names
    _assert_same_rows(EDGE_SPEC, rows, S.rows_from_spark(EDGE_SPEC, df.collect()))
    table = f"`{_oracle_db}`.`edge_values`"
    S.write_table(_oracle_spark, EDGE_SPEC, rows, table)
    back = S.read_table(_oracle_spark, EDGE_SPEC, table)
    _assert_same_rows(EDGE_SPEC, rows, back)
    # Beyond values_equal: -0.0 keeps its sign through parquet (so a product that hashes
    # raw bits must normalise it), and every NaN stays NaN.
    by_id = {x["id"]: x for x in back}
    for row in rows:
        for name in ("dbl", "ship-date f"):
            v, w = row[name], by_id[row["id"]][name]
            if v is not None and v == 0:
                assert math.copysign(1, v) == math.copysign(1, w)


def test_spark_requires_utc_session(_oracle_spark):
    _oracle_spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        with pytest.raises(ValueError):
            S.to_spark_df(_oracle_spark, EDGE_SPEC, [])
    finally:
        _oracle_spark.conf.set("spark.sql.session.timeZone", "UTC")


_ALL_TYPE_SPECS = S.table_specs(min_value_columns=4, max_value_columns=6)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_spark_round_trip_generated(_oracle_spark, data):
    spec = data.draw(_ALL_TYPE_SPECS, label="spec")
    rows = data.draw(S.rows_for(spec, max_size=40), label="rows")
    df = S.to_spark_df(_oracle_spark, spec, rows)
    _assert_same_rows(spec, rows, S.rows_from_spark(spec, df.collect()))


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pair=S.table_pairs(max_rows=30))
def test_spark_parquet_preserves_the_diff(_oracle_spark, _oracle_db, pair):
    """What the product will read back from parquet diffs exactly like the generated rows."""
    spec = pair.spec
    S.write_table(_oracle_spark, spec, pair.source, f"`{_oracle_db}`.`src`")
    S.write_table(_oracle_spark, spec, pair.target, f"`{_oracle_db}`.`tgt`")
    src = S.read_table(_oracle_spark, spec, f"`{_oracle_db}`.`src`")
    tgt = S.read_table(_oracle_spark, spec, f"`{_oracle_db}`.`tgt`")
    expected = O.brute_force_diff(pair.source, pair.target, spec.key_names, spec.value_names)
    got = O.brute_force_diff(src, tgt, spec.key_names, spec.value_names)
    assert got.canonical() == expected.canonical()
    assert got.counts() == expected.counts()


# --------------------------------------------------------------------------------------
# brute_force_merge with resolution policies (ADR 0040)
# --------------------------------------------------------------------------------------


def test_spark_order_puts_nan_above_numbers_and_equates_signed_zeros():
    nan = float("nan")
    assert O.spark_order(nan, 1e308) == 1 and O.spark_order(1.0, nan) == -1
    assert O.spark_order(nan, nan) == 0 and O.spark_order(-0.0, 0.0) == 0
    assert O.spark_order("é", "z") == 1  # code point, as UTF-8 bytes
    assert O.spark_order(b"\x80", b"\x7f") == 1  # unsigned bytes


def test_merge_policies_resolve_by_definition():
    K, C = ["id"], ["a", "n", "ts"]

    def m(i, a, n, ts):
        return {"id": i, "a": a, "n": n, "ts": ts}

    base = [m(1, "x", 1, 1), m(2, "x", 1, 1), m(3, "x", 1, 1), m(4, "x", 1, 1)]
    ours = [m(1, "o", 5, 2), m(2, "o", None, 3), m(3, "o", 1, 2), m(4, "o", 7, 1), m(5, "i", 1, 1)]
    theirs = [m(1, "t", 9, 3), m(2, "t", 4, 3), m(3, "t", 1, None), m(4, "x", 8, 1)]
    theirs.append(m(5, "j", 2, 1))
    resolve = {"a": {"latest": "ts"}, "n": "max", "ts": "min"}
    res = O.brute_force_merge(base, ours, theirs, K, C, resolve)
    # 1: every conflicting cell resolved: a by the later ts (theirs), n max, ts min
    assert res[(1,)].status == "resolved" and res[(1,)].conflict_type == "update_update"
    assert res[(1,)].merged == m(1, "t", 9, 2)
    assert [c for c, _, _ in res[(1,)].resolutions] == ["a", "n", "ts"]
    assert res[(1,)].resolutions[0][1] == "latest:ts"
    # 2: equal ts: latest leaves a unresolved, the key a conflict with ours kept
    assert (res[(2,)].status, res[(2,)].merged) == ("conflict", m(2, "o", None, 3))
    # 3: theirs' ts NULL: a unresolved (ts itself resolves by min, ignoring the NULL)
    assert res[(3,)].status == "conflict" and res[(3,)].resolutions == ()
    # 4: a changed by ours only, n by both: n max, a from ours
    assert (res[(4,)].status, res[(4,)].merged) == ("resolved", m(4, "o", 8, 1))
    # 5: insert_insert: a by latest (ts equal: unresolved) -> conflict
    assert res[(5,)].status == "conflict" and res[(5,)].conflict_type == "insert_insert"
    fn = O.brute_force_merge(
        base,
        ours,
        theirs,
        K,
        C,
        {"a": {"python": lambda b, o, t: f"{b}{o}{t}"}, "n": "ours", "ts": "theirs"},
    )
    assert fn[(5,)].status == "resolved" and fn[(5,)].merged == m(5, "Noneij", 1, 1)
    assert O.merge_counts(fn)["resolved"] == 5 and O.merge_counts(fn)["conflict"] == 0
