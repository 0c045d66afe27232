# table_diff: development entry points.
#
#   make demo         build the demo pair on an embedded Spark and print its summary
#   make check        the inner loop, a few minutes: ruff, the tests that need no Spark, one smoke pair
#   make test         everything CI runs: lint, pytest, the integration project, SQL lint, engines
#   make test-deep    make test at the deep depth: every property test's full budget, the slow matrices
#   make venv         .venv with the pinned requirements and this package (editable)
#   make lakehouse-jars  fetch the pinned Delta + Iceberg jars into .spark-jars/ (once; `make test` does it)
#   make browser      install Debian's chromium for the report's browser test (as root; `make test` does it)
#   make postgres     install Debian's PostgreSQL for the database-side tests (as root; `make test` does it)
#   make engines      integration_tests on a real Thrift Server and a standalone cluster (scripts/engines.py)
#   make bench        the benchmark (bench/run.py; BENCH_ARGS=... to change sizes), about an hour
#   make bench-tpch   TPC-H lineitem (bench/tpch.py, tpchgen-cli; TPCH_ARGS=...), about 40 minutes
#   make clean        build output and local Spark state; `make distclean` also drops .venv
#
# Spark state (Derby metastore + warehouse) lives under integration_tests/.spark/<purpose>/.
# Derby admits one JVM per metastore, so each purpose has its own directory; targets of one make
# invocation run serially (.NOTPARALLEL) and never share a metastore concurrently; the one exception,
# `integration-and-engines`, runs the engines beside the integration build, each in its own
# temporary folder. Do not run two Spark-using targets of the same checkout at the same time.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.NOTPARALLEL:
.DELETE_ON_ERROR:

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.table_diff-installed
PIP := $(BIN)/python -m pip --disable-pip-version-check

IT_DIR := $(CURDIR)/integration_tests
IT_SPARK_HOME := $(IT_DIR)/.spark/integration
PY_PATHS := $(wildcard src tests bench scripts python_models integration_tests/python_models)
SQL_LINT_PATHS := integration_tests/target/compiled/table_diff_integration_tests/models

# Python workers of UDFs must run the venv's interpreter, not whatever python3 is on PATH.
export PYSPARK_PYTHON := $(CURDIR)/$(BIN)/python
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
# Quieter Spark logs (see spark-conf/log4j2.properties); local Spark binds to loopback.
export SPARK_CONF_DIR := $(CURDIR)/spark-conf
export SPARK_LOCAL_IP ?= 127.0.0.1

.PHONY: help check-java venv lakehouse-jars browser postgres bench bench-tpch demo check test test-deep lint lint-python lint-sql pytest integration integration-and-engines engines engines-thrift engines-cluster clean distclean

help:
	@sed -n 's/^#   //p' $(firstword $(MAKEFILE_LIST))

check-java:
	@scripts/check_java.sh

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -r requirements.txt
	$(PIP) install --no-build-isolation --no-deps -e .
	@touch $@

demo: check-java venv
	$(BIN)/table-diff demo

# The Delta Lake + Iceberg jars pinned in spark-conf/lakehouse.env, fetched once with the machine's
# Maven into .spark-jars/<delta>-<iceberg>/ (ADR 0012). `make test` needs them (the format matrix);
# `make demo` does not: it runs on plain parquet, as a Spark without the jars does.
lakehouse-jars:
	@scripts/fetch_lakehouse_jars.sh

# The report's browser test (tests/python/test_report.py) drives the system Chromium through
# playwright; playwright's own browser download is not used. Installed here when absent, if we are
# root with apt-get; otherwise the test fails with the command to run (TABLE_DIFF_ALLOW_NO_BROWSER=1
# turns that failure into a skip).
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Installing chromium (Debian) for the report's browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "Chromium is missing and cannot be installed here (not root, or no apt-get): run" \
	    "'sudo apt-get update && sudo apt-get install -y chromium'; the browser test fails until then." >&2; \
	fi

# PostgreSQL's server for the database-side tests (ADR 0047): Debian's package, installed when missing
# as root with apt-get (tests/python/postgres.py); each pytest worker starts its own server.
postgres: venv
	@$(BIN)/python tests/python/postgres.py

# Prefix for commands that must see the jars: the comma-separated list (spark.jars), and the promise
# that the format tests must run rather than skip.
WITH_LAKEHOUSE := TABLE_DIFF_LAKEHOUSE_JARS="$$($(CURDIR)/scripts/fetch_lakehouse_jars.sh --print-jars 2>/dev/null)" \
  TABLE_DIFF_REQUIRE_LAKEHOUSE=1

# Not part of `make test`: speed is measured here, as ratios within one SparkSession, never in tests.
BENCH_ARGS ?= --rows 1000000,10000000 --k 0,100,1% --reps 3 \
  --approaches floor,join,hash_buckets,spark_extension,except_all,datacompy,table_diff,no_drift
bench: check-java venv
	$(PIP) install -q -r bench/requirements.txt
	$(BIN)/python bench/run.py $(BENCH_ARGS)

TPCH_ARGS ?= --sf 1 --drift 0,0.01%,0.1%,1% --reps 3 --e2e-reps 3
bench-tpch: check-java venv
	$(PIP) install -q -r bench/requirements.txt
	$(BIN)/python bench/tpch.py $(TPCH_ARGS)

# The test JVMs answer thousands of queries over a few rows each: their CPU goes to class loading,
# query planning and the JIT, not to data. C1 alone (no C2 recompiles) and the serial collector cut
# a short pytest run's CPU time by about 38%, the whole suite's time by 9% (ADR 0034); spark-submit
# passes SPARK_SUBMIT_OPTS to every driver JVM these targets start, child processes included, and
# the cluster's master and workers take SPARK_DAEMON_JAVA_OPTS. C1 alone reserves a 48 MB code
# cache, which the integration build fills within a minute ("Out of space in CodeCache", then
# failed tasks): 240 MB, the size it has with C2. Never the bench: its big scans need C2. The pytest
# workers' own sessions live 20-30 minutes and take C2 back (tests/python/conftest.py, ADR 0034).
TEST_JAVA_OPTS := -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC
demo check pytest integration engines-thrift engines-cluster integration-and-engines: \
  export SPARK_SUBMIT_OPTS := $(TEST_JAVA_OPTS)
# The integration build's one JVM lives 12-15 minutes over 391 nodes: C2 pays back there, as in the
# pytest workers' sessions (the whole build as two clones side by side: 866 s with C1 alone, 755 s
# with C2; ADR 0034). The engines, started beside it, keep C1.
integration: export SPARK_SUBMIT_OPTS := -XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC
engines-cluster integration-and-engines: export SPARK_DAEMON_JAVA_OPTS := $(TEST_JAVA_OPTS)

# Order matters: cheap checks first, then pytest; then the integration build with its SQL lint
# (which compiles models against the warehouse the build just filled) runs beside the two real
# engines. Each engine has its own copy of integration_tests, metastore, warehouse and ports in a
# temporary folder, so the three share no file; much of each is dbt's single-threaded Python and JVM
# start-up, so they overlap on two cores (ADR 0026). An engine's output is printed when it ends.
test: check-java venv lakehouse-jars browser lint-python pytest integration-and-engines

# The deep depth (tests/python/depth.py, CONTRIBUTING.md): every property test's full example
# budget, the tests marked `deep`, and each engine's whole selection (integration_tests/
# selectors.yml). For a release, and for any change to the fingerprint, the split or the row diff.
test-deep: export TABLE_DIFF_TEST_DEPTH := deep
test-deep: test

# The inner loop (CONTRIBUTING.md): ruff, the tests that need no Spark (conftest.py marks the
# others `spark`) and the smoke pair, one pair, no_drift and a merge on the corner data against the
# oracle (test_smoke.py), on one worker while the other takes the rest. No lakehouse jars, no
# integration build, no engines: `make test` runs those.
check: check-java venv browser lint-python
	$(BIN)/python -m pytest tests/python -n 2 --dist loadfile -m "not spark or smoke" \
	  $(PYTEST_SEED) --durations=10

ENGINE_LOGS := $(CURDIR)/integration_tests/logs/engines
integration-and-engines: check-java venv lakehouse-jars
	@mkdir -p $(ENGINE_LOGS)
	@$(MAKE) --no-print-directory engines-thrift > $(ENGINE_LOGS)/thrift.log 2>&1 & thrift=$$!; \
	  $(MAKE) --no-print-directory engines-cluster > $(ENGINE_LOGS)/cluster.log 2>&1 & cluster=$$!; \
	  echo "engines: thrift and cluster started (logs in $(ENGINE_LOGS)); integration build now"; \
	  rc=0; $(MAKE) --no-print-directory integration lint-sql || rc=$$?; \
	  for engine in thrift cluster; do \
	    pid=$$thrift; [ $$engine = cluster ] && pid=$$cluster; \
	    wait $$pid || { echo "engines-$$engine FAILED"; rc=1; }; \
	    echo "---- engines-$$engine ----"; cat $(ENGINE_LOGS)/$$engine.log; \
	  done; \
	  exit $$rc

lint: lint-python lint-sql

lint-python: venv
	$(BIN)/ruff check $(PY_PATHS)
	$(BIN)/ruff format --check $(PY_PATHS)
	$(BIN)/python scripts/check_dbt_docs.py

# sqlfluff lints the SQL the integration build just compiled for its models (the package's macros
# inside it), as it ran: no second compile (.sqlfluff, ADR 0034).
# Two processes: sqlfluff's parser and rules are pure Python.
lint-sql: venv integration
	$(BIN)/sqlfluff lint --processes 2 $(SQL_LINT_PATHS)

# Two pytest workers (pytest-xdist), each with its own SparkSession, metastore and warehouse under
# its own tmp dir; whole files per worker (--dist loadfile), so a module's fixtures are built once.
# The slowest files are handed out first (conftest.py's HEAVY_MODULES; --no-loadscope-reorder keeps
# that order instead of xdist's, by number of tests), so no long file starts when the other worker
# is nearly done.
# Most of a test is dbt's single-threaded Python (parse, compile, Jinja), so two workers overlap
# well even on two cores: the suite took 37 min this way against about 45 min serially (stop 33).
# PYTEST_WORKERS=0 runs it in one process. --durations=30 prints the 30 slowest test phases (setup,
# call, teardown) at the end of every run, and the suite profile below them (CI keeps both in its
# log). PYTEST_ARGS=... adds options (`-k`, a module, `--durations=0`).
# Every run draws its random examples from a fresh seed, printed in pytest's header and again after
# a failure; `make test SEED=N` (or check, test-deep) draws the same ones again.
PYTEST_WORKERS ?= 2
SEED ?= $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
PYTEST_SEED := --hypothesis-seed=$(SEED)
# After every run, passed or failed: where its time went (scripts/suite_profile.py: module totals,
# each worker's busy time and idle tail, the slowest tests), from the JUnit XML pytest writes.
PYTEST_XML := tests/output/pytest.xml
pytest: check-java venv lakehouse-jars browser postgres
	@rm -f $(PYTEST_XML)
	rc=0; $(WITH_LAKEHOUSE) $(BIN)/python -m pytest tests/python -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	  $(PYTEST_SEED) --durations=30 --junitxml=$(PYTEST_XML) $(PYTEST_ARGS) || rc=$$?; \
	  $(BIN)/python scripts/suite_profile.py $(PYTEST_XML); exit $$rc

# The integration project builds on the `lakehouse` target (Delta + Iceberg on); `make demo` uses the
# same project's `embedded` target, plain parquet. The compiled SQL of an earlier build is removed
# first: lint-sql lints exactly what this build ran.
integration: check-java venv lakehouse-jars
	cd integration_tests && \
	  export DBT_PROFILES_DIR=$(IT_DIR) TABLE_DIFF_SPARK_HOME=$(IT_SPARK_HOME) && \
	  export $(WITH_LAKEHOUSE) && \
	  rm -rf target/compiled && \
	  $(CURDIR)/$(BIN)/dbt deps && \
	  $(CURDIR)/$(BIN)/dbt build --target lakehouse

# The same project on real engines (ADR 0026, docs/engines.md): a Spark Thrift Server and a standalone
# master with two workers, started from pyspark's jars on ports chosen at run time, each run in its
# own temporary folder and stopped whatever happens (also on failure or Ctrl-C); the harness fails
# if a process of its run or a bound port is left. What each builds: integration_tests/selectors.yml.
engines: engines-thrift engines-cluster

engines-thrift: check-java venv
	$(BIN)/python scripts/engines.py thrift

engines-cluster: check-java venv
	$(BIN)/python scripts/engines.py cluster

clean:
	rm -rf integration_tests/target integration_tests/dbt_packages integration_tests/logs \
	  integration_tests/.spark integration_tests/package-lock.yml \
	  target dbt_packages logs .spark spark-warehouse metastore_db derby.log \
	  .pytest_cache .ruff_cache .hypothesis build dist
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
