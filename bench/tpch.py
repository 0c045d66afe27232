#!/usr/bin/env python3
"""TPC-H lineitem: table_diff against the hand-written join and spark-extension on data nobody here
generated, the way a new user would (ADR 0020, ADR 0030).

    .venv/bin/python bench/tpch.py --sf 1 --drift 0,0.01%,0.1%,1% --reps 3 --e2e-reps 3

The source is TPC-H ``lineitem`` as ``tpchgen-cli`` writes it (bench/requirements.txt; scale
factor 1 = 6M rows, 16 columns: composite key ``(l_orderkey, l_linenumber)``, decimals, dates,
strings), kept as the generator's file. Each target is that table rewritten as 10 files in random
order, with a share of its rows changed, scattered over the key space: each row is chosen when a
hash of its key falls under the share, and a chosen row is, by the same hash, modified
(``l_quantity + 1``), deleted, or duplicated under a new key (``l_linenumber + 10``: an insert next
to its order's lines). The truth is counted from the source, independently of every approach, and
every answer is checked against it.

In one SparkSession (one child process, its own Derby metastore under bench/.spark/tpch_sf<N>),
interleaved over the repetitions with the order rotating:

* ``join``: the hand-written full outer join on (key, row hash), counting (bench/peers.py);
* ``spark_extension``: G-Research spark-extension's ``diff``, counted per action;
* ``table_diff``: ``dbt run`` of the pair ``table-diff scaffold pair`` writes, in-process, with
  the seconds of each model;
* ``no_drift``: ``dbt test`` of a ``no_drift`` test on the target.

``--e2e-reps N`` then times whole processes, as a user would, with the order rotating:
``dbt build`` of the pair, and a Python process running the join or spark-extension's diff.
Rows per second per core are (source rows + target rows) / median seconds / cores. The report is
written to ``--out`` (tpch_sf<N>.md and .json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from generate import tables_in  # noqa: E402
from model_profile import latest_event_log, model_profile, node_phases, profile_table  # noqa: E402
from pair import PAIR_SCHEMA, VARIANTS, Dbt, write_project  # noqa: E402
from peers import join_sql, spark_extension_diff  # noqa: E402
from report import machine  # noqa: E402
from run import check, child_env, spark_conf, start_spark  # noqa: E402

DATABASE = "bench"  # pair.write_project declares its tables as sources of this schema
KEYS = ["l_orderkey", "l_linenumber"]
SEED = 7
TARGET_FILES = 10
# table_diff and its variants (bench/pair.py VARIANTS: table_diff_hash, _quick, _one_block)
# table_diff_full_rows, no_drift_full_rows: the pair and the test with the dense row diff's narrow
# pass off (dbt var table_diff_dense_leaf_share: 2, the default before ADR 0033): one full-row
# join of the mismatched leaves, two reads at most.
# table_diff_before: the pair as planned before ADR 0030 (10000-row units, the leaves always looked
# up in the row fetch: var table_diff_whole_fetch_leaf_share 2), against the default (ADR 0030).
IN_SESSION = (
    "join",
    "spark_extension",
    *(f"table_diff{suffix}" for suffix in VARIANTS),
    "table_diff_full_rows",
    "table_diff_before",
    "no_drift",
    "no_drift_full_rows",
)
E2E = ("dbt build", "join process", "spark_extension process")
# With the approach no_drift: its `dbt test` as a whole process too (a failing test exits 1).
E2E_NO_DRIFT = "dbt test no_drift"


def parse_share(spec: str) -> float:
    share = float(spec.rstrip("%")) / (100 if spec.endswith("%") else 1)
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"drift {spec!r} must be a share of rows, 0 to 100%")
    return share


def pair_name(spec: str) -> str:
    return "tpch_" + spec.replace("%", "pct").replace(".", "_")


def generate_lineitem(sf: float) -> Path:
    """lineitem at scale factor `sf` as one parquet file, written once (bench/.tpch/sf<N>)."""
    out = BENCH / ".tpch" / f"sf{sf:g}"
    path = out / "lineitem.parquet"
    if not path.exists():
        cli = Path(sys.executable).parent / "tpchgen-cli"
        if not cli.exists():
            raise SystemExit(
                "bench/tpch.py needs tpchgen-cli: .venv/bin/pip install -r bench/requirements.txt"
            )
        out.mkdir(parents=True, exist_ok=True)
        cmd = [str(cli), "parquet", "-s", f"{sf:g}", "--tables=lineitem", f"--output-dir={out}"]
        subprocess.run(cmd, check=True)
    return path


def drift_columns(share: float) -> tuple[str, str]:
    """The chosen-row predicate and the row's action (0 modify, 1 delete, 2 insert)."""
    u = f"pmod(xxhash64({SEED}, 'drift', {', '.join(KEYS)}), 1000000)"
    return f"{u} < {round(share * 1_000_000)}", f"pmod({u}, 3)"


def make_tables(spark, sf: float, specs: list[str]) -> list[dict[str, Any]]:
    """The source table and one target per drift share, with their truths (created once)."""
    from pyspark.sql.functions import expr

    spark.sql(f"create database if not exists {DATABASE}")
    existing = tables_in(spark, DATABASE)
    tag = f"sf{sf:g}".replace(".", "_")
    src = f"{DATABASE}.lineitem_{tag}"
    if src.split(".")[1] not in existing:
        spark.read.parquet(str(generate_lineitem(sf))).write.format("parquet").saveAsTable(src)
    columns = spark.table(src).columns
    quantity_type = spark.table(src).schema["l_quantity"].dataType.simpleString()
    rows = spark.table(src).count()
    pairs = []
    for spec in specs:
        share = parse_share(spec)
        chosen, action = drift_columns(share)
        tgt = f"{src}_{pair_name(spec)}"
        if tgt.split(".")[1] not in existing:
            cols = ", ".join(
                f"cast(l_quantity + 1 as {quantity_type}) as l_quantity" if c == "l_quantity" else c
                for c in columns
            )
            inserted = ", ".join(
                "l_linenumber + 10 as l_linenumber" if c == "l_linenumber" else c for c in columns
            )
            keys = ", ".join(KEYS)
            rows_of = spark.sql(
                f"""
                select * from {src} where not ({chosen})
                union all select {cols} from {src} where {chosen} and {action} = 0
                union all select * from {src} where {chosen} and {action} = 2
                union all select {inserted} from {src} where {chosen} and {action} = 2"""
            )
            # A number of partitions is never coalesced by adaptive execution: TARGET_FILES files.
            rows_of.repartition(
                TARGET_FILES, expr(f"xxhash64({SEED}, 'file', {keys})")
            ).sortWithinPartitions(expr(f"xxhash64({SEED}, 'order', {keys})")).write.format(
                "parquet"
            ).saveAsTable(tgt)
        counts = spark.sql(
            f"select {action} as a, count(*) as n from {src} where {chosen} group by 1"
        ).collect()
        by = {r["a"]: r["n"] for r in counts}
        truth = {"modified": by.get(0, 0), "deleted": by.get(1, 0), "inserted": by.get(2, 0)}
        pairs.append(
            {
                "name": pair_name(spec),
                "spec": spec,
                "source": src,
                "target": tgt,
                "keys": KEYS,
                "columns": columns,
                "rows_source": rows,
                "rows_target": rows - truth["deleted"] + truth["inserted"],
                # write_project sizes max_diff_rows from truth["k"]: never truncate.
                "truth": {**truth, "k": sum(truth.values())},
            }
        )
    return pairs


def want(p: dict[str, Any]) -> dict[str, int]:
    return {k: p["truth"][k] for k in ("modified", "deleted", "inserted")}


def counted(added: int, deleted: int, modified: int) -> dict[str, int]:
    return {"modified": modified, "deleted": deleted, "inserted": added}


def run_session(args: argparse.Namespace) -> dict[str, Any]:
    """Generate, then time the in-session approaches; writes the child's JSON."""
    home = args.spark_home / f"tpch_sf{args.sf:g}"
    home.mkdir(parents=True, exist_ok=True)
    conf = spark_conf(home, args.driver_memory)
    spark = start_spark(conf)
    pairs = make_tables(spark, args.sf, args.drift)
    project = home / "project"
    write_project(project, conf, pairs)
    dbt = Dbt(project)

    def run_join(p):
        r = spark.sql(join_sql(p["source"], p["target"], KEYS, p["columns"])).first()
        check("join", counted(r["added"], r["deleted"], r["modified"]), want(p))
        return {}

    def run_spark_extension(p):
        r = spark_extension_diff(spark, p["source"], p["target"], KEYS)
        check("spark_extension", counted(r["added"], r["deleted"], r["modified"]), want(p))
        return {}

    def run_table_diff(p, suffix="", dbt_vars=None):
        if args.first_check:
            # 'auto' decides from the pair's last block_hashes (ADR 0031): without one, every run
            # is a first check (keys sampled, leaves grouped), whatever the run before it found.
            spark.sql(f"drop table if exists {PAIR_SCHEMA}.{p['name']}{suffix}__block_hashes")
        models = dbt.run(
            f"{p['name']}{suffix}__ranges+", {**(args.dbt_vars or {}), **(dbt_vars or {})}
        )
        s = spark.table(f"{PAIR_SCHEMA}.{p['name']}{suffix}__summary").first()
        got = counted(s["rows_added"], s["rows_deleted"], s["rows_modified"])
        check("table_diff", got, want(p))
        check("table_diff partial", {"is_partial": s["is_partial"]}, {"is_partial": False})
        return {
            "models": {m.split("__", 1)[1]: round(v, 3) for m, v in models.items()},
            "leaves_total": s["leaves_total"],
            "blocks_mismatched": s["blocks_mismatched"],
        }

    def run_no_drift(p, dbt_vars=None):
        status, failures = dbt.test(
            f"no_drift_{p['name']}", {**(args.dbt_vars or {}), **(dbt_vars or {})}
        )
        k = p["truth"]["k"]
        check("no_drift", {"status": status}, {"status": "pass" if k == 0 else "fail"})
        return {}

    runners = {
        "join": run_join,
        "spark_extension": run_spark_extension,
        **{f"table_diff{x}": (lambda p, x=x: run_table_diff(p, x)) for x in VARIANTS},
        "table_diff_full_rows": lambda p: run_table_diff(p, "", {"table_diff_dense_leaf_share": 2}),
        "table_diff_before": lambda p: run_table_diff(
            p, "_unit_10000", {"table_diff_whole_fetch_leaf_share": 2}
        ),
        "no_drift": run_no_drift,
        "no_drift_full_rows": lambda p: run_no_drift(p, {"table_diff_dense_leaf_share": 2}),
    }
    order = [a for a in IN_SESSION if a in args.approaches]
    for a in order:  # warm-up, untimed
        runners[a](pairs[0])
    times: dict[str, dict[str, list[float]]] = {p["spec"]: {} for p in pairs}
    models: dict[str, list[dict[str, Any]]] = {p["spec"]: [] for p in pairs}
    for rep in range(args.reps):
        rotated = order[rep % len(order) :] + order[: rep % len(order)]
        for p in pairs:
            for a in rotated:
                t = time.perf_counter()
                info = runners[a](p)
                times[p["spec"]].setdefault(a, []).append(round(time.perf_counter() - t, 3))
                if a == "table_diff":
                    models[p["spec"]].append(info)
                if info.get("models"):
                    print(f"    {info}")
                print(f"  sf={args.sf:g} drift={p['spec']} {a}: {times[p['spec']][a][-1]:.1f}s")
    spark.stop()
    return {"pairs": pairs, "times": times, "models": models}


def run_process(args: argparse.Namespace) -> None:
    """One baseline as a whole process: prints its counts as JSON."""
    home = args.spark_home / f"tpch_sf{args.sf:g}"
    spark = start_spark(spark_conf(home, args.driver_memory))
    src, tgt = args.tables
    if args.process == "join":
        cols = spark.table(src).columns
        r = spark.sql(join_sql(src, tgt, KEYS, cols)).first().asDict()
    else:
        r = spark_extension_diff(spark, src, tgt, KEYS)
    print(json.dumps(counted(r["added"], r["deleted"], r["modified"])))


def _profiles_with_event_log(project: Path, log_dir: Path) -> Path:
    """A copy of the project's profiles.yml whose session writes Spark's event log to log_dir
    (``--profile``): the folder holding it."""
    import yaml

    profiles = yaml.safe_load((project / "profiles.yml").read_text())
    for output in profiles["table_diff_bench"]["outputs"].values():
        output["server_side_parameters"] = {
            **output["server_side_parameters"],
            "spark.eventLog.enabled": "true",
            "spark.eventLog.dir": str(log_dir),
            # One plain JSON-lines file per application (Spark 4 rolls and compresses by default).
            "spark.eventLog.rolling.enabled": "false",
            "spark.eventLog.compress": "false",
        }
    folder = log_dir.parent / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profiles.yml").write_text(yaml.safe_dump(profiles, sort_keys=False))
    return folder


def run_e2e(args: argparse.Namespace, p: dict[str, Any]) -> dict[str, list[Any]]:
    """Whole processes on one pair: dbt build vs the join and spark-extension as processes. Each
    build's seconds per model come from its run_results.json; with ``--profile``, each build also
    writes Spark's event log, and the last build's per-model profile is kept
    (bench/model_profile.py)."""
    project = args.spark_home / f"tpch_sf{args.sf:g}" / "project"
    profiles_dir = project
    if args.profile:
        log_dir = args.spark_home / f"tpch_sf{args.sf:g}" / "eventlog" / p["name"]
        shutil.rmtree(log_dir, ignore_errors=True)
        log_dir.mkdir(parents=True)
        profiles_dir = _profiles_with_event_log(project, log_dir)
    common = ["--project-dir", str(project), "--profiles-dir", str(profiles_dir), "--quiet"]
    dbt = [str(Path(sys.executable).parent / "dbt"), "build", "--select", f"{p['name']}__ranges+"]
    vars_ = ["--vars", json.dumps(args.dbt_vars)] if args.dbt_vars else []

    def process(kind: str) -> list[str]:
        return [
            sys.executable,
            str(Path(__file__)),
            "--sf",
            f"{args.sf:g}",
            "--spark-home",
            str(args.spark_home),
            "--driver-memory",
            args.driver_memory,
            "--process",
            kind,
            "--tables",
            p["source"],
            p["target"],
        ]

    cmds = {
        "dbt build": dbt + common + vars_,
        "join process": process("join"),
        "spark_extension process": process("spark_extension"),
    }
    labels = list(E2E)
    if "no_drift" in args.approaches:
        test = [dbt[0], "test", "--select", f"no_drift_{p['name']}"]
        cmds[E2E_NO_DRIFT] = test + common + vars_
        labels.append(E2E_NO_DRIFT)
    times: dict[str, list[float]] = {}
    for rep in range(args.e2e_reps):
        order = labels[rep % len(labels) :] + labels[: rep % len(labels)]
        for label in order:
            t = time.perf_counter()
            proc = subprocess.run(cmds[label], env=child_env(), capture_output=True, text=True)
            times.setdefault(label, []).append(round(time.perf_counter() - t, 3))
            if label == E2E_NO_DRIFT:
                # dbt exits 1 when the test fails, as it must with drift: its status decides.
                results = json.loads((project / "target" / "run_results.json").read_text())
                tests = [r for r in results["results"] if r["unique_id"].startswith("test.")]
                status = tests[0]["status"] if len(tests) == 1 else proc.returncode
                want_status = "pass" if p["truth"]["k"] == 0 else "fail"
                check(label, {"status": status}, {"status": want_status})
            elif proc.returncode != 0:
                raise RuntimeError(f"{label} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
            elif label != "dbt build":
                check(label, json.loads(proc.stdout.strip().splitlines()[-1]), want(p))
            else:
                run_results = project / "target" / "run_results.json"
                models = {n["node"]: n["seconds"] for n in node_phases(run_results)}
                times.setdefault("dbt build models", []).append(models)
                if args.profile:
                    times["dbt build profile"] = model_profile(
                        run_results, latest_event_log(log_dir)
                    )
            print(f"  e2e sf={args.sf:g} drift={p['spec']} {label}: {times[label][-1]:.1f}s")
    return times


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def per_core(times: list[float], rows: int, cores: int) -> str:
    """A report cell: the median seconds, and rows per second per core at that median."""
    seconds = med(times)
    return f"{seconds:.1f} s ({rows / seconds / cores / 1e3:,.0f}k rows/s/core)"


def report(args: argparse.Namespace, session: dict[str, Any], e2e: dict[str, Any]) -> str:
    cores = os.cpu_count() or 1
    lines = [
        f"# TPC-H lineitem, scale factor {args.sf:g}",
        "",
        f"Machine: {machine()}. Command: `{' '.join(args.argv)}`. Medians of {args.reps} "
        f"(in session) and {args.e2e_reps} (whole processes); rows per second per core = "
        f"(source + target rows) / median seconds / {cores} cores.",
        "",
        "## In one session",
        "",
        "| drift | differing rows | " + " | ".join(args.approaches) + " | table_diff / join "
        "| table_diff / spark-extension | table_diff models (median s) |",
        "|---|---:|" + "---:|" * (len(args.approaches) + 2) + "---|",
    ]
    for p in session["pairs"]:
        t = session["times"][p["spec"]]
        rows = p["rows_source"] + p["rows_target"]
        cells = [per_core(t[a], rows, cores) for a in args.approaches]
        ms = session["models"][p["spec"]]
        split = ", ".join(
            f"{m} {med([x['models'][m] for x in ms]):.1f}" for m in (ms[0]["models"] if ms else {})
        )
        ratio = {
            b: f"{med(t['table_diff']) / med(t[b]):.2f}x" if "table_diff" in t and b in t else "-"
            for b in ("join", "spark_extension")
        }
        lines.append(
            f"| {p['spec']} | {p['truth']['k']:,} | {' | '.join(cells)} | {ratio['join']} | "
            f"{ratio['spark_extension']} | {split} |"
        )
    if e2e:
        lines += [
            "",
            "## Whole processes",
            "",
            "| drift | " + " | ".join(E2E) + " | dbt build / join | dbt build / spark-extension "
            "| `no_drift` test | `no_drift` / join | `no_drift` / spark-extension |",
            "|---|" + "---:|" * (len(E2E) + 5),
        ]
        for p in session["pairs"]:
            t = e2e.get(p["spec"])
            if not t:
                continue
            rows = p["rows_source"] + p["rows_target"]
            test = (
                f" | {per_core(t[E2E_NO_DRIFT], rows, cores)}"
                f" | {med(t[E2E_NO_DRIFT]) / med(t['join process']):.2f}x"
                f" | {med(t[E2E_NO_DRIFT]) / med(t['spark_extension process']):.2f}x |"
                if E2E_NO_DRIFT in t
                else " | - | - | - |"
            )
            lines.append(
                f"| {p['spec']} | "
                + " | ".join(per_core(t[x], rows, cores) for x in E2E)
                + f" | {med(t['dbt build']) / med(t['join process']):.2f}x"
                + f" | {med(t['dbt build']) / med(t['spark_extension process']):.2f}x"
                + test
            )
        lines += ["", "### Seconds per model in the whole `dbt build` (medians)", ""]
        for p in session["pairs"]:
            builds = (e2e.get(p["spec"]) or {}).get("dbt build models") or []
            if builds:
                per_model = ", ".join(
                    f"{m.split('__', 1)[-1]} {med([b[m] for b in builds]):.1f}" for m in builds[0]
                )
                walls = e2e[p["spec"]]["dbt build"]
                outside = med([w - sum(b.values()) for w, b in zip(walls, builds, strict=True)])
                lines.append(f"- {p['spec']}: {per_model}; outside the models {outside:.1f}")
        for p in session["pairs"]:
            profile = (e2e.get(p["spec"]) or {}).get("dbt build profile")
            if profile:
                lines += [
                    "",
                    f"### Profile of the last `dbt build` at drift {p['spec']} (Spark's event log)",
                    "",
                    *profile_table(profile),
                ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (1 = 6M rows)")
    ap.add_argument(
        "--drift",
        type=lambda s: [x.strip() for x in s.split(",")],
        default=["0", "0.01%", "0.1%", "1%"],
    )
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--e2e-reps", type=int, default=0, help="whole-process repetitions (0: none)")
    ap.add_argument(
        "--approaches",
        type=lambda s: s.split(","),
        default=["join", "spark_extension", "table_diff", "no_drift"],
    )
    ap.add_argument("--dbt-vars", type=json.loads, default=None, help="JSON: dbt vars of the pair")
    ap.add_argument(
        "--first-check",
        action="store_true",
        help="every pair run is a first check: its last block hashes are dropped before it",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="whole builds write Spark's event log: a per-model profile of rows, bytes and seconds",
    )
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("--out", type=Path, default=BENCH / "results")
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="write the .md again from the results file's .json (the same other arguments); "
        "run nothing",
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--process", choices=("join", "spark_extension"), help=argparse.SUPPRESS)
    ap.add_argument("--tables", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.argv = ["bench/tpch.py", *(a for a in argv if a != "--report-only")]
    unknown = set(args.approaches) - set(IN_SESSION)
    if unknown:
        ap.error(f"unknown approaches {sorted(unknown)}; known: {', '.join(IN_SESSION)}")
    for spec in args.drift:
        parse_share(spec)
    if args.process:
        run_process(args)
        return 0
    raw = args.out / f"tpch_sf{args.sf:g}.json"
    if args.report_only:
        kept = json.loads(raw.read_text())
        e2e = kept.pop("e2e", {})
        (args.out / f"tpch_sf{args.sf:g}.md").write_text(report(args, kept, e2e))
        return 0
    if args.child:
        raw.write_text(json.dumps(run_session(args), indent=2))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, __file__, *argv, "--child"], env=child_env(), check=True)
    session = json.loads(raw.read_text())
    e2e = {p["spec"]: run_e2e(args, p) for p in session["pairs"]} if args.e2e_reps else {}
    raw.write_text(json.dumps({**session, "e2e": e2e}, indent=2))
    text = report(args, session, e2e)
    (args.out / f"tpch_sf{args.sf:g}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
