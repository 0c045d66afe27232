"""Where the signature pass's time goes: variants of one query, timed in one SparkSession.

Run after `bench/run.py --rows N --k 0,100,...` has generated the tables and run the pair `k_100`
at that row count, twice or more (it reads the compiled `k_100__block_hashes` SQL from the bench
project: with `quick_check: 'auto'` the runs after the first skip the whole-table check, so the
compiled SQL is the leaf pass). Every variant reads both tables of the k = 100 pair; medians of
--reps after one warm-up, interleaved, ratios to the floor:

- floor          count + overflow-safe sums of one 64-bit row hash (bench/peers.py's baseline)
- block_hashes   the package's compiled leaf pass, as `dbt run` executes it
- search         the same with the binary-search leaf (ADR 0006) instead of the grid (ADR 0008);
                 checked to give the same rows
- grid_array     the same with the grid as one row of arrays indexed by the cell (`element_at`)
                 instead of the broadcast equi-join on the cell; checked to give the same rows
- global_4sums   the 128-bit whole-table signature: no leaf, no grouping (no_drift's quick check)
- grp_count      grouping by `pmod(id, 4096)`, only a count and two max (few aggregate buffers)
- grp_4sums      grouping by `pmod(id, G)` with the package's sums, G = 4096, 1024, 256, 16
- bare_G         a bare count grouped by `pmod(id, G)`, no hashing, G = 4096, 16 (group-by alone);
                 `bare_4096_<knob>` the same under one of Spark's aggregation settings (KNOBS), and
                 `bare_runs_clustered` grouped by 4096 runs of consecutive keys of the `--clustered`
                 source table (when it exists), i.e. with no random access to the groups
- narrow_window / narrow_agg_shj  (--dense) the dense row diff's narrow pass on the 1% pair:
                 a per-key window (as shipped) against a per-key aggregate + shuffled hash join,
                 against one union of both sides grouped by key (`narrow_union_agg`), and the
                 hand-written join of bench/peers.py on the same pair (`narrow_join`: no
                 duplicate-key detection, counts only)
- fetch / fetch_key_ranges  (--fetch) the sparse row diff of the k = 100 pair as `dbt run` executes
                 it (rows of the selected leaves found by the grid leaf, ADR 0008) against the same
                 query with the selected leaves as key-range predicates instead (contiguous
                 leaves merged; plain literals, so Spark may push them to the parquet reader);
                 checked to give the same rows. `fetch_key_ranges_nopush` turns parquet filter
                 pushdown off for that variant.

    .venv/bin/python bench/probe_signature.py --rows 10000000 [--reps 5] [--only a,b]
        [--dense] [--fetch]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402
import peers  # noqa: E402
import run  # noqa: E402
from pair import DATABASE, PAIR_SCHEMA  # noqa: E402


def search_variant(spark, query: str, ranges: str) -> str:
    """The compiled grid query with the binary-search leaf of ADR 0006 instead."""
    leaves = spark.sql(f"select count(*) from {ranges}").collect()[0][0]
    steps = 0
    while 2**steps - 1 < leaves - 1:
        steps += 1
    top = 2 ** (steps - 1)
    padded = (
        f"select concat(b, array_repeat(try_element_at(b, -1), {2**steps - 1} - size(b)))"
        " as __td_bounds from (select transform(array_sort(collect_list(named_struct("
        f"'id', leaf_id, 'lo', lower_bound))), x -> x.lo) as b from {ranges}"
        " where leaf_id > 0) as a"
    )
    leaf = (
        f"least(aggregate(sequence(0, {steps - 1}), 0, (p, i) -> p + if(element_at(__td_bounds,"
        f" p + shiftright({top}, i)) <= __td_k, shiftright({top}, i), 0)), {leaves - 1})"
    )
    start, end = query.index("td_bounds as ("), query.index("source_leafed as (")
    out = query[:start] + f"td_bounds as ({padded}),\n" + query[end:]
    out = re.sub(
        r"coalesce\(td_g\.__td_first[^\n]*?, 0\) as __td_leaf", leaf + " as __td_leaf", out
    )
    out = re.sub(r"left join td_bounds as td_g on [^\n]*", "cross join td_bounds", out)
    return out.replace("/*+ broadcast(td_g) */", "")


# Spark settings tried on the bare 4096-group count (set for that variant only).
KNOBS = {
    "no_twolevel_map": ("spark.sql.codegen.aggregate.map.twolevel.enabled", "false"),
    "vectorized_map": ("spark.sql.codegen.aggregate.map.vectorized.enable", "true"),
    "map_capacity_2e12": ("spark.sql.codegen.aggregate.fastHashMap.capacityBit", "12"),
    "no_wholestage_codegen": ("spark.sql.codegen.wholeStage", "false"),
}


def grid_array_variant(query: str) -> str:
    """The compiled grid query with the cells as one row of arrays: each row reads its cell's
    first leaf and inner bounds by `element_at` instead of joining the cell table."""
    cond = re.search(r"left join td_bounds as td_g on td_g\.__td_c = (.*)", query)
    if cond is None:
        raise AssertionError("the k_100 block_hashes query does not use the grid leaf")
    cell = f"element_at(td_g.__td_cells, cast({cond.group(1).strip()} as int) + 1)"
    inner = sorted(set(re.findall(r"td_g\.(__td_nb\d+)", query)))
    fields = "".join(f", '{n}', {n}" for n in inner)
    start, end = query.index("td_bounds as ("), query.index("source_leafed as (")
    grid = query[start + len("td_bounds as (") : end].rstrip().rstrip(",").rstrip()[:-1]
    arrays = (
        "td_bounds as (select array_sort(collect_list(named_struct('c', __td_c, 'f', __td_first"
        f"{fields}))) as __td_cells from ({grid}) as cells),\n"
    )
    out = query[:start] + arrays + query[end:]
    out = out.replace(cond.group(0), "cross join td_bounds as td_g")
    out = out.replace("td_g.__td_first", f"{cell}.f")
    for n in inner:
        out = out.replace(f"td_g.{n}", f"{cell}.{n}")
    return out


def compiled_query(home: Path, model: str) -> str:
    """The SELECT of a bench model as `dbt run` last executed it (its CTAS prefix removed)."""
    compiled = next(home.joinpath("project").glob(f"target/run/**/{model}.sql"))
    query = compiled.read_text().split(" as\n", 1)[1]
    return query[query.index("with") :]


def fetch_variants(spark, home: Path) -> tuple[str, str]:
    """The compiled sparse row diff of the k = 100 pair, and the same with key-range predicates."""
    query = compiled_query(home, "k_100__row_diff")
    pair = f"{PAIR_SCHEMA}.k_100"
    selected = spark.sql(
        f"select r.leaf_id, r.lower_bound, r.upper_bound from {pair}__ranges as r join (select"
        f" explode(sequence(leaf_lo, leaf_hi)) as leaf_id from {pair}__block_split where selected)"
        " as s on r.leaf_id = s.leaf_id order by r.leaf_id"
    ).collect()
    merged: list[list] = []
    for leaf, lo, hi in selected:
        if merged and merged[-1][1] == leaf - 1:
            merged[-1][1], merged[-1][3] = leaf, hi
        else:
            merged.append([leaf, leaf, lo, hi])
    terms = []
    for first, _, lo, hi in merged:
        below = f"__td_k < {hi}L" if hi is not None else "true"
        if first == 0:
            terms.append(f"(__td_k is null or {below})")
        else:
            terms.append(f"(__td_k >= {lo}L and {below})")
    print(f"k_100 row diff: {len(selected)} leaves selected, {len(merged)} key ranges")
    leaf_filter = "where __td_leaf in (select leaf_id from td_leaves)"
    if query.count(leaf_filter) != 2:
        raise AssertionError("the k_100 row diff is not the sparse (leaf-filtered) query")
    out = query.replace(leaf_filter, f"where {' or '.join(terms)}")
    out = re.sub(r"coalesce\(td_g\.__td_first[^\n]*?, 0\) as __td_leaf", "0 as __td_leaf", out)
    out = re.sub(r"left join td_bounds as td_g on [^\n]*", "", out)
    return query, out.replace("/*+ broadcast(td_g) */", "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=run.parse_rows, default=[10_000_000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", type=lambda s: s.split(","))
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    args = ap.parse_args()
    rows = args.rows[0]
    spark = run.start_spark(run.spark_conf(args.spark_home / str(rows), "8g"))
    cols = generate.Layout().columns
    src, tgt = generate.table_names(DATABASE, rows, 100, 7)
    query = compiled_query(args.spark_home / str(rows), "k_100__block_hashes")
    if "td_whole" in query:
        raise AssertionError(
            "the last k_100 block_hashes ran the whole-table check: run the pair once more"
        )
    ranges = f"{PAIR_SCHEMA}.k_100__ranges"

    def grouped(aggs: str, group: str | None) -> str:
        parts = []
        for table in (src, tgt):
            inner = (
                f"select {group + ' as g, ' if group else ''}{peers.row_hash(cols, 'a')} as h1,"
                f" {peers.row_hash(cols, 'b')} as h2 from {table}"
            )
            parts.append(
                f"select {'g, ' if group else ''}{aggs} from ({inner}) as x"
                + (" group by g" if group else "")
            )
        return " union all ".join(parts)

    sums = (
        "count(*) as n, sum(shiftright(h1, 32)) as a, sum(h1 & 4294967295) as b,"
        " sum(shiftright(h2, 32)) as c, sum(h2 & 4294967295) as d"
    )
    variants = {
        "floor": peers.floor_sql(src, tgt, cols),
        "block_hashes": query,
        "search": search_variant(spark, query, ranges),
        "grid_array": grid_array_variant(query),
        "global_4sums": grouped(sums, None),
        "grp_count": grouped("count(*) as n, max(h1) as m1, max(h2) as m2", "pmod(id, 4096)"),
        "grp_4sums": grouped(sums, "pmod(id, 4096)"),
        "grp_4sums_1024": grouped(sums, "pmod(id, 1024)"),
        "grp_4sums_256": grouped(sums, "pmod(id, 256)"),
        "grp_4sums_16": grouped(sums, "pmod(id, 16)"),
        **{
            f"bare_{g}": " union all ".join(
                f"select pmod(id, {g}) as g, count(*) as n from {t} group by 1" for t in (src, tgt)
            )
            for g in (4096, 16)
        },
    }
    for knob in KNOBS:
        variants[f"bare_4096_{knob}"] = variants["bare_4096"]
    clustered, _ = generate.table_names(DATABASE, rows, 0, 7, generate.Layout(clustered=True))
    if spark.catalog.tableExists(clustered):
        variants["bare_runs_clustered"] = (
            f"select id div {max(rows // 4096, 1)} as g, count(*) as n from {clustered} group by 1"
        )
    if args.dense:
        dsrc, dtgt = generate.table_names(DATABASE, rows, rows // 100, 7)
        h = peers.row_hash(cols)
        window = (
            "count(*) over (partition by jk order by jk"
            " rows between unbounded preceding and unbounded following)"
        )

        def side(t: str) -> str:
            return f"select id as jk, {h} as h1 from {t}"

        variants["narrow_window"] = (
            f"select count(*) from (select distinct coalesce(s.jk, t.jk) as jk from (select jk, h1,"
            f" {window} as n from ({side(dsrc)}) as x) as s full outer join"
            f" (select jk, h1, {window} as n from ({side(dtgt)}) as x) as t"
            " on s.jk = t.jk and s.n = 1 and t.n = 1"
            " where s.jk is null or t.jk is null or s.h1 != t.h1) as z"
        )

        def agg(t: str) -> str:
            return f"select jk, count(*) as n, min(h1) as h1 from ({side(t)}) as x group by jk"

        variants["narrow_union_agg"] = (
            "select count(*) from (select jk from (select jk, 0 as sd, h1 from"
            f" ({side(dsrc)}) as x union all select jk, 1 as sd, h1 from ({side(dtgt)}) as y) as u"
            " group by jk having not (count_if(sd = 0) = 1 and count_if(sd = 1) = 1"
            " and min(h1) = max(h1))) as z"
        )
        variants["narrow_join"] = peers.join_sql(dsrc, dtgt, ["id"], cols)
        variants["narrow_agg_shj"] = (
            "select count(*) from (select /*+ shuffle_hash(s) */ coalesce(s.jk, t.jk) as jk"
            f" from ({agg(dsrc)}) as s full outer join ({agg(dtgt)}) as t on s.jk = t.jk"
            " where s.jk is null or t.jk is null or s.n > 1 or t.n > 1 or s.h1 != t.h1) as z"
        )
    if args.fetch:
        fetch, ranged = fetch_variants(spark, args.spark_home / str(rows))
        variants["fetch"] = fetch
        variants["fetch_key_ranges"] = ranged
        variants["fetch_key_ranges_nopush"] = ranged
        if sorted(map(str, spark.sql(ranged).collect())) != sorted(
            map(str, spark.sql(fetch).collect())
        ):
            raise AssertionError("key-range predicates and grid leaves fetched different rows")
    names = ["floor", *[n for n in (args.only or variants) if n != "floor"]]

    for other in ("search", "grid_array"):
        if other in names:
            got = sorted(map(tuple, spark.sql(variants[other]).collect()))
            if got != sorted(map(tuple, spark.sql(query).collect())):
                raise AssertionError(f"{other} and grid leaves gave different signatures")

    times: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(args.reps + 1):
        for name in names:
            push = "false" if name.endswith("_nopush") else "true"
            spark.conf.set("spark.sql.parquet.filterPushdown", push)
            knob = next((v for k, v in KNOBS.items() if name == f"bare_4096_{k}"), None)
            if knob:
                spark.conf.set(*knob)
            t0 = time.perf_counter()
            spark.sql(variants[name]).collect()
            if knob:
                spark.conf.unset(knob[0])
            if rep:
                times[name].append(time.perf_counter() - t0)
    floor = statistics.median(times["floor"])
    for name in names:
        m = statistics.median(times[name])
        runs = ", ".join(f"{x:.2f}" for x in times[name])
        print(f"| {name} | {m:.2f} | {m / floor:.2f}x | {runs} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
