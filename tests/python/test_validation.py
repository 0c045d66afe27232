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
                "map('a', 1) as attrs, cast(id as int) as region, cast(1.0 as float) as fkey, "
                "array(id) as arr, named_struct('a', id) as st "
                "from range(3) as r(id)"
            ),
            "models/right_t.sql": (
                "select cast(id as bigint) as id, id as name, 1.5d as price, map('a', 1) as attrs, "
                "cast(id as int) as region_id, cast(1.0 as float) as fkey, 'x' as extra, "
                "array(id) as arr, named_struct('a', id) as st "
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
    "bad_keys_only": (
        "primary_key='id', keys_only='yes'",
        "invalid keys_only 'yes'. Expected true or false",
        "Write keys_only=true",
    ),
    # Before 0.2.0: "macro 'dbt_macro__key_ranges' takes no keyword argument 'exclude_column'".
    "unknown_kwarg": (
        "primary_key='id', exclude_column=['name']",
        "invalid argument 'exclude_column'. Expected one of source, target, primary_key, columns, "
        "exclude_columns, table_filter, strategy, block_count, block_size, split_factor, "
        "compare_unit_size, max_depth, max_diff_rows, normalize, check_duplicate_keys, "
        "quick_check, keys_only, source_as_of, target_as_of, track, column_map, tolerance.",
        "Did you mean 'exclude_columns'?",
    ),
    "column_map_not_a_mapping": (
        "primary_key='id', column_map=['region_id']",
        "invalid column_map '['region_id']'. Expected a mapping of target column to source column",
        "Write it as column_map={'amt': 'amount', 'id': 'order_id'}",
    ),
    "column_map_two_to_one": (
        "primary_key='id', column_map={'region_id': 'region', 'extra': 'region'}",
        "invalid column_map 'region'. Expected each source column named once",
        "Target columns region_id and extra both map to 'region'",
    ),
    "column_map_with_track": (
        "primary_key='id', track=true, column_map={'region_id': 'region'}",
        "invalid track 'True'. Expected track without column_map",
        "with track=false, or remove column_map",
    ),
    "unknown_kwarg_far": (
        "primary_key='id', colour='red'",
        "invalid argument 'colour'. Expected one of source, target,",
        "Fix the name or remove the argument.",
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
    # Before nested columns were compared (ADR 0041) a map column was refused; its values are
    # compared exactly now, so a tolerance on it is.
    "nested_tolerance": (
        "primary_key='id', columns=['attrs'], tolerance={'attrs': {'abs': 1}}",
        "invalid tolerance 'attrs'. Expected a tolerance on a flat column",
        "nested values are compared exactly",
        "Remove its tolerance",
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
    # Before 0.2.0 it said "cast one side in a view so both have the same type" (both sides have
    # that type).
    "map_key": (
        "primary_key='attrs', columns=['price']",
        "invalid primary_key 'attrs map<string,int>'. Expected an exact key type",
        "Use to_json(attrs) as the key column of a view",
    ),
    "array_key": (
        "primary_key='arr', columns=['price']",
        "invalid primary_key 'arr array<bigint>'. Expected an exact key type",
        "Use to_json(arr) as the key column of a view",
    ),
    "struct_key": (
        "primary_key='st', columns=['price']",
        "invalid primary_key 'st struct<`a`:bigint>'. Expected an exact key type",
        "the struct's fields as separate key columns",
    ),
    "column_map_target_missing": (
        "primary_key='id', column_map={'regionid': 'region'}",
        "invalid column_map 'regionid: region'",
        "Column 'regionid' is missing from",
        "right_t",
    ),
    "column_map_source_missing": (
        "primary_key='id', column_map={'region_id': 'area'}",
        "invalid column_map 'region_id: area'",
        "Column 'area' is missing from",
        "left_t",
    ),
    "column_map_collision": (
        "primary_key='id', column_map={'extra': 'name'}",
        "invalid column_map 'extra: name'",
        "would read both name and extra as 'name'; also map name to another name",
    ),
    "tolerance_on_excluded": (
        "primary_key='id', "
        "exclude_columns=['name', 'price', 'attrs', 'region', 'fkey', 'arr', 'st'], "
        "tolerance={'price': {'abs': 0.5}}",
        "invalid tolerance 'price'. Expected a compared column",
        "left out by columns / exclude_columns",
    ),
    # Before 0.2.0 it silently ran a key-only diff (0 modified, columns_compared empty).
    "keys_only_refused": (
        "primary_key='id', "
        "exclude_columns=['name', 'price', 'attrs', 'region', 'fkey', 'arr', 'st']",
        "invalid exclude_columns 'name, price, attrs, region, fkey, arr, st'. "
        "Expected at least one non-key column left to compare",
        "Set keys_only=true to compare only which keys exist, or keep at least one non-key column.",
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
    for case in ("map_key", "array_key", "struct_key"):
        assert "cast one side" not in run.message(f"w_{case}"), case
    assert run.status("w_downstream") == "skipped"
    assert not vproject.table_exists("w_downstream")


BAD_VARS = {
    "share_not_a_number": ("table_diff_dense_leaf_share", "lots", "Expected a number >= 0"),
    "limit_not_whole": ("table_diff_broadcast_key_limit", "1.5", "Expected a whole number >= 0"),
    "limit_negative": ("table_diff_broadcast_key_limit", -3, "Expected a whole number >= 0"),
    "ranges_not_whole": ("table_diff_key_range_limit", "2.5", "Expected a whole number >= 0"),
    "rows_not_whole": ("table_diff_dense_rows", "10M", "Expected a whole number >= 0"),
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


def test_unknown_generic_test_argument_names_the_valid_ones(vproject):
    """dbt 1.11 passes every key under `arguments:` to the test macro; before 0.2.0 it failed with
    Jinja's "macro 'dbt_macro__test_no_drift' takes no keyword argument 'quick_chek'"."""
    vproject.write(
        "models/typo.yml",
        """version: 2
models:
  - name: left_t
    data_tests:
      - table_diff.no_drift:
          arguments:
            compare_to: ref('right_t')
            primary_key: id
            quick_chek: false
""",
    )
    try:
        run = vproject.run("parse")
    finally:
        vproject.remove("models/typo.yml")
    run.assert_failure()
    text = f"{run.log}\n{run.result.exception}"
    assert (
        "table_diff.no_drift: invalid argument 'quick_chek'. Expected one of model, compare_to, "
        "primary_key, columns, exclude_columns, table_filter, strategy, block_count, block_size, "
        "normalize, max_diff_rows, check_duplicate_keys, quick_check, keys_only, model_as_of, "
        "compare_to_as_of, max_added, max_deleted, max_modified, max_duplicate_key_rows, "
        "column_map, tolerance. Did you mean 'quick_check'?"
    ) in text, text[-3000:]


# --------------------------------------------------------------------------------------------------
# table_filter: checked against every side before any scan; a trailing comment is harmless
# --------------------------------------------------------------------------------------------------

# qty = id - 1, so id 0 is the one row with qty < 0. The target changes amount of ids 0 and 3.
# `trap` is a view that fails whenever Spark reads it: a check that scanned would say "scanned".
FILTER_FILES = {
    "models/f_src.sql": (
        "select cast(id as bigint) as id, cast(id - 1 as int) as qty, "
        "cast(id * 10 as int) as amount from range(6) as r(id)"
    ),
    "models/f_tgt.sql": (
        "select id, qty, if(id in (0, 3), amount + 1, amount) as amount from {{ ref('f_src') }} "
        "union all select 6, 5, 60"
    ),
    "models/f_trap.sql": (
        "{{ config(materialized='view') }}\n"
        "select id, qty, amount from {{ ref('f_src') }} where raise_error('scanned') is null"
    ),
}

BAD_FILTERS = {
    # Before 0.2.0: [PARSE_SYNTAX_ERROR] ... (line 41, pos 13) of the compiled model
    "parse": ("qty >", "[PARSE_SYNTAX_ERROR] Syntax error at or near"),
    # Before 0.2.0: Spark's unresolved-column error with a 2 KB plan dump
    "column": ("nope > 3", "[UNRESOLVED_COLUMN.WITH_SUGGESTION]"),
}


@pytest.fixture(scope="module")
def fproject(dbt_project_factory):
    project = dbt_project_factory("filters", packages=True, files=FILTER_FILES)
    project.run("run", "--select", "f_src", "f_tgt", "f_trap").assert_success()
    return project


def _assert_filter_error(text: str, macro: str, table_filter: str, relation: str, reason: str):
    head = f"table_diff.{macro}: invalid table_filter '{table_filter}' on {relation}: {reason}"
    assert head in text, text[-3000:]
    line = text[text.index(head) :].split("\n")[0]
    assert "SQLSTATE" not in line and "Project [" not in line, line  # one line, no plan dump
    assert "Fix the expression" in line and "or leave table_filter out" in line, line
    assert "scanned" not in text, "the check read data"


@pytest.mark.parametrize("case", sorted(BAD_FILTERS))
def test_bad_table_filter_fails_before_any_scan(fproject, case):
    """key_ranges, no_drift, row_count_matches and merge_candidates check the filter on each side
    first, with one line of Spark's reason, naming macro, argument, value and relation."""
    table_filter, reason = BAD_FILTERS[case]
    f = json.dumps(table_filter)
    src, trap = fproject.relation("f_src"), fproject.relation("f_trap")
    fproject.write(
        "models/bf_ranges.sql",
        f"{{{{ table_diff.key_ranges(source=ref('f_src'), target=ref('f_trap'), "
        f"primary_key='id', table_filter={f}) }}}}",
    )
    fproject.write(
        "models/bf_merge.sql",
        f"{{{{ table_diff.merge_candidates(base=ref('f_src'), ours=ref('f_trap'), "
        f"theirs=ref('f_tgt'), primary_key='id', table_filter={f}) }}}}",
    )
    fproject.write(
        "models/bf.yml",
        f"""version: 2
models:
  - name: f_src
    data_tests:
      - table_diff.no_drift:
          name: bf_drift
          arguments:
            compare_to: ref('f_trap')
            primary_key: id
            table_filter: {f}
      - table_diff.row_count_matches:
          name: bf_count
          arguments:
            compare_to: ref('f_trap')
            table_filter: {f}
""",
    )
    try:
        models = fproject.run("run", "--select", "bf_ranges", "bf_merge")
        tests = fproject.run("test", "--select", "bf_drift", "bf_count")
    finally:
        for path in ("models/bf_ranges.sql", "models/bf_merge.sql", "models/bf.yml"):
            fproject.remove(path)
    models.assert_failure()
    tests.assert_failure()
    for run, node, macro in (
        (models, "bf_ranges", "key_ranges"),
        (models, "bf_merge", "merge_candidates"),
        (tests, "bf_drift", "no_drift"),
        (tests, "bf_count", "row_count_matches"),
    ):
        assert run.status(node) in ("error", "fail"), (node, run.describe())
        _assert_filter_error(run.message(node), macro, table_filter, src, reason)
        assert trap not in run.message(node).split(": ")[1]  # the source side failed first
    assert not fproject.table_exists("bf_ranges") and not fproject.table_exists("bf_merge")


TRAILING = "qty >= 0 -- every row"


def test_trailing_comment_filter_gives_the_filtered_answer(fproject):
    """Before 0.2.0 the comment swallowed `)` and the SQL after it (a syntax error at a later
    line)."""
    from dbt_table_diff.scaffold.options import PairOptions
    from dbt_table_diff.scaffold.pair import render_pair

    files = render_pair(
        PairOptions(
            name="tc",
            source="ref('f_src')",
            target="ref('f_tgt')",
            primary_key=("id",),
            table_filter=TRAILING,
        )
    )
    for name, content in files.items():
        fproject.write(f"models/tc/{name}", content)
    fproject.write(
        "models/tc_merge.sql",
        "{{ table_diff.merge_candidates(base=ref('f_src'), ours=ref('f_src'), theirs=ref('f_tgt'), "
        f"primary_key='id', table_filter={json.dumps(TRAILING)}) }}}}",
    )
    fproject.write(
        "models/tc.yml",
        f"""version: 2
models:
  - name: f_src
    data_tests:
      - table_diff.no_drift:
          name: tc_drift
          arguments:
            compare_to: ref('f_tgt')
            primary_key: id
            table_filter: {json.dumps(TRAILING)}
      - table_diff.row_count_matches:
          name: tc_count
          arguments:
            compare_to: ref('f_tgt')
            table_filter: {json.dumps(TRAILING)}
""",
    )
    try:
        run = fproject.run("run", "--select", "+tc__summary", "tc_merge")
        tests = fproject.run("test", "--select", "tc_drift", "tc_count")
    finally:
        for name in files:
            fproject.remove(f"models/tc/{name}")
        fproject.remove("models/tc_merge.sql")
        fproject.remove("models/tc.yml")
    # id 0 (qty -1) is filtered out: 1 modified (id 3), 1 added (id 6); unfiltered: 2 modified.
    assert tests.status("tc_drift") == "fail", tests.describe()
    assert "1 added (only in compare_to), 0 deleted (only in model), 1 modified" in tests.log, (
        tests.log[-3000:]
    )
    (summary,) = fproject.spark.sql(
        f"select rows_source, rows_added, rows_modified, keys_only from "
        f"{fproject.relation('tc__summary')}"
    ).collect()
    assert tuple(summary) == (5, 1, 1, False), run.describe()
    merged = fproject.spark.sql(
        f"select id from {fproject.relation('tc_merge')} "
        "where cardinality(theirs_changed) > 0 order by id"
    ).collect()
    assert [r.id for r in merged] == [3, 6], run.describe()
    assert tests.status("tc_count") == "fail", tests.describe()  # 5 vs 6 rows after the filter
    for node in ("tc__ranges", "tc__block_hashes", "tc__row_diff", "tc__summary", "tc_merge"):
        assert run.status(node) == "success", run.describe()


def test_keys_only_diff_is_explicit(fproject):
    """keys_only=true compares which keys exist: summary keys_only true, one log line."""
    from dbt_table_diff.scaffold.options import PairOptions
    from dbt_table_diff.scaffold.pair import render_pair

    files = render_pair(
        PairOptions(
            name="ko",
            source="ref('f_src')",
            target="ref('f_tgt')",
            primary_key=("id",),
            keys_only=True,
        )
    )
    assert "keys_only=true" in files["ko__ranges.sql"]
    for name, content in files.items():
        fproject.write(f"models/ko/{name}", content)
    try:
        run = fproject.run("run", "--select", "+ko__summary")
    finally:
        for name in files:
            fproject.remove(f"models/ko/{name}")
    run.assert_success()
    assert (
        f"table_diff.key_ranges: {fproject.relation('f_src')} vs {fproject.relation('f_tgt')}: "
        "the diff compares keys only (keys_only=true)"
    ) in run.log, run.log[-3000:]
    (summary,) = fproject.spark.sql(
        f"select rows_added, rows_modified, size(columns_compared), keys_only from "
        f"{fproject.relation('ko__summary')}"
    ).collect()
    assert tuple(summary) == (1, 0, 0, True)
