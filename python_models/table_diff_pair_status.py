"""One row per pair and per `no_drift` test: where it stands, from the run history (ADR 0037).

The last finished run's verdict, how many runs since the last identical one, and which way the
differing rows and the run time have gone over the last runs: is replication catching up or
falling behind, are the checks getting slower. The trends are Theil-Sen slopes (the median of the
slopes between every two runs), which one odd run (a backfill, a cold cluster) does not swing the
way a least-squares line does: the reason this is a Python model.

Built where dbt runs Python models (the embedded session, Databricks, a cluster), disabled on the
Thrift Server and with the run history (dbt_project.yml). A model built in the same invocation as
the pairs sees that invocation's runs as `running` rows (their final rows land in on-run-end): it
counts them in `unfinished_started_at`, never as a verdict.
"""

import statistics

STATUS_COLUMNS = (
    "kind string, name string, runs bigint, finished_runs bigint, last_started_at timestamp, "
    "last_status string, last_verdict string, last_differing_rows bigint, last_seconds double, "
    "last_identical_at timestamp, runs_since_identical bigint, window_runs bigint, "
    "failures_in_window bigint, differing_rows_slope double, drift_trend string, "
    "seconds_median double, seconds_slope double, cost_trend string, "
    "unfinished_started_at timestamp, as_of timestamp"
)

# The verdict of one finished run, from its final history row (docs/semantics.md, "Pair status").
VERDICT = """
case
  when status = 'failed' or outcome = 'error' then 'failed'
  when status = 'skipped' then 'skipped'
  when status = 'changed_during_run' then 'unreliable'
  when status = 'partial' then 'different'
  when rows_added is null or rows_deleted is null or rows_modified is null then
    case when outcome in ('pass', 'success') then 'identical'
         when outcome in ('warn', 'fail') then 'different' else 'unknown' end
  when rows_added + rows_deleted + rows_modified + coalesce(duplicate_key_rows, 0) = 0
    then 'identical'
  else 'different'
end
"""

# A trend moves when its slope over the window changes the median by this share.
TREND_SHARE = 0.2


def theil_sen(values):
    """The median of the slopes between every two points (index, value); None under 2 points."""
    slopes = [
        (values[j] - values[i]) / (j - i)
        for i in range(len(values))
        for j in range(i + 1, len(values))
    ]
    return float(statistics.median(slopes)) if slopes else None


def direction(values, up, down, steady):
    """(slope, label): the label says whether the slope moves the median by TREND_SHARE across
    the window; None labels fewer than three points."""
    slope = theil_sen(values)
    if len(values) < 3:
        return slope, None
    change = slope * (len(values) - 1)
    scale = max(abs(statistics.median(values)), 1.0)
    if change >= TREND_SHARE * scale:
        return slope, up
    if change <= -TREND_SHARE * scale:
        return slope, down
    return slope, steady


def status_row(total, recent):
    """The status of one pair or test: ``total``, its counts over every run (kind, name, runs,
    finished_runs, last_identical_at, runs_since_identical, unfinished_started_at, as_of);
    ``recent``, its last ``window`` finished runs, oldest first (started_at, status, verdict,
    differing_rows, seconds)."""
    last = recent[-1] if recent else None
    counted = [r["differing_rows"] for r in recent if r["differing_rows"] is not None]
    timed = [r["seconds"] for r in recent if r["seconds"] is not None and r["verdict"] != "failed"]
    rows_slope, drift = direction(counted, "falling_behind", "catching_up", "steady")
    seconds_slope, cost = direction(timed, "slower", "faster", "steady")
    if last is not None and last["verdict"] == "identical":
        drift = "in_sync"
    unfinished = total["unfinished_started_at"]
    if last is not None and unfinished is not None and unfinished <= last["started_at"]:
        unfinished = None  # a killed run older than the last finished one
    return {
        **total,
        "last_started_at": last["started_at"] if last else None,
        "last_status": last["status"] if last else None,
        "last_verdict": last["verdict"] if last else None,
        "last_differing_rows": last["differing_rows"] if last else None,
        "last_seconds": last["seconds"] if last else None,
        "window_runs": len(recent),
        "failures_in_window": sum(r["verdict"] == "failed" for r in recent),
        "differing_rows_slope": rows_slope,
        "drift_trend": drift or "unknown",
        "seconds_median": float(statistics.median(timed)) if timed else None,
        "seconds_slope": seconds_slope,
        "cost_trend": cost or "unknown",
        "unfinished_started_at": unfinished,
    }


def model(dbt, session):
    dbt.config(materialized="table")
    materialized = dbt.config.get("materialized")
    if materialized != "table":
        raise ValueError(
            f"table_diff_pair_status is materialized as '{materialized}', not 'table': a "
            "`+materialized` directly under `models:` in dbt_project.yml reaches the package's "
            "models too. Scope it to your own project (models: <your project>: +materialized: "
            "...), or turn the model off with vars: {table_diff_pair_status: false}."
        )
    # A statement of its own: dbt finds the keys a Python model reads by parsing these calls.
    window = dbt.config.meta_get("table_diff_status_window", 20)
    window = int(window)
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    # One row per run (its final row, else its `running` row): the package's view of the history.
    folded = dbt.ref("table_diff_runs")
    pair = ("kind", "name")
    runs = (
        folded.select(
            *pair,
            "status",
            "recorded_at",
            F.coalesce("started_at", "recorded_at").alias("started_at"),
            F.expr(VERDICT).alias("verdict"),
            F.expr(
                "rows_added + rows_deleted + rows_modified + coalesce(duplicate_key_rows, 0)"
            ).alias("differing_rows"),
            F.col("seconds").cast("double").alias("seconds"),
        )
        .withColumn("finished", F.col("status") != "running")
        .withColumn(
            "last_identical",
            F.max(F.when(F.col("verdict") == "identical", F.col("started_at"))).over(
                Window.partitionBy(*pair)
            ),
        )
    )
    # One query, one collect, bounded by the number of pairs, not of runs: each pair's last
    # `window` finished runs and its newest unfinished one, each carrying its pair's counts over
    # every run (window aggregates).
    by_pair = Window.partitionBy(*pair)
    newest = Window.partitionBy(*pair, "finished").orderBy(
        F.col("started_at").desc(), F.col("recorded_at").desc()
    )
    after_identical = F.col("finished") & (
        F.col("last_identical").isNull() | (F.col("started_at") > F.col("last_identical"))
    )
    kept = (
        runs.select(
            "*",
            F.count(F.lit(1)).over(by_pair).alias("runs"),
            F.count(F.when(F.col("finished"), 1)).over(by_pair).alias("finished_runs"),
            F.count(F.when(after_identical, 1)).over(by_pair).alias("runs_since_identical"),
            F.max(F.when(~F.col("finished"), F.col("started_at")))
            .over(by_pair)
            .alias("unfinished_started_at"),
            F.max("recorded_at").over(by_pair).alias("as_of"),
            F.row_number().over(newest).alias("td_rank"),
        )
        .where(f"td_rank <= {window} and (finished or td_rank = 1)")
        .orderBy(*pair, "started_at", "recorded_at")
        .collect()
    )
    totals, recent = {}, {}
    for r in kept:
        key = (r["kind"], r["name"])
        totals[key] = {
            "kind": r["kind"],
            "name": r["name"],
            "runs": r["runs"],
            "finished_runs": r["finished_runs"],
            "last_identical_at": r["last_identical"],
            "runs_since_identical": r["runs_since_identical"],
            "unfinished_started_at": r["unfinished_started_at"],
            "as_of": r["as_of"],
        }
        if r["finished"]:
            recent.setdefault(key, []).append(r.asDict())
    rows = [status_row(totals[key], recent.get(key, [])) for key in sorted(totals)]
    names = [c.split()[0] for c in STATUS_COLUMNS.split(", ")]
    return session.createDataFrame([tuple(r[n] for n in names) for r in rows], STATUS_COLUMNS)
