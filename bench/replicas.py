"""One source, three replicas (ADR 0028): the replica set against three separate pairs.

One SparkSession. Source: ``--rows`` rows (a key, a double, a decimal, a string). Replicas
``r1`` and ``r2``: copies of it; ``r3``: ``amount`` changed on every 1000th key (0.1% drifted).
Two ways to check the three, built by one dbt invocation each: the replica set ``rs`` (the
source read once for its signatures, each replica once) and three pairs ``p_r1``, ``p_r2``,
``p_r3`` (the source read three times). Each runs ``--reps`` times after a first, untimed run (so
``quick_check: auto`` takes its steady path: the drifted replica keeps the set, and its own pair,
on the leaf pass; the identical pairs take the quick check). Medians go to
``bench/results/replicas_<rows>.md``.

    .venv/bin/python bench/replicas.py --rows 1000000
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair import REPO, Dbt  # noqa: E402
from tolerance import _cores, fresh_source  # noqa: E402
from track import PAIRS, SCHEMA, timed, write_project  # noqa: E402

REPLICAS = ("r1", "r2", "r3")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--home", type=Path, default=REPO / "bench" / ".spark" / "replicas")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--driver-memory", default="4g")
    args = ap.parse_args()

    spark, conf, rows = fresh_source(args)
    for r in REPLICAS:
        amount = "if(id % 1000 = 0, amount + 1, amount)" if r == "r3" else "amount"
        spark.sql(
            f"create table {SCHEMA}.{r} using parquet as select id, {amount} as amount, price, s "
            f"from ({rows})"
        )
    targets = {r: f"source('b', '{r}')" for r in REPLICAS}
    pairs = {"rs": {"target": targets["r1"], "replicas": tuple(targets.values())}}
    pairs.update({f"p_{r}": {"target": t} for r, t in targets.items()})
    write_project(args.home / "project", conf, pairs, tables=("src", *REPLICAS))
    dbt = Dbt(args.home / "project")
    drifted = args.rows // 1000 + (1 if args.rows % 1000 else 0)
    ways = {
        "replica set": "rs__ranges+",
        "three pairs": " ".join(f"p_{r}__ranges+" for r in REPLICAS),
    }

    def modified() -> dict[str, int]:
        got = spark.table(f"{PAIRS}.rs__summary").select("target_name", "rows_modified")
        return {r["target_name"]: r["rows_modified"] for r in got.collect()}

    times: dict[str, list[float]] = {w: [] for w in ways}
    for select in ways.values():
        dbt.run(select)  # first run: leaves grouped (no earlier result)
    for _ in range(args.reps):
        for way, select in ways.items():
            timed(times[way], lambda select=select: dbt.run(select))
        assert modified() == {"r1": 0, "r2": 0, "r3": drifted}, modified()
        for r in REPLICAS:
            pair = spark.table(f"{PAIRS}.p_{r}__summary").first()["rows_modified"]
            assert pair == modified()[r], (r, pair)
    med = {k: statistics.median(v) for k, v in times.items()}
    lines = [
        f"# One source, three replicas: {args.rows:,} rows, one replica with 0.1% drifted",
        "",
        f"Machine: {platform.machine()}, {_cores()} cores; {args.reps} reps after one untimed run,"
        " one dbt invocation per way.",
        "",
        "| way | median s | ratio to three pairs | signature reads of the source |",
        "|---|---|---|---|",
        f"| replica set (rs) | {med['replica set']:.1f} | "
        f"{med['replica set'] / med['three pairs']:.2f}x | 1 |",
        f"| three pairs | {med['three pairs']:.1f} | 1.00x | 3 |",
        "",
        "All times: " + ", ".join(f"{k} {[round(t, 1) for t in v]}" for k, v in times.items()),
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"replicas_{args.rows}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
