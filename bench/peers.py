"""The benchmark's peers: the other ways to diff two tables, each returning the counts it found.

Written here, independently of the package's SQL: the one-pass ``floor``, the hand-written full
outer ``join`` on (key, row hash), the issue's one-level ``hash_buckets`` scheme, ``exceptAll``
both ways, and the third-party ones, G-Research spark-extension's ``diff`` and datacompy's
``SparkSQLCompare`` (both pinned in bench/requirements.txt and imported only when timed).
bench/run.py times them and checks each result against the generator's truth.
"""

from __future__ import annotations

BASELINES = ("floor", "join", "hash_buckets", "spark_extension", "except_all", "datacompy")
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


def floor_sql(src: str, tgt: str, columns: list[str]) -> str:
    h = row_hash(columns)
    parts = [
        f"select '{side}' as side, count(*) as n, sum(shiftright(h, 32)) as hi, "
        f"sum(h & 4294967295) as lo from (select {h} as h from {table}) as x"
        for side, table in (("source", src), ("target", tgt))
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


BUCKETS = 65536  # the one-level scheme: B = 65536 hash buckets


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
    """The issue's one-level block scheme: B hash buckets, then a full second scan of both tables
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
