"""`table-diff changes` end to end: a small shop project built into a "prod" schema, changed, and
built into a "pr" schema the way CI builds a pull request (`dbt build --select state:modified+
--defer --state prod_artifacts`); then every count the command reports is held against a
brute-force diff of the two schemas' tables computed here in Python.

The change: `orders` relabels one status (a column modified in a few rows), `customers` gains a
column, `events` (no key) drops its rows of value 1, `customer_names` only gains a comment (its
data is the same, so `customer_names_report` below it is pruned), `big_orders` is new, `legacy`
is deleted. `customer_orders` and `order_totals` are downstream of `orders`.
"""

from __future__ import annotations

import json

import pytest
from changes_oracle import oracle, prod_and_pr_targets, restored_conf, table

import dbt_table_diff
from dbt_table_diff.changes.artifacts import load_artifacts
from dbt_table_diff.changes.invoke import DbtOptions, macro_args, read_results, run_diff_changes
from dbt_table_diff.changes.plan import build_plan
from dbt_table_diff.changes.selection import select_changes
from dbt_table_diff.cli import main

RAW_ORDERS = "order_id,customer_id,amount,status\n" + "\n".join(
    f"{i},{i % 6 + 1},{(i * 37) % 250}.50,{['shipped', 'returned', 'new', 'shipped'][i % 4]}"
    for i in range(1, 25)
)
RAW_CUSTOMERS = """customer_id,name,region
1,Ada,eu
2,Grace,us
3,Linus,eu
4,Ken,us
5,Barbara,apac
6,Edsger,eu
"""
RAW_EVENTS = "event,value\n" + "\n".join(
    ["click,1"] * 3 + ["view,2"] * 2 + ["buy,1", "buy,5", "view,1", "click,3"]
)

META_KEY = "{{{{ config(meta={{'table_diff': {{'primary_key': {key}}}}}) }}}}\n"

PROD = {
    "seeds/raw_orders.csv": RAW_ORDERS,
    "seeds/raw_customers.csv": RAW_CUSTOMERS,
    "seeds/raw_events.csv": RAW_EVENTS,
    "models/orders.sql": META_KEY.format(key="['order_id']")
    + "select order_id, customer_id, amount, status from {{ ref('raw_orders') }}",
    "models/customers.sql": "select customer_id, name, region from {{ ref('raw_customers') }}",
    "models/events.sql": "select event, value from {{ ref('raw_events') }}",
    "models/customer_orders.sql": (
        "select c.customer_id, count(o.order_id) as n_orders, coalesce(sum(o.amount), 0) as total\n"
        "from {{ ref('customers') }} as c left join {{ ref('orders') }} as o\n"
        "  on o.customer_id = c.customer_id\ngroup by c.customer_id"
    ),
    "models/order_totals.sql": META_KEY.format(key="'status'")
    + "select status, count(*) as n_orders from {{ ref('orders') }} group by status",
    "models/customer_names.sql": META_KEY.format(key="['customer_id']")
    + "select customer_id, name from {{ ref('raw_customers') }}",
    "models/customer_names_report.sql": META_KEY.format(key="['customer_id']")
    + "select customer_id, length(name) as name_length from {{ ref('customer_names') }}",
    "models/legacy.sql": "select order_id from {{ ref('raw_orders') }}",
    "models/untouched.sql": (
        "select region, count(*) as n from {{ ref('raw_customers') }} group by region"
    ),
    "models/schema.yml": """
        version: 2
        models:
          - name: customers
            columns:
              - name: customer_id
                data_tests: [unique, not_null]
          - name: customer_orders
            columns:
              - name: customer_id
                data_tests: [unique]
        seeds:
          - name: raw_orders
            config:
              column_types:
                {order_id: int, customer_id: int, amount: "decimal(10,2)", status: string}
        """,
}

PR_EDITS = {
    "models/orders.sql": META_KEY.format(key="['order_id']")
    + "select order_id, customer_id, amount,\n"
    "  case when status = 'returned' then 'refunded' else status end as status\n"
    "from {{ ref('raw_orders') }}",
    "models/customers.sql": (
        "select customer_id, name, region, upper(region) as region_code\n"
        "from {{ ref('raw_customers') }}"
    ),
    "models/events.sql": "select event, value from {{ ref('raw_events') }} where value >= 2",
    "models/customer_names.sql": META_KEY.format(key="['customer_id']")
    + "-- the names, as the CRM spells them\n"
    "select customer_id, name from {{ ref('raw_customers') }}",
    "models/big_orders.sql": "select * from {{ ref('orders') }} where amount > 100",
}

KEYS = {
    "orders": ["order_id"],
    "customers": ["customer_id"],
    "customer_orders": ["customer_id"],
    "order_totals": ["status"],
    "customer_names": ["customer_id"],
    "customer_names_report": ["customer_id"],
    "events": None,
}


@pytest.fixture(scope="module")
def shop(dbt_project_factory):
    """The project, built into <schema>_prod (artifacts in prod_artifacts/), changed, and the
    change built into <schema>_pr with --defer."""
    print("dbt_table_diff imported from", dbt_table_diff.__file__)
    project = dbt_project_factory(
        "changes",
        files=PROD,
        packages=True,
        project_config={"models": {"changes": {"+materialized": "table"}}},
    )
    prod_and_pr_targets(project)
    prod_dir = project.root / "prod_artifacts"
    project.run("build", "--target", "prod", "--target-path", str(prod_dir)).assert_success()
    for path, text in PR_EDITS.items():
        project.write(path, text)
    project.remove("models/legacy.sql")
    built = project.run(
        "build",
        "--target",
        "pr",
        "--select",
        "state:modified+",
        "--defer",
        "--state",
        str(prod_dir),
    ).assert_success()
    project.prod_dir = prod_dir
    project.built = sorted(r.node.name for r in built.node_results)
    return project


@pytest.fixture(scope="module")
def macro_rows(shop, spark):
    """Step two alone: the plan of step one, run by table_diff.diff_changes in one invocation."""
    artifacts = load_artifacts(shop.root / "target", shop.prod_dir)
    plan = build_plan(select_changes(artifacts), artifacts.current)
    options = DbtOptions(shop.root, shop.root, "pr", shop.root / "target" / "table_diff_changes")
    with restored_conf(spark):
        relation, messages = run_diff_changes(
            options, macro_args(plan.entries, "macro-run-1", 3, 100000, None)
        )
    rows = read_results(spark, relation, "macro-run-1", len(plan.entries))
    return {r["model"]: r for r in rows}, relation, messages


def test_the_pr_build_built_the_changed_models_only(shop):
    assert "untouched" not in shop.built and "legacy" not in shop.built
    assert {"orders", "customers", "events", "big_orders", "customer_names_report"} <= set(
        shop.built
    )


def test_step_one_agrees_with_dbt_ls_state_modified(shop):
    """Our classification is dbt's: the models `dbt ls --select state:modified` lists are the
    ones called new or modified, and state:modified+ the rest."""
    artifacts = load_artifacts(shop.root / "target", shop.prod_dir)
    found = {m.name: m.change for m in select_changes(artifacts).models}

    def ls(selector: str) -> set[str]:
        run = shop.run(
            "ls",
            "--select",
            selector,
            "--state",
            str(shop.prod_dir),
            "--resource-type",
            "model",
            "--output",
            "name",
            "--target-path",
            str(shop.root / "ls_target"),
        ).assert_success()
        return {m.strip() for m in run.messages if m.strip() and " " not in m.strip()}

    assert ls("state:modified") == {n for n, c in found.items() if c in ("new", "modified")}
    assert ls("state:modified+") == {n for n, c in found.items() if c != "removed"}
    assert found["legacy"] == "removed"


def test_macro_counts_match_the_oracle(shop, spark, macro_rows):
    rows, _, _ = macro_rows
    for name, key in KEYS.items():
        row = rows[name]
        if row["diffed"] is False:
            continue
        expected = oracle(spark, shop, name, key)
        got = {k: row[k] for k in ("rows_production", "rows_current", "added", "deleted")}
        assert got == {k: expected[k] for k in got}, (name, row)
        if key is not None:
            assert row["modified"] == expected["modified"], (name, row)
            assert dict(row["column_changes"]) == expected["column_changes"], (name, row)
            assert row["primary_key"] == key
        else:
            assert row["modified"] is None and row["primary_key"] is None


def test_macro_statuses_schema_and_pruning(macro_rows):
    rows, relation, messages = macro_rows
    status = {name: (r["change"], r["status"], r["diffed"]) for name, r in rows.items()}
    assert status == {
        "big_orders": ("new", "new", False),
        "customer_names": ("modified", "unchanged", True),
        "customers": ("modified", "modified", True),
        "events": ("modified", "modified", True),
        "orders": ("modified", "modified", True),
        "customer_names_report": ("downstream", "unchanged", False),
        "customer_orders": ("downstream", "unchanged", True),
        "order_totals": ("downstream", "modified", True),
        "legacy": ("removed", "removed", False),
    }
    assert "customer_names) came out identical" in rows["customer_names_report"]["note"]
    assert rows["customers"]["schema_changes"] == [
        {
            "column": "region_code",
            "change": "added",
            "production_type": None,
            "current_type": "string",
        }
    ]
    assert rows["orders"]["schema_changes"] == []
    assert rows["legacy"]["rows_production"] == 24 and rows["legacy"]["rows_current"] is None
    assert rows["big_orders"]["rows_current"] > 0 and rows["big_orders"]["rows_production"] is None
    assert relation.endswith("`table_diff_changes`")


def test_macro_samples(macro_rows):
    rows, _, _ = macro_rows
    orders = rows["orders"]["samples"]
    assert [s[0] for s in orders] == ["modified"] * 3  # 3 per kind, the first by key
    assert orders[0][1] == rows["orders"]["modified"]
    assert "status: 'returned' -> 'refunded'" in orders[0][2] and orders[0][2].startswith(
        "order_id=1"
    )
    events = rows["events"]["samples"]
    assert {s[0] for s in events} == {"deleted"}
    assert ["deleted", 3, "event='click', value=1"] in [list(s) for s in events]


# --- step three: the command -------------------------------------------------------------------


def run_cli(spark, *args: str) -> int:
    with restored_conf(spark):
        return main(["changes", *args])


@pytest.fixture(scope="module")
def cli(shop, spark):
    """`table-diff changes` in this process (its Spark session is the test's), twice: with a
    policy that trips, then with none and a row cap: the second run still finds what the build
    built (the first left the build's run_results.json alone)."""
    out1, out2 = shop.root / "out1", shop.root / "out2"
    common = ["--state", str(shop.prod_dir), "--project-dir", str(shop.root), "--target", "pr"]
    code1 = run_cli(
        spark, *common, "--out", str(out1), "--fail-on", "schema,removed", "--sample-rows", "3"
    )
    code2 = run_cli(spark, *common, "--out", str(out2), "--max-diff-rows", "2")
    return {
        "codes": (code1, code2),
        "reports": [json.loads((o / "changes.json").read_text()) for o in (out1, out2)],
        "markdown": [(o / "changes.md").read_text() for o in (out1, out2)],
    }


def test_cli_counts_match_the_oracle(shop, spark, cli):
    models = {m["name"]: m for m in cli["reports"][0]["models"]}
    assert set(models) == {*KEYS, "big_orders", "legacy"}
    for name, key in KEYS.items():
        m = models[name]
        if not m["diffed"]:
            continue
        expected = oracle(spark, shop, name, key)
        for field in ("rows_production", "rows_current", "added", "deleted"):
            assert m[field] == expected[field], (name, field, m)
        if key is not None:
            assert m["modified"] == expected["modified"], (name, m)
            assert dict(m["column_changes"]) == expected["column_changes"], (name, m)
        else:
            assert m["keyless"] and m["modified"] is None
    assert models["order_totals"]["verdict"] == "1 row added; 1 row deleted"
    assert models["orders"]["key_source"] == "meta"
    assert models["customers"]["key_source"] == "unique test"
    assert any("no key found for events" in n for n in models["events"]["notes"])
    assert models["big_orders"]["rows_current"] == sum(
        1 for r in table(spark, f"{shop.schema}_pr", "orders") if r["amount"] > 100
    )


def test_cli_reports_the_pruned_model_unchanged_and_not_diffed(cli):
    models = {m["name"]: m for m in cli["reports"][0]["models"]}
    pruned = models["customer_names_report"]
    assert (pruned["change"], pruned["status"], pruned["diffed"]) == (
        "downstream",
        "unchanged",
        False,
    )
    assert pruned["rows_current"] is None and pruned["added"] is None  # never scanned
    assert (
        models["customer_orders"]["diffed"] and models["customer_orders"]["status"] == "unchanged"
    )
    assert "| customer_names_report | downstream | unchanged (not diffed) |" in cli["markdown"][0]


def test_cli_exit_code_follows_fail_on(cli):
    code1, code2 = cli["codes"]
    report = cli["reports"][0]
    assert code1 == 1 and report["failed"]
    assert report["failures"] == {"schema": ["customers"], "removed": ["legacy"]}
    assert code2 == 0 and not cli["reports"][1]["failed"] and cli["reports"][1]["fail_on"] == []


def test_cli_partial_counts_past_max_diff_rows(cli):
    """--max-diff-rows 2: orders' 6 modified rows are cut at 2, reported as partial, not failed."""
    orders = {m["name"]: m for m in cli["reports"][1]["models"]}["orders"]
    assert orders["partial"] and orders["modified"] == 2
    assert orders["verdict"] == "at least 2 rows modified"
    assert "| ≥ 2 |" in cli["markdown"][1]


def test_cli_markdown_is_a_comment_github_takes(cli):
    from markdown_it import MarkdownIt

    for text in cli["markdown"]:
        assert len(text) <= 65536 and "Truncated" not in text
        html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
        assert html.count("<tr>") == 1 + 9  # the header and the nine models
        assert html.count("<details>") == html.count("</details>") >= 5
    first = cli["markdown"][0]
    assert "**Fails** `--fail-on schema,removed`: schema: customers; removed: legacy." in first
    assert "order_id=1  status: 'returned' -> 'refunded'" in first
    assert "x3 event='click', value=1" in first


def test_cli_writes_the_html_page_with_a_section_per_model(shop, cli):
    page = (shop.root / "out1" / "changes.html").read_text()
    for name in (*KEYS, "big_orders", "legacy"):
        assert f'id="model-{name}"' in page and f'href="#model-{name}"' in page, name
    assert "refunded" in page and "≥ 2" in (shop.root / "out2" / "changes.html").read_text()


def test_bad_input_fails_early_with_the_fix(shop, spark, tmp_path, capsys):
    assert run_cli(spark, "--project-dir", str(shop.root)) == 2
    assert "--state is required" in capsys.readouterr().err
    empty = tmp_path / "empty_state"
    empty.mkdir()
    assert run_cli(spark, "--project-dir", str(shop.root), "--state", str(empty)) == 2
    err = capsys.readouterr().err
    assert f"{empty}/manifest.json: no such file" in err and "found: nothing" in err
    code = run_cli(
        spark, "--project-dir", str(shop.root), "--state", str(shop.prod_dir), "--fail-on", "rows"
    )
    assert code == 2 and "unknown kind rows" in capsys.readouterr().err


def test_a_missing_production_relation_names_the_model_and_the_fix(shop, spark, capsys):
    """Last: it drops a production table."""
    spark.sql(f"drop table {shop.schema}_prod.customer_orders")
    code = run_cli(
        spark,
        "--project-dir",
        str(shop.root),
        "--state",
        str(shop.prod_dir),
        "--target",
        "pr",
        "--out",
        str(shop.root / "out3"),
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "model customer_orders: its production relation" in err
    assert f"{shop.schema}_prod" in err and "Build it in production" in err
    assert not (shop.root / "out3" / "changes.md").exists()
