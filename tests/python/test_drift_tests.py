"""The generic tests: no_drift, row_count_matches, schema_matches, run by `dbt test` in-process."""

from __future__ import annotations

import json

import pytest

BASE = """
select * from values
  (1, 'Ada', cast(10.50 as decimal(10,2)), 'new'),
  (2, 'Grace', cast(20.00 as decimal(10,2)), null),
  (3, 'Linus', null, 'shipped'),
  (4, 'Ken', cast(4.00 as decimal(10,2)), 'shipped'),
  (5, 'Barbara', cast(5.50 as decimal(10,2)), 'new')
  as t(order_id, customer, amount, status)
"""

COPIES = {
    # name: (SQL over `base`, expected failing rows by diff_type)
    "same": ("select * from {{ ref('base') }}", {}),
    "added": (
        "select * from {{ ref('base') }} union all select 6, 'Tony', 1.00, 'new'",
        {"added": 1},
    ),
    "deleted": ("select * from {{ ref('base') }} where order_id not in (2, 4)", {"deleted": 2}),
    "modified": (
        "select order_id, customer, "
        "if(order_id = 3, cast(3.00 as decimal(10,2)), amount) as amount, "
        "if(order_id = 1, 'paid', status) as status from {{ ref('base') }}",
        {"modified": 2},
    ),
    # One of each: order 2 deleted, order 6 added, order 1 modified (for the limits per kind).
    "mixed": (
        "select order_id, customer, amount, if(order_id = 1, 'paid', status) as status "
        "from {{ ref('base') }} where order_id != 2 union all select 6, 'Tony', 1.00, 'new'",
        {"added": 1, "deleted": 1, "modified": 1},
    ),
    "duplicated": (
        "select * from {{ ref('base') }} "
        "union all select * from {{ ref('base') }} where order_id = 5",
        {"duplicate_key": 3},
    ),
}


@pytest.fixture(scope="module")
def drift_project(dbt_project_factory):
    files = {"models/base.sql": BASE}
    for name, (sql, _) in COPIES.items():
        files[f"models/copy_{name}.sql"] = sql
    files["models/copy_renamed.sql"] = (
        "select order_id as id, customer, amount, status from {{ ref('base') }}"
    )
    files["models/copy_retyped.sql"] = (
        "select order_id, customer, cast(amount as string) as amount, status from {{ ref('base') }}"
    )
    tests = []
    for name in COPIES:
        tests.append(
            f"""      - table_diff.no_drift:
          name: drift_{name}
          arguments:
            compare_to: ref('copy_{name}')
            primary_key: [order_id]"""
        )
    tests.append(
        """      - table_diff.no_drift:
          name: drift_modified_range
          arguments:
            compare_to: ref('copy_modified')
            primary_key: order_id
            strategy: range
            block_count: 2"""
    )
    for name in ("same", "modified"):
        tests.append(
            f"""      - table_diff.no_drift:
          name: drift_{name}_blocks_only
          arguments:
            compare_to: ref('copy_{name}')
            primary_key: order_id
            quick_check: false"""
        )
    tests.append(
        """      - table_diff.no_drift:
          name: drift_modified_status_excluded
          arguments:
            compare_to: ref('copy_modified')
            primary_key: order_id
            exclude_columns: [status, amount]"""
    )
    tests.append(
        """      - table_diff.no_drift:
          name: drift_threshold
          arguments:
            compare_to: ref('copy_deleted')
            primary_key: order_id
          config:
            warn_if: ">0"
            error_if: ">5\""""
    )
    # Limits per kind of change: within every limit (a share of the model's 5 rows: 20% = 1 row),
    # then over two of them (max_deleted unset = 0; 10% of 5 rows = 0.5).
    tests.append(
        """      - table_diff.no_drift:
          name: drift_within_limits
          arguments:
            compare_to: ref('copy_mixed')
            primary_key: order_id
            max_added: 1
            max_deleted: '20%'
            max_modified: 1
      - table_diff.no_drift:
          name: drift_over_limits
          arguments:
            compare_to: ref('copy_mixed')
            primary_key: order_id
            max_added: 5
            max_modified: '10%'"""
    )
    tests.append(
        """      - table_diff.no_drift:
          name: drift_filtered
          arguments:
            compare_to: ref('copy_deleted')
            primary_key: order_id
            table_filter: "order_id not in (2, 4)\""""
    )
    tests.append(
        """      - table_diff.row_count_matches:
          name: count_same
          arguments:
            compare_to: ref('copy_modified')
      - table_diff.row_count_matches:
          name: count_deleted
          arguments:
            compare_to: ref('copy_deleted')
      - table_diff.row_count_matches:
          name: count_deleted_tolerated
          arguments:
            compare_to: ref('copy_deleted')
            tolerance: 2
      - table_diff.schema_matches:
          name: schema_same
          arguments:
            compare_to: ref('copy_modified')
      - table_diff.schema_matches:
          name: schema_renamed
          arguments:
            compare_to: ref('copy_renamed')
      - table_diff.schema_matches:
          name: schema_retyped
          arguments:
            compare_to: ref('copy_retyped')"""
    )
    files["models/schema.yml"] = (
        "version: 2\nmodels:\n  - name: base\n    data_tests:\n" + "\n".join(tests) + "\n"
    )
    project = dbt_project_factory(
        "drift_tests",
        files=files,
        packages=True,
        project_config={"models": {"drift_tests": {"+materialized": "table"}}},
    )
    project.run("run").assert_success()
    return project


@pytest.fixture(scope="module", params=["full_rows", "narrow_keys_first"])
def test_run(drift_project, request):
    """`dbt test` once per row-fetch path of drift_rows, each forced by the var whatever the share
    of differing blocks: the full rows of the differing blocks joined, or the dense-drift path
    (differing keys found on a narrow key/hash pass first, then only their rows fetched)."""
    share = 0.0 if request.param == "narrow_keys_first" else 2.0
    return drift_project.run(
        "test", "--store-failures", "--vars", json.dumps({"table_diff_dense_leaf_share": share})
    )


def test_identical_copy_passes(test_run):
    assert test_run.status("drift_same") == "pass", test_run.describe()
    assert "drift_same" in test_run.describe()


def test_quick_check_decides_identical_on_whole_table_signatures(test_run):
    """A pass stops after one whole-table signature per side; quick_check: false compares the
    blocks instead, and a drifted copy fails the same either way."""
    lines = [m for m in test_run.messages if "copy_same" in m and "identical" in m]
    assert any("whole-table signatures equal" in m for m in lines), lines
    assert any("blocks compared" in m for m in lines), lines  # drift_same_blocks_only
    assert test_run.status("drift_same_blocks_only") == "pass", test_run.describe()
    assert test_run.status("drift_modified_blocks_only") == "fail", test_run.describe()
    assert test_run.node("drift_modified_blocks_only").failures == 2


@pytest.mark.parametrize("name", ["added", "deleted", "modified", "mixed", "duplicated"])
def test_each_kind_of_drift_fails_with_counts(test_run, drift_project, name):
    expected = COPIES[name][1]
    status = test_run.status(f"drift_{name}")
    assert status == "fail", test_run.describe()
    assert test_run.node(f"drift_{name}").failures == sum(expected.values())
    # the log line an on-call engineer reads
    words = {
        "added": "added",
        "deleted": "deleted",
        "modified": "modified",
        "duplicate_key": "duplicate-key rows",
    }
    line = next(m for m in test_run.messages if f"copy_{name}" in m and "DIFFER" in m)
    for kind, n in expected.items():
        assert f"{n} {words[kind]}" in line, line
    # --store-failures keeps the differing rows, with diff_type and changed_columns
    audit = test_run.node(f"drift_{name}").node.relation_name
    stored = drift_project.spark.table(audit).collect()
    kinds = {}
    for row in stored:
        kinds[row["diff_type"]] = kinds.get(row["diff_type"], 0) + 1
    assert kinds == expected
    if name == "modified":
        changed = {r["order_id"]: list(r["changed_columns"]) for r in stored}
        assert changed == {1: ["status"], 3: ["amount"]}


def test_failing_tests_release_their_cached_rows(test_run, drift_project):
    """drift_rows caches a failing test's rows in a temporary view; the package's on-run-end hook
    must uncache and drop them, or a long-lived session keeps them (and serves stale copies)."""
    assert sum("DIFFER" in m for m in test_run.messages) >= 4  # views were created
    spark = drift_project.spark
    assert spark.sql("show views like 'td_cache_*'").collect() == []
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
    # cache_view (macros/dialect/) lets adaptive execution coalesce the cached query's shuffles for
    # that statement only: the session's setting (false by default) is back afterwards.
    conf = "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning"
    assert spark.conf.get(conf) == "false"


def test_range_strategy_and_column_selection(test_run):
    assert test_run.status("drift_modified_range") == "fail"
    assert test_run.node("drift_modified_range").failures == 2
    assert test_run.status("drift_modified_status_excluded") == "pass"
    assert test_run.status("drift_filtered") == "pass"


def test_thresholds_go_through_warn_if_error_if(test_run):
    assert test_run.status("drift_threshold") == "warn"
    assert test_run.node("drift_threshold").failures == 2


def test_limits_per_kind_fail_only_the_kinds_over_their_limit(test_run, drift_project):
    """max_added / max_deleted / max_modified: a count or a share of the model's rows; unset is 0.
    Only the rows of a kind over its limit fail, and the log says which kind and by how much."""
    assert test_run.status("drift_within_limits") == "pass", test_run.describe()
    assert test_run.status("drift_over_limits") == "fail", test_run.describe()
    assert test_run.node("drift_over_limits").failures == 2  # the deleted and the modified row
    stored = drift_project.spark.table(test_run.node("drift_over_limits").node.relation_name)
    assert sorted(r["diff_type"] for r in stored.collect()) == ["deleted", "modified"]
    lines = [m for m in test_run.messages if "over its limit" in m]
    assert len(lines) == 1, lines
    assert "deleted: 1 > max_deleted 0 (by 1)" in lines[0], lines[0]
    assert "modified: 1 > max_modified 10.0% of 5 rows = 0.5 (by 0.5)" in lines[0], lines[0]
    assert "added:" not in lines[0].split("(limits:")[0], lines[0]
    assert any("every kind of change within its limit" in m for m in test_run.messages)
    # The sides are named, so a test on a replica is not read backwards.
    line = next(m for m in test_run.messages if "copy_mixed" in m and "DIFFER" in m)
    assert "1 added (only in compare_to), 1 deleted (only in model)" in line, line


@pytest.mark.parametrize(
    ("value", "shown"), [("'-5%'", "-5%"), ("-1", "-1"), ("'lots'", "lots"), ("'150%'", "150%")]
)
def test_bad_limits_fail_at_parse_time(drift_project, value, shown):
    text = _parse_failure(
        drift_project,
        f"compare_to: ref('copy_mixed')\nprimary_key: order_id\nmax_modified: {value}",
    )
    assert f"table_diff.no_drift: invalid max_modified '{shown}'" in text, text[-3000:]
    assert "a whole number of rows >= 0" in text and "'0.1%'" in text, text[-3000:]


def _parse_failure(project, arguments: str) -> str:
    """`dbt parse` with one no_drift test on copy_same taking ``arguments`` (YAML lines): it must
    fail; its log and exception text."""
    indented = "".join(f"\n                    {line}" for line in arguments.splitlines())
    project.write(
        "models/bad_test.yml",
        f"""
        version: 2
        models:
          - name: copy_same
            data_tests:
              - table_diff.no_drift:
                  name: drift_bad_argument
                  arguments:{indented}
        """,
    )
    try:
        run = project.run("parse")
    finally:
        project.remove("models/bad_test.yml")
    run.assert_failure()
    return f"{run.log}\n{run.result.exception}"


def test_row_count_and_schema_tests(test_run):
    assert test_run.status("count_same") == "pass"
    assert test_run.status("count_deleted") == "fail"
    assert test_run.status("count_deleted_tolerated") == "pass"
    assert test_run.status("schema_same") == "pass"
    assert test_run.status("schema_renamed") == "fail"
    assert test_run.node("schema_renamed").failures == 2  # order_id missing there, id missing here
    assert test_run.status("schema_retyped") == "fail"
    assert test_run.node("schema_retyped").failures == 1


def test_misconfiguration_fails_with_argument_value_and_fix(drift_project):
    drift_project.write(
        "models/bad.yml",
        """
        version: 2
        models:
          - name: copy_same
            data_tests:
              - table_diff.no_drift:
                  name: drift_bad_key
                  arguments:
                    compare_to: ref('copy_renamed')
                    primary_key: order_id
        """,
    )
    try:
        run = drift_project.run("test", "--select", "drift_bad_key")
    finally:
        drift_project.remove("models/bad.yml")
    assert run.status("drift_bad_key") == "error", run.describe()
    msg = run.message("drift_bad_key")
    assert "table_diff.no_drift: invalid primary_key 'order_id'" in msg, msg
    assert "missing from" in msg and "copy_renamed" in msg, msg


def test_tolerance_and_column_map_in_no_drift(drift_project):
    """A copy with amounts nudged by 0.004 passes with `tolerance: {amount: {abs: 0.01}}` and fails
    without it; the copy storing order_id as id passes with `column_map: {id: order_id}`; bad
    tolerances fail before any scan, naming the argument, the value and the fix."""
    drift_project.write(
        "models/copy_nudged.sql",
        "select order_id, customer, amount + 0.004 as amount, status from {{ ref('base') }}",
    )
    drift_project.run("run", "--select", "copy_nudged").assert_success()
    cases = {
        "tol_pass": ("copy_nudged", "tolerance: {amount: {abs: 0.01}}"),
        "tol_none": ("copy_nudged", "columns: [amount]"),
        "tol_too_small": ("copy_nudged", "tolerance: {amount: {abs: 0.003}}"),
        "tol_rel_pass": ("copy_nudged", "tolerance: {amount: {rel: 1e-2}}"),
        "map_pass": ("copy_renamed", "column_map: {id: order_id}"),
        "tol_string": ("copy_nudged", "tolerance: {customer: {abs: 1}}"),
        "tol_key": ("copy_nudged", "tolerance: {order_id: {abs: 1}}"),
        "tol_duration_on_number": ("copy_nudged", "tolerance: {amount: {abs: '2 seconds'}}"),
    }
    tests = "".join(
        f"""
              - table_diff.no_drift:
                  name: {name}
                  arguments:
                    compare_to: ref('{copy}')
                    primary_key: [order_id]
                    {extra}"""
        for name, (copy, extra) in cases.items()
    )
    drift_project.write(
        "models/tol.yml",
        f"""
        version: 2
        models:
          - name: copy_same
            data_tests:{tests}
        """,
    )
    try:
        run = drift_project.run("test", "--select", *cases)
    finally:
        drift_project.remove("models/tol.yml")
        drift_project.remove("models/copy_nudged.sql")
    assert run.status("tol_pass") == "pass", run.describe()
    assert run.status("tol_rel_pass") == "pass", run.describe()
    assert run.status("map_pass") == "pass", run.describe()
    # four amounts are set (one is NULL): each moved by 0.004
    assert run.status("tol_none") == "fail" and run.node("tol_none").failures == 4
    assert run.status("tol_too_small") == "fail" and run.node("tol_too_small").failures == 4
    errors = {
        "tol_string": ("invalid tolerance 'customer string'", "remove its tolerance"),
        "tol_key": ("invalid tolerance 'order_id'. Expected a non-key column", "Keys are matched"),
        "tol_duration_on_number": (
            "invalid tolerance 'amount decimal(",
            "a number for a numeric column",
        ),
    }
    for name, (message, fix) in errors.items():
        msg = run.message(name)
        assert run.status(name) == "error", (name, run.status(name), msg)
        assert f"table_diff.no_drift: {message}" in msg and fix in msg, (name, msg)


@pytest.mark.parametrize(
    ("rule", "shown", "fix"),
    [
        ("{abs: -0.01}", "amount.abs=-0.01'. Expected a number > 0", "{'abs': 0.01}"),
        ("{rel: 2}", "amount.rel=2'. Expected a number from 1e-9", "{'rel': 1e-6}"),
        (
            "{abs: 'two seconds'}",
            "amount.abs=two seconds'. Expected a positive duration",
            "'2 seconds'",
        ),
        ("{abs: 1, rel: 0.1}", "amount: {", "one rule per column"),
    ],
)
def test_bad_tolerance_fails_at_parse_time(drift_project, rule, shown, fix):
    text = _parse_failure(
        drift_project,
        f"compare_to: ref('copy_same')\nprimary_key: [order_id]\ntolerance: {{amount: {rule}}}",
    )
    assert f"table_diff.no_drift: invalid tolerance '{shown}" in text, text[-2000:]
    assert fix in text, text[-2000:]
