"""Dense drift on TPC-H lineitem: the leaf pass and the narrow pass as two reads of each table
(today's dense path, ADR 0033) against one read kept in Spark's cache (key parts, leaf, row hash)
that both passes read. Timed in one SparkSession, interleaved, medians of --reps after a warm-up.

- leaf_pass        per side: count and sum of the row hash per leaf (a hash bucket of the key
                   here), a full outer join of the two, the leaves that differ counted
- leaf_then_narrow leaf_pass, then the narrow pass (ADR 0033's plain null-safe key columns, a
                   per-key count by window, a full outer join on them): each table read twice
- fused            each side's (key parts, leaf, row hash) cached, materialised by the leaf
                   aggregate; the narrow pass reads the cache; uncached after: one read each
- fused_leaf_only  the fused variant's first half alone: what caching costs a pair whose leaves
                   all match (no narrow pass follows), against leaf_pass
- hand_join        bench/peers.py's full outer join on (key, row hash)
- spark_ext        spark-extension's whole diff

leaf_then_narrow and fused must name the same number of leaves and keys (checked).

    .venv/bin/python bench/probe_fused.py --target bench.lineitem_sf1_tpch_1pct --reps 2
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from peers import join_sql, spark_extension_diff  # noqa: E402
from probe_narrow import probe_args, time_interleaved  # noqa: E402
from run import spark_conf, start_spark  # noqa: E402

KEYS = ["l_orderkey", "l_linenumber"]
LEAVES = 4096


def projections(cols: list[str]) -> tuple[str, str]:
    """The narrow projection of a side (its select list) and the join condition on it."""
    mask = " | ".join(f"if(`{c}` is null, {1 << i}L, 0L)" for i, c in enumerate(cols))
    h1 = f"xxhash64('a', ({mask}), {', '.join(cols)})"
    parts = ", ".join(f"coalesce({k}, 0) as c{i}, isnull({k}) as n{i}" for i, k in enumerate(KEYS))
    leaf = f"pmod(xxhash64({', '.join(KEYS)}), {LEAVES}) as leaf"
    on = " and ".join(f"s.c{i} = t.c{i} and s.n{i} = t.n{i}" for i in range(len(KEYS)))
    return f"{parts}, {leaf}, {h1} as h1", on


def leaf_sql(src: str, tgt: str) -> str:
    def agg(side: str) -> str:
        return f"select leaf, count(*) as n, sum(h1) as h from {side} group by leaf"

    return (
        f"select count(*) from ({agg(src)}) s full outer join ({agg(tgt)}) t on s.leaf = t.leaf "
        "where s.leaf is null or t.leaf is null or s.n != t.n or s.h != t.h"
    )


def narrow_sql(src: str, tgt: str, on: str) -> str:
    parts = ", ".join(f"c{i}, n{i}" for i in range(len(KEYS)))

    def windowed(side: str) -> str:
        return f"(select *, count(*) over (partition by {parts}) as m from {side})"

    return (
        f"select count(*) from {windowed(src)} s full outer join {windowed(tgt)} t "
        f"on {on} and s.m = 1 and t.m = 1 where s.m is null or t.m is null or s.h1 != t.h1"
    )


def main() -> int:
    args = probe_args(__doc__)
    spark = start_spark(spark_conf(args.spark_home / f"tpch_sf{args.sf:g}", "8g"))
    cols = spark.table(args.source).columns
    select, on = projections(cols)
    src, tgt = (f"(select {select} from {t})" for t in (args.source, args.target))

    def leaf_then_narrow() -> list:
        return [
            spark.sql(leaf_sql(src, tgt)).collect(),
            spark.sql(narrow_sql(src, tgt, on)).collect(),
        ]

    def fused(narrow: bool) -> list:
        for view, table in (("td_probe_s", args.source), ("td_probe_t", args.target)):
            spark.sql(f"cache lazy table {view} as select {select} from {table}")
        try:
            out = [spark.sql(leaf_sql("td_probe_s", "td_probe_t")).collect()]
            if narrow:
                out.append(spark.sql(narrow_sql("td_probe_s", "td_probe_t", on)).collect())
            return out
        finally:
            for view in ("td_probe_s", "td_probe_t"):
                spark.sql(f"uncache table if exists {view}")
                spark.sql(f"drop view if exists {view}")

    variants = {
        "leaf_pass": lambda: spark.sql(leaf_sql(src, tgt)).collect(),
        "leaf_then_narrow": leaf_then_narrow,
        "fused": lambda: fused(True),
        "fused_leaf_only": lambda: fused(False),
        "hand_join": lambda: spark.sql(join_sql(args.source, args.target, KEYS, cols)).collect(),
        "spark_ext": lambda: spark_extension_diff(spark, args.source, args.target, KEYS),
    }
    names = args.variants.split(",") if args.variants else list(variants)
    named: dict[str, str] = {}  # what the variants that name keys named, to be equal

    def same_keys(name: str, result: Any) -> None:
        if name in ("leaf_then_narrow", "fused"):
            named[name] = str([row for rows in result for row in rows])
            if len(set(named.values())) > 1:
                raise AssertionError(f"the variants named different keys: {named}")

    time_interleaved(variants, names, args.reps, same_keys)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
