"""table_diff's side of the benchmark: a dbt project of scaffolded pairs, and dbt run in-process.

One pair per k, as ``table-diff scaffold pair`` writes it, plus its variants (``VARIANTS``), one
``table_diff.no_drift`` test per pair, and for a merge case (``bench/run.py --merge``: a pair whose
dict has ``theirs``) the merge pipeline ``table-diff scaffold merge`` writes (``merge_name``);
``Dbt`` parses the project once and runs models and tests on the benchmark's own SparkSession.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

TABLE_DIFF = (
    "table_diff",
    "table_diff_hash",
    "table_diff_quick",
    "table_diff_no_ranges",
    "table_diff_one_block",
    "no_drift",
)
MERGE = ("merge",)  # dbt run of a scaffolded merge pipeline, up to its NAME__merge_summary
VARIANTS = {
    "": {},
    "_hash": {"strategy": "hash"},
    "_quick": {"quick_check": True},
    "_one_block": {"block_count": 1, "max_depth": 0},
    "_unit_1000": {"compare_unit_size": 1000},  # 4096 leaves at TPC-H SF1 (bench/tpch.py)
    "_unit_10000": {"compare_unit_size": 10000},  # the default before ADR 0030 (bench/tpch.py)
}
DATABASE = "bench"
PAIR_SCHEMA = "bench_td"


def pair_name(k_spec: str) -> str:
    return "k_" + k_spec.replace("%", "pct").replace(".", "_")


def merge_name(k_spec: str) -> str:
    return "merge_" + pair_name(k_spec)


def write_project(root: Path, conf: dict[str, str], pairs: list[dict[str, Any]]) -> None:
    """A dbt project with one pair per k, as `table-diff scaffold pair` writes it, and one merge
    per merge case, as `table-diff scaffold merge` writes it."""
    import yaml

    from dbt_table_diff.scaffold.merge import MergeOptions, write_merge
    from dbt_table_diff.scaffold.options import PairOptions
    from dbt_table_diff.scaffold.pair import write_pair

    root.mkdir(parents=True, exist_ok=True)
    project = {
        "name": "table_diff_bench",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "table_diff_bench",
        "model-paths": ["models"],
        "flags": {"send_anonymous_usage_stats": False, "partial_parse": True},
    }
    (root / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    profile = {
        "table_diff_bench": {
            "target": "bench",
            "outputs": {
                "bench": {
                    "type": "spark",
                    "method": "session",
                    "host": "localhost",
                    "schema": PAIR_SCHEMA,
                    "threads": 1,
                    "server_side_parameters": conf,
                }
            },
        }
    }
    (root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO)}]}))
    tables = sorted({p[t] for p in pairs for t in ("source", "target", "theirs") if t in p})
    sources = {
        "version": 2,
        "sources": [
            {
                "name": DATABASE,
                "schema": DATABASE,
                "tables": [{"name": t.split(".")[-1]} for t in tables],
            }
        ],
    }
    # One `no_drift` test per pair, on its target (a table may be the source of several pairs).
    by_table = {t["name"]: t for t in sources["sources"][0]["tables"]}
    for p in pairs:
        test = {
            "table_diff.no_drift": {
                "name": f"no_drift_{p['name']}",
                "arguments": {
                    "compare_to": f"source('{DATABASE}', '{p['source'].split('.')[-1]}')",
                    "primary_key": list(p["keys"]),
                    "max_diff_rows": max(100_000, 2 * p["truth"]["k"]),
                },
            }
        }
        by_table[p["target"].split(".")[-1]].setdefault("data_tests", []).append(test)
    models = root / "models"
    shutil.rmtree(models, ignore_errors=True)  # pairs of an earlier run with other k
    models.mkdir()
    (models / "_bench__sources.yml").write_text(yaml.safe_dump(sources, sort_keys=False))
    for p, suffix in [(p, s) for p in pairs for s in VARIANTS]:
        opts = PairOptions(
            name=p["name"] + suffix,
            **VARIANTS[suffix],
            source=f"source('{DATABASE}', '{p['source'].split('.')[-1]}')",
            target=f"source('{DATABASE}', '{p['target'].split('.')[-1]}')",
            primary_key=tuple(p["keys"]),
            # Large enough never to truncate the 1% case: the bench checks complete counts.
            max_diff_rows=max(100_000, 2 * p["truth"]["k"]),
        )
        write_pair(opts, models / opts.name, force=True)
    for p in pairs:
        if "theirs" in p:
            write_merge(
                MergeOptions(
                    name=merge_name(p["k_spec"]),
                    base=f"source('{DATABASE}', '{p['source'].split('.')[-1]}')",
                    ours=f"source('{DATABASE}', '{p['target'].split('.')[-1]}')",
                    theirs=f"source('{DATABASE}', '{p['theirs'].split('.')[-1]}')",
                    primary_key=tuple(p["keys"]),
                ),
                models / merge_name(p["k_spec"]),
                force=True,
            )


class Dbt:
    """dbt in this process, on the session's JVM; the manifest is parsed once."""

    def __init__(self, root: Path) -> None:
        from dbt.cli.main import dbtRunner

        self.root = root
        self.common = ["--project-dir", str(root), "--profiles-dir", str(root), "--quiet"]
        res = dbtRunner().invoke(["deps", *self.common])
        if not res.success:
            raise RuntimeError(f"dbt deps failed: {res.exception}")
        res = dbtRunner().invoke(["parse", *self.common])
        if not res.success:
            raise RuntimeError(f"dbt parse failed: {res.exception}")
        self.runner = dbtRunner(manifest=res.result)

    def run(self, select: str, dbt_vars: dict[str, Any] | None = None) -> dict[str, float]:
        extra = ["--vars", json.dumps(dbt_vars)] if dbt_vars else []
        res = self.runner.invoke(["run", "--select", select, *extra, *self.common])
        if not res.success:
            detail = [f"{r.node.name}: {r.status} {r.message}" for r in res.result or []]
            raise RuntimeError(f"dbt run {select} failed: {res.exception} {detail}")
        return {
            r.node.name: float(r.execution_time)
            for r in res.result.results
            if r.node.resource_type == "model"  # not the package's on-run-end hook
        }

    def test(self, select: str, dbt_vars: dict[str, Any] | None = None) -> tuple[str, int]:
        """Run one data test; (status, failures). A failing test is a result, not an error."""
        extra = ["--vars", json.dumps(dbt_vars)] if dbt_vars else []
        res = self.runner.invoke(["test", "--select", select, *self.common, *extra])
        results = [
            r
            for r in getattr(res.result, "results", None) or []
            if r.node.resource_type == "test"  # not the package's on-run-end hook
        ]
        if len(results) != 1 or str(results[0].status) == "error":
            raise RuntimeError(f"dbt test {select}: {res.exception} {[r.message for r in results]}")
        return str(results[0].status), int(results[0].failures or 0)
