"""Bad input fails early, before any scan, with a message naming table, column and fix."""

from __future__ import annotations

import json

import pytest

GOOD = "source=ref('left_t'), target=ref('right_t')"


@pytest.fixture(scope="module")
def vproject(dbt_project_factory):
    project = dbt_project_factory(
        "validation",
        packages=True,
        files={
            "models/left_t.sql": (
                "select cast(id as bigint) as id, cast(id as string) as name, 1.5d as price, "
                "map('a', 1) as attrs, cast(id as int) as region, cast(1.0 as float) as fkey "
                "from range(3) as r(id)"
            ),
            "models/right_t.sql": (
                "select cast(id as bigint) as id, id as name, 1.5d as price, map('a', 1) as attrs, "
                "cast(id as int) as region_id, cast(1.0 as float) as fkey, 'x' as extra "
                "from range(3) as r(id)"
            ),
        },
    )
    project.run("run", "--select", "left_t", "right_t").assert_success()
    return project


PARSE_TIME = {
    "no_key": (
        "primary_key=[]",
        "invalid primary_key '[]'",
        "Name the column(s) that identify a row",
    ),
    "both_column_lists": (
        "primary_key='id', columns=['name'], exclude_columns=['price']",
        "invalid columns 'name'. Expected either columns or exclude_columns, not both",
        "remove the other",
    ),
    "zero_blocks": ("primary_key='id', block_count=0", "invalid block_count '0'", "at least 1"),
    "negative_unit": (
        "primary_key='id', compare_unit_size=-5",
        "invalid compare_unit_size '-5'",
        "whole number of at least 1",
    ),
    "bad_strategy": (
        "primary_key='id', strategy='fast'",
        "invalid strategy 'fast'",
        "'range' or 'hash'",
    ),
    "bad_quick_check": (
        "primary_key='id', quick_check='sometimes'",
        "invalid quick_check 'sometimes'. Expected true, false or 'auto'",
        "false (never: drift is expected)",
    ),
    "bad_rule": (
        "primary_key='id', normalize={'price': {'ceil': 1}}",
        "invalid normalize 'price.ceil'",
        "Remove the unknown rule",
    ),
}


@pytest.mark.parametrize("case", sorted(PARSE_TIME))
def test_argument_errors_fail_at_parse_time(vproject, case):
    args, message, fix = PARSE_TIME[case]
    model = f"models/bad_{case}.sql"
    vproject.write(model, f"{{{{ table_diff.key_ranges({GOOD}, {args}) }}}}")
    try:
        run = vproject.run("parse")
    finally:
        vproject.remove(model)
    run.assert_failure()
    text = f"{run.log}\n{run.result.exception}"
    assert f"table_diff.key_ranges: {message}" in text, text[-3000:]
    assert fix in text, text[-3000:]
    assert f"bad_{case}" in text  # dbt names the model


WAREHOUSE_TIME = {
    "key_missing_on_target": (
        "primary_key='region'",
        "invalid primary_key 'region'",
        "missing from",
        "right_t",
    ),
    "listed_column_missing": (
        "primary_key='id', columns=['name', 'colour']",
        "invalid columns 'colour'",
        "fix the name or remove it from columns",
        "left_t",
    ),
    "incomparable_types": (
        "primary_key='id', columns=['name']",
        "invalid columns 'name'",
        "is string in",
        "cast one side in a view",
    ),
    "unsupported_type": (
        "primary_key='id', columns=['attrs']",
        "invalid columns 'attrs map<string,int>",
        "supported type",
        "exclude_columns",
    ),
    "column_only_in_source": (
        "primary_key='id', exclude_columns=['name', 'attrs', 'fkey']",
        "invalid columns 'region'",
        "exists in",
        "add it to exclude_columns",
    ),
    "float_key": (
        "primary_key='fkey', columns=['price']",
        "invalid primary_key 'fkey float'",
        "Floating-point keys",
        "cast the key",
    ),
}


def test_warehouse_errors_name_table_column_and_fix(vproject):
    """All column/type checks run in key_ranges before any scan; nothing downstream is built."""
    for case, (args, *_rest) in WAREHOUSE_TIME.items():
        vproject.write(f"models/w_{case}.sql", f"{{{{ table_diff.key_ranges({GOOD}, {args}) }}}}")
    vproject.write(
        "models/w_downstream.sql",
        "{{ table_diff.block_hashes(ranges=ref('w_key_missing_on_target'), "
        "source=ref('left_t'), target=ref('right_t')) }}",
    )
    try:
        run = vproject.run("run", "--select", "w_*")
    finally:
        for case in WAREHOUSE_TIME:
            vproject.remove(f"models/w_{case}.sql")
        vproject.remove("models/w_downstream.sql")
    run.assert_failure()
    for case, (_args, message, *fragments) in WAREHOUSE_TIME.items():
        status = run.status(f"w_{case}")
        text = run.message(f"w_{case}")
        assert status == "error", (case, status, text)
        assert f"table_diff.key_ranges: {message}" in text, (case, text)
        for fragment in fragments:
            assert fragment in text, (case, fragment, text)
        assert not vproject.table_exists(f"w_{case}")
    assert run.status("w_downstream") == "skipped"
    assert not vproject.table_exists("w_downstream")


BAD_VARS = {
    "share_not_a_number": ("table_diff_dense_leaf_share", "lots", "Expected a number >= 0"),
    "limit_not_whole": ("table_diff_broadcast_key_limit", "1.5", "Expected a whole number >= 0"),
    "limit_negative": ("table_diff_broadcast_key_limit", -3, "Expected a whole number >= 0"),
    "ranges_not_whole": ("table_diff_key_range_limit", "2.5", "Expected a whole number >= 0"),
}


@pytest.mark.parametrize("case", sorted(BAD_VARS))
def test_bad_tuning_vars_fail_at_parse_time(vproject, case):
    """A typo in a tuning var fails the first model of a pair at parse time, naming the var."""
    name, value, expected = BAD_VARS[case]
    model = f"models/var_{case}.sql"
    vproject.write(model, f"{{{{ table_diff.key_ranges({GOOD}, primary_key='id') }}}}")
    try:
        run = vproject.run("parse", "--vars", json.dumps({name: value}))
        good = vproject.run(
            "parse", "--vars", json.dumps({name: 0.25 if "share" in name else "40"})
        )
    finally:
        vproject.remove(model)
    run.assert_failure()
    text = f"{run.log}\n{run.result.exception}"
    assert f"table_diff.key_ranges: invalid var {name} '{value}'. {expected}" in text, text[-3000:]
    assert "--vars" in text and "remove it to use the default" in text, text[-3000:]
    good.assert_success()


def test_bad_quick_check_fails_at_parse_time(vproject):
    vproject.write(
        "models/quick_check.yml",
        """version: 2
models:
  - name: left_t
    data_tests:
      - table_diff.no_drift:
          arguments:
            compare_to: ref('right_t')
            primary_key: id
            quick_check: "sometimes"
""",
    )
    try:
        run = vproject.run("parse")
    finally:
        vproject.remove("models/quick_check.yml")
    run.assert_failure()
    text = f"{run.log}\n{run.result.exception}"
    assert "table_diff.no_drift: invalid quick_check 'sometimes'. Expected true or false" in text
    assert "set false when drift is expected" in text, text[-3000:]
