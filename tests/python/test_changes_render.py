"""`table-diff changes`, step three without Spark: the report, the --fail-on policy, and
changes.md, which must parse as Markdown (markdown-it-py, GitHub's table extension on) and stay
under GitHub's 65,536-character comment limit however many models changed."""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from dbt_table_diff.changes.artifacts import ChangesError
from dbt_table_diff.changes.keys import Key
from dbt_table_diff.changes.plan import Plan
from dbt_table_diff.changes.render import (
    GITHUB_COMMENT_LIMIT,
    code,
    render_json,
    render_markdown,
    samples_block,
)
from dbt_table_diff.changes.report import build_report, parse_fail_on, policy_failures


def row(name: str, change="modified", status="modified", **values):
    """One row as invoke.read_results returns it (JSON columns parsed)."""
    base = {
        "model_id": f"model.shop.{name}",
        "model": name,
        "change": change,
        "status": status,
        "diffed": status not in ("new", "removed"),
        "note": None,
        "current_relation": f"`pr`.`{name}`" if change != "removed" else None,
        "production_relation": f"`prod`.`{name}`" if change != "new" else None,
        "primary_key": ["id"],
        "rows_current": 10,
        "rows_production": 10,
        "added": 0,
        "deleted": 0,
        "modified": 0,
        "duplicate_key_rows": 0,
        "partial": False,
        "schema_changes": [],
        "column_changes": [],
        "samples": [],
        "seconds": 0.5,
    }
    base.update(values)
    return base


def plan_for(rows) -> Plan:
    plan = Plan()
    for r in rows:
        if r["change"] in ("modified", "downstream"):
            plan.keys[r["model_id"]] = Key(tuple(r["primary_key"] or ()) or None, "meta")
    return plan


def report_of(rows, fail_on=(), **context):
    return build_report(plan_for(rows), rows, fail_on, {"state": "prod-artifacts", **context})


def html_of(text: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


SMALL = [
    row(
        "orders",
        modified=6,
        column_changes=[["status", 6]],
        samples=[["modified", 6, "order_id=1  status: 'returned' -> 'refunded'"]],
    ),
    row(
        "customers",
        schema_changes=[
            {
                "column": "region_code",
                "change": "added",
                "production_type": None,
                "current_type": "string",
            },
        ],
    ),
    row(
        "events",
        primary_key=None,
        deleted=5,
        modified=None,
        rows_current=4,
        rows_production=9,
        samples=[["deleted", 3, "event='click', value=1"]],
    ),
    row(
        "report",
        change="downstream",
        status="unchanged",
        diffed=False,
        rows_current=None,
        rows_production=None,
        note="not diffed: parents identical",
    ),
    row(
        "big_orders",
        change="new",
        status="new",
        primary_key=None,
        rows_production=None,
        schema_changes=[
            {"column": "id", "change": "added", "production_type": None, "current_type": "int"}
        ],
    ),
    row(
        "legacy",
        change="removed",
        status="removed",
        primary_key=None,
        rows_current=None,
        rows_production=24,
    ),
]


def test_report_verdicts_and_counts():
    report = report_of(SMALL)
    by = {m["name"]: m for m in report["models"]}
    assert by["orders"]["verdict"] == "6 rows modified"
    assert by["customers"]["verdict"] == "schema: 1 added"
    assert (
        by["events"]["keyless"]
        and by["events"]["verdict"] == "5 rows deleted; compared without a key"
    )
    assert by["report"]["verdict"].startswith("unchanged (not diffed")
    assert by["legacy"]["verdict"] == "removed (production had 24 rows)"
    assert by["big_orders"]["verdict"] == "new: 10 rows, 1 columns"
    assert report["counts"] == {"modified": 3, "unchanged": 1, "new": 1, "removed": 1}
    assert report["not_diffed_unchanged"] == 1 and not report["failed"]
    assert json.loads(render_json(report))["models"][0]["name"] == "orders"


def test_fail_on_policy():
    assert parse_fail_on("") == () and parse_fail_on("none") == ()
    assert parse_fail_on("schema, Removed") == ("schema", "removed")
    with pytest.raises(ChangesError, match="unknown kind typo. Expected a comma-separated list"):
        parse_fail_on("schema,typo")
    models = report_of(SMALL)["models"]
    assert policy_failures(models, ("schema", "removed", "modified", "added", "deleted")) == {
        "schema": ["customers"],
        "removed": ["legacy"],
        "modified": ["orders"],
        "deleted": ["events"],
    }
    report = report_of(SMALL, ("added", "removed"))
    assert report["failed"] and report["failures"] == {"removed": ["legacy"]}
    assert not report_of(SMALL, ("added",))["failed"]


def test_small_report_renders_whole_and_parses():
    report = report_of(SMALL, ("schema",))
    text = render_markdown(report)
    assert "Truncated" not in text
    assert "**Fails** `--fail-on schema`: schema: customers." in text
    html = html_of(text)
    assert html.count("<tr>") == 1 + len(SMALL)  # header + one row per model
    for tr in html.split("<tr>")[1:]:
        assert tr.count("<td>") + tr.count("<th>") == 8, tr
    assert html.count("<details>") == 5  # every model but the unchanged one
    assert "order_id=1  status: 'returned' -&gt; 'refunded'" in html
    assert "x3 event='click', value=1" in text  # a keyless row's extra copies
    assert "`` `prod`.`orders` ``" in text  # relation names keep their backticks


def test_cells_with_pipes_backticks_and_html_cannot_break_the_comment():
    hostile = row(
        "we|ird<b>",
        modified=1,
        column_changes=[["a|b", 1]],
        samples=[["modified", 1, "k=1  a|b: '```' -> '</details>'"]],
    )
    text = render_markdown(report_of([hostile, *SMALL]))
    html = html_of(text)
    assert html.count("<details>") == html.count("</details>") == 6
    for tr in html.split("<tr>")[1:]:
        assert tr.count("<td>") + tr.count("<th>") == 8, tr
    assert "<b>we|ird&lt;b&gt;</b>" in html
    block = samples_block(report_of([hostile])["models"][0], 5)
    assert block.startswith("````text\n") and block.endswith("\n````")
    assert code("a`b") == "``a`b``" and code("`x`") == "`` `x` ``"


def test_a_huge_change_is_truncated_under_githubs_limit_with_counts():
    long = "x" * 400
    rows = [
        row(
            f"model_{i:05d}",
            modified=1000 + i,
            added=i % 3,
            column_changes=[[f"column_{c}", 10] for c in range(15)],
            schema_changes=[
                {
                    "column": f"new_{c}",
                    "change": "added",
                    "production_type": None,
                    "current_type": "string",
                }
                for c in range(3)
            ],
            samples=[
                [kind, 9, f"id={j}  payload: '{long}' -> '{long}|`'"]
                for kind in ("added", "deleted", "modified")
                for j in range(5)
            ],
        )
        for i in range(2000)
    ] + [row(f"same_{i}", change="downstream", status="unchanged") for i in range(500)]
    report = report_of(rows, report_url=None)
    text = render_markdown(report, full_report="https://ci.example/run/1")
    assert len(text) <= GITHUB_COMMENT_LIMIT
    assert len(text.encode("utf-16-le")) // 2 <= GITHUB_COMMENT_LIMIT
    note = text[text.index("> **Truncated**") :]
    assert "of 2500 models in the table" in note and "(https://ci.example/run/1)" in note
    shown = int(note.split(" of 2500 models in the table")[0].rsplit(" ", 1)[-1])
    html = html_of(text)
    assert html.count("<tr>") == 1 + shown + 1  # header, the rows shown, the "… more" row
    assert f"… {2500 - shown} more" in text
    assert html.count("<details>") == html.count("</details>")
    # The most changed models come first: an unchanged one is never shown before a modified one.
    assert "same_0" not in text or text.index("model_01999") < text.index("same_0")
    # A smaller limit keeps fewer rows, and a note that says so.
    small = render_markdown(report, limit=8000)
    assert len(small) <= 8000 and "Truncated" in small and html_of(small).count("<table>") == 1


class FakeSpark:
    """sql() raising, or returning rows (a stand-in for a session without the results table)."""

    def __init__(self, rows=None, error=None):
        self.rows, self.error = rows or [], error

    def sql(self, query):
        if self.error:
            raise self.error
        rows = self.rows

        class Frame:
            def collect(self):
                class Row(dict):
                    def asDict(self):
                        return dict(self)

                return [Row(r) for r in rows]

        return Frame()


def test_results_unreadable_in_this_session_say_it_needs_method_session():
    from dbt_table_diff.changes.invoke import read_results

    spark = FakeSpark(error=RuntimeError("[TABLE_OR_VIEW_NOT_FOUND] x\nstack"))
    with pytest.raises(ChangesError, match="profile must be dbt-spark `method: session`"):
        read_results(spark, "`s`.`table_diff_changes`", "r1", 1)
    wrong = FakeSpark(rows=[{c: None for c in ("primary_key", "schema_changes")}])
    with pytest.raises(ChangesError, match="holds 1 rows of run r1, not 2"):
        read_results(wrong, "`s`.`table_diff_changes`", "r1", 2)
