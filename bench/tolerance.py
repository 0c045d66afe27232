"""Tolerance on the benchmark (ADR 0024): a pair where 1% of rows moved within the tolerance.

One SparkSession. Source: ``--rows`` rows (a key, a double ``amount``, a decimal, a string).
Target: the same, with ``amount + --shift`` on every 100th key (1% of rows). Two pairs of the same
tables, default options: ``tol`` with ``tolerance: {amount: {abs: --tolerance}}``, which must be
reported identical, and ``exact`` without, which must report the 1% as modified. Each is run
``--reps`` times after a first, untimed run (so ``quick_check: auto`` takes its steady path);
medians and the ratio tol / exact go to ``bench/results/tolerance_<rows>.md``.

    .venv/bin/python bench/tolerance.py --rows 10000000
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair import REPO, Dbt  # noqa: E402
from run import spark_conf, start_spark  # noqa: E402
from track import PAIRS, SCHEMA, timed, write_project  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--tolerance", type=float, default=0.01)
    ap.add_argument("--shift", type=float, default=0.003, help="move of the 1%%, within tolerance")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--home", type=Path, default=REPO / "bench" / ".spark" / "tolerance")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--driver-memory", default="6g")
    args = ap.parse_args()
    assert 0 < args.shift <= args.tolerance, "the shift must stay within the tolerance"

    spark, conf, rows = fresh_source(args)
    spark.sql(
        f"create table {SCHEMA}.tgt using parquet as select id, "
        f"if(id % 100 = 0, amount + {args.shift}d, amount) as amount, price, s from ({rows})"
    )
    root = args.home / "project"
    write_project(
        root, conf, {"tol": {"tolerance": {"amount": {"abs": args.tolerance}}}, "exact": {}}
    )
    dbt = Dbt(root)
    moved = args.rows // 100 + (1 if args.rows % 100 else 0)

    def summary(name: str) -> dict:
        return spark.table(f"{PAIRS}.{name}__summary").first().asDict()

    times: dict[str, list[float]] = {"tol": [], "exact": []}
    for name in times:
        dbt.run(f"{name}__ranges+")  # first run: leaves grouped (no earlier result)
    for _ in range(args.reps):
        for name in times:
            timed(times[name], lambda name=name: dbt.run(f"{name}__ranges+"))
        assert summary("tol")["is_identical"] and summary("tol")["rows_modified"] == 0
        assert summary("exact")["rows_modified"] == moved
    med = {k: statistics.median(v) for k, v in times.items()}
    units = {k: summary(k)["units_mismatched"] for k in times}
    lines = [
        f"# Tolerance: {args.rows:,} rows, 1% moved by {args.shift} within abs {args.tolerance}",
        "",
        f"Machine: {platform.machine()}, {_cores()} cores; {args.reps} reps after one untimed run.",
        "",
        "| pair | median s | ratio to exact | compare units | result |",
        "|---|---|---|---|---|",
        f"| tolerance | {med['tol']:.1f} | {med['tol'] / med['exact']:.2f}x | {units['tol']} | "
        "identical |",
        f"| no tolerance | {med['exact']:.1f} | 1.00x | {units['exact']} | {moved:,} modified |",
        "",
        "All times: " + ", ".join(f"{k} {[round(t, 1) for t in v]}" for k, v in times.items()),
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"tolerance_{args.rows}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")


def fresh_source(args) -> tuple:
    """A new session under ``args.home`` and the source table ``src`` of ``args.rows`` rows (a
    key, a double ``amount``, a decimal, a string): (spark, its conf, the rows' SQL)."""
    shutil.rmtree(args.home, ignore_errors=True)
    conf = spark_conf(args.home, args.driver_memory)
    spark = start_spark(conf)
    spark.sql(f"create database if not exists {SCHEMA}")
    rows = (
        "select id, id * 0.001234567d as amount, cast(id % 100000 as decimal(12, 2)) as price, "
        f"concat('name-', id) as s from range({args.rows})"
    )
    spark.sql(f"create table {SCHEMA}.src using parquet as {rows}")
    return spark, conf, rows


def _cores() -> int:
    return os.cpu_count() or 0


if __name__ == "__main__":
    main()
