"""Three-way merge: hand-written cases for every row of DESIGN.md's semantics table, NULL and
composite-key cases, the schema phase, and a property test against ``oracle.brute_force_merge``.

Every case is a real scaffolded merge (``dbt_table_diff.scaffold.merge.write_merge``) built by an
in-process ``dbt build`` on the shared SparkSession; several merges share one build.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import shutil

import pytest
from depth import SALT, examples, not_simplest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import brute_force_merge, canonical_key, canonical_value, merge_counts
from strategies import (
    _from_spark_value,
    corner_three_way,
    three_way,
    write_table,
)

from dbt_table_diff.scaffold.args import ScaffoldError
from dbt_table_diff.scaffold.merge import MergeOptions, render_merge, write_merge

MERGES_PER_BATCH = 5
# Random batches after the corner batch (CONTRIBUTING.md: the CI and the deep depth).
EXAMPLES = examples(ci=1, deep=4)


@pytest.fixture(scope="module")
def merge_project(dbt_project_factory):
    project = dbt_project_factory(
        "merge",
        packages=True,
        project_config={"flags": {"send_anonymous_usage_stats": False, "partial_parse": True}},
    )
    project.spark.sql(f"create schema if not exists `{project.schema}`")
    return project


def _sql_table(project, name: str, ddl: str, rows: list[str]) -> None:
    spark = project.spark
    spark.sql(f"drop table if exists `{project.schema}`.`{name}`")
    spark.sql(f"create table `{project.schema}`.`{name}` ({ddl}) using parquet")
    if rows:
        spark.sql(f"insert into `{project.schema}`.`{name}` values {', '.join(rows)}")


def _build(
    project,
    merges: list[MergeOptions],
    tables: list[str],
    *,
    expect_success=True,
    extra=None,
    dbt_vars=None,
):
    """Scaffold ``merges`` into models/merges and build them in one dbt run."""
    d = project.root / "models" / "merges"
    shutil.rmtree(d, ignore_errors=True)
    for m in merges:
        write_merge(m, d)
    for name, content in (extra or {}).items():
        (d / name).write_text(content)
    (d / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {project.schema}\n    tables:\n"
        + "".join(f"      - name: {t}\n" for t in tables)
    )
    args = ["build", "--select", "merges"]
    if dbt_vars:
        args += ["--vars", json.dumps(dbt_vars)]
    run = project.run(*args)
    return run.assert_success() if expect_success else run


def _opts(name: str, key=("id",), **kw) -> MergeOptions:
    return MergeOptions(
        name=name,
        base=f"source('gen', '{name}_base')",
        ours=f"source('gen', '{name}_ours')",
        theirs=f"source('gen', '{name}_theirs')",
        primary_key=tuple(key),
        **kw,
    )


def _table(project, identifier: str) -> list[dict]:
    return [r.asDict() for r in project.spark.table(project.relation(identifier)).collect()]


# --------------------------------------------------------------------------------------
# Hand-written cases: one key per row of the semantics table (id, a string, b int).
# --------------------------------------------------------------------------------------

# id: (base, ours, theirs) as SQL tuples of (a, b) or None; expected
# (status, conflict_type, ours_changed, theirs_changed, merged (a, b) or None)
R = "('x', 1)"
CASES = {
    1: (R, R, R, ("unchanged", None, [], [], ("x", 1))),
    2: (R, R, "('t', 1)", ("theirs_only", None, [], ["a"], ("t", 1))),
    3: (R, "('x', 30)", R, ("ours_only", None, ["b"], [], ("x", 30))),
    4: (R, "('c', 1)", "('c', 1)", ("convergent", None, ["a"], ["a"], ("c", 1))),
    5: (R, None, None, ("convergent", None, ["a", "b"], ["a", "b"], None)),
    6: (None, "('i', 6)", "('i', 6)", ("convergent", None, ["a", "b"], ["a", "b"], ("i", 6))),
    7: (R, "('o', 1)", "('x', 70)", ("cell_merged", None, ["a"], ["b"], ("o", 70))),
    8: (R, "('o', 1)", "('t', 1)", ("conflict", "update_update", ["a"], ["a"], ("o", 1))),
    9: (R, "('x', 90)", None, ("conflict", "update_delete", ["b"], ["a", "b"], ("x", 90))),
    10: (R, None, "('t', 1)", ("conflict", "delete_update", ["a", "b"], ["a"], None)),
    11: (
        None,
        "('o', 1)",
        "('t', 1)",
        ("conflict", "insert_insert", ["a", "b"], ["a", "b"], ("o", 1)),
    ),
    12: (None, "('o', 12)", None, ("ours_only", None, ["a", "b"], [], ("o", 12))),
    13: (None, None, "('t', 13)", ("theirs_only", None, [], ["a", "b"], ("t", 13))),
    14: (R, None, R, ("ours_only", None, ["a", "b"], [], None)),
    15: (R, R, None, ("theirs_only", None, [], ["a", "b"], None)),
    # NULL cases
    16: ("(null, 1)", "('v', 1)", "(null, 1)", ("ours_only", None, ["a"], [], ("v", 1))),
    17: (
        "(null, 1)",
        "('p', 1)",
        "('q', 1)",
        ("conflict", "update_update", ["a"], ["a"], ("p", 1)),
    ),
    18: ("(null, null)", None, "(null, null)", ("ours_only", None, ["a", "b"], [], None)),
    19: (
        R,
        "(null, null)",
        None,
        ("conflict", "update_delete", ["a", "b"], ["a", "b"], (None, None)),
    ),
    20: ("('', 1)", "(null, 1)", "('', 1)", ("ours_only", None, ["a"], [], (None, 1))),
    21: (R, "('s', 5)", "('s', 1)", ("cell_merged", None, ["a", "b"], ["a"], ("s", 5))),
    22: (
        "(null, null)",
        "(null, null)",
        "('', null)",
        ("theirs_only", None, [], ["a"], ("", None)),
    ),
    23: (
        None,
        "(null, null)",
        "(null, null)",
        ("convergent", None, ["a", "b"], ["a", "b"], (None, None)),
    ),
}
# Rows far from the edits, so most hash leaves are unchanged and never fetched.
FILLER = range(1000, 1400)


def _hand_rows(side: int) -> list[str]:
    rows = [f"({k}, {v[side][1:]}" for k, v in CASES.items() if v[side] is not None]
    rows += [f"({i}, 'f{i}', {i})" for i in FILLER]
    return rows


def _composite_tables(project) -> None:
    ddl = "k1 string, k2 int, v double"
    base = [
        "('a', 1, 1.0)",
        "('a', 2, 2.0)",
        "(null, 1, 3.0)",
        "('b', null, 4.0)",
        "('c', 1, -0.0)",
        "('d', 1, 5.0)",
    ]
    ours = [
        "('a', 1, 10.0)",
        "('a', 2, 2.0)",
        "(null, 1, 3.0)",
        "('c', 1, 0.0)",
        "(null, null, 7.0)",
        "('d', 1, 5.0)",
        "('d', 1, 6.0)",  # a duplicated key
    ]
    theirs = [
        "('a', 1, 1.0)",
        "('a', 2, 20.0)",
        "(null, 1, 30.0)",
        "('b', null, 4.0)",
        "('c', 1, 0.0)",
        "('d', 1, 5.0)",
    ]
    for side, rows in (("base", base), ("ours", ours), ("theirs", theirs)):
        _sql_table(project, f"comp_{side}", ddl, rows)


@pytest.fixture(scope="module")
def hand_built(merge_project):
    project = merge_project
    for i, side in enumerate(("base", "ours", "theirs")):
        _sql_table(project, f"hand_{side}", "id int, a string, b int", _hand_rows(i))
    _composite_tables(project)
    tables = [f"{n}_{s}" for n in ("hand", "comp") for s in ("base", "ours", "theirs")]
    project.hand_run = _build(
        project,
        [
            _opts("hand", leaf_count=64, constraints=("b is null or b != 90", "a != 'o'")),
            _opts("comp", key=("k1", "k2"), materialize_conflicts=False),
            # The same merge classified in SQL (ADR 0040): the same rows in every output.
            MergeOptions(
                name="hands",
                base="source('gen', 'hand_base')",
                ours="source('gen', 'hand_ours')",
                theirs="source('gen', 'hand_theirs')",
                primary_key=("id",),
                leaf_count=64,
                constraints=("b is null or b != 90", "a != 'o'"),
                classify="sql",
            ),
            # The same hand tables on the pair's other layout: key ranges sampled from a side.
            MergeOptions(
                name="handr",
                base="source('gen', 'hand_base')",
                ours="source('gen', 'hand_ours')",
                theirs="source('gen', 'hand_theirs')",
                primary_key=("id",),
                strategy="range",
                leaf_count=16,
            ),
        ],
        tables,
    )
    return project


def test_hand_cases_every_semantics_row(hand_built):
    project = hand_built
    got = {r["id"]: r for r in _table(project, "hand__merge")}
    want = {k: v[3] for k, v in CASES.items() if v[3][0] != "unchanged"}
    assert set(got) == set(want)
    for k, (status, conflict, oc, tc, _) in want.items():
        r = got[k]
        assert (r["merge_status"], r["conflict_type"], r["ours_changed"], r["theirs_changed"]) == (
            status,
            conflict,
            oc,
            tc,
        ), f"key {k}"


def test_range_strategy_gives_the_hash_answers(hand_built):
    """strategy='range' (the pair's key-range leaves) classifies and merges exactly as 'hash'."""
    project = hand_built

    def rows(identifier):
        return sorted((tuple(sorted(r.items())) for r in _table(project, identifier)), key=repr)

    assert rows("handr__merge") == rows("hand__merge")
    assert rows("handr__merged") == rows("hand__merged")
    compiled = next((project.root / "target" / "compiled").rglob("handr__merge_candidates.sql"))
    sql = compiled.read_text()
    assert "ntile(16)" in sql and "td_ranges" in sql, sql[:2000]


def test_sql_classification_gives_the_python_rows(hand_built):
    """classify: sql (inline SQL) and python (the NAME__merge_classified model) write the same
    rows in every output of the hand cases (ADR 0040), and only the Python one has the model."""

    def rows(identifier):
        return sorted((tuple(sorted(r.items())) for r in _table(hand_built, identifier)), key=repr)

    for out in ("merge", "merged", "conflicts", "merge_violations", "merge_summary"):
        assert rows(f"hands__{out}") == rows(f"hand__{out}"), out
    run = hand_built.hand_run
    assert run.status("hand__merge_classified") == "success", run.describe()
    assert not (hand_built.root / "models" / "merges" / "hands__merge_classified.py").exists()


def test_scaffold_merge_strategy_is_checked():
    with pytest.raises(ScaffoldError, match="--strategy"):
        render_merge(_opts("m", strategy="ranges"))
    files = render_merge(_opts("m", strategy="range"))
    assert "strategy='range'" in files["m__merge_candidates.sql"]


def test_hand_cases_merged_table(hand_built):
    merged = {r["id"]: (r["a"], r["b"]) for r in _table(hand_built, "hand__merged")}
    want = {k: v[3][4] for k, v in CASES.items() if v[3][4] is not None}
    want.update({i: (f"f{i}", i) for i in FILLER})
    assert merged == want
    assert len(_table(hand_built, "hand__merged")) == len(want)  # no duplicated keys


def test_hand_cases_conflicts_and_summary(hand_built):
    conflicts = {r["id"]: r for r in _table(hand_built, "hand__conflicts")}
    assert {k: r["conflict_type"] for k, r in conflicts.items()} == {
        8: "update_update",
        9: "update_delete",
        10: "delete_update",
        11: "insert_insert",
        17: "update_update",
        19: "update_delete",
    }
    c = conflicts[10]
    assert (c["base__a"], c["ours__a"], c["theirs__a"], c["in_ours"]) == ("x", None, "t", False)
    assert (conflicts[11]["base__b"], conflicts[11]["ours__a"], conflicts[11]["theirs__a"]) == (
        None,
        "o",
        "t",
    )
    s = _table(hand_built, "hand__merge_summary")[0]
    expected = {
        "ours_only": 6,
        "theirs_only": 4,
        "convergent": 4,
        "cell_merged": 2,
        "conflict": 6,
        "update_update": 2,
        "update_delete": 2,
        "delete_update": 1,
        "insert_insert": 1,
        "duplicate_keys": 0,
        "schema_conflicts": 0,
    }
    assert {k: s[k] for k in expected} == expected
    assert s["changed_keys"] == 22 and s["is_clean"] is False
    # cost follows the changes: 64 leaves, 23 edited keys -> far fewer than 423 keys fetched
    assert 22 <= s["keys_checked"] < 300


def test_hand_constraints(hand_built):
    v = sorted((r["id"], r["violation"]) for r in _table(hand_built, "hand__merge_violations"))
    assert v == [
        (7, "a != 'o'"),
        (8, "a != 'o'"),
        (9, "b is null or b != 90"),
        (11, "a != 'o'"),
        (12, "a != 'o'"),
    ]
    assert _table(hand_built, "hand__merge_summary")[0]["constraint_violations"] == 5


def test_composite_keys_null_components(hand_built):
    got = {(r["k1"], r["k2"]): r for r in _table(hand_built, "comp__merge")}
    assert {k: (r["merge_status"], r["conflict_type"]) for k, r in got.items()} == {
        ("a", 1): ("ours_only", None),
        ("a", 2): ("theirs_only", None),
        (None, 1): ("theirs_only", None),
        ("b", None): ("ours_only", None),  # deleted by ours
        (None, None): ("ours_only", None),  # inserted by ours
    }  # ('c', 1): -0.0 -> 0.0 on both sides is no change
    merged = sorted(
        ((r["k1"] or "", r["k2"] or 0), r["v"]) for r in _table(hand_built, "comp__merged")
    )
    assert merged == [
        (("", 0), 7.0),
        (("", 1), 30.0),
        (("a", 1), 10.0),
        (("a", 2), 20.0),
        (("c", 1), 0.0),
        (("d", 1), 5.0),  # a duplicated key is not merged: ours' rows are kept as they are
        (("d", 1), 6.0),
    ]
    assert not hand_built.table_exists("comp__conflicts")
    s = _table(hand_built, "comp__merge_summary")[0]
    assert (s["conflict"], s["duplicate_keys"], s["constraint_violations"]) == (0, 1, 4)
    violations = sorted(
        ((r["k1"] or "", r["k2"] or 0), r["violation"])
        for r in _table(hand_built, "comp__merge_violations")
    )
    assert violations == [
        (("", 0), "key not null"),
        (("", 1), "key not null"),
        (("d", 1), "unique key"),
        (("d", 1), "unique key"),
    ]


# --------------------------------------------------------------------------------------
# Schema phase
# --------------------------------------------------------------------------------------


def test_schema_added_columns(merge_project):
    p = merge_project
    _sql_table(p, "add_base", "id int, a string", ["(1, 'x')", "(2, 'y')", "(3, 'z')"])
    _sql_table(
        p,
        "add_ours",
        "id int, a string, c int",
        ["(1, 'x', 10)", "(2, 'y', null)", "(3, 'z', null)"],
    )
    _sql_table(p, "add_theirs", "id int, a string", ["(1, 'x')", "(2, 'Y')", "(3, 'z')"])
    _sql_table(p, "both_base", "id int, a string", ["(1, 'x')", "(2, 'y')"])
    _sql_table(p, "both_ours", "id int, a string, d bigint", ["(1, 'x', 5)", "(2, 'y', 6)"])
    _sql_table(p, "both_theirs", "id int, d bigint, a string", ["(1, 5, 'x')", "(2, 7, 'y')"])
    tables = [f"{n}_{s}" for n in ("add", "both") for s in ("base", "ours", "theirs")]
    _build(p, [_opts("add"), _opts("both")], tables)
    schema = {r["column_name"]: r for r in _table(p, "add__merge_schema")}
    assert (schema["a"]["status"], schema["c"]["status"], schema["c"]["merged_type"]) == (
        "unchanged",
        "added_ours",
        "int",
    )
    assert {r["id"]: (r["a"], r["c"]) for r in _table(p, "add__merged")} == {
        1: ("x", 10),
        2: ("Y", None),
        3: ("z", None),
    }
    assert {r["id"]: r["merge_status"] for r in _table(p, "add__merge")} == {
        1: "ours_only",
        2: "theirs_only",
    }
    schema = {r["column_name"]: r["status"] for r in _table(p, "both__merge_schema")}
    assert schema == {"a": "unchanged", "d": "added_both"}
    got = {r["id"]: (r["merge_status"], r["conflict_type"]) for r in _table(p, "both__merge")}
    assert got == {1: ("convergent", None), 2: ("conflict", "update_update")}
    assert {r["id"]: r["d"] for r in _table(p, "both__merged")} == {1: 5, 2: 6}


def test_merge_on_delta_outputs_with_names_delta_refuses(merge_project, lakehouse):
    """With `table_diff_file_format: delta` every table of the merge is Delta, including the SQL
    models whose columns carry the user's names with a prefix (`ours__Unit Price`), which Delta
    refuses without column mapping: each maps columns by name (ADR 0015)."""
    p = merge_project
    ddl = "id int, `Unit Price` double, `Customer Name` string"
    _sql_table(p, "dn_base", ddl, ["(1, 1.5, 'a')", "(2, 2.5, 'b')", "(3, 3.5, 'c')"])
    _sql_table(p, "dn_ours", ddl, ["(1, 9.5, 'a')", "(2, 2.5, 'b')", "(3, 3.5, 'c')"])
    _sql_table(p, "dn_theirs", ddl, ["(1, 1.5, 'a')", "(2, 2.5, 'B')", "(3, 3.5, 'c')"])
    tables = [f"dn_{s}" for s in ("base", "ours", "theirs")]
    _build(p, [_opts("dn")], tables, dbt_vars={"table_diff_file_format": "delta"})
    for model in ("merge_schema", "merge_candidates", "merge", "merged", "merge_summary"):
        detail = p.spark.sql(f"describe detail {p.relation('dn__' + model)}").first()
        assert detail["format"] == "delta", model
        assert detail["properties"].get("delta.columnMapping.mode") == "name", model
    candidates = p.spark.table(p.relation("dn__merge_candidates")).columns
    assert "ours__Unit Price" in candidates and "theirs__Customer Name" in candidates, candidates
    merged = {r["id"]: (r["Unit Price"], r["Customer Name"]) for r in _table(p, "dn__merged")}
    assert merged == {1: (9.5, "a"), 2: (2.5, "B"), 3: (3.5, "c")}
    assert {r["id"]: r["merge_status"] for r in _table(p, "dn__merge")} == {
        1: "ours_only",
        2: "theirs_only",
    }


def _conflict_tables(p) -> None:
    _sql_table(p, "tc_base", "id int, a string, b int, e int", ["(1, 'x', 1, 1)"])
    _sql_table(p, "tc_ours", "id int, a string, b string, e bigint", ["(1, 'x', '1', 1)"])
    _sql_table(p, "tc_theirs", "id int, a string, b bigint", ["(1, 'y', 1)"])


def test_schema_conflict_fails_with_clear_error(merge_project):
    p = merge_project
    _conflict_tables(p)
    run = _build(p, [_opts("tc")], ["tc_base", "tc_ours", "tc_theirs"], expect_success=False)
    run.assert_failure()
    log = run.log
    for part in (
        "schema conflict",
        "'b'",
        "'e'",
        "tc_ours",
        "tc_theirs",
        "on_schema_conflict='report'",
    ):
        assert part in log, part


def test_schema_conflict_reported(merge_project):
    p = merge_project
    _conflict_tables(p)
    _build(p, [_opts("tc", on_schema_conflict="report")], ["tc_base", "tc_ours", "tc_theirs"])
    schema = {r["column_name"]: r for r in _table(p, "tc__merge_schema")}
    assert (
        schema["b"]["schema_conflict"]
        and "to string in ours and to bigint in theirs" in schema["b"]["reason"]
    )
    assert schema["e"]["schema_conflict"] and "dropped in theirs" in schema["e"]["reason"]
    assert not schema["a"]["schema_conflict"]
    s = _table(p, "tc__merge_summary")[0]
    assert (s["schema_conflicts"], s["schema_conflict_columns"], s["is_clean"]) == (
        2,
        ["b", "e"],
        False,
    )
    assert _table(p, "tc__merged") == [] and _table(p, "tc__merge") == []


def _model(call: str) -> str:
    return "{{ config(materialized='table_diff_table') }}\n{{ table_diff." + call + " }}\n"


def test_bad_inputs_fail_naming_the_argument_and_the_fix(merge_project):
    """The output macros check their relations and constraints before they run: a relation that
    is not the candidates model, an ours without the key, a constraint Spark cannot plan (its
    reason), and at parse time an empty constraint."""
    p = merge_project
    for side in ("base", "ours", "theirs"):
        _sql_table(p, f"bv_{side}", "id int, a string", ["(1, 'x')", f"(2, '{side}')"])
    tables = ["bv_base", "bv_ours", "bv_theirs"]
    extra = {
        "bv_bad_candidates.sql": _model("merge_rows(candidates=ref('bv__merge'))"),
        "bv_bad_ours.sql": _model(
            "merged_rows(candidates=ref('bv__merge_candidates'), ours=ref('bv__merge_summary'))"
        ),
        "bv_bad_constraint.sql": _model(
            "merge_violations(merged=ref('bv__merged'), primary_key='id', "
            "constraints=['no_such_column > 0'])"
        ),
    }
    run = _build(p, [_opts("bv")], tables, expect_success=False, extra=extra)
    run.assert_failure()
    assert run.status("bv__merge_summary") == "success", run.describe()
    log = run.log
    for part in (
        "table_diff.merge_rows: invalid candidates",
        "It lacks td_in_base",
        "ref('<merge>__merge_candidates')",
        "table_diff.merged_rows: invalid ours",
        "It lacks id",
        "table_diff.merge_violations: invalid constraints entry 'no_such_column > 0'",
        "no_such_column",
    ):
        assert part in log, part
    empty = {
        "bv_empty.sql": _model(
            "merge_violations(merged=ref('bv__merged'), primary_key='id', constraints=[' '])"
        )
    }
    run = _build(p, [_opts("bv")], tables, expect_success=False, extra=empty)
    run.assert_failure()
    text = f"{run.log}\n{run.result.exception}"
    assert "table_diff.merge_violations: invalid constraints" in text, text[-3000:]
    assert "Remove the empty or non-text entry from constraints" in text


# --------------------------------------------------------------------------------------
# Scaffold validation (no Spark)
# --------------------------------------------------------------------------------------


def test_scaffold_validation(tmp_path):
    with pytest.raises(ScaffoldError, match="--ours"):
        render_merge(MergeOptions("m", "ref('b')", "orders", "ref('t')", ("id",)))
    with pytest.raises(ScaffoldError, match="on-schema-conflict"):
        render_merge(_opts("m", on_schema_conflict="ignore"))
    with pytest.raises(ScaffoldError, match="NAME"):
        render_merge(_opts("bad-name"))
    files = render_merge(_opts("m", materialize_conflicts=False))
    assert "m__conflicts.sql" not in files and "m__merge_summary.sql" in files
    write_merge(_opts("m"), tmp_path)
    with pytest.raises(ScaffoldError, match="refusing to overwrite"):
        write_merge(_opts("m"), tmp_path)
    assert write_merge(_opts("m"), tmp_path, force=True)


def test_scaffold_writes_sql_models_only(tmp_path):
    """ADR 0027: every model of a merge is SQL, materialised like the others, but the Python
    classification (ADR 0040; none with classify sql); constraints and the table filter reach
    the macros that use them."""
    opts = _opts("m", constraints=("b >= 0",), table_filter="id > 0 -- live rows")
    files = render_merge(opts)
    assert [f for f in files if f.endswith(".py")] == ["m__merge_classified.py"]
    assert "candidates=ref('m__merge_classified')" in files["m__merge_summary.sql"]
    sql_files = render_merge(dataclasses.replace(opts, classify="sql"))
    assert not [f for f in sql_files if f.endswith(".py")], sorted(sql_files)
    assert "candidates=ref('m__merge_candidates')" in sql_files["m__merge_summary.sql"]
    files = sql_files
    calls = {
        "m__merge.sql": "table_diff.merge_rows(",
        "m__merged.sql": "table_diff.merged_rows(",
        "m__conflicts.sql": "table_diff.merge_conflicts(",
        "m__merge_violations.sql": "table_diff.merge_violations(",
        "m__merge_summary.sql": "table_diff.merge_summary(",
    }
    for name, call in calls.items():
        assert call in files[name] and "materialized='table_diff_table'" in files[name], name
    assert "candidates=ref('m__merge_candidates')" in files["m__merge_summary.sql"]
    assert "constraints=['b >= 0']" in files["m__merge_summary.sql"]
    assert "constraints=['b >= 0']" in files["m__merge_violations.sql"]
    assert "ours=source('gen', 'm_ours')" in files["m__merged.sql"]
    assert "table_filter='id > 0 -- live rows'" in files["m__merged.sql"]


def test_scaffold_replaces_the_former_python_models(tmp_path):
    """A merge scaffolded when its models were Python: its .py files would be second models of
    the same names, so they count as files to overwrite and --force removes them."""
    for m in ("merge", "merged", "conflicts", "merge_violations", "merge_summary"):
        (tmp_path / f"m__{m}.py").write_text("def model(dbt, session): ...\n")
    with pytest.raises(ScaffoldError, match=r"m__merge\.py.*Python models of an earlier version"):
        write_merge(_opts("m"), tmp_path)
    write_merge(_opts("m", classify="sql"), tmp_path, force=True)
    assert not list(tmp_path.glob("*.py"))
    assert (tmp_path / "m__merge_summary.sql").exists()


def test_scaffold_switches_the_classification(tmp_path):
    """--classify python writes NAME__merge_classified.py; scaffolding the merge again with
    --classify sql must remove it (a stray Python model fails on thrift): it counts as a file to
    overwrite."""
    write_merge(_opts("m"), tmp_path)
    assert (tmp_path / "m__merge_classified.py").exists()
    with pytest.raises(ScaffoldError, match=r"m__merge_classified\.py.*--classify sql"):
        write_merge(_opts("m", classify="sql"), tmp_path)
    write_merge(_opts("m", classify="sql"), tmp_path, force=True)
    assert not (tmp_path / "m__merge_classified.py").exists()


# --------------------------------------------------------------------------------------
# Property test against the brute-force oracle
# --------------------------------------------------------------------------------------


def _row_canon(names, row: dict) -> tuple:
    return tuple(canonical_value(row[n]) for n in names)


def _oracle_resolve(resolve: dict) -> dict:
    """The scaffold's policies for the oracle: a `python` policy's dotted path as its function."""
    out = {}
    for col, policy in resolve.items():
        if isinstance(policy, dict) and "python" in policy:
            module, _, name = policy["python"].rpartition(".")
            policy = {"python": getattr(importlib.import_module(module), name)}
        out[col] = policy
    return out


def _check_against_oracle(project, name: str, tw, resolve: dict | None = None) -> int:
    """Check merge `name` against the oracle; returns the number of keys resolved by policies."""
    spec = tw.spec
    key, cols = spec.key_names, spec.value_names
    expected = brute_force_merge(
        tw.base, tw.ours, tw.theirs, key, cols, _oracle_resolve(resolve or {})
    )
    where = f"merge {name} (plan={tw.plan}, resolve={resolve})"
    i = name

    def conv(d: dict) -> dict:
        return {k: _from_spark_value(v) for k, v in d.items()}

    got = {}
    for r in _table(project, f"{i}__merge"):
        r = conv(r)
        ck = canonical_key(tuple(r[k] for k in key))
        assert ck not in got, f"{where}: key {ck} twice"
        got[ck] = (
            r["merge_status"],
            r["conflict_type"],
            tuple(r["ours_changed"]),
            tuple(r["theirs_changed"]),
        )
    want = {
        canonical_key(m.key): (m.status, m.conflict_type, m.ours_changed, m.theirs_changed)
        for m in expected.values()
        if m.status != "unchanged"
    }
    assert got == want, where

    names = key + cols
    merged = sorted(_row_canon(names, conv(r)) for r in _table(project, f"{i}__merged"))
    want_merged = sorted(
        _row_canon(names, m.merged) for m in expected.values() if m.merged is not None
    )
    assert merged == want_merged, where

    got_conf = {}
    for r in _table(project, f"{i}__conflicts"):
        assert ("resolutions" in r) == bool(resolve), f"{where}: resolutions column"
        cells = tuple((x["column_name"], x["policy"]) for x in r.get("resolutions") or ())
        r = conv(r)
        got_conf[canonical_key(tuple(r[k] for k in key))] = (
            r["conflict_type"],
            tuple(
                canonical_value(r[f"{s}__{c}"]) for c in cols for s in ("base", "ours", "theirs")
            ),
            cells,
        )
    sides = {
        s: {canonical_key(tuple(r[k] for k in key)): r for r in rows}
        for s, rows in (("base", tw.base), ("ours", tw.ours), ("theirs", tw.theirs))
    }
    want_conf = {}
    for m in expected.values():
        if m.status in ("conflict", "resolved"):
            ck = canonical_key(m.key)
            vals = []
            for c in cols:
                for s in ("base", "ours", "theirs"):
                    r = sides[s].get(ck)
                    vals.append(canonical_value(r[c] if r is not None else None))
            cells = tuple((c, label) for c, label, _ in m.resolutions)
            want_conf[ck] = (m.conflict_type, tuple(vals), cells)
    assert got_conf == want_conf, where

    s = _table(project, f"{i}__merge_summary")[0]
    counts = merge_counts(expected)
    if resolve:
        counts.setdefault("resolved", 0)
        cells = sum(len(m.resolutions) for m in expected.values())
        assert s["resolved_cells"] == cells, f"{where}: resolved_cells"
    for name, n in counts.items():
        if name != "unchanged":
            assert s[name] == n, f"{where}: {name}"
    return counts.get("resolved", 0)


def _force_ansi(monkeypatch, enabled: bool) -> None:
    """dbt-spark pins ANSI off in every query's session conf; override it for this test only."""
    from dbt.adapters.spark.connections import SparkCredentials

    original = SparkCredentials.__post_init__

    def post_init(self):
        original(self)
        self.server_side_parameters["spark.sql.ansi.enabled"] = "true" if enabled else "false"

    monkeypatch.setattr(SparkCredentials, "__post_init__", post_init)


# The fetch paths of merge_candidates: the rows of the changed leaves (sparse), the changed keys
# found by a narrow pass first (dense: every changed leaf counts), and the dense path falling back
# to the leaves' rows when more keys changed than may be broadcast.
FETCH_PATHS = [
    {"table_diff_dense_leaf_share": 2.0},
    {"table_diff_dense_leaf_share": 0.0},
    {"table_diff_dense_leaf_share": 0.0, "table_diff_broadcast_key_limit": 0},
]


@st.composite
def _policies(draw, columns: list[str]) -> dict:
    """Random resolution policies for some of `columns` (none at times)."""
    out = {}
    for c in columns:
        if draw(st.integers(0, 2)) == 0:
            continue
        kind = draw(st.sampled_from(["ours", "theirs", "max", "min", "latest", "python"]))
        if kind == "latest":
            out[c] = {"latest": draw(st.sampled_from(columns))}
        elif kind == "python":
            out[c] = {"python": "merge_resolvers.pick"}
        else:
            out[c] = kind
    return out


# A policy of each kind on the corner three-way's columns (strategies.corner_three_way).
CORNER_POLICIES = {
    "v0_int": "max",
    "v2_double": "min",
    "v4_string": "theirs",
    "v6_date": "ours",
    "v9_decimal_38_10_": {"latest": "v7_timestamp"},
    "Unit Price": {"python": "merge_resolvers.pick"},
}


@pytest.mark.slow
def test_merge_matches_oracle(merge_project, monkeypatch):
    """Random triples under ANSI on (the hand-written cases run with dbt-spark's ANSI off), each
    merged twice in one build: classified in Python with random resolution policies (p<i>) and
    in SQL (s<i>), both against the same oracle (ADR 0040)."""
    project = merge_project
    _force_ansi(monkeypatch, True)
    probe = {"merge_ansi_probe.sql": "select '${spark.sql.ansi.enabled}' as ansi\n"}

    def merge_batch(batch, leaves, strategies, fetch, policies) -> None:
        tables, merges, resolves = [], [], []
        for i, tw in enumerate(batch):
            for side, rows in (("base", tw.base), ("ours", tw.ours), ("theirs", tw.theirs)):
                write_table(project.spark, tw.spec, rows, f"`{project.schema}`.`p{i}_{side}`")
                tables.append(f"p{i}_{side}")
            resolves.append(policies(i, tw))
            common = dict(
                base=f"source('gen', 'p{i}_base')",
                ours=f"source('gen', 'p{i}_ours')",
                theirs=f"source('gen', 'p{i}_theirs')",
                primary_key=tuple(tw.spec.key_names),
                leaf_count=leaves,
                strategy=strategies[i],
            )
            merges.append(MergeOptions(name=f"p{i}", resolve=resolves[i], **common))
            merges.append(MergeOptions(name=f"s{i}", classify="sql", **common))
        _build(project, merges, tables, extra=probe, dbt_vars=fetch)
        assert project.rows("merge_ansi_probe") == [("true",)]
        for i, tw in enumerate(batch):
            resolved.append(_check_against_oracle(project, f"p{i}", tw, resolves[i]))
            _check_against_oracle(project, f"s{i}", tw)

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(
        batch=st.lists(
            three_way(max_rows=30), min_size=MERGES_PER_BATCH, max_size=MERGES_PER_BATCH
        ),
        leaves=st.integers(1, 8),
        strategies=st.lists(
            st.sampled_from(["hash", "range"]), min_size=MERGES_PER_BATCH, max_size=MERGES_PER_BATCH
        ),
        fetch=st.sampled_from(FETCH_PATHS),
        data=st.data(),
        salt=SALT,
    )
    def check(batch, leaves, strategies, fetch, data, salt):
        not_simplest(salt)

        def policies(i, tw):
            return data.draw(_policies(tw.spec.value_names), label=f"resolve p{i}")

        merge_batch(batch, leaves, strategies, fetch, policies)

    resolved: list[int] = []
    # The corner batch first, on every run (hypothesis' explicit examples cannot draw policies):
    # every row and insert scenario on the hostile values of three key types (collation traps in
    # strings, timestamps and decimals at their extremes), each policy kind on some column, one
    # fetch path (the random examples draw the others).
    corners = [corner_three_way(t) for t in ("string", "timestamp", "decimal(12,3)")]
    merge_batch(
        corners,
        4,
        ["range", "hash", "range"],
        FETCH_PATHS[0],
        lambda i, tw: CORNER_POLICIES if i != 1 else {},
    )
    check()
    # the policies were exercised: about nine resolved keys are expected over the examples
    assert sum(resolved) > 0, resolved


def test_candidates_read_each_side_twice(hand_built):
    """Pass count of merge_candidates: the leaf pass runs when the model compiles (its log line
    names the changed leaves), and the compiled query reads each side once more, pruned to the
    changed leaves (hand: 64 leaves, few changed) or, with dense changes, to the changed keys."""
    compiled = next((hand_built.root / "target" / "compiled").rglob("hand__merge_candidates.sql"))
    sql = compiled.read_text()
    plan = hand_built.spark.sql("explain " + sql).first()[0]
    scans = [line for line in plan.splitlines() if "FileScan parquet" in line]
    for side in ("hand_base", "hand_ours", "hand_theirs"):
        assert sum(f".{side}[" in s for s in scans) == 1, plan
    assert "_blocks" not in sql and " in (" in sql, sql[:3000]
    assert "leaves changed; fetching the rows of those leaves" in hand_built.hand_run.log


def test_no_merge_conflicts_generic_test(hand_built):
    """Scaffolded merges carry table_diff.no_merge_conflicts (severity warn): one failing row per
    conflicting key, none for a clean merge."""
    run = hand_built.hand_run
    assert run.status("hand__no_merge_conflicts") == "warn", run.describe()
    assert run.node("hand__no_merge_conflicts").failures == 6
    assert run.status("comp__no_merge_conflicts") == "pass", run.describe()


# --------------------------------------------------------------------------------------
# Conflict resolution policies (classify: python, ADR 0040): one hand case per policy and
# per NULL / tie rule, and every error, in one build.
# --------------------------------------------------------------------------------------

POLICY_DDL = "id int, a string, n decimal(10,2), m double, ts timestamp, u string, f string, w int"
POLICY_RESOLVE = {
    "a": "theirs",
    "n": "max",
    "m": "min",
    "ts": "max",
    "u": {"latest": "ts"},
    "f": {"python": "merge_resolvers.joined"},
}
T1, T2, T3 = (
    "timestamp'2024-01-01 00:00:00'",
    "timestamp'2024-01-02 00:00:00'",
    ("timestamp'2024-01-03 00:00:00'"),
)
PB = f"'x', 1.00, 1.5, {T1}, 'u', 'f', 1"  # the base row of every updated key


def _prow(**kw) -> str:
    """A row of the policy tables: the base values with the given cells changed (SQL literals)."""
    vals = dict(zip(("a", "n", "m", "ts", "u", "f", "w"), PB.split(", "), strict=True))
    vals.update(kw)
    return ", ".join(vals.values())


# id: (base, ours, theirs) as SQL value lists or None; expected (status, conflict_type, merged
# cells that differ from base {column: python value}, resolutions [(column, policy, base, ours,
# theirs, chosen)])
POLICY_CASES = {
    1: (
        PB,
        _prow(a="'o'"),
        _prow(a="'t'"),
        ("resolved", "update_update", {"a": "t"}, [("a", "theirs", "x", "o", "t", "t")]),
    ),
    2: (
        PB,
        _prow(n="2.50"),
        _prow(n="3.25"),
        (
            "resolved",
            "update_update",
            {"n": "3.25"},
            [("n", "max", "1.00", "2.50", "3.25", "3.25")],
        ),
    ),
    # max ignores a NULL
    3: (
        PB,
        _prow(n="null"),
        _prow(n="0.50"),
        ("resolved", "update_update", {"n": "0.50"}, [("n", "max", "1.00", None, "0.50", "0.50")]),
    ),
    4: (
        PB,
        _prow(m="-2.0"),
        _prow(m="7.25"),
        ("resolved", "update_update", {"m": -2.0}, [("m", "min", "1.5", "-2.0", "7.25", "-2.0")]),
    ),
    # latest by ts: theirs is later; ts itself conflicts and resolves by max
    5: (
        PB,
        _prow(u="'uo'", ts=T2),
        _prow(u="'ut'", ts=T3),
        (
            "resolved",
            "update_update",
            {"u": "ut", "ts": "2024-01-03 00:00:00"},
            [
                (
                    "ts",
                    "max",
                    "2024-01-01 00:00:00",
                    "2024-01-02 00:00:00",
                    "2024-01-03 00:00:00",
                    "2024-01-03 00:00:00",
                ),
                ("u", "latest:ts", "u", "uo", "ut", "ut"),
            ],
        ),
    ),
    # latest with equal ordering values: a tie stays a conflict (ours kept)
    6: (
        PB,
        _prow(u="'uo'", ts=T2),
        _prow(u="'ut'", ts=T2),
        ("conflict", "update_update", {"u": "uo", "ts": "2024-01-02 00:00:00"}, []),
    ),
    # latest with a NULL ordering value on a side: a conflict
    7: (
        PB,
        _prow(u="'uo'", ts="null"),
        _prow(u="'ut'", ts=T3),
        ("conflict", "update_update", {"u": "uo", "ts": None}, []),
    ),
    # one conflicting cell without a policy (w): the key stays a conflict, ours kept whole
    8: (
        PB,
        _prow(a="'o'", w="8"),
        _prow(a="'t'", w="9"),
        ("conflict", "update_update", {"a": "o", "w": 8}, []),
    ),
    # a user's function, called on the driver as f(base, ours, theirs)
    9: (
        PB,
        _prow(f="'fo'"),
        _prow(f="'日本'"),
        (
            "resolved",
            "update_update",
            {"f": "f|fo|日本"},
            [("f", "python:merge_resolvers.joined", "f", "fo", "日本", "f|fo|日本")],
        ),
    ),
    # insert_insert: the differing cells resolved, base None for the function
    10: (
        None,
        _prow(a="'io'", f="'é'"),
        _prow(a="'it'", f="'e'"),
        (
            "resolved",
            "insert_insert",
            {"a": "it", "f": "None|é|e"},
            [
                ("a", "theirs", None, "io", "it", "it"),
                ("f", "python:merge_resolvers.joined", None, "é", "e", "None|é|e"),
            ],
        ),
    ),
    # a row conflict (update_delete) is not a cell's: policies do not apply
    11: (PB, _prow(a="'o'"), None, ("conflict", "update_delete", {"a": "o"}, [])),
    # different cells changed: cell_merged, no policy involved
    12: (PB, _prow(a="'o'"), _prow(n="9.00"), ("cell_merged", None, {"a": "o", "n": "9.00"}, [])),
    # a cell changed alike on both sides next to a resolved one: the agreed value kept
    13: (
        PB,
        _prow(a="'o'", w="5"),
        _prow(a="'t'", w="5"),
        ("resolved", "update_update", {"a": "t", "w": 5}, [("a", "theirs", "x", "o", "t", "t")]),
    ),
}

# Merges that must fail at run time, each with the text its error names (every error table's key
# conflicts in a and w).
POLICY_ERRORS = {
    "pe_col": (
        {"nope": "max"},
        "merge 'pe_col': resolve policy 'max' of column 'nope': column "
        "'nope' is not a merged column of the candidates",
    ),
    "pe_order": (
        {"a": {"latest": "zzz"}},
        "resolve policy 'latest:zzz' of column 'a': ordering column 'zzz' is not a merged column",
    ),
    "pe_import": (
        {"a": {"python": "no_such_module_td.pick"}},
        "cannot import module 'no_such_module_td' on the driver",
    ),
    "pe_attr": (
        {"a": {"python": "merge_resolvers.nothing"}},
        "module 'merge_resolvers' has no function 'nothing'",
    ),
    "pe_raise": (
        {"a": {"python": "merge_resolvers.boom"}, "w": "max"},
        "of column 'a' raised RuntimeError: cannot choose between 'o' and 't'",
    ),
    "pe_type": (
        {"w": {"python": "merge_resolvers.wrong_type"}, "a": "ours"},
        "returned a value that does not fit the column's type",
    ),
}


@pytest.fixture(scope="module")
def policy_built(merge_project):
    project = merge_project
    for i, side in enumerate(("base", "ours", "theirs")):
        rows = [f"({k}, {v[i]})" for k, v in POLICY_CASES.items() if v[i] is not None]
        rows += [f"({j}, {_prow(a=repr(f'r{j}'))})" for j in range(100, 140)]
        _sql_table(project, f"pol_{side}", POLICY_DDL, rows)
        err = {"base": "(1, 'x', 1)", "ours": "(1, 'o', 2)", "theirs": "(1, 't', 3)"}[side]
        for name in POLICY_ERRORS:
            _sql_table(project, f"{name}_{side}", "id int, a string, w int", [err])
    tables = [f"{n}_{s}" for n in ("pol", *POLICY_ERRORS) for s in ("base", "ours", "theirs")]
    merges = [_opts("pol", resolve=POLICY_RESOLVE, leaf_count=8)]
    merges += [_opts(n, resolve=r) for n, (r, _) in POLICY_ERRORS.items()]
    project.policy_run = _build(project, merges, tables, expect_success=False)
    return project


def test_policy_hand_cases(policy_built):
    p = policy_built
    run = p.policy_run
    assert run.status("pol__merge_summary") == "success", run.describe()
    got = {r["id"]: r for r in _table(p, "pol__merge")}
    for k, (_, _, _, (status, conflict, _, _)) in POLICY_CASES.items():
        assert (got[k]["merge_status"], got[k]["conflict_type"]) == (status, conflict), k
    base = {
        "a": "x",
        "n": "1.00",
        "m": 1.5,
        "ts": "2024-01-01 00:00:00",
        "u": "u",
        "f": "f",
        "w": 1,
    }

    def text(v):
        return str(v) if v is not None and not isinstance(v, (int, float)) else v

    merged = {r["id"]: r for r in _table(p, "pol__merged")}
    for k, (b, _o, _, (_, _, cells, _)) in POLICY_CASES.items():
        want = dict(base if b is not None else {}, **cells)
        row = {c: text(v) for c, v in merged[k].items() if c != "id"}
        if b is None:  # an insert: compare only the cells given
            row = {c: row[c] for c in want}
        assert row == want, k
    conflicts = {r["id"]: r for r in _table(p, "pol__conflicts")}
    want_ids = {k for k, v in POLICY_CASES.items() if v[3][0] in ("conflict", "resolved")}
    assert set(conflicts) == want_ids
    for k in want_ids:
        status, _, _, records = POLICY_CASES[k][3]
        r = conflicts[k]
        assert r["resolved"] is (status == "resolved"), k
        got_records = [
            (x["column_name"], x["policy"], x["base"], x["ours"], x["theirs"], x["chosen"])
            for x in r["resolutions"]
        ]
        assert got_records == records, k
    s = _table(p, "pol__merge_summary")[0]
    resolved = [k for k, v in POLICY_CASES.items() if v[3][0] == "resolved"]
    assert (s["resolved"], s["conflict"], s["update_update"], s["update_delete"]) == (
        len(resolved),
        4,
        3,
        1,
    )
    assert s["resolved_cells"] == sum(len(POLICY_CASES[k][3][3]) for k in resolved)
    assert s["changed_keys"] == len(POLICY_CASES) and s["is_clean"] is False
    # the no_merge_conflicts test counts what is left in conflict, not what a policy resolved
    assert run.node("pol__no_merge_conflicts").failures == 4


def test_policy_errors_name_the_merge_the_column_and_the_fix(policy_built):
    run = policy_built.policy_run
    log = run.log
    for name, (_, text) in POLICY_ERRORS.items():
        assert run.status(f"{name}__merge_classified") == "error", run.describe()
        assert text in log, (name, text)
    assert "Install it where dbt runs" in log and "Fix the function" in log


def test_policy_scaffold_checks():
    """Policies are a Python-classification feature: refused with classify sql, naming the merge,
    the column and the fix; a bad shape or a key column is refused before any file is written."""
    with pytest.raises(ScaffoldError) as err:
        render_merge(_opts("m", classify="sql", resolve={"amount": "max"}))
    msg = str(err.value)
    assert "merge 'm'" in msg and "amount" in msg and "--classify python" in msg
    assert "drop the policy of column 'amount'" in msg
    for bad, text in (
        ({"a": "newest"}, "invalid resolve policy for column 'a': 'newest'"),
        ({"a": {"latest": ""}}, "invalid resolve policy for column 'a'"),
        ({"a": {"python": "nodots"}}, "Expected a dotted import path"),
        ({"a": "max", "A": "min"}, "the column has a policy already"),
        ({"id": "max"}, "'id' is a key column"),
        ({"a": {"latest": "id"}}, "'id' is a key column"),
    ):
        with pytest.raises(ScaffoldError, match=re.escape(text)):
            render_merge(_opts("m", resolve=bad))
    with pytest.raises(ScaffoldError, match="invalid --classify 'spark'"):
        render_merge(_opts("m", classify="spark"))
    files = render_merge(_opts("m", resolve={"a": {"latest": "ts"}, "b": "max"}))
    model = files["m__merge_classified.py"]
    assert "resolve={'a': {'latest': 'ts'}, 'b': 'max'}" in model
    assert "from dbt_table_diff.merge_classify import classify" in model
    assert "resolved_cells" in files["_m__merge_models.yml"]


def test_policy_cli_flags(tmp_path):
    from dbt_table_diff.cli import main

    args = ["scaffold", "merge", "m", "--base", "ref('b')", "--ours", "ref('o')"]
    args += ["--theirs", "ref('t')", "--primary-key", "id", "--dir", str(tmp_path)]
    pol = ["--resolve", "a:latest=ts", "--resolve", "b:python=pkg.mod.fn", "--resolve", "c:min"]
    assert main(args + pol) == 0
    text = (tmp_path / "m__merge_classified.py").read_text()
    assert "{'a': {'latest': 'ts'}, 'b': {'python': 'pkg.mod.fn'}, 'c': 'min'}" in text
    assert main(args + ["--classify", "sql", "--resolve", "a:max", "--force"]) == 2
    assert main(args + ["--resolve", "a", "--force"]) == 2


def test_python_status_rules_are_the_macros_text():
    """The status rules exist twice (ADR 0040): the macro `_merge_classified` and the Python
    classification's expressions. Both are Spark SQL; they must be the same text (whitespace
    aside), so that a rule changed in one place fails here before any build."""
    from pathlib import Path

    from dbt_table_diff import merge_classify

    macro = (Path(__file__).resolve().parents[2] / "macros/merge/_merge_outputs.sql").read_text()

    def norm(text: str) -> str:
        return " ".join(text.split())

    for expr in (
        merge_classify.STATUS_SQL,
        merge_classify.CONFLICT_TYPE_SQL,
        merge_classify.MERGED_FROM_SQL,
    ):
        assert norm(expr) in norm(macro), expr
