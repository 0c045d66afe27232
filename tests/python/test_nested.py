"""Nested columns (array, struct, map, variant): every pair's row diff equals a brute-force oracle.

``nested_oracle.py`` states the contract in plain Python: equality of nested values (arrays
ordered, struct fields by position, maps as sets of entries, NULL / empty / NULL element all
distinct, -0.0 = 0.0 and NaN = NaN inside, variants by JSON value) and ``changed_paths`` (minimal
differing paths per changed column, in table order, cut at var ``table_diff_changed_paths_limit``,
default 20). The ``test_oracle_*`` tests check the oracle itself, by hand and on random values,
without Spark.

The property test draws hostile pairs with hypothesis (one example per pair, a batch per build):
template columns such as ``array<struct<x:int,y:array<string>>>``, ``map<string,struct<...>>``, a
struct of a struct of an array, a 32-field struct (``describe`` shows only 25), maps keyed by
strings with quotes and backslashes, ints, dates and decimals, struct fields that need backticks
(``a.b``, ``Unit Price``, ``1st``), a variant, plus random nested types; NULLs at every depth. It
then changes the target's rows with every kind of nested change (one leaf deep inside, a leaf by
one microsecond / unit / ulp, NULL vs empty, NULL vs a struct of NULLs, a NULL element moved,
elements and keys added and removed, a NULL map value vs no key, values swapped between map keys
or struct fields, more paths than the limit) and every kind of non-change (map insertion order,
-0.0 vs 0.0, NaN payloads, a variant object's key order). Maps are written in the insertion
order drawn (staged as arrays of entries, then ``map_from_entries``), so equal maps are stored in
different orders on the two sides. Keys are scalar, with duplicate and NULL keys; one pair has an
empty side. The batch must hold every kind of change, which the test asserts before building.

Each ANSI mode writes its pairs as parquet tables (with the lakehouse jars also one pair with a
Delta source and an Iceberg target, or the other way round), scaffolds them with the real
companion code and runs ONE ``dbt build``; every pair's ``NAME__row_diff`` (key, diff_type, side,
changed_columns, changed_paths, and the stored values) and ``NAME__summary`` must equal the oracle.
ANSI off runs with the default paths limit, ANSI on with a limit of 5. A second build runs
``no_drift`` on nested tables (map order, signed zeros and NaN payloads pass, also against Delta
and Iceberg copies; a deep change fails with the right paths; map keys whose paths read like
descendants of each other are both reported) and refuses each nested key column by name.
About three minutes on two cores.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import yaml
from conftest import LAKEHOUSE_JARS, LAKEHOUSE_REQUIRED
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from nested_oracle import (
    DEFAULT_PATHS_LIMIT,
    Array,
    Map,
    NMap,
    NType,
    Scalar,
    Struct,
    Variant,
    brute_force_nested_diff,
    canonical_key,
    changed_paths,
    ddl,
    differing_paths,
    values_equal,
)
from strategies import (
    BIGINT_MAX,
    BIGINT_MIN,
    INT_MAX,
    INT_MIN,
    _bump,
    _distinct_value,
    _f32,
    _f64,
    key_values,
    quote_ident,
    spark_data_type,
    values_of,
)

from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

S = Scalar
NAN_PAYLOAD = _f64("7ff8000000000bad")
UTC = _dt.timezone.utc

# --------------------------------------------------------------------------------------------------
# The oracle by hand: paths of small, known cases (plain Python, no Spark)
# --------------------------------------------------------------------------------------------------

ITEMS = Array(Struct((("x", S("int")), ("y", Array(S("string"))))))
PAYLOAD = Struct(
    (
        ("inner", Struct((("arr", Array(S("bigint"))), ("d", S("double")), ("e", S("double"))))),
        ("tag", S("string")),
        ("label", S("string")),
        ("ok", S("boolean")),
    )
)
ATTRS = Map(
    S("string"), Struct((("a", S("double")), ("b", S("decimal(10,2)")), ("ts", S("timestamp"))))
)
TS = _dt.datetime(2024, 2, 29, 12, 0, 0, 5)


def test_oracle_struct_null_against_a_struct_is_one_path():
    inner = ([1, None], 0.5, None)
    assert differing_paths("payload", PAYLOAD, None, (inner, "t", None, True)) == ["payload"]
    # a struct whose fields are all NULL is still a non-NULL container
    assert differing_paths("payload", PAYLOAD, None, (None, None, None, None)) == ["payload"]
    assert differing_paths("payload", PAYLOAD, (None,) * 4, (None,) * 4) == []


def test_oracle_arrays_by_index():
    three = [(1, ["a"]), (2, []), (None, None)]
    assert differing_paths("items", ITEMS, three, [*three, (4, ["d", "e"])]) == ["items[3]"]
    assert differing_paths("items", ITEMS, [*three, (4, None)], three) == ["items[3]"]
    a = Array(S("int"))
    assert differing_paths("a", a, [1, None], [None, 1]) == ["a[0]", "a[1]"]
    assert differing_paths("a", a, None, []) == ["a"]
    assert differing_paths("a", a, [], [None]) == ["a[0]"]
    assert differing_paths("a", a, [None], None) == ["a"]
    assert differing_paths("a", a, [], []) == []
    # plain string sort: 10 before 2
    long_a, long_b = list(range(12)), [*range(12)]
    long_b[2], long_b[10] = -1, -1
    assert differing_paths("a", a, long_a, long_b) == ["a[10]", "a[2]"]
    deep_a = [(1, ["a", None]), (2, ["b"])]
    deep_b = [(1, ["a", None]), (2, ["c"])]
    assert differing_paths("items", ITEMS, deep_a, deep_b) == ["items[1].y[0]"]
    assert differing_paths("g", Array(Array(S("int"))), [[1], []], [[1], None]) == ["g[1]"]


def test_oracle_maps_are_sets_of_entries():
    m = Map(S("string"), S("int"))
    ab, ba = NMap((("a", 1), ("b", 2))), NMap((("b", 2), ("a", 1)))
    assert differing_paths("m", m, ab, ba) == []
    assert differing_paths("m", m, ab, NMap((("a", 2), ("b", 1)))) == ["m['a']", "m['b']"]
    same = NMap((("a", 1), ("b", 1)))
    assert differing_paths("m", m, same, NMap((("b", 1), ("a", 1)))) == []
    assert differing_paths("m", m, NMap((("k", None),)), NMap(())) == ["m['k']"]
    assert differing_paths("m", m, NMap((("k", None),)), NMap((("k", 0),))) == ["m['k']"]
    assert differing_paths("m", m, NMap(()), None) == ["m"]
    assert differing_paths("m", m, NMap((("it's", 1),)), NMap((("it's", 2),))) == ["m['it\\'s']"]
    assert differing_paths("m", m, NMap((("\\", 1),)), NMap(())) == ["m['\\\\']"]
    ints = Map(S("int"), S("string"))
    assert differing_paths("t", ints, NMap(((-5, "x"),)), NMap(((-5, "y"),))) == ["t[-5]"]
    dates = Map(S("date"), S("bigint"))
    d = _dt.date(2020, 1, 2)
    assert differing_paths("d", dates, NMap(((d, 1),)), NMap(())) == ["d[2020-01-02]"]
    decs = Map(S("decimal(5,2)"), S("float"))
    k = Decimal("150E-2")
    assert differing_paths("dm", decs, NMap(((k, 1.0),)), NMap(())) == ["dm[1.50]"]
    mm = Map(S("string"), Map(S("string"), S("double")))
    a = NMap((("a", NMap((("x", 1.0),))),))
    b = NMap((("a", NMap((("y", 3.0), ("x", 2.0)))),))
    assert differing_paths("mm", mm, a, b) == ["mm['a']['x']", "mm['a']['y']"]
    t1 = (0.0, Decimal("1.10"), TS)
    t2 = (-0.0, Decimal("1.1"), TS + _dt.timedelta(microseconds=1))
    got = differing_paths("attrs", ATTRS, NMap((("k", t1),)), NMap((("k", t2),)))
    assert got == ["attrs['k'].ts"]


def test_oracle_leaves_follow_the_flat_rules():
    s = Struct((("d", S("double")), ("f", S("float")), ("n", S("decimal(10,2)"))))
    assert differing_paths("s", s, (0.0, -0.0, Decimal("1.1")), (-0.0, 0.0, Decimal("1.10"))) == []
    assert (
        differing_paths("s", s, (math.nan, _f32("7fc00bad"), None), (NAN_PAYLOAD, math.nan, None))
        == []
    )
    assert differing_paths("s", s, (math.nan, 1.0, None), (1.0, 1.0, Decimal(0))) == ["s.d", "s.n"]
    ts = Array(S("timestamp"))
    assert differing_paths("t", ts, [TS], [TS + _dt.timedelta(microseconds=1)]) == ["t[0]"]
    assert differing_paths("b", Array(S("binary")), [b""], [None]) == ["b[0]"]


def test_oracle_field_names_and_top_level_names():
    odd = Struct(
        (("a.b", S("int")), ("Unit Price", S("int")), ("1st", S("int")), ("_ok9", S("int")))
    )
    got = differing_paths("my col", odd, (1, 1, 1, 1), (2, 2, 2, 2))
    assert got == ["my col._ok9", "my col.`1st`", "my col.`Unit Price`", "my col.`a.b`"]
    cyrillic = Struct((("ключ", S("int")),))
    assert differing_paths("c", cyrillic, (1,), (2,)) == ["c.`ключ`"]


def test_oracle_variant_by_json_value():
    v = Variant()
    assert differing_paths("v", v, '{"b":1,"a":[1,null]}', '{"a":[1,null],"b":1}') == []
    assert differing_paths("v", v, "null", None) == ["v"]
    assert differing_paths("v", v, "[1,2]", "[2,1]") == ["v"]
    assert differing_paths("v", v, '"s"', '"s"') == []


def test_oracle_changed_paths_in_table_order_and_cut():
    cols = [("note", S("string")), ("items", ITEMS), ("a", Array(S("int")))]
    src = {"note": "x", "items": None, "a": list(range(30))}
    tgt = {"note": "y", "items": [], "a": [*range(30), 1]}
    tgt["a"][0] = 99
    changed, paths = changed_paths(cols, src, tgt, limit=20)
    assert changed == ["note", "items", "a"]
    assert paths == ["note", "items", "a[0]", "a[30]"]
    assert changed_paths(cols, src, tgt, limit=3)[1] == ["note", "items", "a[0]"]
    many = {"note": "x", "items": [], "a": [*range(30), *range(25)]}
    changed, paths = changed_paths(cols, src, many, limit=DEFAULT_PATHS_LIMIT)
    assert changed == ["items", "a"] and len(paths) == DEFAULT_PATHS_LIMIT
    assert paths[:3] == ["items", "a[30]", "a[31]"]
    assert changed_paths(cols, src, dict(src), limit=20) == ([], [])


def test_oracle_rows_duplicates_and_null_keys():
    cols = [("a", Array(S("int")))]
    src = [
        {"id": 1, "a": [1]},
        {"id": 2, "a": None},
        {"id": 2, "a": None},
        {"id": None, "a": [1, 2]},
        {"id": 4, "a": []},
    ]
    tgt = [{"id": 1, "a": [1]}, {"id": 2, "a": None}, {"id": None, "a": [2, 1]}, {"id": 5, "a": []}]
    diff = brute_force_nested_diff(src, tgt, ["id"], cols)
    k = {i: canonical_key([i]) for i in (1, 2, None, 4, 5)}
    assert diff.rows == Counter(
        {
            (k[2], "duplicate_key", "source", (), ()): 2,
            (k[2], "duplicate_key", "target", (), ()): 1,
            (k[None], "modified", "both", ("a",), ("a[0]", "a[1]")): 1,
            (k[4], "deleted", "source", (), ()): 1,
            (k[5], "added", "target", (), ()): 1,
        }
    )
    assert diff.counts == {
        "added": 1,
        "deleted": 1,
        "modified": 1,
        "duplicate_key_rows": 3,
        "rows_source": 5,
        "rows_target": 4,
        "null_key_rows_source": 1,
        "null_key_rows_target": 1,
    }


# --------------------------------------------------------------------------------------------------
# Types, values and mutations
# --------------------------------------------------------------------------------------------------

WIDE_LEAVES = (
    "int",
    "double",
    "string",
    "decimal(10,2)",
    "timestamp",
    "boolean",
    "bigint",
    "float",
    "date",
    "binary",
)
# 32 fields: describe truncates a struct type after 25; the tail holds a decimal, an array, a map.
WIDE = Struct(
    tuple((f"f{i:02d}", S(WIDE_LEAVES[i % len(WIDE_LEAVES)])) for i in range(29))
    + (
        ("Unit Price", S("decimal(38,10)")),
        ("f30", Array(S("int"))),
        ("f31", Map(S("string"), S("double"))),
    )
)
TEMPLATES: dict[str, NType] = {
    "items": ITEMS,
    "attrs": ATTRS,
    "payload": PAYLOAD,
    "tags": Map(S("int"), Array(S("string"))),
    "w": WIDE,
    "nums": Array(S("double")),
    "dm": Map(S("decimal(5,2)"), S("float")),
    "dates": Map(S("date"), S("bigint")),
    "mm": Map(S("string"), Map(S("string"), S("double"))),
    "grid": Array(Array(S("int"))),
    "am": Array(Map(S("bigint"), S("string"))),
    "v": Variant(),
    "my col": Struct(
        (
            ("a.b", S("string")),
            ("Unit Price", S("decimal(38,10)")),
            ("1st", Array(S("timestamp"))),
            ("ключ", S("binary")),
        )
    ),
}
FLAT = (("note", S("string")), ("amount", S("double")), ("qty", S("int")), ("day", S("date")))
# The template columns of each pair of a batch (every template in some pair); GROUPS[0] also gets
# a Delta / Iceberg copy (a variant and maps across formats).
GROUPS = (
    ("items", "attrs", "v", "am"),
    ("payload", "tags", "dm", "grid", "nums"),
    ("w", "mm", "dates", "my col"),
)
ONE_SIDED = ("items", "mm", "v")  # the pair with an empty side

LEAF_TYPES = (
    "int",
    "bigint",
    "double",
    "float",
    "decimal(10,2)",
    "decimal(38,10)",
    "decimal(5,5)",
    "string",
    "boolean",
    "date",
    "timestamp",
    "binary",
)
MAP_KEY_TYPES = ("string", "int", "bigint", "date", "decimal(5,2)")
FIELD_NAMES = ("a", "b", "x", "_y", "Unit Price", "a.b", "1st", "ключ", "v2", "end")
RANDOM_COLUMNS = ("extra", "Extra Col", "z9")

MAP_STRING_KEYS = (
    "",
    " ",
    "a",
    "A",
    "b",
    "it's",
    "'",
    "''",
    "a'b'c",
    "\\",
    "\\'",
    "ключ",
    "\U0001f642",
    "NULL",
    "a.b",
    "[0]",
    "x]",
    "\x00",
    "e\u0301",
    "\u00e9",
)
# Variant values: no two texts of one JSON value (1 and 1.0 are not both here), so "equal" only
# ever means the same text, or an object with its keys in another order (VARIANT_REORDERED).
VARIANT_POOL = (
    "null",
    "0",
    "1",
    "-7",
    "2.5",
    '"s"',
    '"it\'s"',
    '"ключ"',
    '""',
    "true",
    "false",
    "[]",
    "{}",
    "[1,2]",
    "[2,1]",
    "[1,null]",
    '{"a":1}',
    '{"a":2}',
    '{"a":null}',
    '{"b":[1,{"c":null}],"a":"x"}',
    '{"a":{"b":[1,2]}}',
)
VARIANT_REORDERED = (
    ('{"b":[1,{"c":null}],"a":"x"}', '{"a":"x","b":[1,{"c":null}]}'),
    ('{"x":1,"y":{"q":true,"p":[]}}', '{"y":{"p":[],"q":true},"x":1}'),
)


def _leaf_types() -> st.SearchStrategy[NType]:
    names = st.sampled_from((*LEAF_TYPES, "variant"))
    return names.map(lambda n: Variant() if n == "variant" else Scalar(n))


def _container_types(depth: int) -> st.SearchStrategy[NType]:
    inner = _leaf_types() if depth <= 1 else st.one_of(_leaf_types(), _container_types(depth - 1))
    fields = st.lists(
        st.tuples(st.sampled_from(FIELD_NAMES), inner),
        min_size=1,
        max_size=4,
        unique_by=lambda f: f[0].lower(),
    )
    return st.one_of(
        inner.map(Array),
        st.builds(Map, st.sampled_from(MAP_KEY_TYPES).map(Scalar), inner),
        fields.map(lambda fs: Struct(tuple(fs))),
    )


def _key_canon(k):
    return canonical_key([k])


def map_keys(t: Scalar) -> st.SearchStrategy:
    name = t.name
    if name == "string":
        chars = st.characters(exclude_categories=("Cs",))
        return st.one_of(st.sampled_from(MAP_STRING_KEYS), st.text(chars, max_size=4))
    if name == "int":
        return st.one_of(st.integers(-20, 20), st.sampled_from((INT_MIN, INT_MAX)))
    if name == "bigint":
        return st.one_of(st.integers(-20, 20), st.sampled_from((BIGINT_MIN, BIGINT_MAX)))
    if name == "date":
        return st.dates(_dt.date(1900, 1, 1), _dt.date(2100, 12, 31))
    if name == "decimal(5,2)":
        return st.integers(-99999, 99999).map(lambda u: Decimal(f"{u}E-2"))
    raise ValueError(name)


@st.composite
def nested_values(draw, t: NType, null: bool = True):
    """A value of ``t``: NULL at every depth (about one in six), collections of 0-3 items, maps
    with duplicate values now and then."""
    if isinstance(t, Scalar):
        return draw(values_of(t.name, null=null))
    if null and draw(st.integers(0, 5)) == 0:
        return None
    if isinstance(t, Variant):
        return draw(st.sampled_from(VARIANT_POOL))
    if isinstance(t, Array):
        return draw(st.lists(nested_values(t.element), max_size=3))
    if isinstance(t, Struct):
        return tuple(draw(nested_values(ft)) for _, ft in t.fields)
    keys = draw(st.lists(map_keys(t.key), max_size=3, unique_by=_key_canon))
    if keys and draw(st.integers(0, 3)) == 0:  # one value under every key
        value = draw(nested_values(t.value))
        return NMap(tuple((k, value) for k in keys))
    return NMap(tuple((k, draw(nested_values(t.value))) for k in keys))


def _non_empty(draw, t: NType):
    """A non-NULL value of ``t``; a collection with at least one item."""
    v = draw(nested_values(t, null=False))
    if isinstance(t, Array) and not v:
        v = [draw(nested_values(t.element))]
    if isinstance(t, Map) and not v.entries:
        v = NMap(((draw(map_keys(t.key)), draw(nested_values(t.value))),))
    return v


def _new_key(draw, t: Map, m: NMap | None):
    taken = {_key_canon(k) for k, _ in (m.entries if m is not None else ())}
    return draw(map_keys(t.key).filter(lambda k: _key_canon(k) not in taken))


def _changed(draw, t: NType, old):
    """A value of ``t`` that differs from ``old``."""
    if isinstance(t, Scalar):
        return draw(_distinct_value(t.name, old))
    new = draw(nested_values(t))
    if values_equal(t, new, old):
        new = None if old is not None else _non_empty(draw, t)
    return new


# Mutation kinds: a node of a column's type they apply to, and the (source, target) values they
# put there. The no-op kinds (the sides stay equal) are marked.
KINDS = (
    "flat_change",
    "deep_leaf",
    "near_leaf",
    "float_equivalent",  # no-op: -0.0 / 0.0, NaN payloads
    "map_reorder",  # no-op: insertion order
    "map_swap_values",  # a no-op when the two values are equal
    "map_grow_shrink",
    "map_null_value",
    "array_null_swap",
    "array_grow_shrink",
    "array_permute",
    "null_vs_empty",
    "container_null",
    "struct_all_null",
    "field_swap",
    "wide_tail",
    "many",
    "variant_change",
    "variant_reorder",  # no-op: an object's key order
)
NO_OP_KINDS = ("float_equivalent", "map_reorder", "variant_reorder")
NEAR_TYPES = ("timestamp", "double", "float", "decimal(10,2)", "decimal(38,10)", "decimal(5,5)")


def _same_typed_fields(t: Struct) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(len(t.fields))
        for j in range(i + 1, len(t.fields))
        if t.fields[i][1] == t.fields[j][1]
    ]


def applies(kind: str, depth: int, t: NType) -> bool:
    if kind == "flat_change":
        return isinstance(t, Scalar) and depth == 0
    if kind in ("deep_leaf", "near_leaf", "float_equivalent"):
        if not isinstance(t, Scalar) or depth == 0:
            return False
        if kind == "near_leaf":
            return t.name in NEAR_TYPES
        return kind == "deep_leaf" or t.name in ("double", "float")
    if kind.startswith("map_"):
        return isinstance(t, Map)
    if kind.startswith("array_"):
        return isinstance(t, Array)
    if kind == "null_vs_empty":
        return isinstance(t, (Array, Map))
    if kind == "container_null":
        return isinstance(t, (Array, Map, Struct))
    if kind == "struct_all_null":
        return isinstance(t, Struct)
    if kind == "field_swap":
        return isinstance(t, Struct) and bool(_same_typed_fields(t))
    if kind == "wide_tail":
        return isinstance(t, Struct) and len(t.fields) > 25
    if kind == "many":
        return isinstance(t, Array) or (
            isinstance(t, Struct) and len(t.fields) > DEFAULT_PATHS_LIMIT
        )
    if kind.startswith("variant_"):
        return isinstance(t, Variant)
    raise ValueError(kind)


def type_nodes(t: NType, tpath: tuple = ()):
    """(type path, node type) of every node of ``t``, the column itself first."""
    yield tpath, t
    if isinstance(t, Array):
        yield from type_nodes(t.element, (*tpath, ("elem",)))
    elif isinstance(t, Map):
        yield from type_nodes(t.value, (*tpath, ("value",)))
    elif isinstance(t, Struct):
        for i, (_, ft) in enumerate(t.fields):
            yield from type_nodes(ft, (*tpath, ("field", i)))


def node_at(t: NType, tpath: tuple) -> NType:
    for step in tpath:
        if step[0] == "elem":
            t = t.element
        elif step[0] == "value":
            t = t.value
        else:
            t = t.fields[step[1]][1]
    return t


def prepare(draw, t: NType, v, tpath: tuple):
    """``v`` with every container on ``tpath`` made non-NULL (and non-empty), and the concrete
    location of the node: ("f", field index), ("i", array index), ("k", map key) steps."""
    if not tpath:
        return v, ()
    step, rest = tpath[0], tpath[1:]
    if step[0] == "field":
        v = v if v is not None else draw(nested_values(t, null=False))
        i = step[1]
        child, loc = prepare(draw, t.fields[i][1], v[i], rest)
        return (*v[:i], child, *v[i + 1 :]), (("f", i), *loc)
    if step[0] == "elem":
        items = list(v) if v else [draw(nested_values(t.element))]
        j = draw(st.integers(0, len(items) - 1))
        items[j], loc = prepare(draw, t.element, items[j], rest)
        return items, (("i", j), *loc)
    entries = list(v.entries) if v is not None and v.entries else [(draw(map_keys(t.key)), None)]
    j = draw(st.integers(0, len(entries) - 1))
    key, old = entries[j]
    child, loc = prepare(draw, t.value, old, rest)
    entries[j] = (key, child)
    return NMap(tuple(entries)), (("k", key), *loc)


def get_at(v, loc: tuple):
    for step in loc:
        if step[0] == "k":
            v = dict((_key_canon(k), x) for k, x in v.entries)[_key_canon(step[1])]
        else:
            v = v[step[1]]
    return v


def set_at(v, loc: tuple, new):
    if not loc:
        return new
    step, rest = loc[0], loc[1:]
    if step[0] == "f":
        i = step[1]
        return (*v[:i], set_at(v[i], rest, new), *v[i + 1 :])
    if step[0] == "i":
        items = list(v)
        items[step[1]] = set_at(items[step[1]], rest, new)
        return items
    want = _key_canon(step[1])
    return NMap(
        tuple((k, set_at(x, rest, new) if _key_canon(k) == want else x) for k, x in v.entries)
    )


def make(draw, kind: str, t: NType, old):
    """(source value, target value) of the node for ``kind``."""
    flip = draw(st.booleans())
    if kind in ("flat_change", "deep_leaf"):
        a = old if old is not None else draw(values_of(t.name, null=False))
        b = draw(_distinct_value(t.name, a))
    elif kind == "near_leaf":
        a = old
        if a is None or (isinstance(a, float) and not math.isfinite(a)):
            a = draw(values_of(t.name, null=False))
        b = _bump(t.name, a)
    elif kind == "float_equivalent":
        nan_b = NAN_PAYLOAD if t.name == "double" else _f32("7fc00bad")
        a, b = draw(st.sampled_from(((0.0, -0.0), (-0.0, 0.0), (math.nan, nan_b))))
    elif kind in ("map_reorder", "map_swap_values"):
        entries = list(old.entries) if old is not None else []
        while len(entries) < 2:
            entries.append((_new_key(draw, t, NMap(tuple(entries))), draw(nested_values(t.value))))
        if kind == "map_reorder":
            a, b = NMap(tuple(entries)), NMap(tuple(reversed(entries)))
        else:
            i, j = draw(st.permutations(range(len(entries))))[:2]
            if draw(st.integers(0, 2)) == 0:  # equal values under both keys: the swap is a no-op
                entries[j] = (entries[j][0], entries[i][1])
            swapped = list(entries)
            swapped[i] = (entries[i][0], entries[j][1])
            swapped[j] = (entries[j][0], entries[i][1])
            a, b = NMap(tuple(entries)), NMap(tuple(swapped))
    elif kind == "map_grow_shrink":
        a = old if old is not None else NMap(())
        if a.entries and draw(st.booleans()):
            drop = draw(st.integers(0, len(a.entries) - 1))
            b = NMap(tuple(e for i, e in enumerate(a.entries) if i != drop))
        else:
            b = NMap((*a.entries, (_new_key(draw, t, a), draw(nested_values(t.value)))))
    elif kind == "map_null_value":
        a = old if old is not None else NMap(())
        b = NMap((*a.entries, (_new_key(draw, t, a), None)))
    elif kind == "array_null_swap":
        x = draw(nested_values(t.element, null=False))
        a, b = [*(old or []), x, None], [*(old or []), None, x]
    elif kind == "array_grow_shrink":
        a = list(old or [])
        if a and draw(st.booleans()):
            b = a[: -draw(st.integers(1, len(a)))]
        else:
            b = a + draw(st.lists(nested_values(t.element), min_size=1, max_size=3))
    elif kind == "array_permute":
        a = list(old or [])
        while len(a) < 2:
            a.append(draw(nested_values(t.element)))
        b = list(reversed(a))
    elif kind == "null_vs_empty":
        a, b = None, ([] if isinstance(t, Array) else NMap(()))
    elif kind == "container_null":
        a, b = None, _non_empty(draw, t)
    elif kind == "struct_all_null":
        a, b = None, (None,) * len(t.fields)
    elif kind == "field_swap":
        a = old if old is not None else draw(nested_values(t, null=False))
        i, j = draw(st.sampled_from(_same_typed_fields(t)))
        b = list(a)
        b[i], b[j] = a[j], a[i]
        b = tuple(b)
    elif kind == "wide_tail":
        a = old if old is not None else draw(nested_values(t, null=False))
        i = draw(st.integers(25, len(t.fields) - 1))
        b = (*a[:i], _changed(draw, t.fields[i][1], a[i]), *a[i + 1 :])
    elif kind == "many":
        if isinstance(t, Array):
            a = list(old or [])
            extra = DEFAULT_PATHS_LIMIT + draw(st.integers(1, 4))
            b = a + draw(st.lists(nested_values(t.element), min_size=extra, max_size=extra))
        else:
            a = old if old is not None else draw(nested_values(t, null=False))
            b = tuple(_changed(draw, ft, x) for (_, ft), x in zip(t.fields, a, strict=True))
    elif kind == "variant_change":
        a = old if old is not None else draw(st.sampled_from(VARIANT_POOL))
        others = [x for x in (*VARIANT_POOL, None) if not values_equal(t, x, a)]
        b = draw(st.sampled_from(others))
    elif kind == "variant_reorder":
        a, b = draw(st.sampled_from(VARIANT_REORDERED))
    else:
        raise ValueError(kind)
    return (b, a) if flip and kind not in ("map_swap_values",) else (a, b)


# --------------------------------------------------------------------------------------------------
# Pairs
# --------------------------------------------------------------------------------------------------


@dataclass
class NestedPair:
    key: list[tuple[str, Scalar]]
    columns: list[tuple[str, NType]]
    source: list[dict]
    target: list[dict]
    options: dict[str, Any]
    kinds: Counter = field(default_factory=Counter)
    log: list[str] = field(default_factory=list)

    @property
    def key_names(self) -> list[str]:
        return [n for n, _ in self.key]


def _row(key: list[tuple[str, Scalar]], values: tuple, rest: dict) -> dict:
    return {**dict(zip([n for n, _ in key], values, strict=True)), **rest}


def _mutate(draw, pair: NestedPair, src: dict, tgt: dict, kind: str, column: str) -> None:
    """Apply ``kind`` at a random node of ``column`` where it applies: both rows get the node's
    ancestors (made non-NULL where needed), the source row one value, the target the other."""
    t = dict(pair.columns)[column]
    spots = [tp for tp, node in type_nodes(t) if applies(kind, len(tp), node)]
    if kind == "deep_leaf":
        spots = [tp for tp in spots if len(tp) == max(map(len, spots))]
    tpath = draw(st.sampled_from(spots))
    prepared, loc = prepare(draw, t, src[column], tpath)
    a, b = make(draw, kind, node_at(t, tpath), get_at(prepared, loc))
    src[column] = set_at(prepared, loc, a)
    tgt[column] = set_at(prepared, loc, b)
    pair.kinds[kind] += 1
    pair.log.append(f"{kind} {column}{list(loc)} key={[src[k] for k in pair.key_names]}")


def _leaf_depth(t: NType) -> int:
    return max(len(tp) for tp, node in type_nodes(t) if isinstance(node, Scalar))


def _columns_for(pair_columns, kind: str) -> list[str]:
    return [
        name
        for name, t in pair_columns
        if any(applies(kind, len(tp), node) for tp, node in type_nodes(t))
    ]


@st.composite
def nested_pairs(draw, group: tuple[str, ...], one_sided: bool = False) -> NestedPair:
    nk = draw(st.integers(1, 2))
    key = [(name, S(draw(st.sampled_from(("int", "bigint", "string"))))) for name in ("id", "part")]
    key = key[:nk]
    columns = [(n, TEMPLATES[n]) for n in group]
    if draw(st.booleans()):
        columns.append((draw(st.sampled_from(RANDOM_COLUMNS)), draw(_container_types(3))))
    columns.append(draw(st.sampled_from(FLAT)))
    columns = list(draw(st.permutations(columns)))
    options = {
        "strategy": draw(st.sampled_from(["range", "hash"])),
        "block_count": draw(st.integers(1, 3)),
        "split_factor": draw(st.integers(2, 3)),
        "compare_unit_size": draw(st.integers(1, 4)),
        "max_depth": draw(st.integers(0, 3)),
        "quick_check": draw(st.sampled_from([None, True, False])),
        "check_duplicate_keys": True,
    }
    pair = NestedPair(key, columns, [], [], options)
    key_tuples = st.tuples(*(key_values(t.name) for _, t in key))
    n = draw(st.integers(1, 5) if one_sided else st.integers(10, 13))
    keys = draw(st.lists(key_tuples, min_size=n, max_size=n, unique_by=canonical_key))
    base = [_row(key, k, {c: draw(nested_values(t)) for c, t in columns}) for k in keys]
    if one_sided:
        side = draw(st.sampled_from(("source", "target")))
        setattr(pair, side, base)
        pair.log.append(f"only a {side}: {len(base)} rows")
        return pair
    source = [dict(r) for r in base]
    target = [dict(r) for r in base]
    # Row 0: one no-op change only (equal sides after it). Rows 1 .. n-4: every kind that applies
    # to a column of the pair, each at a random row, one change per row and column. The last
    # three rows: deleted, duplicated or left alone (no change of theirs is hidden so).
    no_ops = [(k, c) for k in NO_OP_KINDS for c in _columns_for(columns, k)]
    if no_ops:
        kind, column = draw(st.sampled_from(no_ops))
        _mutate(draw, pair, source[0], target[0], kind, column)
    changed_rows = range(1, n - 3)
    # the kinds with the fewest columns first, so that none finds its columns' rows all taken
    taken: set[tuple[int, str]] = set()
    kinds = sorted(draw(st.permutations(KINDS)), key=lambda k: len(_columns_for(columns, k)))
    for kind in kinds:
        candidates = _columns_for(columns, kind)
        if kind == "deep_leaf":  # the deepest leaves there are
            depth = {c: _leaf_depth(t) for c, t in columns if c in candidates}
            candidates = [c for c in candidates if depth[c] == max(depth.values())]
        candidates = [c for c in candidates if any((i, c) not in taken for i in changed_rows)]
        if not candidates:
            continue
        column = draw(st.sampled_from(candidates))
        i = draw(st.sampled_from([i for i in changed_rows if (i, column) not in taken]))
        taken.add((i, column))
        _mutate(draw, pair, source[i], target[i], kind, column)
    spare = list(range(n - 3, n))
    deleted = draw(st.lists(st.sampled_from(spare), min_size=1, max_size=2, unique=True))
    target = [r for i, r in enumerate(target) if i not in deleted]
    pair.log += [f"delete {[source[i][k] for k in pair.key_names]}" for i in deleted]
    # inserts (keys never seen)
    seen = {canonical_key([r[k] for k in pair.key_names]) for r in base}
    for side, count in ((target, draw(st.integers(1, 2))), (source, draw(st.integers(0, 1)))):
        for _ in range(count):
            k = draw(key_tuples.filter(lambda k: canonical_key(k) not in seen))
            seen.add(canonical_key(k))
            side.append(_row(key, k, {c: draw(nested_values(t)) for c, t in columns}))
    # a duplicate key: a spare row stored twice on one side, the copy maybe changed
    i = draw(st.sampled_from(spare))
    side = source if i in deleted else draw(st.sampled_from((source, target)))
    copy = dict(source[i])
    if draw(st.booleans()):
        column = draw(st.sampled_from([c for c, _ in columns]))
        copy[column] = _changed(draw, dict(columns)[column], copy[column])
    side.insert(draw(st.integers(0, len(side))), copy)
    pair.log.append(f"duplicate {[copy[k] for k in pair.key_names]}")
    # a NULL key component, on both sides (matched, maybe changed) or one
    k = list(draw(key_tuples))
    k[draw(st.integers(0, nk - 1))] = None
    values = {c: draw(nested_values(t)) for c, t in columns}
    both = draw(st.booleans())
    for side in (source, target) if both else (draw(st.sampled_from((source, target))),):
        side.append(_row(key, tuple(k), dict(values)))
    if both and draw(st.booleans()):
        column = draw(st.sampled_from([c for c, _ in columns]))
        target[-1][column] = _changed(draw, dict(columns)[column], target[-1][column])
    pair.log.append(f"null key {k} {'both sides' if both else 'one side'}")
    rnd = draw(st.randoms(use_true_random=False))
    rnd.shuffle(source)
    rnd.shuffle(target)
    pair.source, pair.target = source, target
    return pair


def draw_batch() -> list[NestedPair]:
    """One pair per GROUPS entry and the one-sided pair, each a hypothesis example of its own
    (so that each gets hypothesis' whole budget of choices). Hypothesis starts with the simplest
    example (every draw its minimum) and with random prefixes completed that way; a last draw
    that must not be its minimum leaves those out, so every pair is a random one."""
    plan = [(g, False) for g in GROUPS] + [(ONE_SIDED, True)]
    drawn: list[NestedPair] = []

    @settings(
        max_examples=len(plan),
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def collect(data):
        group, one_sided = plan[len(drawn)]
        pair = data.draw(nested_pairs(group, one_sided), label="pair")
        assume(data.draw(st.integers(0, 2**31), label="not the simplest") != 0)
        drawn.append(pair)

    collect()
    assert len(drawn) == len(plan), f"hypothesis gave {len(drawn)} pairs of {len(plan)}"
    return drawn


def _maps_reversed(t: NType, v):
    if v is None or isinstance(t, (Scalar, Variant)):
        return v
    if isinstance(t, Array):
        return [_maps_reversed(t.element, x) for x in v]
    if isinstance(t, Map):
        return NMap(tuple((k, _maps_reversed(t.value, x)) for k, x in reversed(v.entries)))
    return tuple(_maps_reversed(ft, x) for (_, ft), x in zip(t.fields, v, strict=True))


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_oracle_is_symmetric_order_blind_and_minimal(data):
    """On random nested types and values (no Spark): a value equals itself and its maps
    reversed; paths are symmetric, sorted, distinct and minimal; a no-op mutation is equal and
    any other change is seen exactly when the values are unequal."""
    t = data.draw(_container_types(3), label="type")
    a = data.draw(nested_values(t), label="a")
    b = data.draw(nested_values(t), label="b")
    assert differing_paths("c", t, a, a) == []
    assert differing_paths("c", t, a, _maps_reversed(t, a)) == []
    ab, ba = differing_paths("c", t, a, b), differing_paths("c", t, b, a)
    assert ab == ba == sorted(set(ab))
    assert (ab == []) == values_equal(t, a, b)
    for p in ab:  # minimal: no reported path is a proper prefix path of another
        assert not any(q != p and q.startswith(p) and q[len(p)] in ".[" for q in ab), ab
    spots = [(tp, node) for tp, node in type_nodes(t)]
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    usable = [tp for tp, node in spots if applies(kind, len(tp), node)]
    if usable:
        tpath = data.draw(st.sampled_from(usable), label="spot")
        prepared, loc = prepare(data.draw, t, a, tpath)
        x, y = make(data.draw, kind, node_at(t, tpath), get_at(prepared, loc))
        before, after = set_at(prepared, loc, x), set_at(prepared, loc, y)
        if kind in NO_OP_KINDS:
            assert values_equal(t, before, after)
        elif kind not in ("map_swap_values", "array_permute", "field_swap"):
            assert not values_equal(t, before, after), kind


# --------------------------------------------------------------------------------------------------
# Spark: writing nested values, reading them back
# --------------------------------------------------------------------------------------------------


def staged_type(t: NType):
    """The type a value is sent to Spark in: a map as an array of (k, v) entries (kept in its
    insertion order; a Python dict would be sorted), a variant as its JSON text."""
    from pyspark.sql import types as T

    if isinstance(t, Scalar):
        return spark_data_type(t.name)
    if isinstance(t, Variant):
        return T.StringType()
    if isinstance(t, Array):
        return T.ArrayType(staged_type(t.element), True)
    if isinstance(t, Map):
        entry = T.StructType(
            [
                T.StructField("k", staged_type(t.key), False),
                T.StructField("v", staged_type(t.value), True),
            ]
        )
        return T.ArrayType(entry, False)
    return T.StructType([T.StructField(n, staged_type(ft), True) for n, ft in t.fields])


def staged_value(t: NType, v):
    if v is None:
        return None
    if isinstance(t, Scalar):
        return v.replace(tzinfo=UTC) if isinstance(v, _dt.datetime) else v
    if isinstance(t, Variant):
        return v
    if isinstance(t, Array):
        return [staged_value(t.element, x) for x in v]
    if isinstance(t, Map):
        return [(staged_value(t.key, k), staged_value(t.value, x)) for k, x in v.entries]
    return tuple(staged_value(ft, x) for (_, ft), x in zip(t.fields, v, strict=True))


def _needs_conversion(t: NType) -> bool:
    if isinstance(t, (Map, Variant)):
        return True
    if isinstance(t, Array):
        return _needs_conversion(t.element)
    if isinstance(t, Struct):
        return any(_needs_conversion(ft) for _, ft in t.fields)
    return False


def _sql_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def converted(expr: str, t: NType, depth: int = 0) -> str:
    """SQL turning a staged value ``expr`` into ``t``: maps by ``map_from_entries`` (insertion
    order kept), variants by ``parse_json``."""
    if not _needs_conversion(t):
        return expr
    if isinstance(t, Variant):
        return f"parse_json({expr})"
    x = f"x{depth}"
    if isinstance(t, Array):
        return f"transform({expr}, {x} -> {converted(x, t.element, depth + 1)})"
    if isinstance(t, Map):
        if _needs_conversion(t.value):
            value = converted(f"{x}.v", t.value, depth + 1)
            expr = f"transform({expr}, {x} -> struct({x}.k as k, {value} as v))"
        return f"map_from_entries({expr})"
    parts = ", ".join(
        f"{_sql_string(n)}, {converted(f'{expr}.{quote_ident(n)}', ft, depth)}"
        for n, ft in t.fields
    )
    return f"if({expr} is null, null, named_struct({parts}))"


def write_nested_table(
    spark, table: str, fmt: str, columns: list[tuple[str, NType]], rows: list[dict]
) -> None:
    """(Re)create ``table`` (a quoted name) in ``fmt`` holding ``rows``."""
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField(n, staged_type(t), True) for n, t in columns])
    data = [tuple(staged_value(t, r[n]) for n, t in columns) for r in rows]
    df = spark.createDataFrame(data, schema, verifySchema=True)
    df = df.selectExpr(*[f"{converted(quote_ident(n), t)} as {quote_ident(n)}" for n, t in columns])
    spark.sql(f"drop table if exists {table}")
    if fmt == "parquet":
        df.write.format("parquet").saveAsTable(table)
        return
    writer = df.writeTo(table).using(fmt)
    if fmt == "delta":  # names such as `my col` need Delta's column mapping
        writer = writer.tableProperty("delta.columnMapping.mode", "name")
    else:  # Iceberg keeps variants from format version 3 on
        writer = writer.tableProperty("format-version", "3")
    writer.create()


def from_spark(t: NType, v):
    """A collected value in the oracle's form."""
    if v is None:
        return None
    if isinstance(t, Variant):
        return v.toJson()
    if isinstance(t, Scalar):
        if isinstance(v, _dt.datetime):  # pyspark gives naive local times
            return v.astimezone(UTC).replace(tzinfo=None)
        return bytes(v) if isinstance(v, (bytearray, memoryview)) else v
    if isinstance(t, Array):
        return [from_spark(t.element, x) for x in v]
    if isinstance(t, Map):
        return NMap(tuple((from_spark(t.key, k), from_spark(t.value, x)) for k, x in v.items()))
    return tuple(from_spark(ft, x) for (_, ft), x in zip(t.fields, v, strict=True))


# --------------------------------------------------------------------------------------------------
# The dbt project, builds and checks
# --------------------------------------------------------------------------------------------------


def _force_ansi(monkeypatch, enabled: bool) -> None:
    """dbt-spark pins ANSI off in every query's session conf; override it for this test only."""
    from dbt.adapters.spark.connections import SparkCredentials

    original = SparkCredentials.__post_init__

    def post_init(self):
        original(self)
        self.server_side_parameters["spark.sql.ansi.enabled"] = "true" if enabled else "false"

    monkeypatch.setattr(SparkCredentials, "__post_init__", post_init)


def _lakehouse_on() -> bool:
    if not LAKEHOUSE_JARS and LAKEHOUSE_REQUIRED:
        pytest.fail("TABLE_DIFF_REQUIRE_LAKEHOUSE=1 but TABLE_DIFF_LAKEHOUSE_JARS is empty")
    return bool(LAKEHOUSE_JARS)


# Spark 4.1 writes variants to parquet shredded (a typed column beside the binary one when a
# file's values mostly share a type), and in interpreted mode (the suite's SESSION_ONLY_CONF) it
# failed to read such a file back (a pair's row diff, read by its column stats):
# CLASS_NOT_OVERRIDE_EXPECTED_METHOD, ScalarCastHelper must override either eval or nullSafeEval.
# This module's queries, dbt's and its own, run with generated code, as users' do.
CODEGEN = {"spark.sql.codegen.factoryMode": "FALLBACK"}


@pytest.fixture(scope="module")
def nested_project(dbt_project_factory, spark):
    project = dbt_project_factory(
        "nested",
        packages=True,
        project_config={"flags": {"send_anonymous_usage_stats": False, "partial_parse": True}},
    )
    # Two models at a time, as test_formats.py builds: a build is mostly per-model overhead.
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    output = profile["table_diff_pytest"]["outputs"]["pytest"]
    output["threads"] = 2
    output["server_side_parameters"].update(CODEGEN)
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    project.write("models/ansi_probe.sql", "select '${spark.sql.ansi.enabled}' as ansi\n")
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    if _lakehouse_on():
        project.spark.sql(f"create namespace if not exists iceberg.`{project.schema}`")
    before = {key: spark.conf.get(key) for key in CODEGEN}
    for key, value in CODEGEN.items():
        spark.conf.set(key, value)
    yield project
    for key, value in before.items():
        spark.conf.set(key, value)


@dataclass
class Built:
    name: str
    pair: NestedPair
    formats: tuple[str, str]


def _write_sources(project, folder: str, tables: dict[str, str], tests: dict | None = None):
    """Sources ``gen`` (the project's schema) and ``gen_iceberg`` (Iceberg's namespace of the
    same name) for ``tables`` {table: format}; ``tests`` {table: [generic test, ...]}."""
    groups: dict[str, list[dict]] = {"gen": [], "gen_iceberg": []}
    for table, fmt in tables.items():
        entry: dict[str, Any] = {"name": table}
        if tests and table in tests:
            entry["data_tests"] = tests[table]
        groups["gen_iceberg" if fmt == "iceberg" else "gen"].append(entry)
    schemas = {"gen": project.schema, "gen_iceberg": f"iceberg.{project.schema}"}
    doc = {
        "version": 2,
        "sources": [
            {"name": g, "schema": schemas[g], "tables": entries}
            for g, entries in groups.items()
            if entries
        ],
    }
    path = project.root / "models" / folder / "_gen__sources.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def _table_name(project, table: str, fmt: str) -> str:
    schema = f"iceberg.`{project.schema}`" if fmt == "iceberg" else f"`{project.schema}`"
    return f"{schema}.`{table}`"


def _source_ref(table: str, fmt: str) -> str:
    return f"source('{'gen_iceberg' if fmt == 'iceberg' else 'gen'}', '{table}')"


def build_batch(project, batch: list[NestedPair], lake: tuple[str, str] | None, dbt_vars: dict):
    """Write every pair's tables, scaffold the pairs, run ONE dbt build. Pairs n0.. are parquet;
    with ``lake`` (source format, target format) the pair nl reads GROUPS[0]'s rows from them."""
    folder = project.root / "models" / "pairs"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    built, tables = [], {}
    layouts = [(f"n{i}", p, ("parquet", "parquet")) for i, p in enumerate(batch)]
    if lake:
        layouts.append(("nl", batch[0], lake))
    for name, pair, formats in layouts:
        all_columns = [*pair.key, *pair.columns]
        for side, rows, fmt in zip(
            ("source", "target"), (pair.source, pair.target), formats, strict=True
        ):
            table = f"{name}_{side}"
            write_nested_table(
                project.spark, _table_name(project, table, fmt), fmt, all_columns, rows
            )
            tables[table] = fmt
        opts = PairOptions(
            name=name,
            source=_source_ref(f"{name}_source", formats[0]),
            target=_source_ref(f"{name}_target", formats[1]),
            primary_key=tuple(pair.key_names),
            **pair.options,
        )
        write_pair(opts, folder)
        built.append(Built(name, pair, formats))
    _write_sources(project, "pairs", tables)
    run = project.run(
        "build", "--select", "path:models/pairs", "ansi_probe", "--vars", json.dumps(dbt_vars)
    )
    assert run.node_results, run.describe() + "\n--- log ---\n" + run.log[-6000:]
    return built, run


def build_problems(run, b: Built) -> list[str]:
    """A pair's models that did not build (the pair is not checked further then)."""
    problems = []
    for res in run.node_results:
        if res.node.name.startswith(f"{b.name}__") and str(res.status) != "success":
            problems.append(
                f"{b.name} ({b.formats}): {res.node.name} {res.status}: {_excerpt(res)}"
            )
    return problems


def _excerpt(res) -> str:
    """A failed node's message, short: its first line and, for a SQL syntax error, the part of
    the SQL line Spark points at."""
    lines = str(res.message or "").splitlines()
    text = " ".join(" ".join(lines).split())[:300]
    for i, line in enumerate(lines[1:], 1):
        if "^^^" in line:
            at = line.index("^")
            text += f" ... at: {lines[i - 1][max(0, at - 150) : at + 60].strip()!r}"
            break
    return text


def _show(t: NType, v) -> str:
    text = repr(v)
    return text if len(text) < 600 else text[:600] + "..."


def check_pair(project, b: Built, limit: int) -> list[str]:
    """Problems of one pair's row diff and summary against the oracle (empty: none)."""
    from pyspark.sql import types as T

    pair = b.pair
    want = brute_force_nested_diff(pair.source, pair.target, pair.key_names, pair.columns, limit)
    df = project.spark.table(project.relation(f"{b.name}__row_diff"))
    problems = []
    paths_type = df.schema["changed_paths"].dataType
    if not (isinstance(paths_type, T.ArrayType) and paths_type.elementType == T.StringType()):
        problems.append(f"{b.name}: changed_paths is {paths_type.simpleString()}")
    got: Counter = Counter()
    stored: dict = {}
    for row in df.collect():
        d = row.asDict()
        k = canonical_key([from_spark(t, d[n]) for n, t in pair.key])
        paths = d["changed_paths"]
        entry = (
            k,
            d["diff_type"],
            d["side"],
            tuple(d["changed_columns"]) if d["changed_columns"] is not None else None,
            tuple(paths) if paths is not None else None,
        )
        got[entry] += 1
        if d["diff_type"] != "duplicate_key":
            stored[k] = d
    columns = dict(pair.columns)
    where = f"{b.name} ({b.formats[0]} -> {b.formats[1]}, {pair.options})"
    for entry in sorted((got - want.rows) + (want.rows - got), key=repr):
        k = entry[0]
        src, tgt = want.rows_by_key.get(k, (None, None))
        lines = [
            f"{where}: key {k} {entry[1:]} x{got[entry]} in the row diff, "
            f"x{want.rows[entry]} in the oracle"
        ]
        for column in entry[3] or ():
            if src is not None and tgt is not None and column in columns:
                t = columns[column]
                lines.append(f"    {column} {ddl(t)}")
                lines.append(f"      source {_show(t, src[column])}")
                lines.append(f"      target {_show(t, tgt[column])}")
                oracle = differing_paths(column, t, src[column], tgt[column])
                lines.append(f"      oracle paths {oracle}")
        lines += [f"    log: {line}" for line in pair.log if repr(k[0][1]) in line][:6]
        problems.append("\n".join(lines))
    # the stored values of every key stored at most once per side
    for k, d in stored.items():
        if k not in want.rows_by_key:
            continue
        for side, row in zip(("source", "target"), want.rows_by_key[k], strict=True):
            for column, t in pair.columns:
                value = from_spark(t, d[f"{side}__{column}"])
                expected = None if row is None else row[column]
                if not values_equal(t, value, expected):
                    problems.append(
                        f"{where}: key {k} {side}__{column} holds {_show(t, value)}, "
                        f"stored {_show(t, expected)}"
                    )
    summary = project.spark.table(project.relation(f"{b.name}__summary")).first().asDict()
    c = want.counts
    expected = {
        "rows_source": c["rows_source"],
        "rows_target": c["rows_target"],
        "rows_added": c["added"],
        "rows_deleted": c["deleted"],
        "rows_modified": c["modified"],
        "duplicate_key_rows": c["duplicate_key_rows"],
        "null_key_rows_source": c["null_key_rows_source"],
        "null_key_rows_target": c["null_key_rows_target"],
        "is_identical": want.is_identical,
        "is_partial": False,
        "status": "complete",
        "source_format": b.formats[0],
        "target_format": b.formats[1],
    }
    actual = {f: summary.get(f) for f in expected}
    if actual != expected:
        problems.append(f"{where}: summary {actual} != oracle {expected}")
    return problems


# ANSI off: the default limit (20); ANSI on: a small one. Each mode takes one row-fetch path.
MODES = {
    False: {"table_diff_dense_leaf_share": 2.0},
    True: {"table_diff_dense_leaf_share": 0.0, "table_diff_changed_paths_limit": 5},
}
LAKE_LAYOUT = {False: ("delta", "iceberg"), True: ("iceberg", "delta")}


def _coverage(batch: list[NestedPair], limit: int) -> dict[str, int]:
    """What the batch holds, from the oracle: the test's own hostility, asserted."""
    cover = Counter()
    for p in batch:
        want = brute_force_nested_diff(p.source, p.target, p.key_names, p.columns, limit)
        for k, kind, _side, _changed, paths in want.rows:
            cover[kind] += 1
            cover["cut paths"] += kind == "modified" and len(paths) == limit
            cover["deep paths"] += any(p.count("[") + p.count(".") >= 3 for p in paths)
            cover["map key paths"] += any("['" in p for p in paths)
            cover["null key"] += any(v == ("null",) for v in k)
        cover["empty side"] += not p.source or not p.target
    return dict(cover)


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [False, True], ids=["ansi_off", "ansi_on"])
def test_nested_pairs_match_the_oracle(nested_project, monkeypatch, ansi):
    started = time.monotonic()
    _force_ansi(monkeypatch, ansi)
    dbt_vars = MODES[ansi]
    limit = dbt_vars.get("table_diff_changed_paths_limit", DEFAULT_PATHS_LIMIT)
    batch = draw_batch()
    applied = sum((p.kinds for p in batch), Counter())
    assert set(applied) == set(KINDS), f"kinds never applied: {set(KINDS) - set(applied)}"
    cover = _coverage(batch, limit)
    for what in ("modified", "added", "deleted", "duplicate_key", "cut paths", "deep paths"):
        assert cover.get(what), f"the batch has no {what!r}: {cover}"
    assert cover.get("map key paths") and cover.get("empty side"), cover
    lake = LAKE_LAYOUT[ansi] if _lakehouse_on() else None
    drawn = time.monotonic()
    built, run = build_batch(nested_project, batch, lake, dbt_vars)
    assert run.status("ansi_probe") == "success", run.describe()
    assert nested_project.rows("ansi_probe") == [("true" if ansi else "false",)]
    problems = []
    for b in built:
        problems += build_problems(run, b) or check_pair(nested_project, b, limit)
    print(
        f"nested pairs, ANSI {'on' if ansi else 'off'}: {len(built)} pairs, draw "
        f"{drawn - started:.0f}s, tables and build {time.monotonic() - drawn:.0f}s"
    )
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:40])


# --------------------------------------------------------------------------------------------------
# no_drift on nested tables, and nested keys refused
# --------------------------------------------------------------------------------------------------

ND_COLUMNS = [
    ("id", S("bigint")),
    ("items", ITEMS),
    ("attrs", ATTRS),
    ("payload", PAYLOAD),
    ("w", WIDE),
    ("v", Variant()),
]
ND_KEY = ["id"]


def _wide(seed: int, tail: NMap | None) -> tuple:
    values = []
    for i in range(29):
        t = WIDE_LEAVES[i % len(WIDE_LEAVES)]
        values.append(
            {
                "int": seed + i,
                "double": -0.0 if i % 2 else seed / 4,
                "string": f"s{seed}'{i}",
                "decimal(10,2)": Decimal(f"{seed}.{i:02d}"),
                "timestamp": TS + _dt.timedelta(microseconds=seed * 1000 + i),
                "boolean": bool(i % 2),
                "bigint": -(seed**i),
                "float": math.nan if i % 3 == 0 else 0.5,
                "date": _dt.date(2000 + seed, 1, 1 + i % 28),
                "binary": bytes([seed, i]),
            }[t]
        )
    return (*values, Decimal("12345.6789000000"), [seed, None, 0], tail)


def nd_rows() -> list[dict]:
    """The source of the no_drift checks."""
    return [
        {
            "id": 1,
            "items": [(1, ["a", None]), (2, ["b"]), (None, [])],
            "attrs": NMap(
                (
                    ("k1", (0.0, Decimal("1.10"), TS)),
                    ("it's", (math.nan, None, TS)),
                    ("z", None),
                )
            ),
            "payload": (([1, 2], 0.0, math.nan), "t", "t", True),
            "w": _wide(1, NMap((("a", 1.0), ("b", 1.0), ("c", -0.0)))),
            "v": '{"b":[1,{"c":null}],"a":"x"}',
        },
        {
            "id": 2,
            "items": [],
            "attrs": NMap((("it's", (-1.5, Decimal("-0.01"), TS)), ("\\", (None,) * 3))),
            "payload": (None, None, "l", None),
            "w": _wide(2, NMap((("x", None), ("y", 2.0)))),
            "v": "null",
        },
        {
            "id": 3,
            "items": None,
            "attrs": NMap(()),
            "payload": None,
            "w": None,
            "v": None,
        },
        {
            "id": 4,
            "items": [(None, None)],
            "attrs": None,
            "payload": ((None, None, None), "", "", False),
            "w": _wide(4, NMap(())),
            "v": '{"a":{"b":[1,2]}}',
        },
    ]


def _reordered(v):
    """The same value with every map's insertion order reversed and every 0.0 / NaN respelled."""
    if isinstance(v, NMap):
        return NMap(tuple((k, _reordered(x)) for k, x in reversed(v.entries)))
    if isinstance(v, list):
        return [_reordered(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_reordered(x) for x in v)
    if isinstance(v, float) and v == 0:
        return -v
    if isinstance(v, float) and math.isnan(v):
        return NAN_PAYLOAD
    return v


def nd_same() -> list[dict]:
    return [{c: _reordered(r[c]) for c, _ in ND_COLUMNS} for r in nd_rows()]


def nd_deep() -> list[dict]:
    rows = nd_same()
    rows[0]["items"][1] = (2, ["c"])  # items[1].y[0]
    attrs = dict(rows[1]["attrs"].entries)
    a, b, ts = attrs["it's"]
    attrs["it's"] = (a, b, ts + _dt.timedelta(microseconds=1))  # attrs['it\'s'].ts
    rows[1]["attrs"] = NMap(tuple(attrs.items()))
    w = list(rows[1]["w"])
    w[31] = NMap((*w[31].entries, ("new", None)))  # w.f31['new']: a NULL value vs no key
    rows[1]["w"] = tuple(w)
    rows[2]["payload"] = ((None, None, None), None, None, None)  # payload: NULL vs a struct
    return rows


ND_DEEP_PATHS = {
    1: (("items",), ("items[1].y[0]",)),
    2: (("attrs", "w"), ("attrs['it\\'s'].ts", "w.f31['new']")),
    3: (("payload",), ("payload",)),
}


def nd_variant_reordered() -> list[dict]:
    rows = [dict(r) for r in nd_rows()]
    rows[0]["v"] = '{"a":"x","b":[1,{"c":null}]}'
    return rows


# Map keys whose paths read like an entry and something under it: `m['a\']` (key a\) and
# `m['a\'][0']` (key a'][0) are two entries, neither under the other.
NK_COLUMNS = [("id", S("bigint")), ("m", Map(S("string"), S("int")))]
NK_SOURCE = [{"id": 1, "m": NMap((("k", 1),))}, {"id": 2, "m": NMap((("a\\", 1),))}]
NK_TARGET = [
    {"id": 1, "m": NMap((("k", 1), ("a\\", 2), ("a'][0", 3)))},
    {"id": 2, "m": NMap((("a\\", 2),))},
]
NK_PATHS = {
    # key a\ is m['a\\'], key a'][0 is m['a\'][0']: sorted as text, neither a prefix of the other
    1: ("m['a\\'][0']", "m['a\\\\']"),
    2: ("m['a\\\\']",),
}


REFUSED_KEYS = ("payload", "items", "attrs", "v", "w")


@pytest.fixture(scope="module")
def checks_build(nested_project):
    """One dbt build: no_drift of nd_source against an equivalent rewrite, a deep change, a
    variant with its object keys reordered, and (lakehouse) Delta / Iceberg copies of the source;
    and one key_ranges model per nested key column, each of which must be refused."""
    project = nested_project
    folder = project.root / "models" / "checks"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    lake = _lakehouse_on()
    data = {
        "nd_source": ("parquet", nd_rows()),
        "nd_same": ("parquet", nd_same()),
        "nd_deep": ("parquet", nd_deep()),
        "nd_variant": ("parquet", nd_variant_reordered()),
    }
    if lake:
        data["nd_delta"] = ("delta", nd_same())
        data["nd_iceberg"] = ("iceberg", nd_rows())
    for table, (fmt, rows) in data.items():
        write_nested_table(project.spark, _table_name(project, table, fmt), fmt, ND_COLUMNS, rows)
    tests = []
    for table, (fmt, _) in data.items():
        if table == "nd_source":
            continue
        arguments = {"compare_to": f"{{{{ {_source_ref(table, fmt)} }}}}", "primary_key": ND_KEY}
        tests.append({"table_diff.no_drift": {"name": f"drift_{table}", "arguments": arguments}})
    for table, rows in (("nk_source", NK_SOURCE), ("nk_target", NK_TARGET)):
        write_nested_table(
            project.spark, _table_name(project, table, "parquet"), "parquet", NK_COLUMNS, rows
        )
    arguments = {"compare_to": "{{ source('gen', 'nk_target') }}", "primary_key": ND_KEY}
    nk_tests = [{"table_diff.no_drift": {"name": "drift_nk", "arguments": arguments}}]
    tables = {t: fmt for t, (fmt, _) in data.items()} | {
        "nk_source": "parquet",
        "nk_target": "parquet",
    }
    _write_sources(project, "checks", tables, {"nd_source": tests, "nk_source": nk_tests})
    for key in REFUSED_KEYS:  # (not on nd_source: a failing test of it would skip them)
        (folder / f"refused_{key}.sql").write_text(
            "{{ table_diff.key_ranges(source=source('gen', 'nd_same'), "
            f"target=source('gen', 'nd_deep'), primary_key='{key}') }}}}\n"
        )
    run = project.run("build", "--store-failures", "--select", "path:models/checks")
    return project, run, data


def _drift_rows(project, run, name: str) -> Counter:
    stored = project.spark.table(run.node(name).node.relation_name).collect()
    rows = [r.asDict() for r in stored]
    return Counter(
        (
            d["id"],
            d["diff_type"],
            tuple(d["changed_columns"]),
            tuple(d["changed_paths"])
            if d.get("changed_paths") is not None
            else d.get("changed_paths", "no changed_paths column"),
        )
        for d in rows
    )


@pytest.mark.slow
def test_no_drift_passes_on_map_order_and_signed_zeros(checks_build):
    _, run, _ = checks_build
    assert run.status("drift_nd_same") == "pass", _excerpt(run.node("drift_nd_same"))


@pytest.mark.slow
def test_no_drift_fails_on_a_deep_change_with_its_paths(checks_build):
    project, run, _ = checks_build
    want = brute_force_nested_diff(nd_rows(), nd_deep(), ND_KEY, ND_COLUMNS[1:])
    expected = Counter(
        {
            (k[0][1], kind, changed, paths): n
            for (k, kind, _, changed, paths), n in want.rows.items()
        }
    )
    by_hand = Counter({(i, "modified", *cp): 1 for i, cp in ND_DEEP_PATHS.items()})
    assert expected == by_hand  # the oracle agrees with the paths written by hand
    assert run.status("drift_nd_deep") == "fail", _excerpt(run.node("drift_nd_deep"))
    assert run.node("drift_nd_deep").failures == 3
    assert _drift_rows(project, run, "drift_nd_deep") == expected


@pytest.mark.slow
def test_no_drift_compares_variants_by_value(checks_build):
    """An object's keys in another order are the same variant (``to_json`` prints them alike)."""
    _, run, _ = checks_build
    assert run.status("drift_nd_variant") == "pass", _excerpt(run.node("drift_nd_variant"))


@pytest.mark.slow
def test_no_drift_across_formats(checks_build):
    """Parquet against Delta (maps reordered, signed zeros) and Iceberg copies: the same values,
    although each format may encode a variant differently."""
    _, run, data = checks_build
    if "nd_delta" not in data:
        pytest.skip("needs TABLE_DIFF_LAKEHOUSE_JARS")
    for name in ("drift_nd_delta", "drift_nd_iceberg"):
        assert run.status(name) == "pass", (name, _excerpt(run.node(name)))


@pytest.mark.slow
def test_no_drift_keeps_sibling_map_keys_that_read_like_descendants(checks_build):
    r"""Keys whose paths would read like descendants if only quotes were escaped: key ``a\`` is
    `m['a\\']` and key ``a'][0`` is `m['a\'][0']` (backslash and quote both escaped), so
    neither is a prefix of the other and both are reported."""
    project, run, _ = checks_build
    want = brute_force_nested_diff(NK_SOURCE, NK_TARGET, ND_KEY, NK_COLUMNS[1:])
    expected = Counter(
        {
            (k[0][1], kind, changed, paths): n
            for (k, kind, _, changed, paths), n in want.rows.items()
        }
    )
    assert expected == Counter({(i, "modified", ("m",), p): 1 for i, p in NK_PATHS.items()})
    assert run.status("drift_nk") == "fail", _excerpt(run.node("drift_nk"))
    assert _drift_rows(project, run, "drift_nk") == expected


@pytest.mark.slow
@pytest.mark.parametrize("key", REFUSED_KEYS)
def test_nested_key_is_refused_by_name(checks_build, key):
    _, run, _ = checks_build
    assert run.status(f"refused_{key}") == "error", _excerpt(run.node(f"refused_{key}"))
    message = run.message(f"refused_{key}")
    assert f"invalid primary_key '{key} " in message, message
    assert "table_diff.key_ranges" in message, message
