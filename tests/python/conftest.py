"""Shared fixtures: one SparkSession (one JVM) per pytest process, and dbt run in-process.

* ``spark``: a session-scoped local SparkSession with its catalog in memory and its warehouse under
  pytest's tmp dir (:data:`SESSION_ONLY_CONF` says why not Hive). ``make pytest`` runs two
  pytest-xdist workers; each is its own process with its own tmp dir, hence its own session,
  catalog and warehouse, and takes whole files (``--dist loadfile``), the heaviest first
  (:data:`HEAVY_MODULES`, with ``--no-loadscope-reorder``).
* ``dbt_project_factory``: writes a throwaway dbt project plus a ``method: session`` profile whose
  ``server_side_parameters`` are exactly the fixture's Spark conf, so dbt-spark's
  ``SparkSession.builder...getOrCreate()`` returns the *same* session the tests hold. dbt runs
  in-process through ``dbtRunner``; results come back as :class:`DbtRun`.

Gotchas handled here:

* dbt-spark forces ``spark.sql.ansi.enabled=false`` into every query's ``getOrCreate`` (see
  ``dbt/adapters/spark/connections.py``), which would leak into later tests of the shared session.
  :meth:`DbtProject.run` restores every runtime SQL conf that a dbt invocation changed.
* Every ``getOrCreate`` on an existing session with static confs logs "Using an existing Spark
  session; only runtime SQL configurations will take effect." The log level is set to ERROR, and
  PySpark's JSON query-context loggers (which dump every failed query) to CRITICAL.
* Python UDFs start Python workers with ``PYSPARK_PYTHON`` (default: ``python3`` on PATH, which is
  not the venv when make calls ``.venv/bin/python`` directly): pinned to ``sys.executable``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import re
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from dbt_common.tests import enable_test_caching
from depth import DEEP, DEPTH
from lakehouse import lakehouse_conf
from postgres import postgres_server  # noqa: F401  (the `postgres` fixture; sets its password env first)

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
os.environ.setdefault("DBT_NO_VERSION_CHECK", "true")

# dbt's own switch for its test suites (dbt.tests.fixtures.project turns it on): Jinja parse
# results are cached by source text for the life of the process. Every in-process dbt invocation
# here parsed the package's 450 KB of macros and dbt's own again, about 3.5 s of a 4 s parse; the
# cache keeps only what a parse of the same text returns, so a changed file is parsed anew.
enable_test_caching()

REPO_ROOT = Path(__file__).resolve().parents[2]

# The slowest modules, slowest first (their fixtures build pairs in child JVMs or run seeded
# sequences of builds; minutes each against seconds for most others). Under xdist they are handed
# out first, the rest after them in collection order: whole files go to whichever worker is free,
# so a heavy file started last would leave the other worker idle while it runs. xdist's own order
# (by the number of tests, without --no-loadscope-reorder) started these in the middle of the run.
# An order only: a module missing here or listed out of date costs balance, never a test.
HEAVY_MODULES = (
    "test_track.py",
    "test_killed_run.py",
    "test_diff_property.py",
    "test_column_stats.py",
    "test_merge.py",
    "test_pinned.py",
    "test_formats.py",
    "test_preview.py",
    "test_repair.py",
    "test_track_iceberg.py",
    "test_tolerance.py",
    "test_drift_tests.py",
    "test_changes.py",
    "test_changes_inputs.py",
    "test_nested.py",
    "test_session_submission.py",
    "test_bench.py",
    "test_replicas.py",
    "test_run_integrity.py",
    "test_split_sql.py",
)


# Fixtures that start (or run dbt on) the pytest process's SparkSession. A test using any of them,
# or in a module marked `spark` (its tests start JVMs of their own: test_killed_run.py,
# test_engines.py), is marked `spark`: `make check` runs the others (`-m "not spark"`).
SPARK_FIXTURES = frozenset(
    {"spark", "spark_conf", "lakehouse", "dbt_project_factory", "_oracle_spark"}
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: needs a SparkSession or starts JVMs (auto-marked)")
    config.addinivalue_line(
        "markers",
        "deep: only at the deep depth (`make test-deep`); deselected, never skipped, otherwise",
    )
    config.addinivalue_line("markers", "smoke: the smoke pair of `make check`")


def pytest_report_header(config: pytest.Config) -> list[str]:
    seed = config.getoption("hypothesis_seed", None)
    lines = [f"table_diff test depth: {DEPTH} (TABLE_DIFF_TEST_DEPTH; make test / make test-deep)"]
    if seed is not None:
        lines.append(f"hypothesis seed {seed}: `make test SEED={seed}` draws the same examples")
    return lines


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """After a failure, the seed that reproduces the run's random examples, last thing printed."""
    seed = config.getoption("hypothesis_seed", None)
    if exitstatus != 0 and seed is not None:
        terminalreporter.write_line(
            f"table_diff: rerun with the same random examples: make test SEED={seed} "
            f"(or pytest --hypothesis-seed={seed} with TABLE_DIFF_TEST_DEPTH={DEPTH})"
        )


# First: pytest's own `-m` deselection (`make check`'s "not spark") must see the `spark` marks.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks `spark` tests; below the deep depth, deselects the `deep` ones (reported by pytest as
    deselected, not skipped); on an xdist worker, HEAVY_MODULES' tests first (a stable sort: each
    module's own order is kept). Every worker sorts alike, so their collections stay identical, as
    xdist requires."""
    for item in items:
        if SPARK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)
    if not DEEP:
        deep = [item for item in items if item.get_closest_marker("deep")]
        if deep:
            config.hook.pytest_deselected(items=deep)
            items[:] = [item for item in items if not item.get_closest_marker("deep")]
    if not hasattr(config, "workerinput"):
        return
    rank = {name: i for i, name in enumerate(HEAVY_MODULES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Stamps each test with the xdist worker that runs it and its start time: JUnit properties
    that scripts/suite_profile.py turns into each worker's busy time and idle tail (`make pytest`
    prints it after every run)."""
    item.user_properties.append(("worker", os.environ.get("PYTEST_XDIST_WORKER", "main")))
    item.user_properties.append(("started", f"{time.time():.3f}"))


# Confs that matter for every test. Static ones (master, warehouse, metastore) only take effect when
# the JVM starts; dbt's getOrCreate passes them again and Spark ignores them (same values anyway).
BASE_SPARK_CONF: dict[str, str] = {
    "spark.master": "local[2]",
    "spark.app.name": "table_diff_pytest",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    "spark.sql.session.timeZone": "UTC",
    # No pyarrow/pandas in the environment: say so instead of warning on every Python UDF.
    "spark.sql.execution.pythonUDF.arrow.enabled": "false",
    "spark.driver.memory": os.environ.get("TABLE_DIFF_DRIVER_MEMORY", "2g"),
}


@pytest.fixture(scope="session")
def spark_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory holding this run's warehouse (and Iceberg's, with the lakehouse jars)."""
    return tmp_path_factory.mktemp("spark")


# Delta Lake + Iceberg (ADR 0012): on when TABLE_DIFF_LAKEHOUSE_JARS names the jars (the Makefile
# sets it from scripts/fetch_lakehouse_jars.sh --print-jars). `make test` also sets
# TABLE_DIFF_REQUIRE_LAKEHOUSE=1: a missing jar list then fails the format tests, never skips them.
LAKEHOUSE_JARS = os.environ.get("TABLE_DIFF_LAKEHOUSE_JARS", "").strip()
LAKEHOUSE_REQUIRED = os.environ.get("TABLE_DIFF_REQUIRE_LAKEHOUSE", "") == "1"


# The pytest session's own confs, on top of BASE_SPARK_CONF (ADR 0034). Its queries run over a few
# rows each, so their CPU goes to planning, not data: interpreted expressions instead of Janino's
# generated classes (compiling them was 14% of the JVM's samples) and a catalog in memory instead of
# Hive on Derby (18%) cut one module's CPU by about a quarter, the whole suite's time by about 6%
# (ADR 0034 says where the gain went). The code users run (generated code, a
# Hive metastore) stays covered by the children of test_killed_run.py (BASE_SPARK_CONF, Hive), the
# integration build, both engines and `make demo`. Interpreted mode has its own defects:
# `spark.catalog.listTables` fails to decode its rows there: tests and bench list tables with SQL.
#
# The session's JVM compiles with C2 again (`TieredStopAtLevel=4`, placed after the C1-only
# SPARK_SUBMIT_OPTS the Makefile exports, so it wins): a worker's JVM lives the whole run (20-30
# minutes) interpreting the same planner and expression code, where C2's code pays back; the
# short-lived JVMs (the children of test_killed_run.py, the engines) keep C1 (ADR 0034, amendment
# "C2 again for the pytest session's JVM").
SESSION_ONLY_CONF: dict[str, str] = {
    "spark.sql.catalogImplementation": "in-memory",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=4",
}


@pytest.fixture(scope="session")
def spark_conf(spark_home: Path) -> dict[str, str]:
    """The Spark conf of the shared session; dbt profiles reuse it as server_side_parameters."""
    return {
        **BASE_SPARK_CONF,
        **SESSION_ONLY_CONF,
        "spark.sql.warehouse.dir": str(spark_home / "warehouse"),
        **(lakehouse_conf(spark_home, LAKEHOUSE_JARS) if LAKEHOUSE_JARS else {}),
    }


@pytest.fixture(scope="session")
def lakehouse(spark: Any) -> Any:
    """The shared session, with Delta and Iceberg on; skips without the jars, unless required."""
    if not LAKEHOUSE_JARS:
        message = (
            "Delta/Iceberg tests need TABLE_DIFF_LAKEHOUSE_JARS (run them through `make pytest`, "
            "which fetches the jars with `make lakehouse-jars` and sets it)"
        )
        if LAKEHOUSE_REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return spark


@pytest.fixture(scope="session")
def spark(spark_conf: dict[str, str]) -> Iterator[Any]:
    """The one SparkSession of the test run (its catalog in memory, SESSION_ONLY_CONF)."""
    from pyspark.sql import SparkSession

    if SparkSession.getActiveSession() is not None:  # pragma: no cover - defensive
        raise RuntimeError("a SparkSession already exists in this process; tests must own it")
    builder = SparkSession.builder
    for key, value in spark_conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    _quiet_pyspark_query_context_loggers()
    yield session
    session.stop()  # the JVM itself ends with the pytest process


def _quiet_pyspark_query_context_loggers() -> None:
    """PySpark 4 logs every failed query as a multi-kilobyte JSON record with the Java stack, on top
    of raising it. dbt-spark and the failure tests trigger such errors on purpose; the exception
    itself still carries the message."""
    from pyspark.logger import PySparkLogger

    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


# --------------------------------------------------------------------------------------------------
# dbt in-process
# --------------------------------------------------------------------------------------------------


@dataclass
class DbtRun:
    """One in-process dbt invocation: the runner's result plus every log message it emitted."""

    args: list[str]
    result: Any  # dbt.cli.main.dbtRunnerResult
    messages: list[str] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return bool(self.result.success)

    @property
    def node_results(self) -> list[Any]:
        """RunResult objects of build/run/seed/test; empty for deps, parse, a crash."""
        inner = self.result.result
        return list(getattr(inner, "results", None) or [])

    def node(self, name: str) -> Any:
        """The RunResult of the node named ``name`` (model, seed or test name)."""
        for res in self.node_results:
            if res.node.name == name:
                return res
        raise KeyError(
            f"no result for node {name!r}; nodes: {[r.node.name for r in self.node_results]}"
        )

    def status(self, name: str) -> str:
        return str(self.node(name).status)

    def message(self, name: str) -> str:
        return str(self.node(name).message or "")

    @property
    def log(self) -> str:
        return "\n".join(self.messages)

    def describe(self) -> str:
        """Human-readable summary for assertion messages."""
        lines = [f"dbt {' '.join(self.args)} -> success={self.success}"]
        if self.result.exception is not None:
            lines.append(f"exception: {self.result.exception!r}")
        for res in self.node_results:
            lines.append(f"  {res.node.name}: {res.status} {res.message or ''}".rstrip())
        return "\n".join(lines)

    def assert_success(self) -> DbtRun:
        assert self.success, self.describe() + "\n--- log ---\n" + self.log[-8000:]
        return self

    def assert_failure(self) -> DbtRun:
        assert not self.success, self.describe()
        return self


def run_dbt(
    args: list[str],
    project_dir: Path | str,
    profiles_dir: Path | str | None = None,
    callbacks: list[Any] | None = None,
) -> DbtRun:
    """Run dbt in this process against ``project_dir``; never raises for a dbt failure.

    ``callbacks`` receive every dbt event too, in the thread that fires it (a test can act at a
    precise point of a run, e.g. write to a table when a model starts). The caller restores Spark
    runtime confs if it needs to (:meth:`DbtProject.run` does).
    """
    from dbt.cli.main import dbtRunner

    messages: list[str] = []

    def collect(event: Any) -> None:
        msg = getattr(getattr(event, "info", None), "msg", None)
        if msg:
            messages.append(str(msg))

    full_args = [*args, "--project-dir", str(project_dir)]
    full_args += ["--profiles-dir", str(profiles_dir or project_dir)]
    result = dbtRunner(callbacks=[collect, *(callbacks or [])]).invoke(full_args)
    return DbtRun(args=full_args, result=result, messages=messages)


class DbtProject:
    """A dbt project written to a tmp dir, with its own schema in the shared metastore."""

    def __init__(self, root: Path, name: str, schema: str, spark: Any) -> None:
        self.root = root
        self.name = name
        self.schema = schema
        self.spark = spark

    def write(self, relative_path: str, content: str) -> Path:
        """Write (or overwrite) a project file; content is dedented."""
        path = self.root / relative_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip("\n"))
        return path

    def remove(self, relative_path: str) -> None:
        (self.root / relative_path).unlink()

    def relation(self, identifier: str) -> str:
        return f"{self.schema}.{identifier}"

    def table_exists(self, identifier: str) -> bool:
        return bool(self.spark.catalog.tableExists(f"{self.schema}.{identifier}"))

    def rows(self, identifier: str, order_by: str | None = None) -> list[tuple]:
        """All rows as tuples; ``order_by`` is a comma-separated column list."""
        df = self.spark.table(self.relation(identifier))
        if order_by:
            df = df.orderBy(*[column.strip() for column in order_by.split(",")])
        return [tuple(r) for r in df.collect()]

    def table_provider(self, identifier: str) -> str:
        """'parquet', 'delta', ... from DESCRIBE TABLE EXTENDED."""
        rows = self.spark.sql(f"describe table extended {self.relation(identifier)}").collect()
        for row in rows:
            if row.col_name.strip() == "Provider":
                return row.data_type.strip().lower()
        raise AssertionError(f"no Provider row for {identifier}")

    def run(self, *args: str, callbacks: list[Any] | None = None) -> DbtRun:
        """``project.run("build", "--select", "x")``; restores runtime confs dbt changed."""
        with restored_runtime_conf(self.spark):
            return run_dbt(list(args), self.root, self.root, callbacks)


@contextlib.contextmanager
def restored_runtime_conf(spark: Any) -> Iterator[None]:
    """Put back every runtime SQL conf changed inside (dbt-spark sets ANSI off on the shared
    session at each connection): what a dbt run in this process must not leak into later tests."""
    before = dict(spark.conf.getAll)
    try:
        yield
    finally:
        for key, value in dict(spark.conf.getAll).items():
            if before.get(key) == value or not spark.conf.isModifiable(key):
                continue
            if key in before:
                spark.conf.set(key, before[key])
            else:
                spark.conf.unset(key)


_counter = itertools.count(1)


@pytest.fixture(scope="session")
def dbt_project_factory(
    spark: Any, spark_conf: dict[str, str], tmp_path_factory: pytest.TempPathFactory
):
    """``make(name, files={path: text}, root=None, packages=False) -> DbtProject``.

    * ``files``: paths relative to the project (``models/x.py``, ``seeds/s.csv``, ``models/x.yml``);
    * ``root``: where to write it (a test's ``tmp_path``); default a fresh tmp dir;
    * ``packages``: install this repository as the ``table_diff`` package (``local:``, then
      ``dbt deps``);
    * ``project_config``: more keys of dbt_project.yml; its ``vars`` replace the default
      ``{table_diff_file_format: parquet, table_diff_pair_status: false}`` (the package's own
      tables stay parquet unless a test asks for Delta; no pair status model).

    The profile (``profiles.yml`` inside the project) uses ``method: session`` with the fixture's
    Spark conf, so dbt reuses the test session; each project gets its own schema.
    """

    def make(
        name: str,
        files: Mapping[str, str] | None = None,
        *,
        root: Path | None = None,
        packages: bool = False,
        project_config: Mapping[str, Any] | None = None,
    ) -> DbtProject:
        slug = re.sub(r"[^a-z0-9_]", "_", name.lower())
        schema = f"td_{slug}_{next(_counter)}"
        root = Path(root) if root is not None else tmp_path_factory.mktemp(slug)
        root.mkdir(parents=True, exist_ok=True)
        project = DbtProject(root, slug, schema, spark)
        dbt_project = {
            "name": slug,
            "version": "1.0.0",
            "config-version": 2,
            "profile": "table_diff_pytest",
            "model-paths": ["models"],
            "seed-paths": ["seeds"],
            "test-paths": ["tests"],
            "macro-paths": ["macros"],
            "flags": {"send_anonymous_usage_stats": False, "partial_parse": False},
            # The package's tables as parquet even on the lakehouse session, as before ADR 0015:
            # the suite's pairs keep their behaviour and cost. Delta outputs (`auto` with the jars)
            # are tested where they matter: test_killed_run.py, test_session_submission.py.
            # The pair status model (ADR 0037) only where a test asks for it (test_report.py):
            # one Python model more in every build adds a second or two, many times.
            "vars": {"table_diff_file_format": "parquet", "table_diff_pair_status": False},
            **(project_config or {}),
        }
        (root / "dbt_project.yml").write_text(yaml.safe_dump(dbt_project, sort_keys=False))
        profile = {
            "table_diff_pytest": {
                "target": "pytest",
                "outputs": {
                    "pytest": {
                        "type": "spark",
                        "method": "session",
                        "host": "localhost",
                        "schema": schema,
                        "threads": 1,
                        "server_side_parameters": dict(spark_conf),
                    }
                },
            }
        }
        (root / "profiles.yml").write_text(yaml.safe_dump(profile, sort_keys=False))
        for relative_path, content in (files or {}).items():
            project.write(relative_path, content)
        if packages:
            packages_yml = {"packages": [{"local": str(REPO_ROOT)}]}
            (root / "packages.yml").write_text(yaml.safe_dump(packages_yml))
            project.run("deps").assert_success()
        return project

    return make


# Where the browser tests keep their screenshots (report_complete.png, changes.png, ...).
OUTPUT = REPO_ROOT / "tests" / "output"
CHROMIUM = os.environ.get("TABLE_DIFF_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser():
    """System Chromium through playwright (never a browser download), for the pages'
    browser tests (test_report.py, test_changes_html.py)."""
    if not Path(CHROMIUM).exists():
        message = (
            f"headless Chromium not found at {CHROMIUM}: install it with "
            "`apt-get update && apt-get install -y chromium` (`make test` does, as root), or set "
            "TABLE_DIFF_CHROMIUM to its path"
        )
        if os.environ.get("TABLE_DIFF_ALLOW_NO_BROWSER") == "1":
            pytest.skip(message)
        pytest.fail(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()
