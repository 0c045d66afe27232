"""The ``session`` submission method: Python models run in dbt's own SparkSession.

End-to-end tests build throwaway dbt projects in-process (see ``conftest.py``) against the shared
test session; they are marked ``slow``. Unit tests of the helpers run without dbt.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import LAKEHOUSE_JARS
from dbt_common.exceptions import DbtRuntimeError

from dbt_table_diff import session_submission
from dbt_table_diff.plugin import TableDiffPlugin, install_session_submission
from dbt_table_diff.session_submission import SessionPythonJobHelper, apply_default_file_format

NUMBERS_CSV = """\
id,label
1,one
2,two
3,three
"""

# A Python model reading a seed written by dbt's SQL side: proves both run in one session.
DEFAULT_METHOD_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table")
    return dbt.ref("numbers").where("id >= 2").selectExpr("id", "upper(label) as label")
"""

EXPLICIT_SESSION_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table", submission_method="session")
    return session.createDataFrame([(10, "ten"), (20, "twenty")], "id int, label string")
"""

EXPLICIT_PARQUET_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    return session.createDataFrame([(1,)], "id int")
"""

INCREMENTAL_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="incremental")
    batch = 1
    if dbt.is_incremental:
        batch = session.sql(f"select max(batch) + 1 as b from {dbt.this}").first()["b"]
    return session.createDataFrame([(batch, 1), (batch, 2)], "batch int, id int")
"""

# Column names Delta refuses without column mapping (a space; one inside a struct too).
HOSTILE_NAMES_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table")
    return session.sql(
        "select 1 as id, 'a' as `Unit Price`, named_struct('x=y', 2) as nested"
    )
"""

OK_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table")
    return session.createDataFrame([(1,)], "id int")
"""


def _raising_model(token: str) -> str:
    return f"""\
def model(dbt, session):
    dbt.config(materialized="table")
    df = session.createDataFrame([(1,)], "id int")
    raise ValueError("{token}")
    return df
"""


def _udf_raising_model(token: str) -> str:
    """Fails inside the write job (in a Python worker), after Spark started writing files."""
    return f"""\
from pyspark.sql.functions import udf


def model(dbt, session):
    dbt.config(materialized="table")

    @udf("int")
    def explode_on_three(i):
        if i == 3:
            raise ValueError("{token}")
        return i

    df = session.range(0, 8, numPartitions=4).selectExpr("cast(id as int) as id")
    return df.select(explode_on_three("id").alias("id"))
"""


def _table_dir(project, identifier: str) -> Path:
    """Where a managed table of the project's schema lives in the shared warehouse."""
    warehouse = project.spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")
    return Path(warehouse) / f"{project.schema}.db" / identifier


# --------------------------------------------------------------------------------------------------
# (a) (b) (d): successful Python models
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_project(dbt_project_factory):
    """One project with every successful model flavour, built once for this module."""
    project = dbt_project_factory(
        "py_models",
        {
            "seeds/numbers.csv": NUMBERS_CSV,
            "models/py_default_method.py": DEFAULT_METHOD_MODEL,
            "models/py_explicit_session.py": EXPLICIT_SESSION_MODEL,
            "models/py_explicit_parquet.py": EXPLICIT_PARQUET_MODEL,
            "models/py_incremental.py": INCREMENTAL_MODEL,
            "models/py_hostile_names.py": HOSTILE_NAMES_MODEL,
        },
    )
    run = project.run("build").assert_success()
    return SimpleNamespace(project=project, first_run=run)


@pytest.mark.slow
def test_python_model_default_submission_method_builds_table(built_project):
    project = built_project.project
    assert built_project.first_run.status("py_default_method") == "success"
    assert project.rows("py_default_method", order_by="id") == [(2, "TWO"), (3, "THREE")]


@pytest.mark.slow
def test_python_model_explicit_session_submission_method(built_project):
    project = built_project.project
    assert built_project.first_run.status("py_explicit_session") == "success"
    assert project.rows("py_explicit_session", order_by="id") == [(10, "ten"), (20, "twenty")]


@pytest.mark.slow
def test_incremental_python_model_appends_on_second_run(built_project):
    project = built_project.project
    assert project.rows("py_incremental", order_by="id") == [(1, 1), (1, 2)]

    project.run("run", "--select", "py_incremental").assert_success()

    assert project.rows("py_incremental", order_by="batch, id") == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert not project.table_exists("py_incremental__dbt_tmp")


@pytest.mark.slow
def test_python_model_without_file_format_is_delta_only_where_delta_works(built_project, spark):
    # dbt-spark's py_write_table defaults to format("delta"); without Delta jars we write parquet.
    expected = "delta" if session_submission.delta_available(spark) else "parquet"
    assert built_project.project.table_provider("py_default_method") == expected


@pytest.mark.slow
def test_column_names_delta_refuses_are_written_with_column_mapping(built_project, spark):
    """On Delta, ``Unit Price`` needs column mapping (Delta's error says so); the plugin sets it
    for that table only. Without Delta the same model is parquet, which takes the names as they are.
    """
    project = built_project.project
    table = f"`{project.schema}`.`py_hostile_names`"
    row = spark.table(table).collect()
    assert [tuple(r) for r in row] == [(1, "a", (2,))]
    assert spark.table(table).columns == ["id", "Unit Price", "nested"]
    mapping = {
        r["key"]: r["value"]
        for r in spark.sql(f"show tblproperties {table}").collect()
        if r["key"] == "delta.columnMapping.mode"
    }
    if session_submission.delta_available(spark):
        assert project.table_provider("py_hostile_names") == "delta"
        assert mapping == {"delta.columnMapping.mode": "name"}
        # A table whose names Delta takes keeps dbt-spark's write: no column mapping.
        plain = f"`{project.schema}`.`py_default_method`"
        keys = [r["key"] for r in spark.sql(f"show tblproperties {plain}").collect()]
        assert "delta.columnMapping.mode" not in keys
    else:
        assert project.table_provider("py_hostile_names") == "parquet"
        assert mapping == {}


@pytest.mark.slow
def test_python_model_with_explicit_parquet_is_parquet(built_project):
    assert built_project.project.table_provider("py_explicit_parquet") == "parquet"


@pytest.mark.slow
def test_dbt_run_does_not_leak_ansi_setting_into_the_shared_session(built_project, spark):
    # dbt-spark sets spark.sql.ansi.enabled=false on each query; DbtProject.run restores it.
    before = spark.conf.get("spark.sql.ansi.enabled")
    built_project.project.run("run", "--select", "py_explicit_parquet").assert_success()
    assert spark.conf.get("spark.sql.ansi.enabled") == before


# --------------------------------------------------------------------------------------------------
# (c): failing Python models
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_failing_python_model_reports_its_own_traceback(dbt_project_factory, tmp_path):
    token = f"boom-{uuid.uuid4().hex[:12]}"
    project = dbt_project_factory(
        "py_fail",
        {"models/ok_model.py": OK_MODEL, "models/raising_model.py": _raising_model(token)},
        root=tmp_path / "project",
    )

    run = project.run("run").assert_failure()

    assert run.status("ok_model") == "success"
    assert run.status("raising_model") == "error"
    message = run.message("raising_model")
    assert "models/raising_model.py" in message
    assert f'raise ValueError("{token}")' in message  # the model's own source line
    assert f"ValueError: {token}" in message
    assert "session_submission.py" not in message  # our frames are dropped
    assert not project.table_exists("raising_model")
    assert not _table_dir(project, "raising_model").exists()


@pytest.mark.slow
def test_failing_rebuild_drops_previous_table_and_writes_nothing(dbt_project_factory, tmp_path):
    """dbt-spark's table materialization drops the old (non-Delta) table *before* running the
    model, so a failed rebuild leaves no table at all: neither the previous version nor a
    half-written new one. (With Delta, dbt-spark would `create or replace` and keep the old one.)
    """
    project = dbt_project_factory(
        "py_refail", {"models/flaky_model.py": OK_MODEL}, root=tmp_path / "project"
    )
    project.run("run").assert_success()
    assert project.rows("flaky_model") == [(1,)]

    token = f"boom-{uuid.uuid4().hex[:12]}"
    project.write("models/flaky_model.py", _raising_model(token))
    run = project.run("run").assert_failure()

    assert run.status("flaky_model") == "error"
    assert token in run.message("flaky_model")
    assert not project.table_exists("flaky_model")
    assert not _table_dir(project, "flaky_model").exists()


@pytest.mark.slow
def test_failure_during_write_leaves_no_partial_table(dbt_project_factory, tmp_path):
    # The model returns; the exception fires in a Python worker while the write job runs, after
    # other tasks may already have written files. Spark's commit protocol must clean them up.
    token = f"boom-{uuid.uuid4().hex[:12]}"
    project = dbt_project_factory(
        "py_write_fail",
        {"models/udf_model.py": _udf_raising_model(token)},
        root=tmp_path / "project",
    )

    run = project.run("run").assert_failure()

    assert run.status("udf_model") == "error"
    message = run.message("udf_model")
    assert "models/udf_model.py" in message
    assert token in message
    assert not project.table_exists("udf_model")
    table_dir = _table_dir(project, "udf_model")
    leftovers = (
        sorted(p.name for p in table_dir.rglob("*") if p.is_file()) if table_dir.exists() else []
    )
    if session_submission.delta_available(project.spark):
        # Delta (the implicit format where it works): the files written before the failure stay
        # in the folder, uncommitted: no commit in the log, so no reader sees them (and the next
        # build's plugin clears the folder, as it has no table).
        commits = [n for n in leftovers if n.endswith(".json")]
        assert commits == [], f"a commit was left in {table_dir}: {commits}"
    else:
        # Parquet: Spark's commit protocol removes the partial output.
        assert leftovers == [], f"partial output left in {table_dir}: {leftovers}"


@pytest.mark.slow
def test_files_of_an_interrupted_write_do_not_block_the_next_build(dbt_project_factory, tmp_path):
    """A build killed between the files and the catalog entry leaves files at the managed location
    and no table. Spark refuses to create the table there (what the killed-run test met); the
    plugin removes such an orphan before the model writes, and the build succeeds."""
    project = dbt_project_factory(
        "py_orphan", {"models/orphan_model.py": OK_MODEL}, root=tmp_path / "project"
    )
    spark = project.spark
    spark.sql(f"create schema if not exists `{project.schema}`")
    spark.sql(f"drop table if exists `{project.schema}`.orphan_model")
    orphan = _table_dir(project, "orphan_model")
    spark.range(3).write.mode("overwrite").parquet(str(orphan))
    assert any(orphan.glob("*.parquet"))
    with pytest.raises(Exception, match="LOCATION_ALREADY_EXISTS"):
        spark.range(1).write.format("parquet").saveAsTable(f"`{project.schema}`.orphan_model")

    run = project.run("run").assert_success()

    assert run.status("orphan_model") == "success"
    assert project.rows("orphan_model") == [(1,)]


# --------------------------------------------------------------------------------------------------
# (d) apply_default_file_format, unit level
# --------------------------------------------------------------------------------------------------

DBT_SPARK_WRITE = (
    'df.write.mode("overwrite").format("delta").option("overwriteSchema", "true")'
    '.saveAsTable("schema.model")'
)


@pytest.mark.parametrize("configured", ["delta", "parquet", "iceberg"])
def test_configured_file_format_is_kept(configured, monkeypatch):
    monkeypatch.setattr(session_submission, "delta_available", lambda spark: False)
    code = DBT_SPARK_WRITE.replace('"delta"', f'"{configured}"')
    assert apply_default_file_format(code, {"file_format": configured}, spark=None) == code


def test_implicit_delta_becomes_parquet_only_without_delta(monkeypatch):
    monkeypatch.setattr(session_submission, "delta_available", lambda spark: False)
    rewritten = apply_default_file_format(DBT_SPARK_WRITE, {}, spark=None)
    assert rewritten == DBT_SPARK_WRITE.replace('format("delta")', 'format("parquet")')

    monkeypatch.setattr(session_submission, "delta_available", lambda spark: True)
    assert apply_default_file_format(DBT_SPARK_WRITE, {}, spark=None) == DBT_SPARK_WRITE


def test_user_code_mentioning_delta_is_not_rewritten(monkeypatch):
    monkeypatch.setattr(session_submission, "delta_available", lambda spark: False)
    code = 'other.write.format("delta").save("/tmp/x")\n'
    assert apply_default_file_format(code, {}, spark=None) == code


def test_only_dbt_sparks_delta_write_goes_through_the_column_mapping_writer():
    routed = session_submission.apply_delta_column_mapping(DBT_SPARK_WRITE)
    assert routed == DBT_SPARK_WRITE.replace("df.write.", "__table_diff_delta_writer__(df).")
    parquet = DBT_SPARK_WRITE.replace('"delta"', '"parquet"')
    assert session_submission.apply_delta_column_mapping(parquet) == parquet
    other = 'mydf.write.mode("overwrite").format("delta").save("/tmp/x")\n'
    assert session_submission.apply_delta_column_mapping(other) == other


def test_delta_is_available_exactly_when_the_test_session_has_the_jars(spark):
    assert session_submission.delta_available(spark) is bool(LAKEHOUSE_JARS)


def test_a_format_the_materialization_chose_is_kept(monkeypatch):
    # table_diff_table resolved the format at run time and marked its write: never rewritten.
    monkeypatch.setattr(session_submission, "delta_available", lambda spark: False)
    code = (
        "# --- table_diff_table materialization (file_format chosen by table_diff_file_format)"
        " --- #\n" + DBT_SPARK_WRITE
    )
    assert apply_default_file_format(code, {}, spark=None) == code


# --------------------------------------------------------------------------------------------------
# (e) plugin registration
# --------------------------------------------------------------------------------------------------


def _fake_adapter(method: str) -> SimpleNamespace:
    credentials = SimpleNamespace(method=method)
    return SimpleNamespace(
        connections=SimpleNamespace(profile=SimpleNamespace(credentials=credentials))
    )


def test_plugin_is_discovered_by_dbt_plugin_manager():
    from dbt.adapters.spark.impl import SparkAdapter
    from dbt.plugins.manager import PluginManager

    manager = PluginManager.from_modules("table_diff_pytest")

    assert any(isinstance(plugin, TableDiffPlugin) for plugin in manager._plugins)
    helpers = SparkAdapter.python_submission_helpers.fget(object.__new__(SparkAdapter))
    assert helpers["session"] is SessionPythonJobHelper
    # dbt-spark's own methods stay available for Databricks users.
    assert {"job_cluster", "all_purpose_cluster"} <= set(helpers)


def test_default_submission_method_follows_the_profile_method():
    from dbt.adapters.spark.impl import SparkAdapter

    assert install_session_submission() is True  # idempotent
    default = SparkAdapter.default_python_submission_method.fget
    assert default(_fake_adapter("session")) == "session"
    # The Thrift Server runs no Python: the session helper refuses, saying what to do instead.
    assert default(_fake_adapter("thrift")) == "session"
    assert default(_fake_adapter("http")) == "all_purpose_cluster"  # Databricks: unchanged


def test_session_helper_rejects_non_session_credentials():
    from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials

    credentials = SparkCredentials(
        host="127.0.0.1", port=10000, schema="s", method=SparkConnectionMethod.THRIFT
    )
    model = {"unique_id": "model.pkg.my_model", "name": "my_model", "config": {}}

    with pytest.raises(DbtRuntimeError) as excinfo:
        SessionPythonJobHelper(model, credentials)

    message = str(excinfo.value)
    assert "model.pkg.my_model" in message
    assert "its method is 'thrift'" in message
    assert "method: session" in message
    assert "'job_cluster' / 'all_purpose_cluster'" in message  # the supported submission methods
    assert "the Spark Thrift Server (method thrift) runs SQL only" in message


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        (
            "orders_diff__block_split",
            "`table-diff scaffold pair orders_diff ... --split sql --force`",
        ),
        ("orders_merge__merged", "`table-diff scaffold merge orders_merge ... --force`"),
        (
            "orders_merge__merge_classified",
            "`table-diff scaffold merge orders_merge ... --classify sql --force`",
        ),
    ],
)
def test_a_pairs_python_split_on_thrift_names_split_sql(name, fix):
    """ADR 0025: on a thrift target, the split step's Python model fails (dbt-spark's default
    would ask for a Databricks cluster_id) with the SQL split as the way out; a merge model left
    from when the merge was Python (ADR 0027), with the scaffold that rewrites it in SQL; a
    merge's Python classification (ADR 0040), with --classify sql."""
    from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials

    credentials = SparkCredentials(
        host="127.0.0.1", port=10000, schema="s", method=SparkConnectionMethod.THRIFT
    )
    model = {"unique_id": f"model.pkg.{name}", "name": name, "config": {}}
    with pytest.raises(DbtRuntimeError) as excinfo:
        SessionPythonJobHelper(model, credentials)
    message = str(excinfo.value)
    assert f"Python model 'model.pkg.{name}' cannot run on this target" in message
    assert fix in message
    assert ("--split sql" in message) is name.endswith("__block_split")


def test_an_optional_package_model_on_thrift_is_left_out_with_a_line(capsys):
    """ADR 0037: a model marked `table_diff_optional_python` (the package's pair status) is left
    out on thrift: no error, nothing run, a line that says why and how to drop it from the graph.
    Without the mark the same model fails as any other."""
    from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials

    credentials = SparkCredentials(
        host="127.0.0.1", port=10000, schema="s", method=SparkConnectionMethod.THRIFT
    )
    model = {
        "unique_id": "model.table_diff.table_diff_pair_status",
        "name": "table_diff_pair_status",
        "config": {"meta": {"table_diff_optional_python": True}},
    }
    helper = SessionPythonJobHelper(model, credentials)
    helper.submit("raise RuntimeError('must not run')")
    err = capsys.readouterr().err
    assert "skipped Python model 'table_diff_pair_status'" in err
    assert "method 'thrift' runs no Python models" in err
    assert "{table_diff_pair_status: false}" in err
    model["config"] = {"meta": {}}
    with pytest.raises(DbtRuntimeError, match="its method is 'thrift'"):
        SessionPythonJobHelper(model, credentials)


# --------------------------------------------------------------------------------------------------
# (e2) table_diff_table on parquet: the new table written aside, swapped in by rename (ADR 0032)
# --------------------------------------------------------------------------------------------------

SWAP_SQL_MODEL = """\
{{ config(materialized='table_diff_table') }}
select {{ var('batch', 1) }} as batch
"""
SWAP_PY_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table_diff_table")
    batch = int(dbt.config.get("batch"))
    if batch < 0:
        raise ValueError("model failed on purpose")
    return session.createDataFrame([(batch,)], "batch int")
"""
SWAP_PY_YML = """\
models:
  - name: swap_py
    config:
      batch: "{{ var('batch', 1) }}"
"""


@pytest.mark.slow
def test_table_diff_table_on_parquet_swaps_by_rename_and_cleans_what_a_kill_left(
    dbt_project_factory,
):
    """Each rebuild leaves the model's table and nothing beside it. What a killed build leaves is
    simulated, then cleaned by the next build before it writes: a new table not yet swapped in
    (dropped), the old table renamed aside with the name empty (killed between the two renames:
    put back, so even a build that then fails leaves the old table under its name)."""
    project = dbt_project_factory(
        "td_swap",
        {
            "models/swap_sql.sql": SWAP_SQL_MODEL,
            "models/swap_py.py": SWAP_PY_MODEL,
            "models/swap_py.yml": SWAP_PY_YML,
        },
        packages=True,
    )
    spark = project.spark

    def leftovers() -> list[str]:
        tables = spark.sql(f"show tables in {project.schema}").collect()
        return sorted(t.tableName for t in tables if "__td_" in t.tableName)

    for batch in (1, 2):
        project.run("build", "--vars", f"{{batch: {batch}}}").assert_success()
        for name in ("swap_sql", "swap_py"):
            assert project.table_provider(name) == "parquet"
            assert project.rows(name) == [(batch,)], name
        assert leftovers() == []

    # A build killed while writing each model's new table (SQL), and one killed between its two
    # renames (Python): the name is empty, the old table aside.
    spark.sql(
        f"create table {project.relation('swap_sql__td_new')} using parquet as select -1 as batch"
    )
    spark.sql(
        f"alter table {project.relation('swap_py')} rename to {project.relation('swap_py__td_old')}"
    )
    spark.sql(
        f"create table {project.relation('swap_py__td_new')} using parquet as select -1 as batch"
    )
    assert not project.table_exists("swap_py")

    # The next build of the Python model fails after putting the old table back.
    failed = project.run("build", "--select", "swap_py", "--vars", "{batch: -1}")
    assert not failed.success
    assert "model failed on purpose" in failed.message("swap_py"), failed.describe()
    assert "held its previous table" in failed.log, failed.describe()
    assert project.rows("swap_py") == [(2,)]
    assert leftovers() == ["swap_sql__td_new"]

    project.run("build", "--vars", "{batch: 3}").assert_success()
    assert project.rows("swap_sql") == [(3,)] and project.rows("swap_py") == [(3,)]
    assert leftovers() == []


# --------------------------------------------------------------------------------------------------
# (f) file formats on a session with Delta: the package's materialization, a configured format
# --------------------------------------------------------------------------------------------------

BATCH_MODEL = "select {{ var('batch', 1) }} as batch\n"
TDT_SQL_MODEL = """\
{{ config(materialized='table_diff_table') }}
select batch, batch * 10 as x from {{ ref('batch_model') }}
"""
TDT_PY_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table_diff_table")
    return dbt.ref("batch_model").selectExpr("batch", "batch * 10 as x")
"""
# Column names Delta refuses without column mapping, as a merge's outputs carry them.
TDT_SQL_NAMES_MODEL = """\
{{ config(materialized='table_diff_table') }}
select batch, batch * 10 as `Unit Price` from {{ ref('batch_model') }}
"""
TDT_PY_NAMES_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table_diff_table")
    return dbt.ref("batch_model").selectExpr("batch", "batch * 10 as `Unit Price`")
"""
CONFIGURED_DELTA_PY_MODEL = """\
def model(dbt, session):
    dbt.config(materialized="table", file_format="delta")
    return dbt.ref("batch_model").selectExpr("batch")
"""
# (batch, table_diff_file_format) of the builds, in order.
FORMAT_BUILDS = ((1, "delta"), (2, "delta"), (3, "auto"), (4, "parquet"))
TDT_MODELS = ("tdt_sql", "tdt_py")
TDT_NAMES_MODELS = ("tdt_sql_names", "tdt_py_names")


@pytest.fixture(scope="module")
def format_builds(lakehouse, dbt_project_factory):
    """Four builds of one project on the lakehouse session; after each, per model: its provider,
    its rows, its Delta history (version, operation), newest first, and its rows at version 0."""
    project = dbt_project_factory(
        "py_formats",
        {
            "models/batch_model.sql": BATCH_MODEL,
            "models/tdt_sql.sql": TDT_SQL_MODEL,
            "models/tdt_py.py": TDT_PY_MODEL,
            "models/tdt_sql_names.sql": TDT_SQL_NAMES_MODEL,
            "models/tdt_py_names.py": TDT_PY_NAMES_MODEL,
            "models/configured_delta_py.py": CONFIGURED_DELTA_PY_MODEL,
        },
        packages=True,
    )
    states = {}
    for batch, file_format in FORMAT_BUILDS:
        variables = f"{{batch: {batch}, table_diff_file_format: {file_format}}}"
        project.run("build", "--vars", variables).assert_success()
        states[batch] = {}
        for name in (*TDT_MODELS, *TDT_NAMES_MODELS, "configured_delta_py"):
            provider = project.table_provider(name)
            history, first, detail = [], None, None
            if provider == "delta":
                relation = project.relation(name)
                row = lakehouse.sql(f"describe detail {relation}").first()
                detail = (
                    row["properties"].get("delta.columnMapping.mode"),
                    row["minReaderVersion"],
                    row["minWriterVersion"],
                )
                history = [
                    tuple(r)
                    for r in lakehouse.sql(f"describe history {relation}")
                    .select("version", "operation")
                    .collect()
                ]
                at_0 = lakehouse.sql(f"select * from {relation} version as of 0")
                first = [tuple(r) for r in at_0.collect()]
            states[batch][name] = (provider, project.rows(name), history, first)
            states[batch][name + ":detail"] = detail
    return project, states


@pytest.mark.slow
@pytest.mark.parametrize("name", TDT_MODELS)
def test_table_diff_table_on_delta_replaces_in_one_commit(format_builds, name):
    provider, rows, history, first = format_builds[1][2][name]
    assert provider == "delta"
    assert rows == [(2, 20)]
    # The rebuild was one commit over the existing table, not a drop and a create: the first
    # build's version is still there, and readable.
    assert history == [(1, "CREATE OR REPLACE TABLE AS SELECT"), (0, history[-1][1])]
    assert first == [(1, 10)]


@pytest.mark.slow
@pytest.mark.parametrize("name", TDT_MODELS)
def test_table_diff_table_auto_is_delta_on_a_session_with_delta(format_builds, name):
    provider, rows, history, _ = format_builds[1][3][name]
    assert (provider, rows) == ("delta", [(3, 30)])
    assert [v for v, _ in history] == [2, 1, 0]


@pytest.mark.slow
@pytest.mark.parametrize("name", TDT_MODELS)
def test_table_diff_table_parquet_var_writes_parquet_on_a_session_with_delta(format_builds, name):
    provider, rows, _, _ = format_builds[1][4][name]
    assert (provider, rows) == ("parquet", [(4, 40)])


@pytest.mark.slow
def test_configured_delta_python_model_is_honoured_and_replaced_in_one_commit(format_builds):
    # dbt-spark's own `table` materialization with file_format='delta': the plugin keeps the
    # format, and each rebuild is one commit over the table (whatever table_diff_file_format says).
    for batch, _ in FORMAT_BUILDS:
        provider, rows, history, first = format_builds[1][batch]["configured_delta_py"]
        assert (provider, rows, first) == ("delta", [(batch,)], [(1,)])
        assert [v for v, _ in history] == list(range(batch - 1, -1, -1))
        assert all(op == "CREATE OR REPLACE TABLE AS SELECT" for v, op in history if v > 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", TDT_MODELS + TDT_NAMES_MODELS)
def test_table_diff_table_maps_columns_by_name_on_every_delta_table(format_builds, name):
    # Every Delta table of the package maps columns by name (ADR 0015), SQL and Python alike, so a
    # name Delta refuses otherwise (a merge's `ours__Unit Price`) is written as it is, and a
    # rebuild keeps the mode. Delta raised the protocol for it.
    states = format_builds[1]
    for batch, _ in FORMAT_BUILDS[:3]:
        provider, rows, history, _ = states[batch][name]
        assert provider == "delta", (batch, states[batch][name])
        assert rows == [(batch, batch * 10)], (batch, rows)
        mode, reader, writer = states[batch][name + ":detail"]
        assert mode == "name" and reader >= 2 and writer >= 5, (batch, mode, reader, writer)
        assert [v for v, _ in history] == list(range(batch - 1, -1, -1)), (batch, history)
    # Parquet takes the names as they are (a change of format: dropped and created).
    assert states[4][name][:2] == ("parquet", [(4, 40)])


def test_delta_writer_maps_columns_when_a_name_needs_it_or_when_asked():
    from pyspark.sql.types import LongType, StructField, StructType

    class Writer:
        def __init__(self) -> None:
            self.options: dict[str, str] = {}

        def option(self, key: str, value: str) -> Writer:
            self.options[key] = value
            return self

    def frame(*names: str) -> SimpleNamespace:
        schema = StructType([StructField(n, LongType()) for n in names])
        return SimpleNamespace(write=Writer(), schema=schema)

    mapping = {"delta.columnMapping.mode": "name"}
    assert session_submission.delta_writer(frame("id", "qty")).options == {}
    assert session_submission.delta_writer(frame("id", "Unit Price")).options == mapping
    assert session_submission.delta_writer(frame("id"), column_mapping=True).options == mapping


def test_write_table_refuses_a_format_it_does_not_write():
    from pyspark.sql import DataFrame

    df = object.__new__(DataFrame)
    with pytest.raises(ValueError, match="delta or parquet, not 'iceberg'"):
        session_submission.write_table(None, df, "s.t", "iceberg")
    with pytest.raises(TypeError, match="returns a Spark DataFrame"):
        session_submission.write_table(None, [1], "s.t", "delta")
