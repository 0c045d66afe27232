"""Every side in every format (docs/formats.md): parquet, Delta Lake and Iceberg give one answer.

A matrix of *layouts*: both sides parquet, both Delta, both Iceberg, and two mixed ones (a Delta
source against an Iceberg target, an Iceberg source against a parquet target). Every layout diffs
the same hostile table pairs (``strategies.table_pairs``, drawn with a fixed seed and chosen so that
every semantic class of the property test occurs) and runs two ``no_drift`` tests; each format also
merges the same three-way triple (``strategies.three_way``). All of it is scaffolded with the real
scaffold code and built by ONE ``dbt build`` per layout, and every answer must equal the brute-force
oracle (``oracle.py``) and the parquet layout's answer.

The Delta and Iceberg copies of the tables also carry what only those formats have: tables
partitioned by a value column and by a key column; a target whose rows were UPDATEd and DELETEd
after it was written (Delta deletion vectors, Iceberg merge-on-read position deletes), so the data
files still hold rows the table no longer has; and a target whose column was renamed and another
dropped, so the names in the data files are not the table's (Delta column mapping, Iceberg field
ids). Each keeps the pair's logical rows, so the answers must not move. Delta rejects column names
such as ``Unit Price`` unless the table maps columns by name: such tables get
``delta.columnMapping.mode = 'name'``, as a Delta user would set.

Which cases run where, and how long the file takes: docs/formats.md.
"""

from __future__ import annotations

import datetime as _dt
import math
import shutil
import struct
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from oracle import brute_force_diff, brute_force_merge, canonical_key, canonical_value, merge_counts
from strategies import (
    RANGE_KEY_TYPES,
    VALUE_TYPES,
    Column,
    TablePair,
    TableSpec,
    ThreeWay,
    _equivalent,
    _from_spark_value,
    quote_ident,
    table_pairs,
    table_specs,
    three_way,
    to_spark_df,
)

from dbt_table_diff.scaffold.merge import MergeOptions, write_merge
from dbt_table_diff.scaffold.models import MODEL_SUFFIXES
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair

SEED = 20261127
PAIR_DRAWS = 100
FORMATS = ("parquet", "delta", "iceberg")
# Mixed layouts: (source format, target format), over the tables the single-format layouts wrote.
MIXED = {"delta_iceberg": ("delta", "iceberg"), "iceberg_parquet": ("iceberg", "parquet")}
LAYOUTS = (*FORMATS, *MIXED)
LAKE = ("delta", "iceberg")
# What Delta refuses in a column name unless the table maps columns by name.
DELTA_INVALID = set(" ,;{}()\n\t=")
# Column types a partition directory can be named after (a long string cannot: see below).
PARTITIONABLE = ("string", "int", "bigint", "boolean", "date", "decimal")
GHOST = "td ghost"  # marks the rows a target's DELETE removes again
DROPPED = "td dropped"  # a column a target drops again


def _layout_formats(layout: str) -> tuple[str, str]:
    return MIXED.get(layout, (layout, layout))


# --------------------------------------------------------------------------------------------------
# Deterministic draws: a fixed seed, generation only (no shrinking, no example database)
# --------------------------------------------------------------------------------------------------


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis also draws literals it finds in the source of every local, non-test module loaded
    in the process (``hypothesis.internal.conjecture.providers._get_local_constants``). Which
    modules those are depends on what ran before in the process, so one seed would give other
    tables under ``make test`` than in this file alone. The draws here go without them."""
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    original = providers._get_local_constants
    providers.CONSTANTS_CACHE.cache.clear()  # caches the constants allowed per choice type
    providers._get_local_constants = Constants
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


def _draw(strategy: st.SearchStrategy, count: int) -> list:
    """``count`` values of ``strategy``: the same ones in every process and context."""
    drawn: list = []

    @seed(SEED)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value):
        drawn.append(value)

    with _no_local_constants():
        collect()
    return drawn


# Wide tables (up to 10 value columns of every type) and up to 40 rows: few pairs hold every class.
def _pair_strategy() -> st.SearchStrategy[TablePair]:
    return table_pairs(table_specs(key_types=RANGE_KEY_TYPES, max_value_columns=10), max_rows=40)


def _floats(rows: list[dict], spec: TableSpec) -> list[float]:
    names = [c.name for c in spec.columns if c.type in ("double", "float")]
    return [r[n] for r in rows for n in names if r[n] is not None]


def _bits(value) -> Any:
    """A value as stored: a float's bit pattern (NaN payloads, the sign of zero), a decimal's
    digits and scale."""
    if isinstance(value, float):
        return struct.pack(">d", value)
    return repr(value)


def semantic_classes(pair: TablePair) -> set[str]:
    """The hostile situations a pair holds (the property test's classes)."""
    spec, src, tgt = pair.spec, pair.source, pair.target
    rows = src + tgt
    want = _oracle(pair)
    found: set[str] = set()
    for kind, keys in (
        ("added", want.added),
        ("deleted", want.deleted),
        ("modified", want.modified),
        ("duplicate_key", want.duplicate_keys),
    ):
        if keys:
            found.add(kind)
    if want.is_clean and src:
        found.add("identical")  # a non-empty identical copy
    if want.null_key_rows_source + want.null_key_rows_target:
        found.add("null_key")
    if len(spec.key) > 1:
        found.add("composite_key")
    found.update(f"key_{c.type.split('(')[0]}" for c in spec.key)
    found.update(f"value_{c.type.split('(')[0]}" for c in spec.values)
    if any(r[c] is None for r in rows for c in spec.value_names):
        found.add("null_value")
    floats = _floats(rows, spec)
    if any(math.isnan(v) for v in floats):
        found.add("nan")
    if any(v == 0 and math.copysign(1.0, v) < 0 for v in floats):
        found.add("negative_zero")
    by_type = {c.name: c.type for c in spec.columns}
    if any(isinstance(r[n], Decimal) for r in rows for n in by_type):
        found.add("decimal")
    if any(isinstance(r[n], _dt.datetime) for r in rows for n in by_type):
        found.add("timestamp")
    if any(isinstance(r[n], str) and not r[n].isascii() for r in rows for n in by_type):
        found.add("unicode")
    if any(DELTA_INVALID & set(n) for n in spec.names):
        found.add("name_needs_column_mapping")
    if bool(src) != bool(tgt):
        found.add("one_sided")
    # an equal value spelt differently on the two sides (NaN payloads, -0.0, decimal scale)
    t_by_key = Counter(canonical_key(tuple(r[k] for k in spec.key_names)) for r in tgt)
    t_rows = {canonical_key(tuple(r[k] for k in spec.key_names)): r for r in tgt}
    for r in src:
        ck = canonical_key(tuple(r[k] for k in spec.key_names))
        other = t_rows.get(ck)
        if other is None or t_by_key[ck] != 1:
            continue
        for c in spec.value_names:
            a, b = r[c], other[c]
            if a is not None and canonical_value(a) == canonical_value(b) and _bits(a) != _bits(b):
                found.add("equal_value_spelt_differently")
    return found


CLASSES = (
    *(f"key_{t.split('(')[0]}" for t in RANGE_KEY_TYPES),
    *(f"value_{t}" for t in VALUE_TYPES),
    "added",
    "deleted",
    "modified",
    "duplicate_key",
    "identical",
    "null_key",
    "composite_key",
    "null_value",
    "nan",
    "negative_zero",
    "decimal",
    "timestamp",
    "unicode",
    "name_needs_column_mapping",
    "one_sided",
    "equal_value_spelt_differently",
)


def _oracle(pair: TablePair):
    spec = pair.spec
    return brute_force_diff(
        pair.source, pair.target, spec.key_names, spec.value_names, types=spec.types
    )


def covering_batch(pairs: list[TablePair]) -> list[TablePair]:
    """Greedy set cover: few pairs that together hold every class of CLASSES (each pair costs five
    models per layout)."""
    classes = [semantic_classes(p) for p in pairs]
    missing = set(CLASSES)
    chosen: list[int] = []
    while missing:
        best = max(range(len(pairs)), key=lambda i: (len(classes[i] & missing), -i))
        if not classes[best] & missing:
            break
        chosen.append(best)
        missing -= classes[best]
    return [pairs[i] for i in chosen]


# --------------------------------------------------------------------------------------------------
# Tables in a format
# --------------------------------------------------------------------------------------------------


@dataclass
class Written:
    """What was done to one stored table beyond writing its rows (checked by the tests)."""

    fmt: str
    properties: dict[str, str] = field(default_factory=dict)
    partitioned_by: tuple[str, ...] = ()
    history: list[tuple[str, dict]] = field(default_factory=list)  # (operation, metrics)
    file_columns: list[list[str]] = field(default_factory=list)  # column names in each data file
    columns: list[str] = field(default_factory=list)  # the table's columns
    file_rows: int = 0  # rows stored in its live data files, deleted ones included
    renames: dict[str, str] = field(default_factory=dict)  # stored name -> table name
    # an ALTER after the last data commit: Iceberg cannot pin such a table (versions.sql)
    metadata_after_snapshot: bool = False


class Lake:
    """The project, its two schemas (spark_catalog and iceberg), and the tables written."""

    def __init__(self, project) -> None:
        self.project = project
        self.spark = project.spark
        self.schema = project.schema
        self.iceberg_schema = f"iceberg.{project.schema}"
        self.tables: dict[str, Written] = {}

    def sql_name(self, table: str) -> str:
        fmt = self.tables[table].fmt if table in self.tables else None
        return f"{self.iceberg_schema if fmt == 'iceberg' else self.schema}.{table}"

    def write(
        self,
        fmt: str,
        spec: TableSpec,
        rows: list[dict],
        table: str,
        *,
        partitioned_by: tuple[str, ...] = (),
        properties: dict[str, str] | None = None,
        files: int | None = None,
    ) -> Written:
        """(Re)create ``table`` in ``fmt`` holding ``rows``."""
        from pyspark.sql import functions as F

        written = self.tables[table] = Written(fmt, dict(properties or {}), partitioned_by)
        name = self.sql_name(table)
        self.spark.sql(f"drop table if exists {name}")
        df = to_spark_df(self.spark, spec, rows)
        if files is not None:
            df = df.coalesce(files)
        if fmt == "delta" and any(DELTA_INVALID & set(n) for n in spec.names):
            written.properties["delta.columnMapping.mode"] = "name"
        if fmt == "parquet":
            writer = df.write.format("parquet").partitionBy(*partitioned_by)
            writer.saveAsTable(name)
            return written
        writer = df.writeTo(name).using(fmt)
        for key, value in written.properties.items():
            writer = writer.tableProperty(key, value)
        if partitioned_by:
            writer = writer.partitionedBy(*[F.col(quote_ident(c)) for c in partitioned_by])
        writer.create()
        return written

    def record(self, table: str) -> None:
        """Store the table's history (Delta log / Iceberg snapshots), columns and file columns."""
        spark, written, name = self.spark, self.tables[table], self.sql_name(table)
        written.columns = spark.table(name).columns
        if written.fmt == "delta":
            history = spark.sql(f"describe history {name}").collect()
            written.history = [(h["operation"], dict(h["operationMetrics"] or {})) for h in history]
            files = f"select distinct _metadata.file_path from {name}"
        elif written.fmt == "iceberg":
            snapshots = spark.sql(f"select operation, summary from {name}.snapshots").collect()
            written.history = [(s["operation"], dict(s["summary"])) for s in snapshots]
            files = f"select distinct _file from {name}"
        else:
            files = f"select distinct _metadata.file_path from {name}"
        paths = [r[0] for r in spark.sql(files).collect()]
        files_read = [spark.read.parquet(p) for p in paths]
        written.file_columns = [f.columns for f in files_read]
        written.file_rows = sum(f.count() for f in files_read)

    def describe_partitions(self, table: str) -> list[str]:
        """The partition columns DESCRIBE TABLE lists (unquoted)."""
        rows = self.spark.sql(f"describe table {self.sql_name(table)}").collect()
        names, inside = [], False
        for r in rows:
            col = (r.col_name or "").strip()
            if col == "# Partition Information":
                inside = True
            elif inside and col and not col.startswith("#"):
                names.append(col.strip("`"))
        return names

    def provider(self, table: str) -> str:
        rows = self.spark.sql(f"describe table extended {self.sql_name(table)}").collect()
        return next(r.data_type.strip().lower() for r in rows if r.col_name.strip() == "Provider")


# The treatments a Delta / Iceberg copy of a pair gets (none changes the pair's logical rows).


def row_level_deletes(
    lake: Lake, fmt: str, spec: TableSpec, rows: list[dict], table: str, partitioned_by=()
) -> None:
    """Write ``rows`` plus a ghost copy of each in one file, UPDATE half the rows to their own
    values, DELETE the ghosts, drop the ghost column and UPDATE a third of the rows: with deletion
    vectors (Delta) or merge-on-read position deletes (Iceberg) the statements only mark rows
    deleted, and the files keep them."""
    props = (
        {"delta.enableDeletionVectors": "true", "delta.columnMapping.mode": "name"}
        if fmt == "delta"
        else {"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read"}
    )
    marked = TableSpec(spec.key, (*spec.values, Column(GHOST, "boolean")))
    stored = [{**r, GHOST: False} for r in rows] + [{**r, GHOST: True} for r in rows]
    lake.write(fmt, marked, stored, table, properties=props, files=1, partitioned_by=partitioned_by)
    name, g = lake.sql_name(table), quote_ident(GHOST)
    v = quote_ident(spec.value_names[0])
    keys = ", ".join(quote_ident(k) for k in spec.key_names)
    lake.spark.sql(f"update {name} set {v} = {v} where not {g} and pmod(xxhash64({keys}), 2) = 0")
    lake.spark.sql(f"delete from {name} where {g}")
    lake.spark.sql(f"alter table {name} drop column {g}")
    # a data commit after the schema change, so that Iceberg pins this table too; a third of the
    # rows, so the first file keeps live rows (and its deleted ones)
    lake.spark.sql(f"update {name} set {v} = {v} where pmod(xxhash64({keys}), 3) = 1")


def _renames(spec: TableSpec, avoid: tuple[str, ...]) -> dict[str, str]:
    """Stored name -> table name: two value columns of one type stored under each other's name
    (renamed into each other afterwards: a reader by name gets them swapped), else the first value
    column stored as ``old <name>``. Partition columns are left alone."""
    free = [c for c in spec.values if c.name not in avoid]
    for i, a in enumerate(free):
        for b in free[i + 1 :]:
            if a.type == b.type:
                return {a.name: b.name, b.name: a.name}
    return {f"old {free[0].name}": free[0].name}


def renamed_columns(
    lake: Lake, fmt: str, spec: TableSpec, rows: list[dict], table: str, partitioned_by=()
) -> None:
    """Write columns under other names (``_renames``) plus a column too many, then RENAME them to
    their names and DROP the other: the data files keep the names they were written with (Iceberg,
    read by field id) or opaque physical ones (Delta column mapping), and the dropped values."""
    renames = _renames(spec, partitioned_by)
    stored_as = {logical: stored for stored, logical in renames.items()}
    values = tuple(Column(stored_as.get(c.name, c.name), c.type) for c in spec.values)
    stored_spec = TableSpec(spec.key, (*values, Column(DROPPED, "string")))
    stored = [{**{stored_as.get(n, n): v for n, v in r.items()}, DROPPED: "x"} for r in rows]
    props = {"delta.columnMapping.mode": "name"} if fmt == "delta" else {}
    written = lake.write(
        fmt, stored_spec, stored, table, properties=props, partitioned_by=partitioned_by
    )
    written.renames = renames
    name = lake.sql_name(table)
    steps = [(s, f"td was {s}") for s in renames] + [(f"td was {s}", t) for s, t in renames.items()]
    for old, new in steps:
        lake.spark.sql(f"alter table {name} rename column {quote_ident(old)} to {quote_ident(new)}")
    lake.spark.sql(f"alter table {name} drop column {quote_ident(DROPPED)}")
    written.metadata_after_snapshot = True


# --------------------------------------------------------------------------------------------------
# Answers, canonical: comparable with the oracle and across formats
# --------------------------------------------------------------------------------------------------


def _conv(d: dict) -> dict:
    return {k: _from_spark_value(v) for k, v in d.items()}


def _vals(spec: TableSpec, row: dict | None) -> tuple:
    return tuple(canonical_value(None if row is None else row[c]) for c in spec.value_names)


def row_diff_answer(lake: Lake, spec: TableSpec, pair_name: str) -> Counter:
    """Multiset of (diff_type, side, key, changed_columns, source values, target values)."""
    out: Counter = Counter()
    for r in lake.spark.table(lake.project.relation(f"{pair_name}__row_diff")).collect():
        d = _conv(r.asDict())
        src = tuple(canonical_value(d[f"source__{c}"]) for c in spec.value_names)
        tgt = tuple(canonical_value(d[f"target__{c}"]) for c in spec.value_names)
        key = canonical_key(tuple(d[k] for k in spec.key_names))
        out[(d["diff_type"], d["side"], key, tuple(d["changed_columns"]), src, tgt)] += 1
    return out


def expected_row_diff(pair: TablePair, want) -> tuple[Counter, Counter, set]:
    """From the oracle and the pair's rows: the rows of added / deleted / modified keys, the rows
    of every duplicate key, and the duplicate keys both sides hold alike."""
    spec = pair.spec

    def index(rows):
        out: dict[tuple, list[dict]] = {}
        for r in rows:
            out.setdefault(canonical_key(tuple(r[k] for k in spec.key_names)), []).append(r)
        return out

    src, tgt = index(pair.source), index(pair.target)
    none = _vals(spec, None)
    exact: Counter = Counter()
    for k in want.added:
        exact[
            ("added", "target", canonical_key(k), (), none, _vals(spec, tgt[canonical_key(k)][0]))
        ] += 1
    for k in want.deleted:
        exact[
            ("deleted", "source", canonical_key(k), (), _vals(spec, src[canonical_key(k)][0]), none)
        ] += 1
    for k, changed in want.modified.items():
        ck = canonical_key(k)
        exact[
            ("modified", "both", ck, changed, _vals(spec, src[ck][0]), _vals(spec, tgt[ck][0]))
        ] += 1
    dups: Counter = Counter()
    for k in want.duplicate_keys:
        ck = canonical_key(k)
        for r in src.get(ck, []):
            dups[("duplicate_key", "source", ck, (), _vals(spec, r), none)] += 1
        for r in tgt.get(ck, []):
            dups[("duplicate_key", "target", ck, (), none, _vals(spec, r))] += 1
    return exact, dups, {canonical_key(k) for k in want.symmetric_duplicate_keys}


SUMMARY_FIELDS = (
    "rows_source",
    "rows_target",
    "rows_added",
    "rows_deleted",
    "rows_modified",
    "duplicate_key_rows",
    "null_key_rows_source",
    "null_key_rows_target",
    "is_identical",
    "is_partial",
    "status",
)


def merge_answer(lake: Lake, name: str, tw: ThreeWay) -> dict:
    """A merge's outputs: classification per key, merged rows, conflicts, summary counts."""
    key, cols = tw.spec.key_names, tw.spec.value_names

    def rows(suffix: str) -> list[dict]:
        relation = lake.project.relation(f"{name}__{suffix}")
        return [_conv(r.asDict()) for r in lake.spark.table(relation).collect()]

    merge: dict[tuple, tuple] = {}
    for r in rows("merge"):
        ck = canonical_key(tuple(r[k] for k in key))
        assert ck not in merge, f"{name}: key {ck} twice in __merge"
        merge[ck] = (
            r["merge_status"],
            r["conflict_type"],
            *map(tuple, (r["ours_changed"], r["theirs_changed"])),
        )
    conflicts = {}
    for r in rows("conflicts"):
        cells = tuple(
            canonical_value(r[f"{s}__{c}"]) for c in cols for s in ("base", "ours", "theirs")
        )
        conflicts[canonical_key(tuple(r[k] for k in key))] = (r["conflict_type"], cells)
    summary = rows("merge_summary")[0]
    return {
        "merge": merge,
        "merged": Counter(tuple(canonical_value(r[c]) for c in key + cols) for r in rows("merged")),
        "conflicts": conflicts,
        "counts": {k: summary[k] for k in merge_counts({}) if k != "unchanged"},
    }


def expected_merge(tw: ThreeWay) -> dict:
    """The same shape from the oracle (``oracle.brute_force_merge``)."""
    key, cols = tw.spec.key_names, tw.spec.value_names
    result = brute_force_merge(tw.base, tw.ours, tw.theirs, key, cols)
    sides = {
        s: {canonical_key(tuple(r[k] for k in key)): r for r in rows}
        for s, rows in (("base", tw.base), ("ours", tw.ours), ("theirs", tw.theirs))
    }
    conflicts = {}
    for m in result.values():
        if m.status == "conflict":
            ck = canonical_key(m.key)
            cells = []
            for c in cols:
                for s in ("base", "ours", "theirs"):
                    row = sides[s].get(ck)
                    cells.append(canonical_value(None if row is None else row[c]))
            conflicts[ck] = (m.conflict_type, tuple(cells))
    return {
        "merge": {
            canonical_key(m.key): (m.status, m.conflict_type, m.ours_changed, m.theirs_changed)
            for m in result.values()
            if m.status != "unchanged"
        },
        "merged": Counter(
            tuple(canonical_value(m.merged[c]) for c in key + cols)
            for m in result.values()
            if m.merged is not None
        ),
        "conflicts": conflicts,
        "counts": {k: n for k, n in merge_counts(result).items() if k != "unchanged"},
    }


# --------------------------------------------------------------------------------------------------
# The matrix: per layout, tables written, models scaffolded, ONE dbt build, answers collected
# --------------------------------------------------------------------------------------------------


def _pair_options(i: int) -> dict[str, Any]:
    """Options by position: range with the duplicate check; hash with it; hash with the quick
    check and without it (duplicates both sides hold alike then show only where their block
    differs). Tiny fixed blocks, so the split recurses and no layout depends on a format's
    statistics."""
    tiny = {"block_count": 2, "split_factor": 2, "compare_unit_size": 2, "max_depth": 2}
    return [
        {"strategy": "range", "check_duplicate_keys": True, **tiny},
        {"strategy": "hash", "check_duplicate_keys": True, **tiny},
        {"strategy": "hash", "quick_check": True, **tiny},
    ][i % 3]


@dataclass
class PairCase:
    name: str
    pair: TablePair
    options: dict[str, Any]
    source: str  # table names
    target: str


@dataclass
class Built:
    layout: str
    run: Any = None
    write_seconds: float = 0.0
    build_seconds: float = 0.0
    pairs: dict[int, PairCase] = field(default_factory=dict)
    answers: dict[int, tuple[Counter, dict]] = field(default_factory=dict)
    merge: dict | None = None


class Matrix:
    """Builds a layout on first use and keeps its answers for every test of the module."""

    def __init__(self, lake: Lake, draws: dict[str, Any]) -> None:
        self.lake = lake
        self.draws = draws
        self.built: dict[str, Built] = {}
        self.failed: dict[str, str] = {}

    def get(self, layout: str) -> Built:
        if layout in self.failed:  # fail fast: one failed build must not run again for each test
            pytest.fail(
                f"layout {layout} failed to build (see its first test): {self.failed[layout]}"
            )
        if layout not in self.built:
            try:
                for fmt in set(_layout_formats(layout)) - {layout}:
                    self.get(fmt)  # a mixed layout reads the tables the formats' layouts wrote
                self.built[layout] = self._build(layout)
            except BaseException as e:
                self.failed[layout] = f"{type(e).__name__}: {str(e)[:300]}"
                raise
        return self.built[layout]

    def _write_tables(self, fmt: str) -> None:
        lake, draws = self.lake, self.draws
        treat = draws["treatments"]
        for i, p in enumerate(draws["batch"]):
            partitioned_by: tuple[str, ...] = ()
            if fmt in LAKE and i == treat["part_value"][0]:
                partitioned_by = (treat["part_value"][1],)
            if fmt in LAKE and i == treat["part_key"][0]:
                partitioned_by = (treat["part_key"][1],)
            kw = {"partitioned_by": partitioned_by}
            lake.write(fmt, p.spec, p.source, f"{fmt}_p{i}_source", **kw)
            target = f"{fmt}_p{i}_target"
            if fmt in LAKE and i == treat["deletes"]:
                row_level_deletes(lake, fmt, p.spec, p.target, target, **kw)
                lake.record(target)
            elif fmt in LAKE and i == treat["rename"]:
                renamed_columns(lake, fmt, p.spec, p.target, target, **kw)
                lake.record(target)
            else:
                lake.write(fmt, p.spec, p.target, target, **kw)
        tw = draws["merge"]
        for role, rows in (("base", tw.base), ("ours", tw.ours), ("theirs", tw.theirs)):
            lake.write(fmt, tw.spec, rows, f"{fmt}_m_{role}")

    def _build(self, layout: str) -> Built:
        lake, draws = self.lake, self.draws
        out = Built(layout)
        fs, ft = _layout_formats(layout)
        started = time.monotonic()
        if layout in FORMATS:
            self._write_tables(layout)
        out.write_seconds = time.monotonic() - started
        models = lake.project.root / "models" / layout
        shutil.rmtree(models, ignore_errors=True)
        sources: dict[str, str] = {}  # name in the sources file -> table

        def ref(name: str, table: str) -> str:
            sources[name] = table
            group = "iceberg" if lake.tables[table].fmt == "iceberg" else "spark"
            return f"source('{layout}_{group}', '{name}')"

        for i, p in enumerate(draws["batch"]):
            case = PairCase(
                f"{layout}_p{i}", p, _pair_options(i), f"{fs}_p{i}_source", f"{ft}_p{i}_target"
            )
            opts = PairOptions(
                name=case.name,
                source=ref(case.source, case.source),
                target=ref(case.target, case.target),
                primary_key=tuple(p.spec.key_names),
                **case.options,
            )
            write_pair(opts, models / f"p{i}")
            out.pairs[i] = case
        # no_drift on aliases of a pair's tables: a failing test skips what depends on its model
        tests: dict[str, list[dict]] = {}
        for test, index in (("drift_fail", draws["drift"]), ("drift_pass", draws["same"])):
            ref(f"{test}_source", f"{fs}_p{index}_source")  # the tested model: an alias
            tgt = ref(f"{test}_target", f"{ft}_p{index}_target")
            arguments = {
                "compare_to": f"{{{{ {tgt} }}}}",
                "primary_key": draws["batch"][index].spec.key_names,
            }
            tests[f"{test}_source"] = [
                {"table_diff.no_drift": {"name": f"{layout}_{test}", "arguments": arguments}}
            ]
        if layout in FORMATS:
            tw = draws["merge"]
            sides = {
                r: ref(f"{layout}_m_{r}", f"{layout}_m_{r}") for r in ("base", "ours", "theirs")
            }
            merge = MergeOptions(
                name=f"{layout}_m", primary_key=tuple(tw.spec.key_names), leaf_count=4, **sides
            )
            write_merge(merge, models / "merge")
        self._write_sources(layout, sources, tests)
        run = lake.project.run("build", "--select", f"path:models/{layout}")
        out.run = run
        out.build_seconds = time.monotonic() - started - out.write_seconds
        failed = [
            f"{r.node.name}: {r.status} {r.message or ''}"
            for r in run.node_results
            if r.node.resource_type == "model" and str(r.status) != "success"
        ]
        assert run.node_results and not failed, run.describe() + "\n--- log ---\n" + run.log[-6000:]
        for i, case in out.pairs.items():
            diff = row_diff_answer(lake, case.pair.spec, case.name)
            summary = lake.spark.table(lake.project.relation(f"{case.name}__summary")).first()
            out.answers[i] = (diff, summary.asDict())
        if layout in FORMATS:
            out.merge = merge_answer(lake, f"{layout}_m", draws["merge"])
        return out

    def _write_sources(self, layout: str, sources: dict[str, str], tests: dict) -> None:
        lake = self.lake
        groups: dict[str, list[dict]] = {"spark": [], "iceberg": []}
        for name, table in sources.items():
            entry: dict[str, Any] = {"name": name}
            if name != table:
                entry["identifier"] = table
            if name in tests:
                entry["data_tests"] = tests[name]
            group = "iceberg" if lake.tables[table].fmt == "iceberg" else "spark"
            groups[group].append(entry)
        schemas = {"spark": lake.schema, "iceberg": lake.iceberg_schema}
        doc = {
            "version": 2,
            "sources": [
                {"name": f"{layout}_{g}", "schema": schemas[g], "tables": entries}
                for g, entries in groups.items()
                if entries
            ],
        }
        path = lake.project.root / "models" / layout / "_sources.yml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


# --------------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------------


def _partition_column(p: TablePair, candidates: list[str]) -> str | None:
    """The first of ``candidates`` whose values a partition can hold: a partitionable type, no
    string longer than a path component (255 bytes, escaped), and no empty string (Hive-style
    partition directories cannot name '': Spark and Delta store it as NULL, so the table would not
    hold the rows written)."""
    for c in candidates:
        values = [r[c] for r in p.source + p.target]
        if p.spec.types[c].split("(")[0] in PARTITIONABLE and not any(
            isinstance(v, str) and (v == "" or len(v.encode()) > 60) for v in values
        ):
            return c
    return None


def _treatments(batch: list[TablePair]) -> dict[str, Any]:
    """Which pair's Delta / Iceberg copies are partitioned (by a value column, by a key column),
    get row-level deletes, get a renamed and a dropped column: a different pair each where the
    batch allows, else a pair the treatment combines with."""
    taken: dict[int, list[str]] = {}

    def take(what: str, fits) -> tuple[int, Any]:
        options = [(i, fits(p)) for i, p in enumerate(batch)]
        options = [(i, r) for i, r in options if r]
        assert options, f"no pair of the batch fits {what}"
        i, r = min(options, key=lambda o: (len(taken.get(o[0], [])), o[0]))
        taken.setdefault(i, []).append(what)
        return i, r

    def both_sides(p: TablePair) -> bool:
        return bool(p.source and p.target)

    part_value = take(
        "part_value", lambda p: both_sides(p) and _partition_column(p, p.spec.value_names[1:])
    )
    part_key = take(
        "part_key", lambda p: both_sides(p) and _partition_column(p, p.spec.key_names[:1])
    )
    deletes, _ = take("deletes", lambda p: len(p.target) >= 4)
    rename, _ = take("rename", lambda p: len(p.target) >= 1)
    return {"part_value": part_value, "part_key": part_key, "deletes": deletes, "rename": rename}


@pytest.fixture(scope="module")
def draws() -> dict[str, Any]:
    pairs = _draw(_pair_strategy(), PAIR_DRAWS)
    # An identical copy is rare among random pairs: one written from the richest drawn pair (its
    # source without duplicate keys, and the same rows with every value that has another spelling
    # spelt otherwise: NaN payloads, -0.0, decimal scale). The cover takes it only if needed.
    classes = [semantic_classes(p) for p in pairs]
    rich = pairs[max(range(len(pairs)), key=lambda i: (len(classes[i]), -i))]
    unique: dict[tuple, dict] = {}
    for r in rich.source:
        unique.setdefault(canonical_key(tuple(r[k] for k in rich.spec.key_names)), r)
    respelt = [
        {
            n: v if n in rich.spec.key_names else _equivalent(rich.spec.types[n], v)
            for n, v in r.items()
        }
        for r in unique.values()
    ]
    copy = TablePair(rich.spec, list(unique.values()), respelt, ["identical copy, respelt"])
    batch = covering_batch([*pairs, copy])
    oracles = [_oracle(p) for p in batch]
    drifted = [
        i for i, o in enumerate(oracles) if not o.is_clean and not o.symmetric_duplicate_keys
    ]
    identical = [i for i, o in enumerate(oracles) if o.is_clean and batch[i].source]
    merges = _draw(three_way(max_rows=20), 30)
    return {
        "batch": batch,
        "treatments": _treatments(batch),
        # no_drift fails on the pair with the most kinds of drift (no duplicates both sides hold
        # alike: those count only where their block differs) and passes on an identical copy
        "drift": max(drifted, key=lambda i: (len(semantic_classes(batch[i])), -i)),
        "same": max(identical, key=lambda i: (len(batch[i].source), -i)),
        "merge": max(merges, key=lambda tw: len({sc for _, sc in tw.plan})),
    }


@pytest.fixture(scope="module")
def matrix(lakehouse, dbt_project_factory, draws):
    project = dbt_project_factory(
        "formats",
        packages=True,
        project_config={
            "flags": {"send_anonymous_usage_stats": False, "partial_parse": True},
            # The delta layout's pairs and merge write the package's own tables as Delta too (what
            # `table_diff_file_format: auto` gives a session with Delta; a model's file_format
            # wins over the var): user column names (`source__Unit Price`, a merge's
            # `ours__Unit Price`) in Delta outputs. The other layouts keep the suite's parquet.
            "models": {"formats": {"delta": {"+file_format": "delta"}}},
        },
    )
    # Two models at a time, as the integration project builds: the run is mostly per-model
    # overhead on the driver (Spark itself stays local[2]).
    profile = yaml.safe_load((project.root / "profiles.yml").read_text())
    profile["table_diff_pytest"]["outputs"]["pytest"]["threads"] = 2
    (project.root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    lakehouse.sql(f"create schema if not exists `{project.schema}`")
    lakehouse.sql(f"create namespace if not exists iceberg.`{project.schema}`")
    # (Delta's snapshotPartitions is 2 for the whole suite: lakehouse.lakehouse_conf.)
    yield Matrix(Lake(project), draws)


# --------------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------------


def check_pair(lake: Lake, built: Built, i: int) -> None:
    """A pair's row diff and summary against the oracle over the rows written."""
    case = built.pairs[i]
    want = _oracle(case.pair)
    got, summary = built.answers[i]
    where = f"{case.name} {case.options} log={case.pair.log}"
    exact, dups, symmetric = expected_row_diff(case.pair, want)
    got_exact = Counter({k: n for k, n in got.items() if k[0] != "duplicate_key"})
    got_dups = Counter({k: n for k, n in got.items() if k[0] == "duplicate_key"})
    assert got_exact == exact, where
    if case.options.get("check_duplicate_keys"):
        assert got_dups == dups, where
        clean = want.is_clean
    else:
        # duplicates both sides hold alike show only where their block differs; every other
        # duplicate key always; a reported key with all its rows
        reported = {k[2] for k in got_dups}
        every = {canonical_key(k) for k in want.duplicate_keys}
        assert every - symmetric <= reported <= every, where
        assert got_dups == Counter({k: n for k, n in dups.items() if k[2] in reported}), where
        clean = want.is_clean_without_duplicate_check
    counts = want.counts()
    assert {f: summary[f] for f in SUMMARY_FIELDS} == {
        "rows_source": counts["rows_source"],
        "rows_target": counts["rows_target"],
        "rows_added": counts["added"],
        "rows_deleted": counts["deleted"],
        "rows_modified": counts["modified"],
        "duplicate_key_rows": sum(got_dups.values()),
        "null_key_rows_source": counts["null_key_rows_source"],
        "null_key_rows_target": counts["null_key_rows_target"],
        "is_identical": clean,
        "is_partial": False,
        "status": "complete",
    }, where
    # each side read in its format; a Delta / Iceberg side pinned to the version it read, except
    # an Iceberg table altered after its last snapshot (no version has its schema)
    for side, table in (("source", case.source), ("target", case.target)):
        written = lake.tables[table]
        assert summary[f"{side}_format"] == written.fmt, where
        pinned = written.fmt == "delta" or (
            written.fmt == "iceberg" and not written.metadata_after_snapshot
        )
        assert (summary[f"{side}_version"] is not None) == pinned, where


# --------------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------------


def test_the_draws_are_fixed_and_cover_every_class(draws):
    """The batch holds every semantic class, and the seed gives the same tables every time."""
    covered = set().union(*(semantic_classes(p) for p in draws["batch"]))
    assert covered == set(CLASSES), sorted(set(CLASSES) - covered)
    first, again = _draw(_pair_strategy(), 3), _draw(_pair_strategy(), 3)
    assert [(p.spec, p.log) for p in first] == [(p.spec, p.log) for p in again]
    treat = draws["treatments"]
    assert (
        len({treat["part_value"][0], treat["part_key"][0], treat["deletes"], treat["rename"]}) == 4
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_pair_equals_the_oracle(matrix, layout):
    built = matrix.get(layout)
    for i in built.pairs:
        check_pair(matrix.lake, built, i)
        for table in (built.pairs[i].source, built.pairs[i].target):
            assert matrix.lake.provider(table) == matrix.lake.tables[table].fmt, table
    print(
        f"{layout}: {len(built.pairs)} pairs, tables written in {built.write_seconds:.0f}s, "
        f"dbt build {built.build_seconds:.0f}s"
    )


@pytest.mark.parametrize("layout", [x for x in LAYOUTS if x != "parquet"])
def test_every_pair_equals_the_parquet_answer(matrix, layout):
    built, parquet = matrix.get(layout), matrix.get("parquet")
    fields = (*SUMMARY_FIELDS, "strategy", "columns_compared")
    for i in built.pairs:
        (diff, summary), (p_diff, p_summary) = built.answers[i], parquet.answers[i]
        assert diff == p_diff, (layout, i)
        assert {f: summary[f] for f in fields} == {f: p_summary[f] for f in fields}, (layout, i)


@pytest.mark.parametrize("fmt", LAKE)
def test_partitioned_by_a_value_column_and_by_a_key_column(matrix, fmt):
    built, lake = matrix.get(fmt), matrix.lake
    treat = matrix.draws["treatments"]
    for what in ("part_value", "part_key"):
        i, column = treat[what]
        for table in (built.pairs[i].source, built.pairs[i].target):
            assert lake.describe_partitions(table) == [column], table
        key = column in built.pairs[i].pair.spec.key_names
        assert key == (what == "part_key"), (what, column)
        check_pair(matrix.lake, built, i)


def test_delta_deletion_vectors(matrix):
    """The DELETE and the UPDATEs marked rows in deletion vectors (the DELETE rewrote no file),
    the live files still hold deleted rows, and the diff sees exactly the live rows."""
    built, lake = matrix.get("delta"), matrix.lake
    i = matrix.draws["treatments"]["deletes"]
    written = lake.tables[built.pairs[i].target]
    assert written.properties["delta.enableDeletionVectors"] == "true"
    (delete,) = [m for op, m in written.history if op == "DELETE"]
    updates = [m for op, m in written.history if op == "UPDATE"]
    assert int(delete["numDeletionVectorsAdded"]) >= 1 and int(delete["numRemovedFiles"]) == 0
    assert len(updates) == 2 and any(int(u["numDeletionVectorsAdded"]) >= 1 for u in updates)
    assert GHOST not in written.columns
    # the first file still stores the dropped ghost column, and the ghost rows
    assert any(len(cols) == len(written.columns) + 1 for cols in written.file_columns)
    assert written.file_rows > len(built.pairs[i].pair.target)
    check_pair(matrix.lake, built, i)


def test_iceberg_merge_on_read_deletes(matrix):
    """The same statements on Iceberg with merge-on-read: position delete files, no rewrite."""
    built, lake = matrix.get("iceberg"), matrix.lake
    i = matrix.draws["treatments"]["deletes"]
    written = lake.tables[built.pairs[i].target]
    (delete,) = [m for op, m in written.history if op == "delete"]
    updates = [m for op, m in written.history if op == "overwrite"]
    assert int(delete["added-position-deletes"]) >= 1 and "deleted-data-files" not in delete
    assert len(updates) == 2 and all(int(u["added-position-delete-files"]) >= 1 for u in updates)
    assert GHOST not in written.columns
    assert any(len(cols) == len(written.columns) + 1 for cols in written.file_columns)
    assert written.file_rows > len(built.pairs[i].pair.target)  # the ghosts are still stored
    check_pair(matrix.lake, built, i)


@pytest.mark.parametrize("fmt", LAKE)
def test_renamed_and_dropped_columns(matrix, fmt):
    """The table has the logical names; its data files the names they were written with (Iceberg:
    read by field id; two columns stored under each other's name) or opaque physical ones (Delta
    column mapping), and the dropped column's values. The diff reads the logical columns; an
    Iceberg table altered after its last snapshot is read unpinned (the snapshot's schema would
    read the columns by their old names, and the two swapped ones swapped)."""
    built, lake = matrix.get(fmt), matrix.lake
    i = matrix.draws["treatments"]["rename"]
    spec = built.pairs[i].pair.spec
    written = lake.tables[built.pairs[i].target]
    assert len(written.renames) == 2, written.renames  # a swap: the case that read wrong values
    assert written.columns == spec.names, written.columns
    assert written.file_columns, "no data file"
    for cols in written.file_columns:
        assert len(cols) == len(spec.names) + 1 and cols[: len(spec.names)] != spec.names, cols
    if fmt == "delta":
        assert written.properties["delta.columnMapping.mode"] == "name"
        assert all(c.startswith("col-") for cols in written.file_columns for c in cols)
    else:
        assert "read unpinned, as the table is now" in built.run.log
    check_pair(lake, built, i)


def test_delta_layout_writes_the_package_tables_as_delta_with_column_mapping(matrix):
    """The delta layout's pair and merge outputs are Delta tables mapping columns by name (ADR
    0015), including those whose columns carry user names Delta refuses otherwise; the other
    layouts' outputs are parquet."""
    built = matrix.get("delta")
    lake = matrix.lake
    tables = [f"{case.name}__{m}" for case in built.pairs.values() for m in MODEL_SUFFIXES]
    tables += [f"delta_m__{m}" for m in ("merge_schema", "merge_candidates", "merge", "merged")]
    hostile = []
    for table in tables:
        detail = lake.spark.sql(f"describe detail {lake.project.relation(table)}").first()
        assert detail["format"] == "delta", table
        assert detail["properties"].get("delta.columnMapping.mode") == "name", table
        columns = lake.spark.table(lake.project.relation(table)).columns
        if any(DELTA_INVALID & set(c) for c in columns):
            hostile.append(table)
    # Row diffs of the batch's pairs with such names (test_delta_maps_columns_it_would_reject
    # asserts there are some): `source__Unit Price`, a key `Unit Price`.
    assert any(t.endswith("__row_diff") for t in hostile), hostile
    if any(DELTA_INVALID & set(n) for n in matrix.draws["merge"].spec.names):
        assert "delta_m__merge_candidates" in hostile, hostile  # e.g. ours__Unit Price
    parquet = matrix.get("parquet")
    some = f"{next(iter(parquet.pairs.values())).name}__summary"
    assert lake.project.table_provider(some) == "parquet"


def test_delta_maps_columns_it_would_reject(matrix):
    """Every Delta table with a name Delta refuses (a space, a comma, ...) was written with
    column mapping by name, and such pairs are in the batch."""
    matrix.get("delta")
    lake = matrix.lake
    mapped = [
        t
        for t, w in lake.tables.items()
        if w.fmt == "delta" and w.properties.get("delta.columnMapping.mode") == "name"
    ]
    needing = [
        i
        for i, p in enumerate(matrix.draws["batch"])
        if any(DELTA_INVALID & set(n) for n in p.spec.names)
    ]
    assert needing
    for i in needing:
        assert f"delta_p{i}_source" in mapped and f"delta_p{i}_target" in mapped
    detail = lake.spark.sql(
        f"describe detail {lake.sql_name(f'delta_p{needing[0]}_source')}"
    ).first()
    assert detail["properties"]["delta.columnMapping.mode"] == "name"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_drift_fails_with_the_oracle_count_and_passes_on_a_copy(matrix, layout):
    built = matrix.get(layout)
    run = built.run
    want = _oracle(matrix.draws["batch"][matrix.draws["drift"]])
    expected = (
        len(want.added)
        + len(want.deleted)
        + len(want.modified)
        + want.duplicate_key_rows_source
        + want.duplicate_key_rows_target
    )
    assert expected > 0
    assert run.status(f"{layout}_drift_fail") == "fail", run.describe()
    assert run.node(f"{layout}_drift_fail").failures == expected, run.describe()
    assert _oracle(matrix.draws["batch"][matrix.draws["same"]]).is_clean
    assert run.status(f"{layout}_drift_pass") == "pass", run.describe()


@pytest.mark.parametrize("fmt", FORMATS)
def test_merge_equals_the_oracle_and_the_parquet_answer(matrix, fmt):
    built = matrix.get(fmt)
    tw = matrix.draws["merge"]
    want = expected_merge(tw)
    for part in ("merge", "merged", "conflicts", "counts"):
        assert built.merge[part] == want[part], (fmt, part, tw.plan)
    assert built.merge == matrix.get("parquet").merge
    conflicts = want["counts"]["conflict"]
    status = built.run.status(f"{fmt}_m__no_merge_conflicts")
    assert status == ("warn" if conflicts else "pass"), built.run.describe()
    for role in ("base", "ours", "theirs"):
        assert matrix.lake.provider(f"{fmt}_m_{role}") == fmt
