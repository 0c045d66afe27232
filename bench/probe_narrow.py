"""The dense row diff's narrow pass on TPC-H lineitem: ways of naming the differing keys, timed in
one SparkSession (ADR 0033).

Run after `bench/tpch.py --sf 1 --drift 1%` has written the tables (bench/.spark/tpch_sf1). Every
variant reads the source and the drifted target and counts what it names; medians of --reps after
one warm-up, interleaved:

- hand_join         bench/peers.py's full outer join on (key, row hash), counting (no output)
- window_struct     the narrow pass before ADR 0033: the key as a struct, a per-key row count
                    by window, a full outer join on it (distinct differing keys)
- window_raw        the same with the key as plain null-safe columns (coalesce, isnull): ADR 0033
- join_raw_kh       a join on (plain key columns, hash) with no per-key count: the floor of the
                    design (it misses a key stored twice with identical rows)
- agg_struct / agg_raw_nullsafe  a per-key aggregate (count, min hash) per side, then a join
- spark_ext         spark-extension's whole diff of the same tables

    .venv/bin/python bench/probe_narrow.py --target bench.lineitem_sf1_tpch_1pct --reps 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from peers import join_sql, spark_extension_diff  # noqa: E402
from run import spark_conf, start_spark  # noqa: E402

KEYS = ["l_orderkey", "l_linenumber"]


def queries(src: str, tgt: str, cols: list[str]) -> dict[str, str | None]:
    mask = " | ".join(f"if(`{c}` is null, {1 << i}L, 0L)" for i, c in enumerate(cols))
    h1 = f"xxhash64('a', ({mask}), {', '.join(cols)})"
    struct = "named_struct('k', named_struct('k1', l_orderkey, 'k2', l_linenumber))"
    parts = ", ".join(f"coalesce({k}, 0) as c{i}, isnull({k}) as n{i}" for i, k in enumerate(KEYS))
    part_list = ", ".join(f"c{i}, n{i}" for i in range(len(KEYS)))
    part_on = " and ".join(f"s.c{i} = t.c{i} and s.n{i} = t.n{i}" for i in range(len(KEYS)))
    raw_on = " and ".join(f"s.{k} <=> t.{k}" for k in KEYS)

    def narrow(table: str) -> str:
        return f"select {struct} as jk, {h1} as h1 from {table}"

    def plain(table: str) -> str:
        return f"select {parts}, {h1} as h1 from {table}"

    def windowed(select: str, by: str) -> str:
        return f"(select *, count(*) over (partition by {by}) as n from ({select}))"

    def agg(table: str) -> str:
        return f"select jk, count(*) as n, min(h1) as h1 from ({narrow(table)}) group by jk"

    def agg_raw(table: str) -> str:
        keys = ", ".join(KEYS)
        return f"select {keys}, count(*) as n, min({h1}) as h1 from {table} group by {keys}"

    unmatched = "where s.n is null or t.n is null or s.n > 1 or t.n > 1 or s.h1 != t.h1"
    return {
        "hand_join": join_sql(src, tgt, KEYS, cols),
        "window_struct": (
            f"select count(distinct coalesce(s.jk, t.jk)) from {windowed(narrow(src), 'jk')} s "
            f"full outer join {windowed(narrow(tgt), 'jk')} t on s.jk = t.jk and s.n = 1 "
            "and t.n = 1 where s.jk is null or t.jk is null or s.h1 != t.h1"
        ),
        "window_raw": (
            f"select count(*) from {windowed(plain(src), part_list)} s full outer join "
            f"{windowed(plain(tgt), part_list)} t on {part_on} and s.n = 1 and t.n = 1 "
            "where s.n is null or t.n is null or s.h1 != t.h1"
        ),
        "join_raw_kh": (
            f"select count(*) from ({plain(src)}) s full outer join ({plain(tgt)}) t "
            f"on {part_on} and s.h1 = t.h1 where s.h1 is null or t.h1 is null"
        ),
        "agg_struct": (
            f"select count(*) from ({agg(src)}) s full outer join ({agg(tgt)}) t "
            f"on s.jk = t.jk {unmatched}"
        ),
        "agg_raw_nullsafe": (
            f"select count(*) from ({agg_raw(src)}) s full outer join ({agg_raw(tgt)}) t "
            f"on {raw_on} {unmatched}"
        ),
        "spark_ext": None,
    }


def probe_args(doc: str) -> argparse.Namespace:
    """The probes' command line: the tables, the variants to time and the repetitions."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--source", default="bench.lineitem_sf1")
    ap.add_argument("--target", default="bench.lineitem_sf1_tpch_1pct")
    ap.add_argument("--variants", default="", help="comma-separated; default: all")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    return ap.parse_args()


def time_interleaved(
    variants: dict[str, Callable[[], Any]],
    names: list[str],
    reps: int,
    check: Callable[[str, Any], None] | None = None,
) -> None:
    """Run the named variants in turn, ``reps`` timed rounds after one untimed warm-up round;
    print each run and each variant's median. ``check(name, result)`` sees every result."""
    times: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(reps + 1):
        for n in names:
            t = time.perf_counter()
            result = variants[n]()
            seconds = time.perf_counter() - t
            if rep:
                times[n].append(round(seconds, 2))
            if check:
                check(n, result)
            print(f"rep {rep} {n}: {seconds:.1f}s {result}", flush=True)
    for n in names:
        print(f"{n}: median {statistics.median(times[n]):.1f}s {times[n]}")


def main() -> int:
    args = probe_args(__doc__)
    spark = start_spark(spark_conf(args.spark_home / f"tpch_sf{args.sf:g}", "8g"))
    cols = spark.table(args.source).columns
    qs = queries(args.source, args.target, cols)
    variants = {
        n: (
            (lambda: spark_extension_diff(spark, args.source, args.target, KEYS))
            if q is None
            else (lambda q=q: spark.sql(q).collect())
        )
        for n, q in qs.items()
    }
    names = args.variants.split(",") if args.variants else list(qs)
    time_interleaved(variants, names, args.reps)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
