#!/usr/bin/env python3
"""Nested compared columns (ADR 0041): table_diff on TPC-H orders whose lineitems are folded into
one ``array<struct>`` column, against the same pair on the flat lineitem and spark-extension.

    .venv/bin/python bench/nested.py --sf 1 --drift 0.01%,0.1%,1% --reps 3

The nested source has one row per TPC-H order (key ``o_orderkey``): five flat ``orders`` columns
and ``lines array<struct<l_linenumber, l_partkey, ..., l_comment>>``, the order's lineitems (every
lineitem column but ``l_orderkey``) sorted by ``l_linenumber``, written once in key order as one
file, as the generator writes lineitem. The flat source is that lineitem itself (key
``(l_orderkey, l_linenumber)``): the same data. Each target changes a share of the orders, chosen
by a hash of the key as bench/tpch.py chooses rows: one line of a chosen order, at a position given
by a second hash of the key, gets ``l_quantity + 1``. The flat target is the nested target unfolded
(``inline(lines)``), so exactly the same lines differ; both targets are written as 10 files in
random order. The truth: the chosen orders are modified, nothing is deleted or inserted, and the
nested row diff names ``lines[<position>].l_quantity`` as the changed path of each.

In one SparkSession (one child process, bench/.spark/nested_sf<N>), interleaved over the
repetitions with the order rotating, after one untimed warm-up round, every answer checked:

* ``table_diff_nested`` / ``table_diff_flat``: ``dbt run`` of the pair ``table-diff scaffold pair``
  writes on the nested / flat tables, in-process, with the seconds of each model, then its summary
  and the modified rows of its row diff read back (changed_columns, and changed_paths if nested);
* ``spark_extension_nested``: spark-extension's ``diff`` of the nested tables (if it fails on
  their columns, or answers wrongly, that is recorded and it is left out);
* ``join_nested``: bench/peers.py's full outer join on (key, row hash) of the nested tables;
* ``spark_extension_flat``, ``join_flat`` (not by default): the same on the flat tables.

Ratios: nested pair / flat pair (target <= 1.5x) and nested pair / spark-extension (target < 1.0x).
Rows per second per core are (source + target rows) / median seconds / cores, rows being orders for
the nested tables and lineitems for the flat ones. Written to ``--out``: nested_sf<N>.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import tables_in  # noqa: E402
from pair import PAIR_SCHEMA, Dbt, write_project  # noqa: E402
from peers import join_sql, spark_extension_diff  # noqa: E402
from report import machine  # noqa: E402
from run import check, child_env, spark_conf, start_spark  # noqa: E402
from tpch import (  # noqa: E402
    DATABASE,
    SEED,
    TARGET_FILES,
    counted,
    generate_lineitem,
    med,
    parse_share,
)

NESTED_KEYS = ["o_orderkey"]
FLAT_KEYS = ["l_orderkey", "l_linenumber"]
ORDER_COLUMNS = ["o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority"]
APPROACHES = (
    "table_diff_nested",
    "table_diff_flat",
    "spark_extension_nested",
    "join_nested",
    "spark_extension_flat",
    "join_flat",
)
# The ratios reported, of table_diff_nested's median to another's, and their targets.
TARGETS = {
    "nested / flat pair": ("table_diff_flat", "<=", 1.5),
    "nested pair / spark-extension": ("spark_extension_nested", "<", 1.0),
}


def generate_orders(sf: float) -> Path:
    """TPC-H orders at scale factor `sf`, next to bench/tpch.py's lineitem (written once)."""
    path = generate_lineitem(sf).with_name("orders.parquet")
    if not path.exists():
        cli = Path(sys.executable).parent / "tpchgen-cli"
        cmd = [str(cli), "parquet", "-s", f"{sf:g}", "--tables=orders"]
        subprocess.run([*cmd, f"--output-dir={path.parent}"], check=True)
    return path


def spec_tag(spec: str) -> str:
    return spec.replace("%", "pct").replace(".", "_")


def chosen(share: float) -> str:
    """The orders a target changes: a hash of the key under the share."""
    return f"pmod(xxhash64({SEED}, 'drift', o_orderkey), 1000000) < {round(share * 1_000_000)}"


def line_position(lines: str) -> str:
    """The 0-based position, in a chosen order's `lines`, of the line whose quantity changes."""
    return f"pmod(xxhash64({SEED}, 'line', o_orderkey), size({lines}))"


def write_shuffled(df, table: str, keys: list[str]) -> None:
    """`TARGET_FILES` files in random key order, as bench/tpch.py writes its targets."""
    from pyspark.sql.functions import expr

    k = ", ".join(keys)
    df.repartition(TARGET_FILES, expr(f"xxhash64({SEED}, 'file', {k})")).sortWithinPartitions(
        expr(f"xxhash64({SEED}, 'order', {k})")
    ).write.format("parquet").saveAsTable(table)


def make_tables(spark, sf: float, specs: list[str]) -> list[dict[str, Any]]:
    """The flat and nested sources, a flat and a nested target per drift share (created once)."""
    spark.sql(f"create database if not exists {DATABASE}")
    existing = tables_in(spark, DATABASE)
    tag = f"sf{sf:g}".replace(".", "_")
    flat_src, nested_src = f"{DATABASE}.lineitem_{tag}", f"{DATABASE}.orders_nested_{tag}"
    if f"lineitem_{tag}" not in existing:
        spark.read.parquet(str(generate_lineitem(sf))).write.format("parquet").saveAsTable(flat_src)
    flat_cols = spark.table(flat_src).columns
    fields = ["l_linenumber", *(c for c in flat_cols if c not in FLAT_KEYS)]
    if f"orders_nested_{tag}" not in existing:
        spark.read.parquet(str(generate_orders(sf))).createOrReplaceTempView("td_bench_orders")
        nested = spark.sql(
            f"""
            select o_orderkey, {", ".join(ORDER_COLUMNS)}, lines
            from td_bench_orders join (
              select l_orderkey, sort_array(collect_list(struct({", ".join(fields)}))) as lines
              from {flat_src} group by l_orderkey
            ) on o_orderkey = l_orderkey"""
        )
        nested.repartition(1).sortWithinPartitions("o_orderkey").write.format(
            "parquet"
        ).saveAsTable(nested_src)
    quantity = spark.table(flat_src).schema["l_quantity"].dataType.simpleString()
    bumped = ", ".join(
        f"'{f}', " + (f"cast(x.l_quantity + 1 as {quantity})" if f == "l_quantity" else f"x.{f}")
        for f in fields
    )
    orders = spark.table(nested_src).count()
    lineitems = spark.table(flat_src).count()
    pairs = []
    for spec in specs:
        share = parse_share(spec)
        drift = spec_tag(spec)
        nested_tgt, flat_tgt = f"{nested_src}_{drift}", f"{flat_src}_nested_{drift}"
        if nested_tgt.split(".")[1] not in existing:
            lines = (
                f"if({chosen(share)}, transform(lines, (x, i) -> if(i = {line_position('lines')}, "
                f"named_struct({bumped}), x)), lines) as lines"
            )
            sql = f"select o_orderkey, {', '.join(ORDER_COLUMNS)}, {lines} from {nested_src}"
            write_shuffled(spark.sql(sql), nested_tgt, NESTED_KEYS)
        if flat_tgt.split(".")[1] not in existing:
            unfolded = f"select o_orderkey as l_orderkey, inline(lines) from {nested_tgt}"
            sql = f"select {', '.join(flat_cols)} from ({unfolded}) as u"
            write_shuffled(spark.sql(sql), flat_tgt, FLAT_KEYS)
        n = spark.sql(f"select count_if({chosen(share)}) as n from {nested_src}").first()["n"]
        # bench/pair.py's pair dicts; write_project sizes max_diff_rows from truth["k"].
        truth = {"modified": n, "deleted": 0, "inserted": 0, "k": n}
        sides = {
            "nested": (nested_src, nested_tgt, NESTED_KEYS, orders),
            "flat": (flat_src, flat_tgt, FLAT_KEYS, lineitems),
        }
        pairs.append({"spec": spec, "modified": n})
        for kind, (src, tgt, keys, rows) in sides.items():
            pairs[-1][kind] = {
                "name": f"{kind}_{drift}",
                "source": src,
                "target": tgt,
                "keys": keys,
                "columns": spark.table(src).columns,
                "rows": 2 * rows,  # source + target rows: the targets only modify
                "truth": truth,
            }
    return pairs


def want(p: dict[str, Any]) -> dict[str, int]:
    return {"modified": p["modified"], "deleted": 0, "inserted": 0}


def run_session(args: argparse.Namespace) -> dict[str, Any]:
    """Generate, then time the approaches in one session; writes the child's JSON."""
    home = args.spark_home / f"nested_sf{args.sf:g}"
    home.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(home, args.driver_memory)
    spark = start_spark(conf)
    pairs = make_tables(spark, args.sf, args.drift)
    project = home / "project"
    write_project(project, conf, [p[kind] for p in pairs for kind in ("nested", "flat")])
    dbt = Dbt(project)

    def check_row_diff(p: dict[str, Any], kind: str) -> None:
        """The modified rows of the pair's row diff: each names the changed line's quantity."""
        if kind == "nested":
            path = f"concat('lines[', {line_position('source__lines')}, '].l_quantity')"
            expected = f"changed_columns = array('lines') and changed_paths = array({path})"
        else:
            expected = "changed_columns = array('l_quantity')"
        r = spark.sql(
            f"select count(*) as n, count_if({expected}) as ok from "
            f"{PAIR_SCHEMA}.{p[kind]['name']}__row_diff where diff_type = 'modified'"
        ).first()
        m = p["modified"]
        check(
            f"table_diff_{kind} row diff",
            {"rows": r["n"], "as expected": r["ok"]},
            {"rows": m, "as expected": m},
        )

    def table_diff(kind: str):
        def run(p: dict[str, Any]) -> dict[str, Any]:
            name = p[kind]["name"]
            if args.first_check:  # as bench/tpch.py --first-check: no last block hashes (ADR 0031)
                spark.sql(f"drop table if exists {PAIR_SCHEMA}.{name}__block_hashes")
            models = dbt.run(f"{name}__ranges+")
            s = spark.table(f"{PAIR_SCHEMA}.{name}__summary").first()
            got = counted(s["rows_added"], s["rows_deleted"], s["rows_modified"])
            check(f"table_diff_{kind}", got, want(p))
            partial = {"is_partial": s["is_partial"]}
            check(f"table_diff_{kind} partial", partial, {"is_partial": False})
            check_row_diff(p, kind)
            return {"models": {m.split("__", 1)[1]: round(v, 3) for m, v in models.items()}}

        return run

    def peer(approach: str, kind: str):
        def run(p: dict[str, Any]) -> dict[str, Any]:
            q = p[kind]
            if approach == "join":
                r = spark.sql(join_sql(q["source"], q["target"], q["keys"], q["columns"])).first()
            else:
                r = spark_extension_diff(spark, q["source"], q["target"], q["keys"])
            check(f"{approach}_{kind}", counted(r["added"], r["deleted"], r["modified"]), want(p))
            return {}

        return run

    runners = {
        f"{a}_{kind}": table_diff(kind) if a == "table_diff" else peer(a, kind)
        for a in ("table_diff", "spark_extension", "join")
        for kind in ("nested", "flat")
    }
    order = [a for a in APPROACHES if a in args.approaches]
    failed: dict[str, str] = {}
    for a in order:  # warm-up, untimed; a peer that cannot diff these tables is recorded
        try:
            runners[a](pairs[0])
        except Exception as e:  # noqa: BLE001  (Py4JJavaError, AnalysisException, AssertionError)
            if a.startswith("table_diff"):
                raise
            failed[a] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:400]}"
            print(f"  {a} failed, left out: {failed[a]}")
    order = [a for a in order if a not in failed]
    times: dict[str, dict[str, list[float]]] = {p["spec"]: {} for p in pairs}
    models: dict[str, dict[str, list[dict[str, Any]]]] = {p["spec"]: {} for p in pairs}
    for rep in range(args.reps):
        rotated = order[rep % len(order) :] + order[: rep % len(order)]
        for p in pairs:
            for a in rotated:
                t = time.perf_counter()
                info = runners[a](p)
                times[p["spec"]].setdefault(a, []).append(round(time.perf_counter() - t, 3))
                if info:
                    models[p["spec"]].setdefault(a, []).append(info)
                    print(f"    {info}")
                print(f"  sf={args.sf:g} drift={p['spec']} {a}: {times[p['spec']][a][-1]:.1f}s")
    spark.stop()
    return {"pairs": pairs, "times": times, "models": models, "failed": failed}


def cell(t: dict[str, list[float]], p: dict[str, Any], a: str, failed: dict, cores: int) -> str:
    if a not in t:
        return "failed" if a in failed else "-"
    rows = p["nested" if a.endswith("_nested") else "flat"]["rows"]
    return f"{med(t[a]):.1f} s ({rows / med(t[a]) / cores / 1e3:,.1f}k rows/s/core)"


def ratio(t: dict[str, list[float]], other: str, op: str, bound: float) -> str:
    if "table_diff_nested" not in t or other not in t:
        return "-"
    r = med(t["table_diff_nested"]) / med(t[other])
    met = r <= bound if op == "<=" else r < bound
    return f"{r:.2f}x ({'met' if met else 'missed'})"


def split_models(runs: list[dict[str, Any]]) -> str:
    """A pair's median seconds per model, as bench/tpch.py reports them."""
    names = runs[0]["models"] if runs else {}
    return ", ".join(f"{m} {med([x['models'][m] for x in runs]):.1f}" for m in names) or "-"


def report(args: argparse.Namespace, session: dict[str, Any]) -> str:
    cores = os.cpu_count() or 1
    shown = [a for a in APPROACHES if a in args.approaches]
    first = session["pairs"][0]
    lines = [
        f"# Nested columns: TPC-H orders with their lineitems as array<struct>, scale factor "
        f"{args.sf:g}",
        "",
        f"Machine: {machine()}. Command: `{' '.join(args.argv)}`. Medians of {args.reps} "
        "repetitions in one session, interleaved; rows per second per core = (source + target "
        f"rows) / median seconds / {cores} cores, rows being orders for the nested tables "
        f"({first['nested']['rows'] // 2:,} per side, column `lines` of "
        f"{len(first['flat']['columns']) - 1} fields) and lineitems for the flat ones "
        f"({first['flat']['rows'] // 2:,} per side).",
        "",
        "| drift | modified orders | "
        + " | ".join(shown)
        + " | "
        + " | ".join(f"{r} (target {op} {b}x)" for r, (_, op, b) in TARGETS.items())
        + " | models of the nested / flat pair (median s) |",
        "|---|---:|" + "---:|" * (len(shown) + len(TARGETS)) + "---|",
    ]
    for p in session["pairs"]:
        t = session["times"][p["spec"]]
        split = " / ".join(
            split_models(session["models"][p["spec"]].get(f"table_diff_{kind}", []))
            for kind in ("nested", "flat")
        )
        lines.append(
            f"| {p['spec']} | {p['modified']:,} | "
            + " | ".join(cell(t, p, a, session["failed"], cores) for a in shown)
            + " | "
            + " | ".join(ratio(t, *target) for target in TARGETS.values())
            + f" | {split} |"
        )
    for a, why in session["failed"].items():
        lines += ["", f"`{a}` could not diff these tables, left out: `{why}`"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (1 = 1.5M orders)")
    ap.add_argument(
        "--drift", type=lambda s: [x.strip() for x in s.split(",")], default=["0.01%", "0.1%", "1%"]
    )
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--approaches",
        type=lambda s: s.split(","),
        default=list(APPROACHES[:4]),
        help=f"comma-separated, of: {', '.join(APPROACHES)}",
    )
    ap.add_argument(
        "--first-check",
        action="store_true",
        help="every pair run is a first check: its last block hashes are dropped before it",
    )
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("--out", type=Path, default=BENCH / "results")
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.argv = ["bench/nested.py", *argv]
    unknown = set(args.approaches) - set(APPROACHES)
    if unknown:
        ap.error(f"unknown approaches {sorted(unknown)}; known: {', '.join(APPROACHES)}")
    for spec in args.drift:
        parse_share(spec)
    raw = args.out / f"nested_sf{args.sf:g}.json"
    if args.child:
        command = [a for a in args.argv if a != "--child"]
        raw.write_text(json.dumps({"command": command, **run_session(args)}, indent=2))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, __file__, *argv, "--child"], env=child_env(), check=True)
    text = report(args, json.loads(raw.read_text()))
    (args.out / f"nested_sf{args.sf:g}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
