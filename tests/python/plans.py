"""What a query read: rows produced by the file scans of an executed plan (shared by tests)."""

from __future__ import annotations


def rows_scanned(spark, compiled_sql: str, tables: tuple[str, ...]) -> int:
    """Run a compiled model query; the rows Spark's file scans of ``tables`` produced, from the
    scan nodes' own metrics over the executed adaptive plan (query stages, reused exchanges and
    subqueries followed; each scan node counted once)."""
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
        if name == "FileSourceScanExec" and any(
            node.tableIdentifier().get().unquotedString().endswith(t) for t in tables
        ):
            total += node.metrics().get("numOutputRows").get().value()
        for child in seq(node.children()) + seq(node.subqueries()):
            visit(child)
        if name in ("ReusedExchangeExec", "ReusedSubqueryExec"):
            visit(node.child())

    visit(df._jdf.queryExecution().executedPlan())
    return total
