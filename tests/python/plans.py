"""What a query read: rows produced by the file scans of an executed plan (shared by tests)."""

from __future__ import annotations


def rows_scanned(
    spark, compiled_sql: str, tables: tuple[str, ...], batch_scans: bool = False
) -> int:
    """Run a compiled model query; the rows Spark's file scans of ``tables`` produced, from the
    scan nodes' own metrics over the executed adaptive plan (query stages, reused exchanges and
    subqueries followed; each scan node counted once). ``batch_scans``: also every DataSource V2
    scan (``BatchScanExec``: Iceberg's, its changelog's), whatever its table."""
    df = spark.sql(compiled_sql)
    df.collect()
    seen: set[int] = set()
    total = 0

    def seq(scala_seq):
        return [scala_seq.apply(i) for i in range(scala_seq.size())]

    def visit(node) -> None:
        nonlocal total
        identity = spark._jvm.System.identityHashCode(node)  # stage ids repeat per subquery
        if identity in seen:
            return
        seen.add(identity)
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            assert node.isFinalPlan(), name
            visit(node.executedPlan())
            return
        if name.endswith("QueryStageExec"):
            visit(node.plan())
            return
        if (batch_scans and name == "BatchScanExec") or (
            name == "FileSourceScanExec"
            and any(node.tableIdentifier().get().unquotedString().endswith(t) for t in tables)
        ):
            total += node.metrics().get("numOutputRows").get().value()
        for child in seq(node.children()) + seq(node.subqueries()):
            visit(child)
        if name in ("ReusedExchangeExec", "ReusedSubqueryExec"):
            visit(node.child())

    visit(df._jdf.queryExecution().executedPlan())
    return total


def full_reads(spark, tables: dict[str, int], value_columns: set[str], run) -> dict[str, float]:
    """Call ``run()`` (a dbt invocation on this session); for each table of ``tables`` (name ->
    its row count), how many times the SQL executions it started read the table in full: rows
    produced by its file scans that decode a column of ``value_columns``, over its rows. Scans
    of the key alone (the key sample), of file metadata alone (the summary's change check) and
    of cached views are not reads of the table. From the SQL status store (the final adaptive
    plans, each execution's own metrics)."""
    import re

    store = spark._jsparkSession.sharedState().statusStore()
    # The store keeps the last spark.sql.ui.retainedExecutions executions (1000) while
    # executionsCount() counts every one since the start: index the list by its own size.
    listed = store.executionsList()
    before = {listed.apply(i).executionId() for i in range(listed.size())}
    run()
    spark._jsc.sc().listenerBus().waitUntilEmpty()  # the store has seen every execution's end
    rows = dict.fromkeys(tables, 0)
    executions = store.executionsList()
    for i in range(executions.size()):
        eid = executions.apply(i).executionId()
        if eid in before:
            continue
        values = store.executionMetrics(eid)
        nodes = store.planGraph(eid).allNodes()
        for j in range(nodes.size()):
            node = nodes.apply(j)
            m = re.match(r"FileScan \w+ (\S+?)\[([^\]]*)\]", node.desc())
            if not m:
                continue
            table = next((t for t in tables if m.group(1).endswith(t)), None)
            columns = {re.sub(r"#\d+\w*$", "", c) for c in m.group(2).split(",") if c}
            if table is None or not columns & value_columns:
                continue
            for k in range(node.metrics().size()):
                metric = node.metrics().apply(k)
                value = values.get(metric.accumulatorId())
                if metric.name() == "number of output rows" and value.isDefined():
                    rows[table] += int(value.get().replace(",", ""))
    return {t: rows[t] / n for t, n in tables.items()}
