"""Benchmark data: a source table and targets with an exact, known number of differing keys.

Spark-native and deterministic (every value is a hash of the row's id and a seed), so a 30M-row
table is written by Spark itself in seconds and regenerates bit for bit. Ten columns of mixed types
(key, int, bigint, double, decimal, two strings, date, timestamp, boolean), each non-key column NULL
in about 1 row in 20. Rows are written in a random key order (sorted by a hash of the key), as a
replicated table usually is after a few rounds of upserts, so key ranges are spread over every file.

Differences are chosen without a sort or a sample: ``j = id * P^-1 mod N`` is a permutation of the
ids (P prime to N, close to N / golden ratio so that consecutive ``j`` land far apart), and the
first ``k`` values of ``j`` pick the keys that differ: half modified
(one column each, rotating over int / string / timestamp), a quarter deleted, a quarter inserted as
new ids ``N, N+1, ...``. The truth (``Truth``) is exact by construction.

Options: a composite key ``(region string, seq bigint)`` instead of ``id``, a table partitioned
by a derived column ``part`` (8 values), and ``clustered``: both tables stored in key order (files
cut by key range, rows sorted), with the k differences among the highest keys (``j = N - 1 - id``:
a replica behind on its newest writes), the case where a fetch by key range can skip row groups.
``dated``: the composite key ``(day date, seq bigint)``, ``DAYS`` days of rows in id order, the
table partitioned by ``day``, the differences among the newest keys as with ``clustered`` (a daily
partitioned table whose replica is behind on its latest day; the inserted keys are a new day).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

GOLDEN = 0.6180339887498949  # Weyl step: multiples of ~N/phi mod N spread evenly over [0, N)
FILES_PER_MILLION = 2  # output files: about 2 per million rows (>= 2)
PARTS = 8
DAYS = 100  # ``dated``: days (partitions) the ids are spread over


@dataclass(frozen=True)
class Truth:
    rows: int
    k: int
    modified: int
    deleted: int
    inserted: int

    @property
    def source_rows(self) -> int:
        return self.rows

    @property
    def target_rows(self) -> int:
        return self.rows - self.deleted + self.inserted

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def split_k(rows: int, k: int) -> Truth:
    """k differing keys: half modified, a quarter deleted, the rest inserted."""
    if k < 0 or k > rows:
        raise ValueError(f"k={k} must be between 0 and rows={rows}")
    modified = k // 2
    deleted = k // 4
    return Truth(rows, k, modified, deleted, k - modified - deleted)


def parse_k(spec: str, rows: int) -> int:
    """'100' -> 100, '1%' -> rows / 100."""
    spec = spec.strip()
    if spec.endswith("%"):
        return int(round(rows * float(spec[:-1]) / 100))
    return int(spec)


def _multiplier(rows: int) -> tuple[int, int]:
    """P near N/phi and prime to N: the ids j * P mod N of the first k values of j are spread
    over the whole key range (a small P would put every difference among the lowest keys)."""
    p = max(1, int(rows * GOLDEN)) if rows > 1 else 1
    while math.gcd(p, rows) != 1:
        p += 1
    return p, (pow(p, -1, rows) if rows > 1 else 0)


_FLAGS = ("composite", "partitioned", "clustered", "dated")
VALUE_COLUMNS = ["c_int", "c_big", "c_dbl", "c_dec", "c_str", "c_str2", "c_date", "c_ts", "c_bool"]


@dataclass(frozen=True)
class Layout:
    """How a pair's tables are keyed and stored: bench/run.py's flags of the same names (see the
    module docstring). The default is the original benchmark's: key ``id``, random key order, no
    partitions."""

    composite: bool = False
    partitioned: bool = False
    clustered: bool = False
    dated: bool = False

    @classmethod
    def from_args(cls, args: Any) -> Layout:
        return cls(**{flag: getattr(args, flag) for flag in _FLAGS})

    def cli_flags(self) -> list[str]:
        """The command-line flags that give this layout to another bench/run.py process."""
        return [f"--{flag}" for flag in _FLAGS if getattr(self, flag)]

    @property
    def key_columns(self) -> list[str]:
        if self.dated:
            return ["day", "seq"]
        return ["region", "seq"] if self.composite else ["id"]

    @property
    def value_columns(self) -> list[str]:
        return VALUE_COLUMNS + (["part"] if self.partitioned else [])

    @property
    def columns(self) -> list[str]:
        return self.key_columns + self.value_columns

    @property
    def in_key_order(self) -> bool:
        """Files cut by key range, rows sorted (the differences among the newest keys)."""
        return self.clustered or self.dated

    @property
    def partition_column(self) -> str | None:
        return "day" if self.dated else ("part" if self.partitioned else None)

    @property
    def suffix(self) -> str:
        """Table-name suffix, so that every layout's data is cached under its own names."""
        tags = {"composite": "_c", "partitioned": "_p", "clustered": "_o", "dated": "_d"}
        return "".join(tags[flag] for flag in _FLAGS if getattr(self, flag))


def per_day(rows: int) -> int:
    """``dated``: ids per day, so that the ``rows`` ids fill ``DAYS`` days."""
    return max(1, -(-rows // DAYS))


def _row_select(seed: int, layout: Layout, rows: int, modify_when: str | None = None) -> str:
    """SELECT list computing a row from `id` (and `__j`, the permuted index, when modifying) of
    a table of `rows` source ids."""

    def h(tag: str) -> str:
        return f"xxhash64({seed}, '{tag}', id)"

    def nullable(tag: str, expr: str) -> str:
        return f"if(pmod({h(tag + ':null')}, 20) = 0, null, {expr})"

    c_int = nullable("int", f"cast(pmod({h('int')}, 1000000) as int)")
    c_str = nullable("str", f"concat('név-', cast(pmod({h('str')}, 100000) as string), '-Ω')")
    c_ts = nullable("ts", f"timestamp_seconds(1600000000 + pmod({h('ts')}, 100000000))")
    if modify_when:
        c_int = f"if({modify_when} and pmod(__j, 3) = 0, coalesce({c_int}, 0) + 1, {c_int})"
        c_str = (
            f"if({modify_when} and pmod(__j, 3) = 1, concat(coalesce({c_str}, ''), '!'), {c_str})"
        )
        c_ts = (
            f"if({modify_when} and pmod(__j, 3) = 2, "
            f"coalesce({c_ts}, timestamp_seconds(0)) + interval 1 second, {c_ts})"
        )
    keys = (
        ["concat('r', cast(pmod(id, 97) as string)) as region", "id div 97 as seq"]
        if layout.composite
        else ["id"]
    )
    if layout.dated:
        ids_per_day = per_day(rows)
        day = f"date_add(date'2020-01-01', cast(id div {ids_per_day} as int))"
        keys = [f"{day} as day", f"pmod(id, {ids_per_day}) as seq"]
    c_dbl = nullable("dbl", f"cast(pmod({h('dbl')}, 1000000000) as double) / 1000")
    c_dec = nullable("dec", f"cast(pmod({h('dec')}, 100000000) as decimal(18, 4)) / 100")
    c_str2 = nullable("str2", f"sha2(cast({h('str2')} as string), 224)")
    c_date = nullable("date", f"date_add(date'2000-01-01', cast(pmod({h('date')}, 9000) as int))")
    c_bool = nullable("bool", f"pmod({h('bool')}, 2) = 0")
    cols = keys + [
        f"{c_int} as c_int",
        f"{nullable('big', h('big'))} as c_big",
        f"{c_dbl} as c_dbl",
        f"cast({c_dec} as decimal(18, 4)) as c_dec",
        f"{c_str} as c_str",
        f"{c_str2} as c_str2",
        f"{c_date} as c_date",
        f"{c_ts} as c_ts",
        f"{c_bool} as c_bool",
    ]
    if layout.partitioned:
        cols.append(f"cast(pmod(id, {PARTS}) as int) as part")
    return ",\n  ".join(cols)


def source_sql(rows: int, seed: int, layout: Layout) -> str:
    return f"select\n  {_row_select(seed, layout, rows)}\nfrom range(0, {rows})"


def target_sql(truth: Truth, seed: int, layout: Layout) -> str:
    """The source minus deleted keys, with modified keys changed, plus inserted keys."""
    n = truth.rows
    _, inv = _multiplier(n)
    m, d = truth.modified, truth.deleted
    # id * inv < 2^63 for every id < N <= 3.03e9: exact bigint arithmetic, ANSI or not.
    j = f"{n - 1} - id" if layout.in_key_order else f"pmod(id * {inv}, {n})"
    kept = (
        f"select\n  {_row_select(seed, layout, n, f'__j < {m}')}\n"
        f"from (select id, {j} as __j from range(0, {n})) as r\n"
        f"where __j >= {m + d} or __j < {m}"
    )
    if truth.inserted == 0:
        return kept
    added = f"select\n  {_row_select(seed, layout, n)}\nfrom range({n}, {n + truth.inserted})"
    return f"{kept}\nunion all\n{added}"


def write_table(spark, sql: str, table: str, rows: int, seed: int, layout: Layout) -> None:
    """Materialise `sql` as a parquet table in random key order, or in key order
    (``layout.in_key_order``), partitioned by ``layout.partition_column`` if any."""
    files = max(2, FILES_PER_MILLION * rows // 1_000_000)
    names = layout.key_columns
    keys = ", ".join(names)
    if layout.in_key_order:
        df = spark.sql(f"select * from ({sql}) as g").repartitionByRange(files, *names)
        df = df.sortWithinPartitions(*names)
    else:
        df = spark.sql(
            f"select * from ({sql}) as g distribute by pmod(xxhash64({seed}, 'file', {keys}), "
            f"{files}) sort by xxhash64({seed}, 'order', {keys})"
        )
    writer = df.write.mode("overwrite").format("parquet")
    if layout.partition_column:
        writer = writer.partitionBy(layout.partition_column)
    writer.saveAsTable(table)


def table_names(
    database: str, rows: int, k: int, seed: int, layout: Layout = Layout()
) -> tuple[str, str]:
    """Names of the source table and of the target with k differences (data cached by name)."""
    return (
        f"{database}.src_{rows}_s{seed}{layout.suffix}",
        f"{database}.tgt_{rows}_{k}_s{seed}{layout.suffix}",
    )


def tables_in(spark: Any, database: str) -> set[str]:
    """The names of the tables in ``database``, through SQL: ``spark.catalog.listTables`` fails to
    decode its rows when expressions are interpreted, as in the test suite's session (ADR 0034)."""
    return {row.tableName for row in spark.sql(f"show tables in {database}").collect()}


def generate_pair(
    spark,
    database: str,
    rows: int,
    k: int,
    *,
    seed: int = 7,
    layout: Layout = Layout(),
    source: str | None = None,
) -> tuple[str, str, Truth]:
    """Create (if missing) the source table and a target with k differing keys. Returns names."""
    truth = split_k(rows, k)
    spark.sql(f"create database if not exists {database}")
    default_src, tgt = table_names(database, rows, k, seed, layout)
    src = source or default_src
    existing = tables_in(spark, database)
    if src.split(".")[-1] not in existing:
        write_table(spark, source_sql(rows, seed, layout), src, rows, seed, layout)
    if tgt.split(".")[-1] not in existing:
        write_table(spark, target_sql(truth, seed, layout), tgt, rows, seed, layout)
    return src, tgt, truth


# ------------------------------------------------------------------------------------------------
# Three-way merge: a base (the source table above) and two descendants, ours and theirs
# ------------------------------------------------------------------------------------------------

# What each side does to a key of a category: "keep", "delete", an update ("rot" one column
# rotating over int / string / timestamp by the key's permuted index, as ``target_sql`` does;
# "int1" / "int2" c_int + 1 / + 2; "str" c_str + '!'), or, for new keys, "ins" (the row the
# generator computes for that id) / "ins_int" (the same with c_int + 1) / "absent".
# Category -> (ours, theirs, merge_status, conflict_type), per docs/semantics.md (Dolt cell-wise).
MERGE_CATEGORIES: dict[str, tuple[str, str, str, str | None]] = {
    "ours_update": ("rot", "keep", "ours_only", None),
    "ours_delete": ("delete", "keep", "ours_only", None),
    "theirs_update": ("keep", "rot", "theirs_only", None),
    "theirs_delete": ("keep", "delete", "theirs_only", None),
    "same_update": ("rot", "rot", "convergent", None),
    "both_delete": ("delete", "delete", "convergent", None),
    "cell_merge": ("int1", "str", "cell_merged", None),
    "update_update": ("int1", "int2", "conflict", "update_update"),
    "update_delete": ("rot", "delete", "conflict", "update_delete"),
    "delete_update": ("delete", "rot", "conflict", "delete_update"),
    # new keys (ids N, N+1, ...), after the base keys' categories
    "ours_insert": ("ins", "absent", "ours_only", None),
    "theirs_insert": ("absent", "ins", "theirs_only", None),
    "same_insert": ("ins", "ins", "convergent", None),
    "insert_insert": ("ins", "ins_int", "conflict", "insert_insert"),
}
NEW_KEY_CATEGORIES = ("ours_insert", "theirs_insert", "same_insert", "insert_insert")
MERGE_STATUSES = ("ours_only", "theirs_only", "convergent", "cell_merged", "conflict")
CONFLICT_TYPES = ("update_update", "update_delete", "delete_update", "insert_insert")
OVERLAP_SHARE = 5  # 1 changed key in 5 of each side is also changed on the other side


@dataclass(frozen=True)
class MergeTruth:
    """A three-way merge case: keys per category (``MERGE_CATEGORIES``), exact by construction.

    Each side changes k keys: k // 5 of them overlap with the other side, k // 40 per overlapping
    category (same update, both deleted, cell-merged, update/update, update/delete, delete/update,
    same insert, different inserts); the rest changes that side only, split as a pair's k is (half
    updated, a quarter deleted, a quarter inserted)."""

    rows: int
    k: int
    counts: tuple[tuple[str, int], ...]

    @property
    def by_category(self) -> dict[str, int]:
        return dict(self.counts)

    def spans(self) -> dict[str, tuple[int, int]]:
        """Category -> [lo, hi) of the permuted index j (base keys) or of the new ids (>= N)."""
        out, j, new = {}, 0, self.rows
        for cat, n in self.counts:
            if cat in NEW_KEY_CATEGORIES:
                out[cat], new = (new, new + n), new + n
            else:
                out[cat], j = (j, j + n), j + n
        return out

    def side_rows(self, side: str) -> int:
        i = 0 if side == "ours" else 1
        c = self.by_category
        gone = sum(n for cat, n in c.items() if MERGE_CATEGORIES[cat][i] == "delete")
        new = sum(n for cat, n in c.items() if MERGE_CATEGORIES[cat][i].startswith("ins"))
        return self.rows - gone + new

    def statuses(self) -> dict[str, int]:
        """Keys per merge_status and per conflict_type, and changed_keys (the summary's counts)."""
        out = dict.fromkeys(MERGE_STATUSES + CONFLICT_TYPES, 0)
        for cat, n in self.counts:
            _, _, status, conflict = MERGE_CATEGORIES[cat]
            out[status] += n
            if conflict:
                out[conflict] += n
        out["changed_keys"] = sum(out[s] for s in MERGE_STATUSES)
        return out

    def merged_rows(self) -> int:
        """Rows of the merged table: base, minus keys absent after the merge, plus new keys."""
        gone = ("ours_delete", "theirs_delete", "both_delete", "delete_update")
        c = self.by_category
        return self.rows - sum(c[g] for g in gone) + sum(c[n] for n in NEW_KEY_CATEGORIES)

    def pair_truth(self) -> Truth:
        """The two-way diff base vs ours, as a pair's Truth."""
        c, counts = self.by_category, {"rot": 0, "int1": 0, "delete": 0, "ins": 0}
        for cat, n in c.items():
            ours = MERGE_CATEGORIES[cat][0]
            if ours in counts:
                counts[ours] += n
        modified = counts["rot"] + counts["int1"]
        return Truth(self.rows, self.k, modified, counts["delete"], counts["ins"])

    def as_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "k": self.k, "categories": self.by_category}


def split_merge(rows: int, k: int) -> MergeTruth:
    """k changed keys per side, a fifth of them overlapping (see ``MergeTruth``)."""
    each = k // (8 * OVERLAP_SHARE)
    single = k - 8 * each
    upd, dele = single // 2, single // 4
    ins = single - upd - dele
    counts = dict.fromkeys(MERGE_CATEGORIES, each)
    counts |= {"ours_update": upd, "ours_delete": dele, "ours_insert": ins}
    counts |= {"theirs_update": upd, "theirs_delete": dele, "theirs_insert": ins}
    truth = MergeTruth(rows, k, tuple((c, counts[c]) for c in MERGE_CATEGORIES))
    base_changed = sum(n for c, n in truth.counts if c not in NEW_KEY_CATEGORIES)
    if k < 0 or base_changed > rows:
        raise ValueError(f"k={k} per side needs {base_changed} base keys; rows={rows}")
    return truth


def _in(spans: list[tuple[int, int]]) -> str:
    return " or ".join(f"(__j >= {lo} and __j < {hi})" for lo, hi in spans) or "false"


def descendant_sql(truth: MergeTruth, side: str, seed: int, layout: Layout) -> str:
    """``ours`` or ``theirs``: the base with that side's updates and deletes, plus its new keys.
    Base keys are picked by the permuted index j as ``target_sql`` picks them; new keys carry
    ``__j = id`` (>= N), so no base category's span matches them."""
    i = 0 if side == "ours" else 1
    n = truth.rows
    _, inv = _multiplier(n)
    spans = truth.spans()

    def where(*actions: str) -> str:
        return _in([spans[c] for c, a in MERGE_CATEGORIES.items() if a[i] in actions])

    j = f"{n - 1} - id" if layout.in_key_order else f"pmod(id * {inv}, {n})"
    row = _row_select(seed, layout, n)
    parts = [
        f"select {row}, __j\nfrom (select id, {j} as __j from range(0, {n})) as r\n"
        f"where not ({where('delete')})"
    ]
    for cat in NEW_KEY_CATEGORIES:
        lo, hi = spans[cat]
        if MERGE_CATEGORIES[cat][i] != "absent" and hi > lo:
            parts.append(f"select {row}, id as __j from range({lo}, {hi})")
    rot = where("rot")
    c_int = (
        f"case when ({rot}) and pmod(__j, 3) = 0 or {where('int1', 'ins_int')} "
        f"then coalesce(c_int, 0) + 1 when {where('int2')} then coalesce(c_int, 0) + 2 "
        "else c_int end"
    )
    c_str = (
        f"case when ({rot}) and pmod(__j, 3) = 1 or {where('str')} "
        "then concat(coalesce(c_str, ''), '!') else c_str end"
    )
    c_ts = (
        f"case when ({rot}) and pmod(__j, 3) = 2 "
        "then coalesce(c_ts, timestamp_seconds(0)) + interval 1 second else c_ts end"
    )
    edits = {"c_int": c_int, "c_str": c_str, "c_ts": c_ts}
    cols = ", ".join(f"{edits[c]} as {c}" if c in edits else c for c in layout.columns)
    union = "\nunion all\n".join(parts)
    return f"select {cols}\nfrom (\n{union}\n) as d"


def merge_table_names(
    database: str, rows: int, k: int, seed: int, layout: Layout = Layout()
) -> tuple[str, str, str]:
    """Base (the pair's source table), ours and theirs with k changed keys each."""
    base, _ = table_names(database, rows, k, seed, layout)
    return (
        base,
        f"{database}.ours_{rows}_{k}_s{seed}{layout.suffix}",
        f"{database}.theirs_{rows}_{k}_s{seed}{layout.suffix}",
    )


def generate_merge(
    spark, database: str, rows: int, k: int, *, seed: int = 7, layout: Layout = Layout()
) -> tuple[str, str, str, MergeTruth]:
    """Create (if missing) base, ours and theirs for a merge case with k changes per side."""
    truth = split_merge(rows, k)
    spark.sql(f"create database if not exists {database}")
    names = merge_table_names(database, rows, k, seed, layout)
    existing = tables_in(spark, database)
    sqls = [
        source_sql(rows, seed, layout),
        descendant_sql(truth, "ours", seed, layout),
        descendant_sql(truth, "theirs", seed, layout),
    ]
    for table, sql in zip(names, sqls, strict=True):
        if table.split(".")[-1] not in existing:
            write_table(spark, sql, table, rows, seed, layout)
    return (*names, truth)
