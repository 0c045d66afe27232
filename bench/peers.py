"""The benchmark's peers: the other ways to diff two tables, each returning the counts it found.

Written here, independently of the package's SQL: the one-pass ``floor``, the hand-written full
outer ``join`` on (key, row hash), the classic one-level ``hash_buckets`` scheme, ``exceptAll``
both ways, and the third-party ones, G-Research spark-extension's ``diff`` and datacompy's
``SparkSQLCompare`` (both pinned in bench/requirements.txt and imported only when timed).
bench/run.py times them and checks each result against the generator's truth.
"""

from __future__ import annotations

BASELINES = ("floor", "join", "hash_buckets", "spark_extension", "except_all", "datacompy")
# Three-way merge cases (bench/run.py --merge): the floor over base, ours and theirs, and the
# hand-written three-way full outer join that classifies every key.
MERGE_BASELINES = ("floor3", "join3")
# Third-party baselines: module to import, and where it comes from.
OPTIONAL = {
    "spark_extension": "gresearch.spark.diff",
    "datacompy": "datacompy.spark",
}


def row_hash(columns: list[str], salt: str | None = None) -> str:
    """xxhash64 over a NULL bitmask and the columns; a salt first gives an independent hash."""
    mask = " | ".join(f"if(`{c}` is null, {1 << i}L, 0L)" for i, c in enumerate(columns))
    first = f"'{salt}', " if salt else ""
    return f"xxhash64({first}({mask}), {', '.join(f'`{c}`' for c in columns)})"


def floor_sql(src: str, tgt: str, columns: list[str], theirs: str | None = None) -> str:
    """One pass per table; with `theirs` (a merge's third table, side 'theirs') three tables."""
    h = row_hash(columns)
    sides = [("source", src), ("target", tgt)] + ([("theirs", theirs)] if theirs else [])
    parts = [
        f"select '{side}' as side, count(*) as n, sum(shiftright(h, 32)) as hi, "
        f"sum(h & 4294967295) as lo from (select {h} as h from {table}) as x"
        for side, table in sides
    ]
    return "\nunion all\n".join(parts)


def join_sql(
    src: str, tgt: str, keys: list[str], columns: list[str], buckets_view: str | None = None
) -> str:
    """Full outer join on (key, row hash), counting added / deleted / modified. With
    `buckets_view` (the one-level scheme's second pass), only the rows of the hash buckets listed
    there are read into the join (broadcast semi join)."""
    key_list = ", ".join(f"`{k}`" for k in keys)
    on = " and ".join(f"s.`{k}` = t.`{k}`" for k in keys)

    def side(table: str) -> str:
        if buckets_view is not None:
            # Rows of the listed buckets first, so that only they are hashed.
            table = (
                f"(select /*+ broadcast(m) */ * from {table} as x "
                f"left semi join {buckets_view} as m on {bucket_expr(keys, 'x.')} = m.b) as r"
            )
        return f"select {key_list}, {row_hash(columns)} as h from {table}"

    return (
        f"with s as ({side(src)}),\n"
        f"t as ({side(tgt)})\n"
        "select count_if(s.h is null) as added, count_if(t.h is null) as deleted,\n"
        "  count_if(s.h != t.h) as modified\n"
        f"from s full outer join t on {on}"
    )


def join3_sql(base: str, ours: str, theirs: str, keys: list[str], values: list[str]) -> str:
    """The hand-written three-way merge: full outer join of base, ours and theirs on the key, every
    key classified per Dolt's cell-wise rules (docs/semantics.md) and counted per
    (merge_status, conflict_type). Cells compare null-safely; a side's row is present when its
    key is not NULL (the benchmark's keys never are)."""
    k0 = keys[0]
    on_bo = " and ".join(f"b.`{k}` = o.`{k}`" for k in keys)
    on_t = " and ".join(f"coalesce(b.`{k}`, o.`{k}`) = t.`{k}`" for k in keys)

    def differ(x: str, y: str, c: str) -> str:
        return f"not ({x}.`{c}` <=> {y}.`{c}`)"

    flags = ",\n  ".join(
        f"{differ('b', 'o', c)} as o_{i}, {differ('b', 't', c)} as t_{i}, "
        f"{differ('o', 't', c)} as d_{i}"
        for i, c in enumerate(values)
    )
    n = range(len(values))
    o_any = " or ".join(f"o_{i}" for i in n)
    t_any = " or ".join(f"t_{i}" for i in n)
    d_any = " or ".join(f"d_{i}" for i in n)
    same_cell = " or ".join(f"(o_{i} and t_{i} and d_{i})" for i in n)
    return f"""with j as (
select b.`{k0}` is not null as in_b, o.`{k0}` is not null as in_o, t.`{k0}` is not null as in_t,
  {flags}
from {base} as b full outer join {ours} as o on {on_bo}
  full outer join {theirs} as t on {on_t}
),
c as (
select case
  when in_b and in_o and in_t then case
    when not ({o_any}) and not ({t_any}) then 'unchanged'
    when not ({t_any}) then 'ours_only'
    when not ({o_any}) then 'theirs_only'
    when not ({d_any}) then 'convergent'
    when {same_cell} then 'conflict:update_update'
    else 'cell_merged' end
  when in_b and not in_o and not in_t then 'convergent'
  when in_b and in_o then if({o_any}, 'conflict:update_delete', 'theirs_only')
  when in_b and in_t then if({t_any}, 'conflict:delete_update', 'ours_only')
  when in_o and in_t then if({d_any}, 'conflict:insert_insert', 'convergent')
  when in_o then 'ours_only'
  else 'theirs_only' end as cls
from j
)
select cls, count(*) as n from c group by cls"""


def join3(spark, base: str, ours: str, theirs: str, keys: list[str], values: list[str]):
    """Counts per merge_status and conflict_type (and 'unchanged') of :func:`join3_sql`."""
    out: dict[str, int] = {}
    for r in spark.sql(join3_sql(base, ours, theirs, keys, values)).collect():
        status, _, conflict = r["cls"].partition(":")
        out[status] = out.get(status, 0) + r["n"]
        if conflict:
            out[conflict] = out.get(conflict, 0) + r["n"]
    return out


BUCKETS = 65536  # the classic one-level scheme: B = 65536 hash buckets


def bucket_expr(keys: list[str], prefix: str = "") -> str:
    return f"pmod(xxhash64({', '.join(f'{prefix}`{k}`' for k in keys)}), {BUCKETS})"


def bucket_signatures_sql(src: str, tgt: str, keys: list[str], columns: list[str]) -> str:
    """Pass 1 of the one-level scheme: per side and hash bucket of the key, count + hash sums."""
    h = row_hash(columns)
    b = bucket_expr(keys)
    parts = [
        f"select '{side}' as side, {b} as b, count(*) as n, sum(shiftright(h, 32)) as hi, "
        f"sum(h & 4294967295) as lo from (select *, {h} as h from {table}) as x group by {b}"
        for side, table in (("source", src), ("target", tgt))
    ]
    return "\nunion all\n".join(parts)


def hash_buckets(spark, src: str, tgt: str, keys: list[str], columns: list[str]) -> dict[str, int]:
    """The classic one-level block scheme: B hash buckets, then a full second scan of both tables
    restricted (broadcast semi join) to the buckets whose signatures differ."""
    sig: dict[int, dict[str, tuple[int, int, int]]] = {}
    for r in spark.sql(bucket_signatures_sql(src, tgt, keys, columns)).collect():
        sig.setdefault(r["b"], {})[r["side"]] = (r["n"], r["hi"], r["lo"])
    bad = sorted(b for b, sides in sig.items() if sides.get("source") != sides.get("target"))
    if not bad:
        return {"added": 0, "deleted": 0, "modified": 0}
    spark.createDataFrame([(b,) for b in bad], "b bigint").createOrReplaceTempView("td_bench_bad")
    return spark.sql(join_sql(src, tgt, keys, columns, "td_bench_bad")).first().asDict()


def except_all(spark, src: str, tgt: str) -> dict[str, int]:
    """`exceptAll` both ways: rows of one side not matched by a row of the other."""
    s, t = spark.table(src), spark.table(tgt)
    return {"source_only": s.exceptAll(t).count(), "target_only": t.exceptAll(s).count()}


def spark_extension_diff(spark, src: str, tgt: str, keys: list[str]) -> dict[str, int]:
    """G-Research spark-extension's `diff` (bench/requirements.txt; its wheel ships the jar into
    pyspark/jars), counted per action: I(nserted), D(eleted), C(hanged), N(o change)."""
    import gresearch.spark.diff  # noqa: F401  (adds DataFrame.diff)

    counts = {
        r["diff"]: r["count"]
        for r in spark.table(src).diff(spark.table(tgt), *keys).groupBy("diff").count().collect()
    }
    return {
        "added": counts.get("I", 0),
        "deleted": counts.get("D", 0),
        "modified": counts.get("C", 0),
    }


def datacompy_compare(spark, src: str, tgt: str, keys: list[str]) -> dict[str, int]:
    """datacompy's SparkSQLCompare (bench/requirements.txt): its comparison, then the counts a
    report starts from. It caches intermediates, which are released afterwards."""
    from datacompy.spark import SparkSQLCompare

    def side(table: str):
        # datacompy 1.1.0's per-column max difference runs TRY_CAST(<col> AS DOUBLE), which Spark 4
        # refuses for DATE: dates go in as timestamps (equal exactly when the dates are).
        df = spark.table(table)
        return df.select(
            *(
                df[f.name].cast("timestamp").alias(f.name)
                if f.dataType.typeName() == "date"
                else df[f.name]
                for f in df.schema.fields
            )
        )

    try:
        c = SparkSQLCompare(spark, side(src), side(tgt), join_columns=keys)
        both = c.intersect_rows.count()
        return {
            "added": c.df2_unq_rows.count(),
            "deleted": c.df1_unq_rows.count(),
            "modified": both - c.count_matching_rows(),
        }
    finally:
        spark.catalog.clearCache()


# ------------------------------------------------------------------------------------------------
