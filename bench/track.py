"""The changes track on the benchmark (ADR 0019): a replica checked after each append.

One SparkSession. Source and target: the same ``--rows`` rows (a key and six typed columns) in
``--files`` parquet files in key order, as a table that is appended to. A tracked pair is built
once (its snapshot run). Then, ``--reps`` times: ``--append`` rows with new keys are appended to the
target as one new file, and three checks of the same two tables are timed, each with its answer
checked against the rows appended so far: the tracked pair's ``dbt run``, the same pair without a
track, and the hand-written full outer join on (key, row hash). Medians and ratios go to
``bench/results/track_<rows>.md``.

    .venv/bin/python bench/track.py --rows 2000000 --files 32 --append 2000
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair import REPO, Dbt  # noqa: E402
from peers import join_sql  # noqa: E402
from run import spark_conf, start_spark  # noqa: E402

from dbt_table_diff.scaffold import PairOptions, write_pair  # noqa: E402

SCHEMA, PAIRS = "bench_track", "bench_track_td"
COLUMNS = ["s", "d", "amount", "day", "n", "flag"]


def rows_sql(first: int, count: int) -> str:
    return (
        "select id, concat('name-', id) as s, id * 0.25d as d, cast(id % 100000 as decimal(12, 2)) "
        "as amount, date_add(date'2020-01-01', cast(id % 2000 as int)) as day, "
        "cast(id % 97 as int) as n, id % 3 = 0 as flag "
        f"from range({first}, {first + count})"
    )


def write_project(root: Path, conf: dict[str, str]) -> None:
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
                    {"name": "b", "schema": SCHEMA, "tables": [{"name": "src"}, {"name": "tgt"}]}
                ],
            }
        )
    )
    for name, track in (("trk", True), ("full", None)):
        write_pair(
            PairOptions(
                name=name,
                source="source('b', 'src')",
                target="source('b', 'tgt')",
                primary_key=("id",),
                track=track,
            ),
            models / name,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=32)
    ap.add_argument("--append", type=int, default=2_000, help="rows appended before each rep")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--home", type=Path, default=REPO / "bench" / ".spark" / "track")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--driver-memory", default="6g")
    args = ap.parse_args()

    shutil.rmtree(args.home, ignore_errors=True)
    conf = spark_conf(args.home, args.driver_memory)
    spark = start_spark(conf)
    spark.sql(f"create database if not exists {SCHEMA}")
    for table in ("src", "tgt"):
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

    times: dict[str, list[float]] = {"tracked": [], "untracked": [], "join": []}
    models: list[dict[str, float]] = []
    track_rows: list[dict] = []
    for rep in range(args.reps):
        first = args.rows + rep * args.append
        spark.sql(
            f"insert into {SCHEMA}.tgt select /*+ COALESCE(1) */ * "
            f"from ({rows_sql(first, args.append)})"
        )
        added = (rep + 1) * args.append
        t0 = time.perf_counter()
        models.append(dbt.run("trk__ranges+"))
        times["tracked"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        dbt.run("full__ranges+")
        times["untracked"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        joined = spark.sql(join_sql(f"{SCHEMA}.src", f"{SCHEMA}.tgt", ["id"], COLUMNS)).first()
        times["join"].append(time.perf_counter() - t0)
        got = [summary("trk")["rows_added"], summary("full")["rows_added"], joined["added"]]
        assert got == [added] * 3, (
            f"rep {rep}: rows added (tracked, untracked, join) {got} != {added}"
        )
        track_rows.append(summary("trk"))

    med = {k: statistics.median(v) for k, v in times.items()}
    last = track_rows[-1]
    per_model = {m.split("__", 1)[1]: statistics.median(r[m] for r in models) for m in models[0]}
    lines = [
        f"# Changes track: re-check after an append ({args.rows:,} rows, {args.files} files, "
        f"+{args.append:,} rows per rep)",
        "",
        f"Machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Spark local[*], "
        f"`bench/track.py --rows {args.rows} --files {args.files} --append {args.append}`. "
        f"Medians of {args.reps}, one session, whole `dbt run`s included.",
        "",
        "| check | median s | vs join | vs untracked |",
        "|---|---|---|---|",
        *(
            f"| {k} | {v:.1f} | {v / med['join']:.2f}x | {v / med['untracked']:.2f}x |"
            for k, v in med.items()
        ),
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
    out = args.out / f"track_{args.rows}.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
