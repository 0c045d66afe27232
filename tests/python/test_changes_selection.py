"""`table-diff changes`, step one: artifacts, selection, keys and the macro's plan, on manifests
written by hand (no dbt project, no Spark). The classification runs dbt's own state selector on
them; test_changes.py holds it to `dbt ls --select state:modified` on a real project."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from dbt_table_diff.changes.artifacts import ChangesError, load_artifacts
from dbt_table_diff.changes.keys import (
    COMBINATION_SOURCE,
    CONSTRAINT_SOURCE,
    META_SOURCE,
    UNIQUE_SOURCE,
    find_key,
)
from dbt_table_diff.changes.plan import build_plan, dependency_order
from dbt_table_diff.changes.selection import select_changes

SCHEMA = "https://schemas.getdbt.com/dbt/manifest/v12.json"


def model(name: str, sql: str, deps=(), *, macros=(), resource_type="model", **extra):
    uid = f"{resource_type}.shop.{name}"
    node = {
        "resource_type": resource_type,
        "name": name,
        "unique_id": uid,
        "package_name": "shop",
        "path": f"{name}.sql",
        "original_file_path": f"models/{name}.sql",
        "fqn": ["shop", name],
        "alias": name,
        "schema": "analytics",
        "database": None,
        "checksum": {"name": "sha256", "checksum": f"{len(sql)}:{sql}"},
        "raw_code": sql,
        "language": "sql",
        "config": {"materialized": "table"},
        "unrendered_config": {"materialized": "table"},
        "depends_on": {"nodes": list(deps), "macros": list(macros)},
    }
    for key, value in extra.items():
        node[key] = value
    return node


def generic_test(name: str, test: str, model_id: str, namespace=None, where=None, **kwargs):
    node = model(name, "", (model_id,), resource_type="test")
    node["test_metadata"] = {"name": test, "namespace": namespace, "kwargs": kwargs}
    node["attached_node"] = model_id
    node["config"] = {"enabled": True, "severity": "ERROR", **({"where": where} if where else {})}
    node["unrendered_config"] = {}
    if "column_name" in kwargs:
        node["column_name"] = kwargs["column_name"]
    return node


def manifest(*nodes, macros=None) -> dict:
    return {
        "metadata": {"dbt_schema_version": SCHEMA, "adapter_type": "spark"},
        "nodes": {n["unique_id"]: n for n in nodes},
        "sources": {},
        "macros": macros or {},
        "docs": {},
        "exposures": {},
        "metrics": {},
        "groups": {},
        "selectors": {},
        "disabled": {},
        "parent_map": {},
        "child_map": {},
        "group_map": {},
        "saved_queries": {},
        "semantic_models": {},
        "unit_tests": {},
    }


def macro(name: str, sql: str) -> dict:
    return {
        "name": name,
        "unique_id": f"macro.shop.{name}",
        "package_name": "shop",
        "path": f"macros/{name}.sql",
        "original_file_path": f"macros/{name}.sql",
        "macro_sql": sql,
        "resource_type": "macro",
        "depends_on": {"macros": []},
    }


def write_artifacts(root: Path, current: dict, production: dict, results, which="build"):
    target, state = root / "target", root / "prod"
    target.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    (target / "manifest.json").write_text(json.dumps(current))
    (state / "manifest.json").write_text(json.dumps(production))
    run_results = {
        "args": {"which": which},
        "results": [{"unique_id": uid, "status": status} for uid, status in results.items()],
    }
    (target / "run_results.json").write_text(json.dumps(run_results))
    return target, state


# A shop: raw seed -> orders -> order_totals -> report; customers -> report; legacy (removed).
SEED = model("raw_orders", "", resource_type="seed")
SEED["checksum"] = {"name": "sha256", "checksum": "seed-v1"}


def production_nodes():
    return [
        copy.deepcopy(SEED),
        model("orders", "select * from {{ ref('raw_orders') }}", ["seed.shop.raw_orders"]),
        model("order_totals", "select sum(x) from {{ ref('orders') }}", ["model.shop.orders"]),
        model("customers", "select 1 as id", macros=["macro.shop.cents"]),
        model(
            "report",
            "select * from {{ ref('order_totals') }}, {{ ref('customers') }}",
            ["model.shop.order_totals", "model.shop.customers"],
        ),
        model("legacy", "select 1"),
        model("untouched", "select 2"),
    ]


@pytest.fixture
def shop(tmp_path):
    """Production, and a change that edits `orders`, adds `fresh`, removes `legacy`."""
    prod_nodes = production_nodes()
    cur = {n["unique_id"]: copy.deepcopy(n) for n in prod_nodes}
    del cur["model.shop.legacy"]
    cur["model.shop.orders"]["raw_code"] += " where x > 0"
    cur["model.shop.orders"]["checksum"] = {"name": "sha256", "checksum": "changed"}
    cur["model.shop.fresh"] = model("fresh", "select 3")
    macros = {"macro.shop.cents": macro("cents", "{% macro cents() %}100{% endmacro %}")}
    built = {
        uid: "success"
        for uid in ("model.shop.orders", "model.shop.order_totals", "model.shop.fresh")
    }
    built["model.shop.report"] = "success"
    target, state = write_artifacts(
        tmp_path,
        manifest(*cur.values(), macros=macros),
        manifest(*prod_nodes, macros=macros),
        built,
    )
    return tmp_path, target, state


def _changes(target, state):
    return {m.name: m for m in select_changes(load_artifacts(target, state)).models}


def test_classification_follows_dbts_state_modified(shop):
    _, target, state = shop
    found = _changes(target, state)
    assert {n: m.change for n, m in found.items()} == {
        "fresh": "new",
        "orders": "modified",
        "order_totals": "downstream",
        "report": "downstream",
        "legacy": "removed",
    }
    assert found["orders"].built and found["legacy"].current is None
    assert found["fresh"].production is None and "untouched" not in found


def test_a_changed_macro_or_config_modifies_its_models_as_dbt_says(shop):
    """Not the checksum alone: dbt's own rules (an upstream macro, a config)."""
    root, target, state = shop
    current = json.loads((target / "manifest.json").read_text())
    current["macros"]["macro.shop.cents"]["macro_sql"] = "{% macro cents() %}1000{% endmacro %}"
    untouched = current["nodes"]["model.shop.untouched"]
    untouched["config"]["materialized"] = "view"
    untouched["unrendered_config"]["materialized"] = "view"
    (target / "manifest.json").write_text(json.dumps(current))
    found = _changes(target, state)
    assert found["customers"].change == "modified"  # through the macro
    assert found["untouched"].change == "modified"  # through its config
    assert found["report"].change == "downstream"


def test_a_modified_seed_makes_its_models_downstream(shop):
    root, target, state = shop
    current = json.loads((target / "manifest.json").read_text())
    current["nodes"]["seed.shop.raw_orders"]["checksum"]["checksum"] = "seed-v2"
    current["nodes"]["model.shop.orders"] = production_nodes()[1]  # orders back as in prod
    (target / "manifest.json").write_text(json.dumps(current))
    selection = select_changes(load_artifacts(target, state))
    changes = {m.name: m.change for m in selection.models}
    assert changes["orders"] == "downstream" and "seed.shop.raw_orders" in selection.modified_nodes
    plan = build_plan(selection, current)
    entry = {e["name"]: e for e in plan.entries}
    # The seed is a changed parent that is not diffed: orders is always diffed, never pruned.
    assert entry["orders"]["prune_parents"] is None
    assert entry["order_totals"]["prune_parents"] == ["model.shop.orders"]


def test_plan_orders_by_dependency_and_marks_what_may_be_pruned(shop):
    _, target, state = shop
    artifacts = load_artifacts(target, state)
    plan = build_plan(select_changes(artifacts), artifacts.current)
    names = [e["name"] for e in plan.entries]
    assert names.index("orders") < names.index("order_totals") < names.index("report")
    assert names[-1] == "legacy"
    entry = {e["name"]: e for e in plan.entries}
    assert entry["fresh"]["production"] is None and entry["fresh"]["primary_key"] is None
    assert entry["legacy"]["current"] is None
    assert entry["legacy"]["production"] == {
        "database": None,
        "schema": "analytics",
        "identifier": "legacy",
    }
    assert entry["orders"]["prune_parents"] is None  # modified: always diffed
    assert entry["order_totals"]["prune_parents"] == ["model.shop.orders"]
    # report's changed parents: order_totals only (customers is unchanged, deferred to prod).
    assert entry["report"]["prune_parents"] == ["model.shop.order_totals"]
    assert plan.skipped == []


def test_unbuilt_and_ephemeral_models_are_reported_not_diffed(tmp_path):
    prod = production_nodes()
    cur = {n["unique_id"]: copy.deepcopy(n) for n in prod}
    cur["model.shop.orders"]["raw_code"] += " -- edited"
    cur["model.shop.order_totals"]["config"]["materialized"] = "ephemeral"
    cur["model.shop.order_totals"]["unrendered_config"]["materialized"] = "ephemeral"
    results = {"model.shop.orders": "error", "model.shop.report": "skipped"}
    target, state = write_artifacts(tmp_path, manifest(*cur.values()), manifest(*prod), results)
    artifacts = load_artifacts(target, state)
    plan = build_plan(select_changes(artifacts), artifacts.current)
    skipped = {s.model.name: (s.status, s.note) for s in plan.skipped}
    assert skipped["orders"][0] == "not_built" and "status: error" in skipped["orders"][1]
    assert skipped["report"][0] == "not_built" and "status: skipped" in skipped["report"][1]
    assert skipped["order_totals"] == ("not_diffed", "ephemeral: no relation to compare")
    assert plan.entries == []  # nothing built, nothing removed


def test_dependency_order_keeps_the_given_order_otherwise():
    parents = {"c": ["b"], "b": ["a"], "d": []}
    assert dependency_order(["c", "d", "b", "a"], parents) == ["d", "a", "b", "c"]
    assert dependency_order(["x", "y"], {"x": ["y"], "y": ["x"]}) == ["x", "y"]  # a cycle


# --- keys ------------------------------------------------------------------------------------


def _key(*nodes, target="model.shop.m"):
    m = manifest(*nodes)
    return find_key(m, m["nodes"][target])


M = "model.shop.m"


def test_meta_key_comes_first_in_config_or_top_level():
    in_config = model("m", "select 1", config={"meta": {"table_diff": {"primary_key": ["a", "b"]}}})
    unique = generic_test("u", "unique", M, column_name="c")
    key = _key(in_config, unique)
    assert key.columns == ("a", "b") and key.source == META_SOURCE and not key.keyless
    top = model("m", "select 1", meta={"table_diff": {"primary_key": "id", "exclude_columns": "x"}})
    key = _key(top)
    assert key.columns == ("id",) and key.exclude_columns == ("x",)


def test_constraint_key_model_level_then_column_level():
    level = model("m", "select 1", constraints=[{"type": "primary_key", "columns": ["k1", "k2"]}])
    assert _key(level).columns == ("k1", "k2") and _key(level).source == CONSTRAINT_SOURCE
    columns = {
        "id": {"name": "id", "constraints": [{"type": "not_null"}, {"type": "primary_key"}]},
        "v": {"name": "v", "constraints": []},
    }
    assert _key(model("m", "select 1", columns=columns)).columns == ("id",)


def test_unique_test_prefers_a_not_null_column_and_skips_filtered_or_expression_tests():
    m = model("m", "select 1")
    tests = [
        generic_test("u1", "unique", M, column_name="alpha"),
        generic_test("u2", "unique", M, column_name="order_id"),
        generic_test("n2", "not_null", M, column_name="order_id"),
        generic_test("u3", "unique", M, column_name="aaa", where="x > 0"),
        generic_test("u4", "unique", M, column_name="lower(email)"),
        generic_test("other", "unique", "model.shop.other", column_name="a0"),
    ]
    key = _key(m, *tests)
    assert key.columns == ("order_id",) and key.source == UNIQUE_SOURCE
    assert _key(m, tests[0], tests[3], tests[4]).columns == ("alpha",)


def test_unique_combination_of_columns_test():
    m = model("m", "select 1")
    combo = generic_test(
        "c",
        "unique_combination_of_columns",
        M,
        namespace="dbt_utils",
        combination_of_columns=["day", "shop"],
    )
    key = _key(m, combo)
    assert key.columns == ("day", "shop") and key.source == COMBINATION_SOURCE


def test_no_key_is_keyless_with_a_note_naming_the_model_and_the_fix():
    key = _key(model("m", "select 1", patch_path="shop://models/schema.yml"))
    assert key.keyless and key.columns is None
    assert "no key found for m" in key.note and "models/schema.yml" in key.note
    assert "meta: {table_diff: {primary_key: [<column>]}}" in key.note


@pytest.mark.parametrize("bad", [[], [""], 3, {"a": 1}])
def test_a_bad_meta_key_fails_naming_the_model_and_file(bad):
    m = model("m", "select 1", patch_path="shop://models/schema.yml")
    m["meta"] = {"table_diff": {"primary_key": bad}}
    with pytest.raises(
        ChangesError, match=r"model m \(shop://models/schema.yml\): meta.table_diff"
    ):
        _key(m)


# --- artifacts -------------------------------------------------------------------------------


def test_no_state_directory(tmp_path):
    with pytest.raises(ChangesError, match="no such directory. Put production's dbt artifacts"):
        load_artifacts(tmp_path / "target", tmp_path / "missing")


def test_a_state_directory_without_manifest_lists_what_it_holds(tmp_path):
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod" / "run_results.json").write_text("{}")
    with pytest.raises(ChangesError) as err:
        load_artifacts(tmp_path / "target", tmp_path / "prod")
    message = str(err.value)
    assert "prod/manifest.json: no such file" in message and "found: run_results.json" in message


def test_no_current_run_says_to_build_first(tmp_path):
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod" / "manifest.json").write_text(json.dumps(manifest()))
    with pytest.raises(ChangesError, match=r"target/manifest.json: no such file.*dbt build"):
        load_artifacts(tmp_path / "target", tmp_path / "prod")


def test_state_equal_to_target_and_a_non_building_command_are_refused(tmp_path):
    target, state = write_artifacts(tmp_path, manifest(), manifest(), {}, which="compile")
    with pytest.raises(ChangesError, match="this run's own target path"):
        load_artifacts(target, target)
    with pytest.raises(ChangesError, match="was `dbt compile`, which builds no model"):
        load_artifacts(target, state)
    (state / "manifest.json").write_text("{not json")
    with pytest.raises(ChangesError, match="not readable as JSON"):
        load_artifacts(target, state)
