#!/usr/bin/env python3
"""`table-diff changes` on twenty changed models: one invocation against the same twenty diffs
run one pair at a time (ADR 0042); and the small case, ten small models against Spark's start.

    .venv/bin/python bench/changes.py --sf 0.1 --reps 3
    .venv/bin/python bench/changes.py --sf 0.001 --models 10 --one-only \\
        --max-model-rows 10000 --reps 3

The data is TPC-H at scale factor ``--sf`` as ``tpchgen-cli`` writes it (bench/requirements.txt,
offline; the files under bench/.tpch/sf<N>, as bench/tpch.py keeps them), loaded once as the
tables of one database that a dbt project reads as sources. The project has twenty models derived
from them (``MODELS``): projections, joins and aggregates, sixteen with a key
(``meta: {table_diff: {primary_key: [...]}}``) and four without. ``--models N`` keeps N of them
(``select_models``: each kind in ``MODELS`` order, the two kinds merged so that every N holds
keyed and keyless models in their shares of the twenty: ten are eight with a key, two without).
It is built into a ``prod`` schema (``dbt build --target prod --target-path prod_artifacts``),
then every model is edited (a rounding change, a relabelled value, a filter change or a new
column: a share of its rows differs) and the edit is built into a ``pr`` schema the way CI builds
a pull request (``dbt build --target pr --select state:modified+ --defer --state
prod_artifacts``). All the models are ``modified``; none reads another, so none is pruned. The
build is kept and reused while the scale factor and the chosen models' SQL are the same.
``--max-model-rows R`` then counts every model's rows in prod and pr and stops, naming the model,
if one holds more than R.

Then, as whole processes (subprocess, wall clock), after one untimed warm-up of each kind,
``--reps`` times with the order alternating:

* ``one``: ONE ``table-diff changes --state prod_artifacts --target pr`` process (all the
  models in one ``dbt run-operation table_diff.diff_changes``, results read back, changes.md
  and changes.json written);
* ``pairs``: the same comparisons one pair at a time, each a ``dbt run-operation
  table_diff.diff_changes`` process given a one-model plan: that model's entry of the plan
  ``table-diff changes`` computes (the same relations, key and limits), i.e. the same macro
  doing the same work per model, minus the shared start-up. Summed over the models.

Every per-pair status (``modified`` / ``unchanged``) is checked against the one invocation's
changes.json. The ratio one / sum is the figure (below 1: one invocation costs less).

``--one-only`` is the small case, for the target "`table-diff changes` on ten changed models
under 10,000 rows each: at most 3 s a compared model, the whole command at most 60 s beyond
Spark's start". It times no pairs; against ``one`` it times ``start``, Spark's start: a Python
process (this venv's) that opens the session dbt's ``method: session`` opens for this project
(``SparkSession.builder.enableHiveSupport()``, the profile's ``server_side_parameters``: the same
warehouse and Derby metastore, the same environment as the dbt processes), runs ``show
databases`` and stops. The report gives both medians, the one command's time beyond Spark's start,
the seconds each model took inside the one invocation (its changes.json), the largest model's
rows on either side, and a verdict against each target computed from those figures. At TPC-H
scale factor 0.001 every source table is under 10,000 rows (lineitem 6,005).

Written to ``--out``: changes_sf<N>.md and .json (changes_sf<N>_<M>models.md with ``--models``
below twenty, ``..._one.md`` with ``--one-only``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from run import child_env, spark_conf, start_spark  # noqa: E402
from tpch import generate_lineitem  # noqa: E402

TABLES = ("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region")
SCHEMAS = {"prod": "changes_prod", "pr": "changes_pr"}
PROFILE = "table_diff_changes_bench"  # the project's name and its profile's
L, OR, C, P, PS, S, N, R = (
    f"{{{{ source('tpch', '{t}') }}}}"
    for t in ("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region")
)
NET = "l_extendedprice * (1 - l_discount)"
LI_KEY = ["l_orderkey", "l_linenumber"]

# name: (primary key or None, production SQL, the pull request's SQL)
MODELS: dict[str, tuple[list[str] | None, str, str]] = {
    "lineitem_net": (
        LI_KEY,
        f"select l_orderkey, l_linenumber, l_returnflag, round({NET}, 2) as net_price from {L}",
        f"select l_orderkey, l_linenumber, l_returnflag,\n  case when l_returnflag = 'R' then "
        f"round({NET}, 0) else round({NET}, 2) end as net_price\nfrom {L}",
    ),
    "lineitem_transit": (
        LI_KEY,
        "select l_orderkey, l_linenumber, l_shipmode, datediff(l_receiptdate, l_shipdate) as "
        f"transit_days\nfrom {L} where l_shipmode <> 'MAIL'",
        "select l_orderkey, l_linenumber, l_shipmode, datediff(l_receiptdate, l_shipdate) as "
        f"transit_days\nfrom {L} where l_shipmode not in ('MAIL', 'FOB')",
    ),
    "lineitem_gross": (
        LI_KEY,
        "select l_orderkey, l_linenumber, round(l_extendedprice * (1 + l_tax), 2) as gross\n"
        f"from {L}",
        "select l_orderkey, l_linenumber, round(l_extendedprice * (1 + l_tax), 2) as gross,\n"
        f"  l_tax * 100 as tax_pct\nfrom {L}",
    ),
    "orders_status": (
        ["o_orderkey"],
        f"select o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate from {OR}",
        "select o_orderkey, o_custkey,\n  case when o_orderstatus = 'P' then 'partial' else "
        f"o_orderstatus end as o_orderstatus,\n  o_totalprice, o_orderdate\nfrom {OR}",
    ),
    "orders_recent": (
        ["o_orderkey"],
        f"select o_orderkey, o_orderpriority, o_orderdate from {OR}\n"
        "where o_orderdate >= date'1993-01-01'",
        f"select o_orderkey, o_orderpriority, o_orderdate from {OR}\n"
        "where o_orderdate >= date'1993-03-01'",
    ),
    "orders_fiscal": (
        ["o_orderkey"],
        "select o_orderkey, year(o_orderdate) as fiscal_year, month(o_orderdate) as month\n"
        f"from {OR}",
        "select o_orderkey, year(add_months(o_orderdate, 3)) as fiscal_year, "
        f"month(o_orderdate) as month\nfrom {OR}",
    ),
    "customer_balance": (
        ["c_custkey"],
        f"select c_custkey, c_name, c_mktsegment, c_acctbal from {C}",
        "select c_custkey, c_name, c_mktsegment,\n  case when c_mktsegment = 'BUILDING' then "
        f"round(c_acctbal, 0) else c_acctbal end as c_acctbal\nfrom {C}",
    ),
    "customer_region": (
        ["c_custkey"],
        f"select c.c_custkey, n.n_name, r.r_name\nfrom {C} as c\n"
        f"join {N} as n on c.c_nationkey = n.n_nationkey\n"
        f"join {R} as r on n.n_regionkey = r.r_regionkey",
        "select c.c_custkey,\n  case when r.r_name = 'ASIA' then lower(n.n_name) else n.n_name "
        f"end as n_name,\n  r.r_name\nfrom {C} as c\n"
        f"join {N} as n on c.c_nationkey = n.n_nationkey\n"
        f"join {R} as r on n.n_regionkey = r.r_regionkey",
    ),
    "part_size": (
        ["p_partkey"],
        "select p_partkey, p_brand, p_type, p_size,\n  case when p_size <= 10 then 'small' when "
        f"p_size <= 40 then 'medium' else 'large' end as size_class\nfrom {P}",
        "select p_partkey, p_brand, p_type, p_size,\n  case when p_size <= 10 then 'small' when "
        f"p_size <= 45 then 'medium' else 'large' end as size_class\nfrom {P}",
    ),
    "partsupp_value": (
        ["ps_partkey", "ps_suppkey"],
        "select ps_partkey, ps_suppkey, ps_availqty, ps_supplycost,\n  ps_availqty * "
        f"ps_supplycost as stock_value\nfrom {PS} where ps_availqty > 100",
        "select ps_partkey, ps_suppkey, ps_availqty, ps_supplycost,\n  ps_availqty * "
        f"ps_supplycost as stock_value\nfrom {PS} where ps_availqty > 500",
    ),
    "supplier_nation": (
        ["s_suppkey"],
        f"select s.s_suppkey, s.s_name, n.n_name, s.s_acctbal\nfrom {S} as s\n"
        f"join {N} as n on s.s_nationkey = n.n_nationkey",
        "select s.s_suppkey, s.s_name, n.n_name, s.s_acctbal, substr(s.s_phone, 1, 2) as "
        f"country_code\nfrom {S} as s\njoin {N} as n on s.s_nationkey = n.n_nationkey",
    ),
    "order_revenue": (
        ["l_orderkey"],
        f"select l_orderkey, count(*) as n_lines, round(sum({NET}), 2) as revenue\nfrom {L}\n"
        "group by l_orderkey",
        f"select l_orderkey, count(*) as n_lines, round(sum({NET}), 2) as revenue\nfrom {L}\n"
        "where l_discount < 0.10\ngroup by l_orderkey",
    ),
    "customer_orders": (
        ["o_custkey"],
        "select o_custkey, count(*) as n_orders, sum(o_totalprice) as total\n"
        f"from {OR}\ngroup by o_custkey",
        "select o_custkey, count(*) as n_orders, sum(o_totalprice) as total\n"
        f"from {OR}\nwhere o_orderstatus <> 'P'\ngroup by o_custkey",
    ),
    "part_suppliers": (
        ["ps_partkey"],
        "select ps_partkey, count(*) as n_suppliers, cast(min(ps_supplycost) as double) as "
        f"min_cost\nfrom {PS}\ngroup by ps_partkey",
        "select ps_partkey, count(*) as n_suppliers, cast(round(min(ps_supplycost), 0) as double) "
        f"as min_cost\nfrom {PS}\ngroup by ps_partkey",
    ),
    "nation_revenue": (
        ["n_name"],
        "select n.n_name, count(*) as n_orders, cast(sum(o.o_totalprice) as double) as revenue\n"
        f"from {OR} as o\njoin {C} as c on o.o_custkey = c.c_custkey\n"
        f"join {N} as n on c.c_nationkey = n.n_nationkey\ngroup by n.n_name",
        "select n.n_name, count(*) as n_orders,\n  round(cast(sum(o.o_totalprice) as double), -3) "
        f"as revenue\nfrom {OR} as o\njoin {C} as c on o.o_custkey = c.c_custkey\n"
        f"join {N} as n on c.c_nationkey = n.n_nationkey\ngroup by n.n_name",
    ),
    "shipmode_year": (
        ["l_shipmode", "ship_year"],
        "select l_shipmode, year(l_shipdate) as ship_year, count(*) as n_lines, "
        f"sum(l_quantity) as quantity\nfrom {L}\ngroup by l_shipmode, year(l_shipdate)",
        "select l_shipmode, year(l_shipdate) as ship_year, count(*) as n_lines, "
        f"sum(l_quantity) as quantity\nfrom {L}\nwhere l_quantity > 1\n"
        "group by l_shipmode, year(l_shipdate)",
    ),
    # Keyless: compared as multisets.
    "returned_lines": (
        None,
        f"select l_orderkey, l_partkey, l_quantity from {L} where l_returnflag = 'R'",
        f"select l_orderkey, l_partkey, l_quantity from {L}\n"
        "where l_returnflag = 'R' and l_quantity > 2",
    ),
    "urgent_orders": (
        None,
        f"select o_clerk, o_orderdate, o_totalprice from {OR} where o_orderpriority = '1-URGENT'",
        f"select o_clerk, o_orderdate, o_totalprice from {OR}\n"
        "where o_orderpriority = '1-URGENT' and o_orderstatus <> 'P'",
    ),
    "part_containers": (
        None,
        f"select p_container, p_size, p_retailprice from {P}",
        f"select p_container, p_size, p_retailprice from {P} where p_size > 1",
    ),
    "customer_phones": (
        None,
        f"select substr(c_phone, 1, 2) as country_code, c_mktsegment, c_acctbal from {C}",
        "select substr(c_phone, 1, 2) as country_code, c_mktsegment,\n  case when c_acctbal < 0 "
        f"then 0 else c_acctbal end as c_acctbal\nfrom {C}",
    ),
}
assert len(MODELS) == 20

# The small case's target (--one-only): "`table-diff changes` on ten changed models under 10,000
# rows each: at most 3 s a compared model, the whole command at most 60 s beyond Spark's start".
TARGET_MODELS = 10
TARGET_MODEL_ROWS = 10_000
TARGET_MODEL_SECONDS = 3.0
TARGET_BEYOND_START = 60.0
WORDS = (
    "no one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()


def select_models(n: int) -> list[str]:
    """The first `n` models of one fixed order: each kind (with a key, without) in `MODELS` order,
    the two merged by how far through its own kind a model is (then `MODELS` order), so that the
    first `n` hold each kind in its share of the twenty: ten are eight keyed and two keyless."""
    if not 1 <= n <= len(MODELS):
        raise ValueError(f"--models must be between 1 and {len(MODELS)}, not {n}")
    names = list(MODELS)
    kinds = {
        keyed: [m for m in names if (MODELS[m][0] is not None) == keyed] for keyed in (True, False)
    }

    def place(name: str) -> tuple[float, int]:
        kind = kinds[MODELS[name][0] is not None]
        return (kind.index(name) + 1) / len(kind), names.index(name)

    return sorted(names, key=place)[:n]


def database(sf: float) -> str:
    return f"tpch_sf{sf:g}".replace(".", "_")


def home_of(args: argparse.Namespace) -> Path:
    return args.spark_home / f"changes_sf{args.sf:g}"


def results_stem(args: argparse.Namespace) -> str:
    """The results files' name: changes_sf<N>, then _<M>models when not all twenty, then _one for
    --one-only (so that a small case never overwrites the twenty's results)."""
    stem = f"changes_sf{args.sf:g}"
    if len(args.selected) != len(MODELS):
        stem += f"_{len(args.selected)}models"
    return stem + ("_one" if args.one_only else "")


def in_words(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else str(n)


def generate(sf: float) -> Path:
    """The eight TPC-H tables at `sf`, one parquet file each (bench/.tpch/sf<N>), written once."""
    out = generate_lineitem(sf).parent  # the generator's check and lineitem, as bench/tpch.py
    missing = [t for t in TABLES if not (out / f"{t}.parquet").exists()]
    if missing:
        cli = Path(sys.executable).parent / "tpchgen-cli"
        cmd = [str(cli), "parquet", "-s", f"{sf:g}", f"--tables={','.join(missing)}"]
        subprocess.run([*cmd, f"--output-dir={out}"], check=True)
    return out


def load(args: argparse.Namespace) -> None:
    """Child process: the parquet files as tables of the source database (each once)."""
    spark = start_spark(spark_conf(home_of(args), args.driver_memory))
    db = database(args.sf)
    spark.sql(f"create database if not exists {db}")
    existing = {r["tableName"] for r in spark.sql(f"show tables in {db}").collect()}
    out = generate(args.sf)
    for t in TABLES:
        if t not in existing:
            spark.read.parquet(str(out / f"{t}.parquet")).write.format("parquet").saveAsTable(
                f"{db}.{t}"
            )
    counts = {t: spark.table(f"{db}.{t}").count() for t in TABLES}
    print(json.dumps(counts))
    spark.stop()


def count_rows(args: argparse.Namespace) -> None:
    """Child process: every chosen model's rows in prod and pr, as JSON."""
    spark = start_spark(spark_conf(home_of(args), args.driver_memory))
    rows = {
        name: {side: spark.table(f"{schema}.{name}").count() for side, schema in SCHEMAS.items()}
        for name in args.selected
    }
    print(json.dumps(rows))
    spark.stop()


def child_command(args: argparse.Namespace, flag: str) -> list[str]:
    """This script as a child process (`flag`: --load or --count-rows) on the same data."""
    cmd = [sys.executable, __file__, "--sf", f"{args.sf:g}", "--models", str(len(args.selected))]
    cmd += [flag, "--spark-home", str(args.spark_home), "--driver-memory", args.driver_memory]
    return cmd


def model_rows(args: argparse.Namespace, root: Path) -> dict[str, dict[str, int]]:
    """Every chosen model's rows in prod and pr, counted by a child process once per build (kept
    in the project's .rows.json with the build's stamp)."""
    kept = root / ".rows.json"
    stamp = build_stamp(args)
    if kept.exists() and json.loads(kept.read_text()).get("stamp") == stamp:
        return json.loads(kept.read_text())["rows"]
    proc = subprocess.run(
        child_command(args, "--count-rows"), env=child_env(), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"counting the models' rows failed:\n{proc.stderr[-4000:]}")
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    kept.write_text(json.dumps({"stamp": stamp, "rows": rows}))
    return rows


def check_model_rows(rows: dict[str, dict[str, int]], limit: int) -> str:
    """Stops (SystemExit) naming each model that holds more than `limit` rows on a side; else the
    line that says the largest is within it."""
    over = [
        f"{name} has {n:,} rows in {side} ({SCHEMAS[side]}.{name})"
        for name, sides in rows.items()
        for side, n in sides.items()
        if n > limit
    ]
    if over:
        raise SystemExit(
            f"--max-model-rows {limit:,}: {'; '.join(over)}. Build smaller models: a smaller "
            "--sf (0.001: lineitem 6,005 rows) or other --models."
        )
    name, side, n = max(
        ((name, side, n) for name, sides in rows.items() for side, n in sides.items()),
        key=lambda row: row[2],
    )
    return f"model rows: at most {n:,} ({name} in {side}), within --max-model-rows {limit:,}"


def model_file(name: str, key: list[str] | None, sql: str) -> str:
    head = f"{{{{ config(meta={{'table_diff': {{'primary_key': {key!r}}}}}) }}}}\n" if key else ""
    return head + sql + "\n"


def write_project(args: argparse.Namespace, side: str) -> Path:
    """The dbt project, its models as production (`side` prod) or the pull request (pr) has them."""
    import yaml

    root = home_of(args) / "project"
    root.mkdir(parents=True, exist_ok=True)
    project = {
        "name": PROFILE,
        "version": "1.0.0",
        "config-version": 2,
        "profile": PROFILE,
        "model-paths": ["models"],
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": True},
        "models": {PROFILE: {"+materialized": "table"}},
        # The package's results table as parquet, as in the test suite (no Delta jars needed).
        "vars": {"table_diff_file_format": "parquet"},
    }
    (root / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    conf = spark_conf(home_of(args), args.driver_memory)
    output = {
        "type": "spark",
        "method": "session",
        "host": "localhost",
        "threads": 1,
        "server_side_parameters": conf,
    }
    profile = {
        PROFILE: {
            "target": "pr",
            "outputs": {t: {**output, "schema": s} for t, s in SCHEMAS.items()},
        }
    }
    (root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO)}]}))
    models = root / "models"
    models.mkdir(exist_ok=True)
    sources = {
        "version": 2,
        "sources": [
            {
                "name": "tpch",
                "schema": database(args.sf),
                "tables": [{"name": t} for t in TABLES],
            }
        ],
    }
    (models / "_sources.yml").write_text(yaml.safe_dump(sources, sort_keys=False))
    for name in args.selected:
        key, prod, pr = MODELS[name]
        text = model_file(name, key, prod if side == "prod" else pr)
        path = models / f"{name}.sql"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    for path in models.glob("*.sql"):  # the models of an earlier, other selection
        if path.stem not in args.selected:
            path.unlink()
    return root


def dbt_bin() -> str:
    return str(Path(sys.executable).parent / "dbt")


def run_logged(cmd: list[str], log: Path) -> dict[str, Any]:
    """One whole process: wall seconds; user + system CPU seconds and peak RSS from wait4, which
    count the Python process only (the Spark JVM it starts is not reaped by it): kept in the JSON
    as `cpu` and `max_rss_mb`, not reported."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=child_env(), stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = log.read_text()[-4000:]
        raise RuntimeError(f"{' '.join(cmd[:3])} ... failed ({proc.returncode}):\n{tail}")
    return {
        "wall": round(wall, 3),
        "cpu": round(usage.ru_utime + usage.ru_stime, 3),
        "max_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }


def build_stamp(args: argparse.Namespace) -> str:
    """The scale factor, the chosen models (names, keys and both SQLs) and the schemas: a build of
    other models is built again (all twenty stamp as they did before --models)."""
    models = {name: MODELS[name] for name in args.selected}
    text = json.dumps({"sf": args.sf, "models": models, "schemas": SCHEMAS}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def setup(args: argparse.Namespace) -> Path:
    """Data, tables, the production build and the pull request's build (skipped when a build of
    the same models and scale factor is there)."""
    home = home_of(args)
    root = home / "project"
    stamp = root / ".built"
    if stamp.exists() and stamp.read_text() == build_stamp(args) and not args.rebuild:
        print(f"reusing the builds in {root}", flush=True)
        return root
    t = time.perf_counter()
    generate(args.sf)
    proc = subprocess.run(
        child_command(args, "--load"), env=child_env(), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"loading the TPC-H tables failed:\n{proc.stderr[-4000:]}")
    print(f"tables: {proc.stdout.strip().splitlines()[-1]}", flush=True)
    root = write_project(args, "prod")
    (root / ".rows.json").unlink(missing_ok=True)
    common = ["--project-dir", str(root), "--profiles-dir", str(root)]
    logs = home / "logs"
    run_logged([dbt_bin(), "deps", *common], logs / "deps.log")
    prod_dir = root / "prod_artifacts"
    shutil.rmtree(prod_dir, ignore_errors=True)
    build = [dbt_bin(), "build", *common]
    run_logged([*build, "--target", "prod", "--target-path", str(prod_dir)], logs / "prod.log")
    write_project(args, "pr")
    pr = ["--target", "pr", "--select", "state:modified+", "--defer", "--state", str(prod_dir)]
    run_logged([*build, *pr], logs / "pr.log")
    stamp.write_text(build_stamp(args))
    print(f"built prod and pr in {time.perf_counter() - t:.0f}s", flush=True)
    return root


# `table-diff changes` as a process of its own that sets dbt's global flags before the state
# comparison: used only when the plain command fails for want of them (FLAGS_BUG in its output).
FLAGS_BUG = "state_modified_compare_more_unrendered_values"
WITH_FLAGS = (
    "import sys; from argparse import Namespace; from dbt.flags import set_from_args; "
    "p = sys.argv[sys.argv.index('--project-dir') + 1]; "
    "set_from_args(Namespace(project_dir=p, profiles_dir=p), None); "
    "from dbt_table_diff.cli import main; sys.exit(main(sys.argv[1:]))"
)


# Spark's start (--one-only): the session dbt-spark's `method: session` opens (its Cursor.execute:
# `SparkSession.builder.enableHiveSupport()`, each of the profile's `server_side_parameters` as a
# config, `getOrCreate()`), read from the project's own profiles.yml; one query, so the Derby
# metastore opens as it does for dbt's first one; then stopped.
SPARK_START = """\
import sys

import yaml
from pyspark.sql import SparkSession

profiles, profile, target = sys.argv[1:4]
with open(profiles) as f:
    output = yaml.safe_load(f)[profile]["outputs"][target]
builder = SparkSession.builder.enableHiveSupport()
for key, value in output.get("server_side_parameters", {}).items():
    builder = builder.config(key, value)
spark = builder.getOrCreate()
spark.sql("show databases").collect()
spark.stop()
"""


def spark_start_command(root: Path) -> list[str]:
    """A process of this venv's Python that only opens and stops the project's Spark session (the
    `pr` target's, as `table-diff changes --target pr` opens it)."""
    profiles = root / "profiles.yml"
    return [sys.executable, "-c", SPARK_START, str(profiles), PROFILE, "pr"]


def set_dbt_flags(root: Path) -> None:
    """dbt's global flags (the project's flags included), as a dbt invocation leaves them: dbt's
    state comparison (``select_changes``) reads them."""
    from dbt.flags import set_from_args

    set_from_args(argparse.Namespace(project_dir=str(root), profiles_dir=str(root)), None)


def plan_entries(root: Path, names: list[str]) -> list[dict[str, Any]]:
    """The plan `table-diff changes` computes from the two manifests (pure Python, no Spark)."""
    from dbt_table_diff.changes.artifacts import load_artifacts
    from dbt_table_diff.changes.plan import build_plan
    from dbt_table_diff.changes.selection import select_changes

    set_dbt_flags(root)
    artifacts = load_artifacts(root / "target", root / "prod_artifacts")
    plan = build_plan(select_changes(artifacts), artifacts.current)
    got = sorted(e["name"] for e in plan.entries)
    if got != sorted(names) or {e["change"] for e in plan.entries} != {"modified"}:
        got = [(e["name"], e["change"]) for e in plan.entries]
        raise AssertionError(
            f"expected the {in_words(len(names))} models {sorted(names)}, all modified; the plan "
            f"has {got}"
        )
    return plan.entries


def commands(args: argparse.Namespace, root: Path, entries: list[dict[str, Any]]):
    """The one invocation, and one run-operation per model (a one-model plan)."""
    home = home_of(args)
    one = [str(Path(sys.executable).parent / "table-diff"), "changes"]
    if args.with_flags:
        one = [sys.executable, "-c", WITH_FLAGS, "changes"]
    one += ["--state", str(root / "prod_artifacts"), "--project-dir", str(root)]
    one += ["--target", "pr", "--out", str(home / "changes_out")]
    pairs = {}
    for e in entries:
        macro = {
            "models": [{**e, "prune_parents": None}],
            "run_id": f"pair-{e['name']}",
            "sample_rows": 5,  # table-diff changes' defaults
            "max_diff_rows": 100000,
            "results_schema": None,
        }
        pairs[e["name"]] = [
            dbt_bin(),
            "run-operation",
            "table_diff.diff_changes",
            "--args",
            json.dumps(macro),
            "--project-dir",
            str(root),
            "--profiles-dir",
            str(root),
            "--target",
            "pr",
            "--target-path",
            str(root / "target" / "table_diff_changes"),  # where table-diff changes puts its own
        ]
    return one, pairs


STATUS_LINE = re.compile(r"table_diff\.diff_changes: (\w+) \((\w+)\): (\w+)")


def measure(
    args: argparse.Namespace, root: Path, written: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Warm-up, then the repetitions; `written` is given the results after each one. With
    --one-only, Spark's start takes the place of the pairs."""
    home = home_of(args)
    logs = home / "logs"
    entries = plan_entries(root, args.selected)
    one, pairs = commands(args, root, entries)
    start = spark_start_command(root)
    order = [e["name"] for e in entries]
    many = in_words(len(order))

    def run_one(tag: str) -> tuple[dict[str, Any], dict[str, Any]]:
        r = run_logged(one, logs / f"one_{tag}.log")
        report = json.loads((home / "changes_out" / "changes.json").read_text())
        return r, {m["name"]: m for m in report["models"]}

    def run_pair(name: str, tag: str, want: dict[str, Any]) -> dict[str, Any]:
        log = logs / f"pair_{name}_{tag}.log"
        r = run_logged(pairs[name], log)
        found = {m[0]: m[2] for m in STATUS_LINE.findall(log.read_text())}
        if found.get(name) != want[name]["status"]:
            raise AssertionError(
                f"{name}: one pair at a time says {found.get(name)}, the one invocation "
                f"{want[name]['status']} ({log})"
            )
        return r

    def run_start(tag: str) -> dict[str, Any]:
        return run_logged(start, logs / f"start_{tag}.log")

    def first_one(tag: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The first one invocation: falls back to FLAGS_BUG's workaround if it must."""
        nonlocal one
        try:
            got = run_one(tag)
        except RuntimeError as exc:
            if FLAGS_BUG not in str(exc) or args.with_flags:
                raise
            print(
                "table-diff changes failed on its own (dbt's global flags unset: "
                f"{FLAGS_BUG}); timing it with dbt's flags set first",
                flush=True,
            )
            args.with_flags = True
            one, _ = commands(args, root, entries)
            got = run_one(tag)
        print(f"  one invocation ({tag}): {got[0]['wall']:.1f}s", flush=True)
        for name in order:
            m = got[1][name]
            print(f"    {name:<18} {m['status']:<10} {m['seconds']:>6.1f}s  {m['verdict']}")
        return got

    models: dict[str, Any] = {}
    reps: list[dict[str, Any]] = []
    earlier = args.out / f"{results_stem(args)}.json"
    if args.resume and earlier.exists():
        before = json.loads(earlier.read_text())
        if before.get("order") != order or before["args"]["sf"] != args.sf:
            raise SystemExit(f"--resume: {earlier} is of other models or another scale factor")
        if before["args"].get("one_only", False) != args.one_only:
            raise SystemExit(f"--resume: {earlier} times other processes (--one-only or not)")
        reps = before["reps"]
        models = reps[-1]["one_models"]
        if before["one_command"][1] == "-c":
            args.with_flags = True
            one, _ = commands(args, root, entries)
        args.warmup = before.get("warmup", True)
        print(f"resuming after the {len(reps)} repetition(s) of {earlier}", flush=True)
    elif args.warmup:
        other = "Spark's start" if args.one_only else "one pair"
        print(f"warm-up (untimed): one invocation, then {other}", flush=True)
        _, models = first_one("warmup")
        if args.one_only:
            r = run_start("warmup")
            print(f"  Spark's start: {r['wall']:.1f}s", flush=True)
        else:
            r = run_pair(order[0], "warmup", models)
            print(f"  pair {order[0]}: {r['wall']:.1f}s", flush=True)

    def result() -> dict[str, Any]:
        got = {
            "order": order,
            "entries": entries,
            "reps": reps,
            "one_command": one,
            "warmup": args.warmup,
            "one_only": args.one_only,
        }
        return {**got, "start_command": start} if args.one_only else got

    kinds = ("one", "start") if args.one_only else ("one", "pairs")
    for rep in range(len(reps), args.reps):
        got: dict[str, Any] = {} if args.one_only else {"pairs": {}}
        for kind in kinds if rep % 2 == 0 else kinds[::-1]:
            if kind == "one":
                got["one"], got["one_models"] = (first_one if not models else run_one)(str(rep))
                models = models or got["one_models"]
                print(f"rep {rep + 1}: one invocation {got['one']['wall']:.1f}s", flush=True)
            elif kind == "start":
                got["start"] = run_start(str(rep))
                print(f"rep {rep + 1}: Spark's start {got['start']['wall']:.1f}s", flush=True)
            else:
                for name in order:
                    got["pairs"][name] = run_pair(name, str(rep), models)
                    wall = got["pairs"][name]["wall"]
                    print(f"rep {rep + 1}: pair {name} {wall:.1f}s", flush=True)
        if args.one_only:
            got["beyond_start"] = round(got["one"]["wall"] - got["start"]["wall"], 3)
            print(
                f"rep {rep + 1}: one {got['one']['wall']:.1f}s, Spark's start "
                f"{got['start']['wall']:.1f}s: {got['beyond_start']:.1f}s beyond it",
                flush=True,
            )
        else:
            got["sum_wall"] = round(sum(p["wall"] for p in got["pairs"].values()), 3)
            got["sum_cpu"] = round(sum(p["cpu"] for p in got["pairs"].values()), 3)
            got["ratio_wall"] = round(got["one"]["wall"] / got["sum_wall"], 4)
            got["ratio_cpu"] = round(got["one"]["cpu"] / got["sum_cpu"], 4)
            print(
                f"rep {rep + 1}: one {got['one']['wall']:.1f}s vs sum of {many} "
                f"{got['sum_wall']:.1f}s: {got['ratio_wall']:.3f}",
                flush=True,
            )
        reps.append(got)
        written(result())
    return result()


def med(xs: list[float]) -> float:
    return round(statistics.median(xs), 3)


def machine_info() -> dict[str, Any]:
    import dbt.version
    import pyspark

    mem_kb = next(
        int(line.split()[1])
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal")
    )
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "?",
    )
    load = Path("/proc/loadavg").read_text().split()[:3]
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "pyspark": pyspark.__version__,
        "dbt_core": dbt.version.__version__,
        "python": sys.version.split()[0],
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "loadavg_at_end": load,
    }


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    reps = result["reps"]
    if result.get("one_only"):
        return summarize_small(result)
    return {
        "one_wall": med([r["one"]["wall"] for r in reps]),
        "one_cpu": med([r["one"]["cpu"] for r in reps]),
        "sum_wall": med([r["sum_wall"] for r in reps]),
        "sum_cpu": med([r["sum_cpu"] for r in reps]),
        "ratio_of_medians": round(
            med([r["one"]["wall"] for r in reps]) / med([r["sum_wall"] for r in reps]), 4
        ),
        "ratio_median": med([r["ratio_wall"] for r in reps]),
        "ratio_cpu_median": med([r["ratio_cpu"] for r in reps]),
        "pair_wall": {n: med([r["pairs"][n]["wall"] for r in reps]) for n in result["order"]},
        "pair_cpu": {n: med([r["pairs"][n]["cpu"] for r in reps]) for n in result["order"]},
        "macro_seconds_in_one": {
            n: med([r["one_models"][n]["seconds"] for r in reps]) for n in result["order"]
        },
    }


def summarize_small(result: dict[str, Any]) -> dict[str, Any]:
    """--one-only: the one command and Spark's start (medians), the seconds beyond it, each
    model's seconds inside the one invocation and rows (its changes.json), and each of the
    target's conditions, met or not, from those figures."""
    reps, order = result["reps"], result["order"]
    one, start = med([r["one"]["wall"] for r in reps]), med([r["start"]["wall"] for r in reps])
    inside = {n: med([r["one_models"][n]["seconds"] for r in reps]) for n in order}
    last = reps[-1]["one_models"]
    rows = {n: max(last[n]["rows_production"] or 0, last[n]["rows_current"] or 0) for n in order}
    slowest, largest = max(order, key=inside.get), max(order, key=rows.get)
    beyond = round(one - start, 3)
    return {
        "one_wall": one,
        "one_cpu": med([r["one"]["cpu"] for r in reps]),
        "start_wall": start,
        "beyond_start": beyond,
        "beyond_start_median": med([r["beyond_start"] for r in reps]),
        "models": len(order),
        "macro_seconds_in_one": inside,
        "model_seconds_mean": round(statistics.fmean(inside.values()), 3),
        "slowest_model": slowest,
        "largest_model": largest,
        "largest_rows": {side: last[largest][f"rows_{side}"] for side in ("production", "current")},
        "meets": {
            "models": len(order) == TARGET_MODELS,
            "rows": rows[largest] < TARGET_MODEL_ROWS,
            "model_seconds": inside[slowest] <= TARGET_MODEL_SECONDS,
            "beyond_start": beyond <= TARGET_BEYOND_START,
        },
    }


def machine_line(info: dict[str, Any], compare: str) -> str:
    return (
        f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB RAM, "
        f"pyspark {info['pyspark']} (local[*]), dbt-core {info['dbt_core']}, Python "
        f"{info['python']}; {info['date']}. Shared machine: other work may have been running "
        f"(load average at the end {' '.join(info['loadavg_at_end'])}); {compare}."
    )


def verdict_lines(s: dict[str, Any]) -> list[str]:
    """The small case against its target, each line from `s['meets']` (summarize_small's)."""
    meets = s["meets"]

    def mark(ok: bool) -> str:
        return "**met**" if ok else "**missed**"

    big = s["largest_rows"]
    case = meets["models"] and meets["rows"]
    missed = [
        what
        for what, key in (
            (f"at most {TARGET_MODEL_SECONDS:g} s a compared model", "model_seconds"),
            (f"at most {TARGET_BEYOND_START:g} s beyond Spark's start", "beyond_start"),
        )
        if not meets[key]
    ]
    inside = s["macro_seconds_in_one"][s["slowest_model"]]
    return [
        f"- The case: {s['models']} changed models compared (the target's: {TARGET_MODELS}); the "
        f"largest, {s['largest_model']}, has {big['production'] or 0:,} rows in prod and "
        f"{big['current'] or 0:,} in pr: "
        + (
            f"under {TARGET_MODEL_ROWS:,} rows each"
            if meets["rows"]
            else f"**not under {TARGET_MODEL_ROWS:,} rows each**"
        )
        + ("." if case else "; **not the target's case**, so the verdict is not the target's."),
        f"- At most {TARGET_MODEL_SECONDS:g} s a compared model: the slowest, "
        f"{s['slowest_model']}, took {inside:.1f} s inside the one invocation (mean "
        f"{s['model_seconds_mean']:.1f} s): {mark(meets['model_seconds'])}.",
        f"- At most {TARGET_BEYOND_START:g} s beyond Spark's start: {s['beyond_start']:.1f} s "
        f"({s['one_wall']:.1f} s - {s['start_wall']:.1f} s): {mark(meets['beyond_start'])}.",
        "",
        "**Verdict: "
        + ("both targets met" if not missed else f"missed ({'; '.join(missed)})")
        + ("" if case else ", on another case than the target's")
        + ".**",
    ]


def report_small(args: argparse.Namespace, result: dict[str, Any], info: dict[str, Any]) -> str:
    """--one-only's report: the one command against Spark's start, the target, each model."""
    s = result["summary"]
    last = result["reps"][-1]["one_models"]
    n = len(result["reps"])
    keyed = sum(1 for name in result["order"] if MODELS[name][0])
    lines = [
        f"# `table-diff changes` on {in_words(s['models'])} small models against Spark's start, "
        f"TPC-H scale factor {args.sf:g}",
        "",
        machine_line(info, "compare the difference, not the seconds"),
        "",
        f"Command: `{' '.join(args.argv)}`. Whole processes, wall clock, medians of {n} "
        f"repetition(s) (of {args.reps} asked) "
        + (
            "after one untimed warm-up of each kind"
            if result["warmup"]
            else "without a warm-up of their own (an earlier run had just run the same processes)"
        )
        + ", the order alternating (odd repetitions: the one invocation first; even: Spark's "
        "start first).",
        "",
        f'Target: "`table-diff changes` on ten changed models under {TARGET_MODEL_ROWS:,} rows '
        f"each: at most {TARGET_MODEL_SECONDS:g} s a compared model, the whole command at most "
        f"{TARGET_BEYOND_START:g} s beyond Spark's start\".",
        "",
        *verdict_lines(s),
        "",
        "## One invocation against Spark's start",
        "",
        "| | wall (median) |",
        "|---|---:|",
        f"| one `table-diff changes` process ({s['models']} models, {keyed} with a key) | "
        f"{s['one_wall']:.1f} s |",
        "| Spark's start: a Python process that opens the project's session as dbt does, runs "
        f"`show databases` and stops | {s['start_wall']:.1f} s |",
        f"| **beyond Spark's start** | **{s['beyond_start']:.1f} s** (median of per-repetition "
        f"differences {s['beyond_start_median']:.1f} s) |",
        "",
        "Per repetition (wall): "
        + "; ".join(
            f"{r['one']['wall']:.1f} s vs {r['start']['wall']:.1f} s ({r['beyond_start']:.1f} s)"
            for r in result["reps"]
        )
        + ".",
        "",
        "Spark's start is `python -c` (this venv's) with the same environment as the dbt "
        "processes (SPARK_CONF_DIR, PYSPARK_PYTHON): `SparkSession.builder.enableHiveSupport()`, "
        "each of the `pr` target's `server_side_parameters` from the project's profiles.yml (the "
        "same warehouse and Derby metastore), `getOrCreate()`, as dbt-spark's `method: session` "
        "opens it; `show databases` opens the metastore; then `stop()`. What the one command "
        "takes beyond it is Python's and dbt's imports, dbt's parse, the state comparison, the "
        "comparisons and the results' write and read.",
        "",
        "## Per model",
        "",
        "| model | key | status | verdict (one invocation) | rows in prod | rows in pr | "
        "seconds inside the one invocation (median) |",
        "|---|---|---|---|---:|---:|---:|",
    ]

    def rows(n: int | None) -> str:
        return "-" if n is None else f"{n:,}"

    lines += per_model_lines(
        result["order"],
        last,
        lambda name, m: [
            rows(m["rows_production"]),
            rows(m["rows_current"]),
            f"{s['macro_seconds_in_one'][name]:.1f}",
        ],
    )
    inside = sum(s["macro_seconds_in_one"].values())
    lines += [
        "",
        f"The per-model seconds inside the one invocation add up to {inside:.1f} s of its "
        f"{s['one_wall']:.1f} s, {inside / s['models']:.2f} s a model; the rest beyond Spark's "
        f"start ({s['beyond_start'] - inside:.1f} s) is the rest of the command: the imports, "
        "dbt's parse and state comparison, the relations' catalog look-ups, the results' write "
        "and read.",
    ]
    return "\n".join(lines) + "\n"


def report(args: argparse.Namespace, result: dict[str, Any], info: dict[str, Any]) -> str:
    if result.get("one_only"):
        return report_small(args, result, info)
    s = result["summary"]
    last = result["reps"][-1]["one_models"]
    n = len(result["reps"])
    count = len(result["order"])
    many = in_words(count)
    lines = [
        f"# `table-diff changes` on {many} models, TPC-H scale factor {args.sf:g}",
        "",
        machine_line(info, "compare the ratio, not the seconds"),
        "",
        f"Command: `{' '.join(args.argv)}`. Whole processes, wall clock, medians of {n} "
        f"repetition(s) (of {args.reps} asked) "
        + (
            "after one untimed warm-up of each kind"
            if result["warmup"]
            else "without a warm-up of their own (an earlier run had just run the same processes)"
        )
        + f", the order alternating (odd repetitions: the one invocation first; even: the {many} "
        "first).",
        "",
        f"## One invocation against {many}, one pair at a time",
        "",
        "| | wall (median) |",
        "|---|---:|",
        f"| one `table-diff changes` process ({count} models) | {s['one_wall']:.1f} s |",
        f"| sum of {count} `dbt run-operation table_diff.diff_changes` processes, one model each | "
        f"{s['sum_wall']:.1f} s |",
        f"| **one / sum** | **{s['ratio_of_medians']:.3f}** (median of per-repetition ratios "
        f"{s['ratio_median']:.3f}) |",
        "",
        "Per repetition (wall): "
        + "; ".join(
            f"{r['one']['wall']:.1f} s vs {r['sum_wall']:.1f} s ({r['ratio_wall']:.3f})"
            for r in result["reps"]
        )
        + ".",
        "",
        "## Why this per-pair equivalent",
        "",
        "Each per-pair process is `dbt run-operation table_diff.diff_changes --args "
        "'{models: [ENTRY]}' --target pr`, where ENTRY is that model's entry of the plan "
        "`table-diff changes` builds from the two manifests: the same relations, key, "
        "`sample_rows` 5 and `max_diff_rows` 100000, so the macro does exactly the per-model work "
        "it does inside the one invocation (schema, signatures, then the row diff by key or as a "
        "multiset), and writes its one-row results table. It is what a user would run to check "
        "one model, and the closest like-for-like: a scaffolded pair (`table-diff scaffold pair` "
        "then `dbt build`) materializes several models per pair and reports more, so it would "
        "weigh the per-pair side down by work the one invocation does not do. The one invocation "
        "also reads its results back and writes changes.md / changes.json, which the per-pair "
        "processes do not: that favours the per-pair side slightly. Every per-pair status is "
        "checked against the one invocation's.",
        "",
    ]
    if result["one_command"][1] == "-c":
        lines += [
            "**`table-diff changes` as its own process failed at this commit**: dbt's state "
            "comparison reads dbt's global flags (`state_modified_compare_more_unrendered_values`"
            "), which nothing sets before `select_changes` outside a dbt invocation "
            "(`AttributeError: 'Namespace' object has no attribute ...`). The one invocation was "
            "therefore timed as `python -c '<set dbt's flags from the project "
            "(dbt.flags.set_from_args)>; dbt_table_diff.cli.main(sys.argv[1:])' changes ...`: "
            "the same command, its arguments unchanged, with the flags a dbt invocation would "
            "have set (milliseconds).",
            "",
        ]
    partial = [n for n in result["order"] if last[n].get("partial")]
    if partial:
        lines += [
            f"{', '.join(partial)}: more differing rows than `max_diff_rows` (100000), so "
            "partial counts ('at least'), the same cap in both modes.",
            "",
        ]
    lines += [
        "## Per model",
        "",
        "| model | key | status | verdict (one invocation) | seconds inside the one "
        "invocation (median) | its own process, wall (median) |",
        "|---|---|---|---|---:|---:|",
    ]
    lines += per_model_lines(
        result["order"],
        last,
        lambda name, _m: [
            f"{s['macro_seconds_in_one'][name]:.1f}",
            f"{s['pair_wall'][name]:.1f} s",
        ],
    )
    inside = sum(s["macro_seconds_in_one"].values())
    lines += [
        "",
        f"The per-model seconds inside the one invocation add up to {inside:.1f} s of its "
        f"{s['one_wall']:.1f} s; the rest ({s['one_wall'] - inside:.1f} s) is its start (Python, "
        "dbt's parse, a Spark JVM and its Hive metastore), the relations' catalog look-ups and "
        f"the results' write and read. The {many} processes take "
        f"{s['sum_wall'] - inside:.1f} s more than those per-model seconds together, "
        f"{(s['sum_wall'] - inside) / len(result['order']):.1f} s a process: each pays the start "
        "again, and each runs its queries on a cold JVM.",
    ]
    return "\n".join(lines) + "\n"


def per_model_lines(
    order: list[str],
    last: dict[str, dict[str, Any]],
    cells: Callable[[str, dict[str, Any]], list[str]],
) -> list[str]:
    """The per-model table's rows: model, key, status and verdict, then a report's own `cells`."""
    out = []
    for name in order:
        key, m = MODELS[name][0], last[name]
        key_text = ", ".join(key) if key else "(none)"
        row = [name, key_text, m["status"], m["verdict"], *cells(name, m)]
        out.append("| " + " | ".join(row) + " |")
    return out


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=0.1, help="TPC-H scale factor (default 0.1)")
    ap.add_argument(
        "--models",
        type=int,
        default=len(MODELS),
        help=f"build and compare the first N of the {len(MODELS)} models, keyed and keyless in "
        f"their shares (select_models; default all {len(MODELS)})",
    )
    ap.add_argument(
        "--one-only",
        action="store_true",
        help="the small case: time the one table-diff changes process against Spark's start "
        "(a Python process opening the project's session), no per-pair processes",
    )
    ap.add_argument(
        "--max-model-rows",
        type=int,
        default=None,
        help="after the setup, count every model's rows in prod and pr and stop if one holds "
        "more than this",
    )
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions (default 3)")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--out", type=Path, default=BENCH / "results")
    ap.add_argument("--spark-home", type=Path, default=BENCH / ".spark")
    ap.add_argument("--rebuild", action="store_true", help="build prod and pr again")
    ap.add_argument(
        "--no-warmup",
        dest="warmup",
        action="store_false",
        help="no untimed warm-up (when an earlier run just warmed the same project)",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep the repetitions of the results file of the same models and scale factor, "
        "and add to them up to --reps (no warm-up: the earlier run's)",
    )
    ap.add_argument(
        "--dry-run",
        action="store_true",
        help="write the project (production's models) and print the plan; run nothing",
    )
    ap.add_argument(
        "--with-flags",
        action="store_true",
        help="run table-diff changes with dbt's global flags set first (taken by itself when "
        "the plain command fails for want of them)",
    )
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="write the .md again from the results file's .json; run nothing",
    )
    ap.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--count-rows", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.argv = [".venv/bin/python bench/changes.py", *argv]
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.max_model_rows is not None and args.max_model_rows < 0:
        ap.error("--max-model-rows must not be negative")
    try:
        args.selected = select_models(args.models)
    except ValueError as exc:
        ap.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.load:
        load(args)
        return 0
    if args.count_rows:
        count_rows(args)
        return 0
    if args.report_only:
        saved = json.loads((args.out / f"{results_stem(args)}.json").read_text())
        args.reps = saved["args"]["reps"]
        # A results file written before `argv` was kept: the command that reproduces it.
        default = [".venv/bin/python bench/changes.py", "--sf", f"{args.sf:g}"]
        args.argv = saved.get("argv") or [*default, "--reps", str(args.reps)]
        keep = ("order", "entries", "reps", "one_command", "start_command")
        result = {k: saved[k] for k in keep if k in saved}
        result |= {"warmup": saved.get("warmup", True), "one_only": saved.get("one_only", False)}
        report_md(args, result, saved["machine"])
        return 0
    if args.dry_run:
        dry_run(args)
        return 0
    root = setup(args)
    if args.max_model_rows is not None:
        print(check_model_rows(model_rows(args, root), args.max_model_rows), flush=True)
    measure(args, root, lambda result: write(args, result))
    return 0


def dry_run(args: argparse.Namespace) -> None:
    """The project (production's models) written, the plan printed; nothing run."""
    root = write_project(args, "prod")
    keyed = [name for name in args.selected if MODELS[name][0]]
    keyless = [name for name in args.selected if not MODELS[name][0]]
    print(f"project: {root}; {len(args.selected)} models ({len(keyed)} with a key)")
    print(f"  with a key: {', '.join(keyed) or '(none)'}")
    print(f"  without: {', '.join(keyless) or '(none)'}")
    print(f"sources: TPC-H sf {args.sf:g} as {database(args.sf)}.{{{','.join(TABLES)}}}")
    print(f"  files: {BENCH / '.tpch' / f'sf{args.sf:g}'}")
    print(f"then: dbt build --target prod, edits, dbt build --target pr ({SCHEMAS})")
    if args.max_model_rows is not None:
        print(f"then: every model's rows in prod and pr, at most {args.max_model_rows:,} each")
    if args.one_only:
        python, _, _, profiles, profile, target = spark_start_command(root)
        print("timed: 1 table-diff changes process vs Spark's start, a process of")
        print(f"  {python} -c <SPARK_START> {profiles} {profile} {target}")
    else:
        n = len(args.selected)
        print(f"timed: 1 table-diff changes process vs {n} run-operation processes")
    print(f"results: {args.out / results_stem(args)}.md and .json")


def write(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """The results so far (after each repetition): changes_sf<N>[...].json and .md."""
    result = {**result, "summary": summarize(result)}
    info = machine_info()
    kept = {
        "sf": args.sf,
        "reps": args.reps,
        "models": len(args.selected),
        "one_only": args.one_only,
        "max_model_rows": args.max_model_rows,
    }
    result = {"machine": info, "args": kept, **result}
    result["argv"] = args.argv
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2, default=str)
    (args.out / f"{results_stem(args)}.json").write_text(text)
    report_md(args, result, info)


def report_md(args: argparse.Namespace, result: dict[str, Any], info: dict[str, Any]) -> None:
    result = {**result, "summary": summarize(result)}
    text = report(args, result, info)
    (args.out / f"{results_stem(args)}.md").write_text(text)
    print(text, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
