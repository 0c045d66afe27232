#!/usr/bin/env python3
"""table_diff benchmark: the diff pipeline against a one-pass floor, a hand-written join and others.

    .venv/bin/python bench/run.py --rows 1000000,10000000 --k 0,100,1% --reps 3

For each row count, one child process (one JVM, one SparkSession, its own Derby metastore under
bench/.spark/<rows>) generates the tables (bench/generate.py) and times, interleaved over the
repetitions and rotating the order:

* ``floor``: one pass over each table: count + overflow-safe sum of a 64-bit row hash with a NULL
  mask (the least any diff must do: read and hash every row of both sides once);
* ``join``: hand-written full outer join on (key, row hash), counting added / deleted / modified;
* ``hash_buckets``: the classic one-level scheme: per side, count + hash sums per hash bucket of the
  key (B = 65536), then a full second scan of both tables restricted (broadcast semi join) to the
  buckets whose signatures differ, joined as ``join`` does;
* ``spark_extension`` (G-Research spark-extension ``diff``, counted per action), ``except_all``
  (``exceptAll`` both ways) and ``datacompy`` (``SparkSQLCompare`` and the counts of its report):
  the third-party ways to compare two DataFrames. The first and last need bench/requirements.txt
  (``make bench`` installs it) and are off by default; ``--once`` (default: except_all, datacompy)
  times the slow ones in the first repetition only;
* ``table_diff``: ``dbt run`` of a pair written by ``table-diff scaffold pair``, in-process (dbt's
  own models, macros and Python split; the manifest is parsed once, so parse time is not counted,
  everything else dbt does per run is). The per-model split of that time is recorded too.
  ``table_diff_hash``: the same pair with ``strategy: hash``; ``table_diff_quick``: with
  ``quick_check: true``. The default pair's quick check is ``'auto'``: with drift it runs only
  when the pair's last result was identical, so its repetitions on a drifted pair show the
  steady state, and ``table_diff_quick`` the first run after drift appears.
  ``table_diff_no_ranges``: the default pair with the row fetch's key-range predicates off (dbt
  var ``table_diff_key_range_limit: 0``, ADR 0010), for ``--clustered`` or ``--dated`` tables.
  ``table_diff_one_block``: the pair with ``block_count: 1, max_depth: 0``: one signature per side
  and, when they differ, the dense row diff over everything (no block hierarchy).
* ``no_drift``: ``dbt test`` of a ``table_diff.no_drift`` test on the pair (fails with k rows).

``--merge``: every --k is a three-way merge case instead: base (the source table), ``ours`` and
``theirs`` with k changed keys each, a fifth of them changed on both sides in every way Dolt's
cell-wise rules tell apart (``generate.split_merge``). The approaches are then ``floor`` (base
and ours), ``floor3`` (base, ours and theirs), ``join`` and ``table_diff`` (the pair base vs ours),
``join3`` (a hand-written three-way full outer join classifying every key) and ``merge``
(``dbt run`` of the scaffolded merge pipeline up to ``NAME__merge_summary``, per-model seconds
recorded). Each is checked against the generator's exact truth (counts per merge status and
conflict type; the merged table's row count, untimed, after the timed runs).

Every result is checked against the generator's truth (rows per side; added / deleted / modified)
and a wrong answer stops the run. The parent writes ``results.md``, ``results.json`` and
``chart.png`` to ``--out``. Ratios compare approaches of the same child (same session).

``--e2e ROWS:K`` adds whole-process lines: ``dbt build`` of the pair in a fresh process against the
join in a fresh process, both on the tables of that child.

This file is the command line and the orchestration (children, repetitions, checks); the rest is
split by concern: ``generate.py`` the data, ``peers.py`` the other approaches (floor, join, hash
buckets, exceptAll, spark-extension, datacompy), ``pair.py`` table_diff's dbt project and in-process
dbt, ``report.py`` the results tables and the chart.
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
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402
from pair import DATABASE, PAIR_SCHEMA, Dbt, merge_name, pair_name, write_project  # noqa: E402
from peers import (  # noqa: E402
    OPTIONAL,
    datacompy_compare,
    except_all,
    floor_sql,
    hash_buckets,
    join3,
    join_sql,
    spark_extension_diff,
)
from report import (  # noqa: E402
    APPROACHES,
    MERGE_DEFAULT,
    MERGE_ONLY,
    chart,
    median_models,
    report,
)

# ------------------------------------------------------------------------------------------------
# The child: one SparkSession, one row count
# ------------------------------------------------------------------------------------------------


def spark_conf(home: Path, driver_memory: str) -> dict[str, str]:
    return {
        "spark.master": "local[*]",
        "spark.app.name": "table_diff_bench",
        "spark.driver.memory": driver_memory,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        # dbt-spark sets ANSI off in every dbt query; the baselines run under the same setting.
        "spark.sql.ansi.enabled": "false",
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={home / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={home}",
    }


def start_spark(conf: dict[str, str]):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def check(name: str, got: dict[str, int], want: dict[str, int]) -> None:
    if got != want:
        raise AssertionError(f"{name}: wrong result {got}, expected {want}")


def run_child(args: argparse.Namespace, spark=None) -> dict[str, Any]:
    """One row count in one session: generate, time, check; writes raw_<rows>.json. With `spark`
    (a test's session) that session is used and left running."""
    rows = args.child
    home = args.spark_home / str(rows)
    home.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(home, args.driver_memory)
    own_session = spark is None
    if own_session:
        spark = start_spark(conf)
    layout = generate.Layout.from_args(args)
    keys, columns = layout.key_columns, layout.columns

    t0 = time.perf_counter()
    pairs = []
    for k_spec in args.k:
        k = generate.parse_k(k_spec, rows)
        if args.merge:
            base, ours, theirs, mtruth = generate.generate_merge(
                spark, DATABASE, rows, k, seed=args.seed, layout=layout
            )
            pairs.append(
                {
                    "name": pair_name(k_spec),
                    "k_spec": k_spec,
                    "source": base,
                    "target": ours,
                    "theirs": theirs,
                    "keys": keys,
                    "truth": mtruth.pair_truth().as_dict(),
                    "merge_truth": mtruth.as_dict(),
                    "want_merge": mtruth.statuses(),
                    "merged_rows": mtruth.merged_rows(),
                    "theirs_rows": mtruth.side_rows("theirs"),
                }
            )
            continue
        src, tgt, truth = generate.generate_pair(
            spark,
            DATABASE,
            rows,
            k,
            seed=args.seed,
            layout=layout,
        )
        pairs.append(
            {
                "name": pair_name(k_spec),
                "k_spec": k_spec,
                "source": src,
                "target": tgt,
                "keys": keys,
                "truth": truth.as_dict(),
            }
        )
    generated_s = time.perf_counter() - t0

    project = home / "project"
    write_project(project, conf, pairs)
    dbt = Dbt(project)

    def run_floor(p: dict[str, Any]) -> dict[str, Any]:
        rows_out = spark.sql(floor_sql(p["source"], p["target"], columns)).collect()
        got = {r["side"]: r["n"] for r in rows_out}
        t = generate.Truth(**p["truth"])
        check("floor", got, {"source": t.source_rows, "target": t.target_rows})
        return {}

    def run_floor3(p: dict[str, Any]) -> dict[str, Any]:
        rows_out = spark.sql(floor_sql(p["source"], p["target"], columns, p["theirs"])).collect()
        t = generate.Truth(**p["truth"])
        check(
            "floor3",
            {r["side"]: r["n"] for r in rows_out},
            {"source": t.source_rows, "target": t.target_rows, "theirs": p["theirs_rows"]},
        )
        return {}

    def want_merge(p: dict[str, Any], unchanged: bool = False) -> dict[str, int]:
        want = {s: n for s, n in p["want_merge"].items() if s != "changed_keys"}
        if unchanged:  # keys of base unchanged on both sides
            cats = p["merge_truth"]["categories"]
            changed_base = sum(n for c, n in cats.items() if c not in generate.NEW_KEY_CATEGORIES)
            want["unchanged"] = rows - changed_base
        return {s: n for s, n in want.items() if n}

    def run_join3(p: dict[str, Any]) -> dict[str, Any]:
        got = join3(spark, p["source"], p["target"], p["theirs"], keys, layout.value_columns)
        check("join3", got, want_merge(p, unchanged=True))
        return {}

    def check_merged(p: dict[str, Any]) -> None:
        """Untimed, after the timed runs: the merged table of the last merge run, its rows."""
        n = spark.table(f"{PAIR_SCHEMA}.{merge_name(p['k_spec'])}__merged").count()
        check("merge (merged rows)", {"merged": n}, {"merged": p["merged_rows"]})

    def run_merge(p: dict[str, Any]) -> dict[str, Any]:
        name = merge_name(p["k_spec"])
        models = dbt.run(f"+{name}__merge_summary")
        s = spark.table(f"{PAIR_SCHEMA}.{name}__merge_summary").first().asDict()
        counts = ("changed_keys", *generate.MERGE_STATUSES, *generate.CONFLICT_TYPES)
        got = {c: s[c] for c in counts}
        got |= {c: s[c] for c in ("duplicate_keys", "schema_conflicts", "constraint_violations")}
        check(
            "merge",
            got,
            {
                **{c: p["want_merge"][c] for c in counts},
                "duplicate_keys": 0,
                "schema_conflicts": 0,
                "constraint_violations": 0,
            },
        )
        return {"models": {m.split("__", 1)[1]: round(v, 3) for m, v in models.items()}}

    def want_rows(p: dict[str, Any]) -> dict[str, int]:
        t = p["truth"]
        return {"added": t["inserted"], "deleted": t["deleted"], "modified": t["modified"]}

    def run_join(p: dict[str, Any]) -> dict[str, Any]:
        r = spark.sql(join_sql(p["source"], p["target"], keys, columns)).first()
        check("join", r.asDict(), want_rows(p))
        return {}

    def run_hash_buckets(p: dict[str, Any]) -> dict[str, Any]:
        got = hash_buckets(spark, p["source"], p["target"], keys, columns)
        check("hash_buckets", got, want_rows(p))
        return {}

    def run_spark_extension(p: dict[str, Any]) -> dict[str, Any]:
        check(
            "spark_extension",
            spark_extension_diff(spark, p["source"], p["target"], keys),
            want_rows(p),
        )
        return {}

    def run_except_all(p: dict[str, Any]) -> dict[str, Any]:
        t = p["truth"]
        check(
            "except_all",
            except_all(spark, p["source"], p["target"]),
            {
                "source_only": t["modified"] + t["deleted"],
                "target_only": t["modified"] + t["inserted"],
            },
        )
        return {}

    def run_datacompy(p: dict[str, Any]) -> dict[str, Any]:
        check("datacompy", datacompy_compare(spark, p["source"], p["target"], keys), want_rows(p))
        return {}

    def run_table_diff(
        p: dict[str, Any], suffix: str = "", dbt_vars: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        models = dbt.run(f"{p['name']}{suffix}__ranges+", dbt_vars)
        s = spark.table(f"{PAIR_SCHEMA}.{p['name']}{suffix}__summary").collect()[0]
        t = generate.Truth(**p["truth"])
        got = {
            k: s[k]
            for k in (
                "rows_source",
                "rows_target",
                "rows_added",
                "rows_deleted",
                "rows_modified",
                "is_identical",
                "is_partial",
            )
        }
        check(
            "table_diff",
            got,
            {
                "rows_source": t.source_rows,
                "rows_target": t.target_rows,
                "rows_added": t.inserted,
                "rows_deleted": t.deleted,
                "rows_modified": t.modified,
                "is_identical": t.k == 0,
                "is_partial": False,
            },
        )
        return {
            "models": {m.split("__", 1)[1]: round(v, 3) for m, v in models.items()},
            "blocks_mismatched": s["blocks_mismatched"],
            "leaves_total": s["leaves_total"],
        }

    def run_no_drift(p: dict[str, Any]) -> dict[str, Any]:
        status, failures = dbt.test(f"no_drift_{p['name']}")
        k = p["truth"]["k"]
        check(
            "no_drift",
            {"status": status, "failures": failures},
            {"status": "pass" if k == 0 else "fail", "failures": k},
        )
        return {}

    runners = {
        "floor": run_floor,
        "join": run_join,
        "hash_buckets": run_hash_buckets,
        "spark_extension": run_spark_extension,
        "except_all": run_except_all,
        "datacompy": run_datacompy,
        "table_diff": run_table_diff,
        "table_diff_hash": lambda p: run_table_diff(p, "_hash"),
        "table_diff_quick": lambda p: run_table_diff(p, "_quick"),
        "table_diff_no_ranges": lambda p: run_table_diff(p, "", {"table_diff_key_range_limit": 0}),
        "table_diff_one_block": lambda p: run_table_diff(p, "_one_block"),
        "no_drift": run_no_drift,
        "floor3": run_floor3,
        "join3": run_join3,
        "merge": run_merge,
    }
    order = [a for a in APPROACHES if a in args.approaches]
    times: dict[tuple[str, str], list[float]] = {}
    extra: dict[tuple[str, str], list[dict[str, Any]]] = {}
    # Warm-up (JIT, dbt's first connection), untimed: every approach once on the first pair, but
    # those timed once (--once: the slow third-party ones), which run after the others warmed up.
    # --no-warmup: none (a single repetition at a size where a warm-up costs too much).
    for a in order:
        if a not in args.once and not args.no_warmup:
            runners[a](pairs[0])
    reps = args.slow_reps if args.slow_rows and rows >= args.slow_rows else args.reps
    for rep in range(reps):
        rotated = order[rep % len(order) :] + order[: rep % len(order)]
        for p in pairs:
            for a in rotated:
                if rep > 0 and a in args.once:
                    continue
                t = time.perf_counter()
                info = runners[a](p)
                times.setdefault((p["k_spec"], a), []).append(time.perf_counter() - t)
                extra.setdefault((p["k_spec"], a), []).append(info)
                print(
                    f"  rows={rows} k={p['k_spec']} {a}: {times[(p['k_spec'], a)][-1]:.2f}s",
                    flush=True,
                )
    if "merge" in order:
        for p in pairs:
            check_merged(p)
    result = {
        "rows": rows,
        "warmup": not args.no_warmup,
        "generated_s": round(generated_s, 1),
        "pairs": [
            {
                "k_spec": p["k_spec"],
                "truth": p["truth"],
                "times": {a: [round(x, 3) for x in times[(p["k_spec"], a)]] for a in order},
                "table_diff": median_models(extra.get((p["k_spec"], "table_diff"), [])),
                **(
                    {
                        "merge_truth": p["merge_truth"],
                        "want_merge": p["want_merge"],
                        "merge": median_models(extra.get((p["k_spec"], "merge"), [])),
                    }
                    if args.merge
                    else {}
                ),
            }
            for p in pairs
        ],
    }
    (args.out / f"raw_{rows}.json").write_text(json.dumps(result, indent=2))
    if own_session:
        spark.stop()
    return result


# ------------------------------------------------------------------------------------------------


# The parent: children, end-to-end lines, report
# ------------------------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SPARK_CONF_DIR", str(REPO / "spark-conf"))
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    return env


def run_e2e(args: argparse.Namespace, rows: int, k_spec: str) -> dict[str, Any]:
    """Whole processes: `dbt build` of the pair vs a python process running the join."""
    home = args.spark_home / str(rows)
    project = home / "project"
    name = pair_name(k_spec)
    k = generate.parse_k(k_spec, rows)
    truth = generate.split_k(rows, k)
    layout = generate.Layout.from_args(args)
    src, tgt = generate.table_names(DATABASE, rows, k, args.seed, layout)
    env = child_env()
    dbt = [
        str(Path(sys.executable).parent / "dbt"),
        "build",
        "--select",
        f"{name}__ranges+",
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(project),
        "--quiet",
    ]
    join = [
        sys.executable,
        str(Path(__file__)),
        "--join-process",
        str(rows),
        "--join-tables",
        src,
        tgt,
        "--spark-home",
        str(args.spark_home),
        "--driver-memory",
        args.driver_memory,
        *layout.cli_flags(),
    ]
    times: dict[str, list[float]] = {"dbt build": [], "join process": []}
    for rep in range(args.e2e_reps):
        order = [("dbt build", dbt), ("join process", join)]
        for label, cmd in order if rep % 2 == 0 else order[::-1]:
            t = time.perf_counter()
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            times[label].append(time.perf_counter() - t)
            if proc.returncode != 0:
                raise RuntimeError(f"{label} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
            if label == "join process":
                got = json.loads(proc.stdout.strip().splitlines()[-1])
                check(
                    "join process",
                    got,
                    {"added": truth.inserted, "deleted": truth.deleted, "modified": truth.modified},
                )
            print(f"  e2e rows={rows} k={k_spec} {label}: {times[label][-1]:.1f}s", flush=True)
    return {"rows": rows, "k_spec": k_spec, "times": times}


def join_process(args: argparse.Namespace) -> None:
    rows = args.join_process
    spark = start_spark(spark_conf(args.spark_home / str(rows), args.driver_memory))
    layout = generate.Layout.from_args(args)
    r = spark.sql(join_sql(*args.join_tables, layout.key_columns, layout.columns)).collect()[0]
    print(json.dumps(r.asDict()))


def _approaches(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [a for a in names if a not in APPROACHES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown approach {unknown}; known: {', '.join(APPROACHES)}"
        )
    return names


def require_optional(approaches: list[str]) -> None:
    """Fail before any data is generated when a third-party baseline is not installed."""
    import importlib

    for a in approaches:
        if a in OPTIONAL:
            try:
                importlib.import_module(OPTIONAL[a])
            except ImportError as e:
                raise SystemExit(
                    f"bench/run.py: approach {a!r} needs {OPTIONAL[a]!r} ({e}). Install the "
                    "benchmark's pins: .venv/bin/pip install -r bench/requirements.txt "
                    "(or make bench), or leave it out of --approaches."
                ) from e


def parse_rows(text: str) -> list[int]:
    return [int(float(x)) for x in text.split(",") if x.strip()]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=parse_rows, default=[1_000_000])
    ap.add_argument(
        "--k", type=lambda s: [x.strip() for x in s.split(",")], default=["0", "100", "1%"]
    )
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--slow-rows", type=int, help="from this many rows on, use --slow-reps")
    ap.add_argument("--slow-reps", type=int, default=1)
    ap.add_argument("--no-chart", action="store_true", help="skip chart.png (needs matplotlib)")
    ap.add_argument(
        "--approaches",
        type=_approaches,
        help=f"comma-separated, of {','.join(APPROACHES)}; default: all but "
        f"{','.join((*OPTIONAL, *MERGE_ONLY))}, or with --merge {','.join(MERGE_DEFAULT)}",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="each --k is a three-way merge case: base, ours and theirs with k changed keys each",
    )
    ap.add_argument(
        "--once",
        type=_approaches,
        default=["except_all", "datacompy"],
        help="approaches timed in the first repetition only, without warm-up (slow ones)",
    )
    ap.add_argument(
        "--no-warmup",
        action="store_true",
        help="skip the untimed warm-up run of every approach (large sizes, one repetition)",
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--composite", action="store_true", help="key (region string, seq bigint)")
    ap.add_argument("--partitioned", action="store_true", help="tables partitioned by `part`")
    ap.add_argument(
        "--clustered",
        action="store_true",
        help="tables stored in key order, the k differences among the highest keys",
    )
    ap.add_argument(
        "--dated",
        action="store_true",
        help="key (day date, seq bigint), partitioned by day, the differences in the newest days",
    )
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("--e2e", action="append", default=[], metavar="ROWS:K")
    ap.add_argument("--e2e-reps", type=int, default=2)
    ap.add_argument("--out", type=Path, default=BENCH / "results")
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--join-process", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--join-tables", nargs=2, help=argparse.SUPPRESS)
    return ap


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line, with the default approaches of the case (pair or --merge) filled in."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.approaches is None:
        args.approaches = (
            list(MERGE_DEFAULT)
            if args.merge
            else [a for a in APPROACHES if a not in OPTIONAL and a not in MERGE_ONLY]
        )
    if not args.merge and set(args.approaches) & set(MERGE_ONLY):
        parser.error(f"approaches {','.join(MERGE_ONLY)} need --merge")
    if args.merge and (args.e2e or set(args.approaches) - set(MERGE_DEFAULT)):
        parser.error(f"--merge times {','.join(MERGE_DEFAULT)} only (and no --e2e)")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    args.argv = ["bench/run.py", *argv]
    args.out.mkdir(parents=True, exist_ok=True)
    require_optional(args.approaches)
    if args.join_process:
        join_process(args)
        return 0
    if args.child:
        run_child(args)
        return 0
    results = []
    for rows in args.rows:
        cmd = [sys.executable, str(Path(__file__)), *argv, "--child", str(rows)]
        print(f"rows={rows:,}: one child process", flush=True)
        subprocess.run(cmd, env=child_env(), check=True)
        results.append(json.loads((args.out / f"raw_{rows}.json").read_text()))
    e2e = []
    for spec in args.e2e:
        rows_s, k_spec = spec.split(":", 1)
        e2e.append(run_e2e(args, int(float(rows_s)), k_spec))
    (args.out / "results.json").write_text(json.dumps({"results": results, "e2e": e2e}, indent=2))
    text = report(args, results, e2e)
    (args.out / "results.md").write_text(text)
    if not args.no_chart and not args.merge:
        chart(results, args.out / "chart.png")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
