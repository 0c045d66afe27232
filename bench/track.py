"""The changes track on the benchmark (ADR 0019, 0022): a replica checked after each change.

One SparkSession. Source and target: the same ``--rows`` rows (a key and six typed columns).

- Append (the default): ``--files`` parquet files in key order, a table that is appended to;
  before each rep ``--append`` rows with new keys are appended to the target as one new file.
- Partitions (``--partitions N``, the daily reload ADR 0019 was written for): a table
  partitioned by day, N days of consecutive keys (one file each), as ``--format`` parquet or
  delta; before each rep ``--change-partitions`` days of the target are rewritten (Delta:
  ``REPLACE WHERE``; parquet: ``INSERT OVERWRITE ... PARTITION``) with one row in 1000 modified.

A tracked pair is built once (its snapshot run). Then, ``--reps`` times, after the change, four
checks of the same two tables are timed, each checked against the truth so far: the tracked
pair's ``dbt run``, the tracked pair again with nothing changed, the same pair without a track,
and the hand-written full outer join on (key, row hash). Medians and ratios go to
``bench/results/track_<rows>[_<format>_<partitions>p].md``.

    .venv/bin/python bench/track.py --rows 2000000 --files 32 --append 2000
    .venv/bin/python bench/track.py --rows 10000000 --partitions 100 --format delta
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The Delta + Iceberg confs, defined once with the test suite's (tests/python/lakehouse.py).
sys.path.append(str(Path(__file__).resolve().parents[1] / "tests" / "python"))
from lakehouse import lakehouse_conf  # noqa: E402
from pair import REPO, Dbt  # noqa: E402
from peers import join_sql  # noqa: E402
from run import spark_conf, start_spark  # noqa: E402

from dbt_table_diff.scaffold.options import PairOptions  # noqa: E402
from dbt_table_diff.scaffold.pair import write_pair  # noqa: E402

SCHEMA, PAIRS = "bench_track", "bench_track_td"
COLUMNS = ["s", "d", "amount", "n", "flag", "day"]


def rows_sql(first: int, count: int, per_day: int = 0, modified: str = "false") -> str:
    """The bench rows of keys [first, first + count). ``per_day``: consecutive keys per day (the
    partition column), else days cycle; rows where ``modified`` holds get ``n + 1``."""
    day = f"id div {per_day}" if per_day else "id % 2000"
    return (
        "select id, concat('name-', id) as s, id * 0.25d as d, cast(id % 100000 as decimal(12, 2)) "
        f"as amount, cast(if({modified}, id % 97 + 1, id % 97) as int) as n, id % 3 = 0 as flag, "
        f"date_add(date'2020-01-01', cast({day} as int)) as day "
        f"from range({first}, {first + count})"
    )


def write_project(
    root: Path,
    conf: dict[str, str],
    pairs: dict[str, dict] | None = None,
    tables: tuple[str, ...] = ("src", "tgt"),
) -> None:
    """The bench's dbt project: sources `b.<table>` of ``tables`` (`b.src` / `b.tgt`) and one
    scaffolded pair per entry of ``pairs`` (name -> PairOptions fields beyond the key, the sides
    `b.src` / `b.tgt` unless given; default: the tracked pair `trk` and the same pair untracked,
    `full`)."""
    root.mkdir(parents=True, exist_ok=True)
    project = {
        "name": "table_diff_bench_track",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "bench_track",
        "model-paths": ["models"],
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": True},
        "vars": {"table_diff_history": False},
    }
    (root / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    output = {"type": "spark", "method": "session", "host": "localhost", "schema": PAIRS}
    profile = {
        "bench_track": {
            "target": "b",
            "outputs": {"b": {**output, "threads": 1, "server_side_parameters": conf}},
        }
    }
    (root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO)}]}))
    models = root / "models"
    shutil.rmtree(models, ignore_errors=True)
    models.mkdir()
    (models / "_sources.yml").write_text(
        yaml.safe_dump(
            {
                "version": 2,
                "sources": [
                    {"name": "b", "schema": SCHEMA, "tables": [{"name": t} for t in tables]}
                ],
            }
        )
    )
    for name, options in (pairs or {"trk": {"track": True}, "full": {}}).items():
        write_pair(
            PairOptions(
                **{
                    "name": name,
                    "source": "source('b', 'src')",
                    "target": "source('b', 'tgt')",
                    "primary_key": ("id",),
                    **options,
                }
            ),
            models / name,
        )


def timed(into: list[float], run):
    """``run()``, its wall time appended to ``into``; its result."""
    t0 = time.perf_counter()
    result = run()
    into.append(time.perf_counter() - t0)
    return result


def lakehouse_jars() -> str:
    """The Delta and Iceberg jars, fetched once into the project's cache (make lakehouse-jars)."""
    out = subprocess.run(
        [str(REPO / "scripts" / "fetch_lakehouse_jars.sh"), "--print-jars"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=32)
    ap.add_argument("--append", type=int, default=2_000, help="rows appended before each rep")
    ap.add_argument("--partitions", type=int, default=0, help="day partitions (0: append mode)")
    ap.add_argument("--change-partitions", type=int, default=1, help="days rewritten per rep")
    ap.add_argument("--format", choices=["parquet", "delta"], default="parquet")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--home", type=Path, default=REPO / "bench" / ".spark" / "track")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--driver-memory", default="6g")
    args = ap.parse_args()
    partitioned = args.partitions > 0
    if args.format == "delta" and not partitioned:
        ap.error("--format delta needs --partitions")
    per_day = -(-args.rows // args.partitions) if partitioned else 0

    shutil.rmtree(args.home, ignore_errors=True)
    conf = spark_conf(args.home, args.driver_memory)
    if args.format == "delta":
        conf |= lakehouse_conf(args.home, lakehouse_jars())
    spark = start_spark(conf)
    spark.sql(f"create database if not exists {SCHEMA}")
    for table in ("src", "tgt"):
        if partitioned:
            spark.sql(
                f"create table {SCHEMA}.{table} using {args.format} partitioned by (day) as "
                f"select /*+ REPARTITION({args.partitions}, day) */ * "
                f"from ({rows_sql(0, args.rows, per_day)})"
            )
        else:
            spark.sql(
                f"create table {SCHEMA}.{table} using parquet as select /*+ REPARTITION_BY_RANGE("
                f"{args.files}, id) */ * from ({rows_sql(0, args.rows)})"
            )
    write_project(args.home / "project", conf)
    dbt = Dbt(args.home / "project")

    def summary(name: str) -> dict:
        return spark.table(f"{PAIRS}.{name}__summary").first().asDict()

    t0 = time.perf_counter()
    dbt.run("trk__ranges+")
    snapshot_s = time.perf_counter() - t0
    assert summary("trk")["is_identical"]

    def join():
        return spark.sql(join_sql(f"{SCHEMA}.src", f"{SCHEMA}.tgt", ["id"], COLUMNS)).first()

    # Identical sides, nothing written since the last check: the tracked pair against the same
    # pair untracked, once warm (its second run on identical sides takes the quick check).
    dbt.run("full__ranges+")
    identical: dict[str, list[float]] = {"tracked": [], "untracked": [], "join": []}
    identical_models: list[dict[str, float]] = []
    for _ in range(args.reps):
        identical_models.append(timed(identical["tracked"], lambda: dbt.run("trk__ranges+")))
        timed(identical["untracked"], lambda: dbt.run("full__ranges+"))
        joined = timed(identical["join"], join)
        assert summary("trk")["is_identical"] and summary("full")["is_identical"]
        assert (joined["added"], joined["deleted"], joined["modified"]) == (0, 0, 0)
        assert summary("trk")["track_files_hashed_target"] == 0

    times: dict[str, list[float]] = {
        "tracked": [],
        "tracked, unchanged": [],
        "untracked": [],
        "join": [],
    }
    models: list[dict[str, float]] = []
    track_rows: list[dict] = []
    modified = "id % 1000 = 0"

    def changed_days(rep: int) -> list[int]:
        """The days rewritten before rep ``rep``: spread over the table, never one twice."""
        return [
            (rep * args.change_partitions + i) * 7 % args.partitions
            for i in range(args.change_partitions)
        ]

    for rep in range(args.reps):
        if partitioned:
            for d in changed_days(rep):
                new_rows = rows_sql(
                    d * per_day, min(per_day, args.rows - d * per_day), per_day, modified
                )
                day = f"day = '{date(2020, 1, 1) + timedelta(days=d)}'"
                if args.format == "delta":
                    spark.sql(
                        f"insert into {SCHEMA}.tgt replace where {day} "
                        f"select /*+ COALESCE(1) */ * from ({new_rows})"
                    )
                else:
                    spark.sql(
                        f"insert overwrite table {SCHEMA}.tgt partition ({day}) "
                        f"select /*+ COALESCE(1) */ id, s, d, amount, n, flag from ({new_rows})"
                    )
            days = sorted({d for r in range(rep + 1) for d in changed_days(r)})
            in_days = ", ".join(f"date_add(date'2020-01-01', {d})" for d in days)
            truth = f"select count(*) from {SCHEMA}.src where {modified} and day in ({in_days})"
            want = {"rows_modified": spark.sql(truth).first()[0], "rows_added": 0}
        else:
            first = args.rows + rep * args.append
            spark.sql(
                f"insert into {SCHEMA}.tgt select /*+ COALESCE(1) */ * "
                f"from ({rows_sql(first, args.append)})"
            )
            want = {"rows_modified": 0, "rows_added": (rep + 1) * args.append}
        models.append(timed(times["tracked"], lambda: dbt.run("trk__ranges+")))
        track_rows.append(summary("trk"))
        timed(times["tracked, unchanged"], lambda: dbt.run("trk__ranges+"))
        unchanged = summary("trk")
        assert unchanged["track_files_hashed_source"] == unchanged["track_files_hashed_target"] == 0
        timed(times["untracked"], lambda: dbt.run("full__ranges+"))
        joined = timed(times["join"], join)
        for what, n in want.items():
            got = [track_rows[-1][what], unchanged[what], summary("full")[what]]
            got.append(joined["added"] if what == "rows_added" else joined["modified"])
            assert got == [n] * 4, (
                f"rep {rep}: {what} (tracked, unchanged, untracked, join) {got} != {n}"
            )

    med = {k: statistics.median(v) for k, v in times.items()}
    same = {k: statistics.median(v) for k, v in identical.items()}
    same_models = {
        m.split("__", 1)[1]: statistics.median(r[m] for r in identical_models)
        for m in identical_models[0]
    }
    last = track_rows[-1]
    per_model = {m.split("__", 1)[1]: statistics.median(r[m] for r in models) for m in models[0]}
    shape = (
        f"{args.rows:,} rows, {args.format}, {args.partitions} day partitions, "
        f"{args.change_partitions} rewritten per rep (one row in 1000 modified)"
        if partitioned
        else f"{args.rows:,} rows, {args.files} files, +{args.append:,} rows per rep"
    )
    command = (
        f"--rows {args.rows} --partitions {args.partitions} --change-partitions "
        f"{args.change_partitions} --format {args.format}"
        if partitioned
        else f"--rows {args.rows} --files {args.files} --append {args.append}"
    )
    lines = [
        f"# Changes track: re-check after a change ({shape})",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Spark local[*], "
        f"`bench/track.py {command}`. Medians of {args.reps}, one session, "
        "whole `dbt run`s included.",
        "",
        "After the change (`tracked, unchanged`: the tracked pair again, nothing written since). "
        "The drift stays: after rep r the sides differ in r days, and every check fetches their "
        "rows."
        if partitioned
        else "After the append (`tracked, unchanged`: the tracked pair again, nothing written "
        "since):",
        "",
        "| check | median s | vs join | vs untracked |",
        "|---|---|---|---|",
        *(
            f"| {k} | {v:.1f} | {v / med['join']:.2f}x | {v / med['untracked']:.2f}x |"
            for k, v in med.items()
        ),
        "",
        "Identical sides, nothing written since the last check:",
        "",
        "| check | median s | vs join | vs untracked |",
        "|---|---|---|---|",
        *(
            f"| {k} | {v:.1f} | {v / same['join']:.2f}x | {v / same['untracked']:.2f}x |"
            for k, v in same.items()
        ),
        "",
        "Tracked run per model, identical (median s): "
        + ", ".join(f"{m} {s:.1f}" for m, s in same_models.items()),
        "",
        f"Snapshot (first tracked run): {snapshot_s:.1f} s. Last tracked run: target files hashed "
        f"{last['track_files_hashed_target']}, reused {last['track_files_reused_target']}; source "
        f"hashed {last['track_files_hashed_source']}, reused {last['track_files_reused_source']}; "
        f"leaves recomputed {last['track_leaves_recomputed']}, "
        f"reused {last['track_leaves_reused']}.",
        "",
        "Tracked run per model (median s): "
        + ", ".join(f"{m} {s:.1f}" for m, s in per_model.items()),
        "",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = f"_{args.format}_{args.partitions}p" if partitioned else ""
    out = args.out / f"track_{args.rows}{suffix}.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
