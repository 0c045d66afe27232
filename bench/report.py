"""The benchmark's report: the results tables (markdown) and the chart, from the children's JSON."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from pair import MERGE, TABLE_DIFF
from peers import BASELINES, MERGE_BASELINES

APPROACHES = BASELINES + TABLE_DIFF + MERGE_BASELINES + MERGE
# Approaches that need a merge case (bench/run.py --merge), and the default set of such a run.
MERGE_ONLY = MERGE_BASELINES + MERGE
MERGE_DEFAULT = ("floor", "floor3", "join", "join3", "table_diff", "merge")
LABELS = {
    "floor": "floor",
    "join": "hand-written join",
    "hash_buckets": "one-level hash buckets",
    "spark_extension": "spark-extension diff",
    "except_all": "exceptAll both ways",
    "datacompy": "datacompy SparkSQLCompare",
    "table_diff": "table_diff (dbt run)",
    "table_diff_hash": "table_diff, hash strategy",
    "table_diff_quick": "table_diff, quick check forced",
    "table_diff_no_ranges": "table_diff, fetch without key ranges",
    "table_diff_one_block": "table_diff, one block (no hierarchy)",
    "no_drift": "no_drift (dbt test)",
    "floor3": "floor, three tables",
    "join3": "hand-written three-way join",
    "merge": "merge (dbt run)",
}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        mem = f"{mem_kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration):
        mem = "?"
    import pyspark

    return f"{os.cpu_count()} cores ({cpu}), {mem} RAM, pyspark {pyspark.__version__}, local[*]"


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def median_models(infos: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The `table_diff` approach's details over its repetitions: seconds per model as the median
    over the repetitions (each repetition's too, in `models_by_rep`), counts from the last."""
    infos = [i for i in infos if i]
    if not infos:
        return None
    names = list(infos[-1]["models"])
    return {
        **infos[-1],
        "models": {
            m: round(med([i["models"][m] for i in infos if m in i["models"]]), 3) for m in names
        },
        "models_by_rep": [i["models"] for i in infos],
    }


def _cell(t: dict[str, list[float]], a: str, f: float | None) -> str:
    if a not in t:
        return "-"
    m = med(t[a])
    ratio = f" [{m / f:.2f}]" if f else ""
    return f"{m:.2f} ({min(t[a]):.2f}-{max(t[a]):.2f}){ratio}"


def report(
    args: argparse.Namespace, results: list[dict[str, Any]], e2e: list[dict[str, Any]]
) -> str:
    present = [a for a in APPROACHES if any(a in p["times"] for r in results for p in r["pairs"])]
    lines = [
        "# table_diff benchmark",
        "",
        f"Machine: {machine()}, driver memory {args.driver_memory}.",
        f"Command: `{' '.join(args.argv)}`",
        "",
        "Seconds: median of the repetitions (min-max); [ratio to the floor of the same session].",
        *(
            ["No warm-up run (--no-warmup): the first timed run of each approach is its first."]
            if getattr(args, "no_warmup", False)
            else []
        ),
        "Timed once (first repetition, no warm-up): "
        f"{', '.join(a for a in args.once if a in args.approaches) or 'none'}.",
        "Every timed result was checked against the generator's truth.",
        "table_diff models: seconds per model of `table_diff`, median over the repetitions.",
    ]
    if getattr(args, "merge", False):
        return "\n".join(lines + merge_table(results)) + "\n"
    for title, group in (("Baselines", BASELINES), ("table_diff", ("floor", *TABLE_DIFF))):
        cols = [a for a in group if a in present]
        if cols == ["floor"] or not cols:
            continue
        with_models = "table_diff" in cols
        lines += [
            "",
            f"## {title}",
            "",
            "| rows | k | "
            + " | ".join(LABELS[a] for a in cols)
            + (" | table_diff models |" if with_models else " |"),
            "|---:|---:|" + "---:|" * len(cols) + ("---|" if with_models else ""),
        ]
        for res in results:
            for p in res["pairs"]:
                t = p["times"]
                f = med(t["floor"]) if "floor" in t else None
                k = p["truth"]["k"]
                cells = [_cell(t, a, f) for a in cols]
                if with_models:
                    info = p.get("table_diff") or {"models": {}}
                    cells.append(", ".join(f"{m} {v:.2f}" for m, v in info["models"].items()))
                lines.append(
                    f"| {res['rows']:,} | {k:,} ({p['k_spec']}) | " + " | ".join(cells) + " |"
                )
    if e2e:
        lines += [
            "",
            "Whole processes (JVM start, dbt parse and all):",
            "",
            "| rows | k | dbt build of the pair | join in a python process |",
            "|---:|---:|---:|---:|",
        ]
        for e in e2e:
            b, j = e["times"]["dbt build"], e["times"]["join process"]
            lines.append(
                f"| {e['rows']:,} | {e['k_spec']} | {med(b):.1f} ({min(b):.1f}-{max(b):.1f}) "
                f"| {med(j):.1f} ({min(j):.1f}-{max(j):.1f}) |"
            )
    return "\n".join(lines) + "\n"


def _ratio(t: dict[str, list[float]], a: str, b: str) -> str:
    return f"{med(t[a]) / med(t[b]):.2f}" if a in t and b in t else "-"


def merge_table(results: list[dict[str, Any]]) -> list[str]:
    """The three-way merge cases: base vs ours and theirs, k changed keys per side. `pair` is
    table_diff's pair base vs ours on the same tables, `join3` the hand-written three-way join."""
    cols = [a for a in MERGE_DEFAULT if any(a in p["times"] for r in results for p in r["pairs"])]
    lines = [
        "",
        "## Three-way merge",
        "",
        "k changed keys on each side (a fifth of them changed on both); table_diff (dbt run) is",
        "the pair base vs ours; merge models: seconds per model of `merge`, median over the",
        "repetitions.",
        "",
        "| rows | k per side | "
        + " | ".join(LABELS[a] for a in cols)
        + " | merge / pair | merge / join3 | merge / floor3 | merge models |",
        "|---:|---:|" + "---:|" * (len(cols) + 3) + "---|",
    ]
    for res in results:
        for p in res["pairs"]:
            t = p["times"]
            f = med(t["floor"]) if "floor" in t else None
            info = p.get("merge") or {"models": {}}
            cells = [_cell(t, a, f) for a in cols] + [
                _ratio(t, "merge", "table_diff"),
                _ratio(t, "merge", "join3"),
                _ratio(t, "merge", "floor3"),
                ", ".join(f"{m} {v:.2f}" for m, v in info["models"].items()),
            ]
            k = p["truth"]["k"]
            lines.append(f"| {res['rows']:,} | {k:,} ({p['k_spec']}) | " + " | ".join(cells) + " |")
    return lines


def chart(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k_specs = [p["k_spec"] for p in results[0]["pairs"]]
    fig, axes = plt.subplots(1, len(k_specs), figsize=(5 * len(k_specs), 4), squeeze=False)
    for ax, k_spec in zip(axes[0], k_specs, strict=True):
        for a in APPROACHES:
            xs, ys = [], []
            for res in results:
                for p in res["pairs"]:
                    if p["k_spec"] == k_spec and a in p["times"]:
                        xs.append(res["rows"] / 1e6)
                        ys.append(med(p["times"][a]))
            if xs:
                ax.plot(xs, ys, marker="o", label=LABELS[a])
        ax.set_title(f"k = {k_spec}")
        ax.set_xlabel("rows per table (millions)")
        ax.set_ylabel("seconds (median, log scale)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(path, dpi=110)
