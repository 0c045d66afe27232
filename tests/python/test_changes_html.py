"""changes.html, the page of `table-diff changes`, without Spark: a report with every kind of model
(new, removed, modified by key, keyless, partial, pruned downstream, not built, ephemeral, a schema
change, a unicode name, a name and values with `<script>` and quotes) is rendered, parsed with
Python's html.parser, and opened in headless Chromium (screenshot kept in tests/output/changes.png,
beside test_report.py's)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from conftest import OUTPUT
from test_changes_render import SMALL, plan_for, report_of, row

from dbt_table_diff.changes.html import render_html, section_ids
from dbt_table_diff.changes.plan import Skipped
from dbt_table_diff.changes.render import STATUS_ORDER, ordered_models
from dbt_table_diff.changes.report import build_report
from dbt_table_diff.changes.selection import ModelChange
from dbt_table_diff.page import environment

HOSTILE_NAME = 'x"><script>alert(1)</script>'
HOSTILE_LINE = """id=1  note: '<script>alert("x")</script>' -> 'it''s "quoted" & <b>bold</b>'"""
UNICODE_NAME = "kundenübersicht_日本"


def _schema(column, change, production_type, current_type):
    return {
        "column": column,
        "change": change,
        "production_type": production_type,
        "current_type": current_type,
    }


INPUTS = [
    {
        "source": "shop.orders",
        "relation": "`raw`.`orders`",
        "format": "delta",
        "version_then": 41,
        "version_now": 44,
        "rows_then": 1200,
        "rows_now": 1350,
        "rows_since": 150,
        "pinned": True,
        "note": None,
    },
    {
        "source": "shop.<fx>",
        "relation": "`raw`.`fx`",
        "format": "parquet",
        "version_then": None,
        "version_now": None,
        "rows_then": None,
        "rows_now": 12,
        "rows_since": None,
        "pinned": False,
        "note": "not a Delta or Iceberg table: read as it is now <now>",
    },
]


def full_report(fail_on=("schema", "removed")) -> dict:
    """Every kind of model, a not-built and an ephemeral one included."""
    rows = [
        *SMALL,
        row(
            "customers_v2",
            added=2,
            schema_changes=[
                _schema("region_code", "added", None, "string"),
                _schema("fax", "dropped", "string", None),
                _schema("amount", "retyped", "decimal(10,2)", "decimal(12,2)"),
            ],
            column_changes=[["amount", 7], ["name", 2]],
        ),
        row(
            "payments",
            partial=True,
            added=5,
            modified=100000,
            rows_current=250000,
            rows_production=249995,
            column_changes=[["amount", 100000], ["currency", 3]],
            samples=[
                ["added", 5, "id=900001"],
                ["modified", 100000, "id=1  amount: 1.00 -> 1.10"],
                ["modified", 100000, "id=2  amount: 2.00 -> 2.20"],
            ],
        ),
        row("same", change="downstream", status="unchanged"),
        row(
            UNICODE_NAME,
            modified=1,
            column_changes=[["straße", 1]],
            samples=[["modified", 1, "id=1  straße: 'Ärger' -> '日本語'"]],
        ),
        row(
            HOSTILE_NAME,
            primary_key=["<k>"],
            modified=2,
            note='a note with <script>alert("n")</script> and "quotes"',
            column_changes=[["<b>col</b>", 2]],
            schema_changes=[_schema('"><img src=x onerror=alert(1)>', "retyped", "int", "<t>")],
            samples=[["modified", 2, HOSTILE_LINE]],
        ),
    ]
    plan = plan_for(rows)
    node = {"relation_name": "`pr`.`broken`"}
    plan.skipped += [
        Skipped(
            ModelChange("model.shop.broken", "broken", "modified", "error", node, node),
            "not_built",
            "this run's build: error; fix the build and run table-diff changes again",
        ),
        Skipped(
            ModelChange("model.shop.eph", "eph", "downstream", "success", {}, {}),
            "not_diffed",
            "ephemeral: no relation to compare",
        ),
    ]
    context = {
        "state": "prod-artifacts",
        "generated_at": "2025-01-02T03:04:05+00:00",
        "run_id": "changes-0123456789ab",
        "project": "/src/shop",
    }
    report = build_report(plan, rows, fail_on, context)
    by = {m["name"]: m for m in report["models"]}
    for m in report["models"]:
        m.pop("inputs", None)  # a report of before `inputs`: the key is absent
    by["orders"]["inputs"] = INPUTS
    by["customers"]["inputs"] = []
    return report


class Page(HTMLParser):
    """Every start tag with its attributes, the text, and each element's text by id."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.open_ids: list[tuple[str, str, int]] = []  # (id, tag, depth at open)
        self.by_id: dict[str, list[str]] = {}
        self.depth = 0
        self.feed(text)
        self.close()

    VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "circle", "line", "polyline"}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag in self.VOID:
            return
        self.depth += 1
        if a.get("id"):
            self.open_ids.append((a["id"], tag, self.depth))
            self.by_id[a["id"]] = []

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self.open_ids and self.open_ids[-1][2] >= self.depth:
            self.open_ids.pop()
        self.depth -= 1

    def handle_data(self, data):
        self.text.append(data)
        for i, _, _ in self.open_ids:
            self.by_id[i].append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())
        ]

    def of(self, element_id: str) -> str:
        return "".join(self.by_id[element_id])


@pytest.fixture(scope="module")
def report() -> dict:
    return full_report()


@pytest.fixture(scope="module")
def html(report) -> str:
    return render_html(report)


@pytest.fixture(scope="module")
def page(html) -> Page:
    return Page(html)


def test_every_model_has_a_summary_row_and_a_section(report, page):
    models = report["models"]
    statuses = {m["status"] for m in models}
    assert statuses == {"modified", "removed", "new", "unchanged", "not_built", "not_diffed"}
    rows = page.all("tr", **{"class": "model-row"})
    sections = page.all("section", **{"class": "model"})
    assert len(rows) == len(sections) == len(models) == 13
    # changes.md's order: modified and removed first.
    order = [r["data-status"] for r in rows]
    assert order == sorted(order, key=STATUS_ORDER.index) and order[:8] == ["modified"] * 7 + [
        "removed"
    ]
    assert [s["data-status"] for s in sections] == order
    ids = [s["id"] for s in sections]
    assert [r["id"] for r in rows] == [f"row-{i}" for i in ids] and len(set(ids)) == len(ids)
    assert {"model-orders", "model-legacy", f"model-{UNICODE_NAME}"} <= set(ids)
    for m, anchor in zip(ordered_models(models), ids, strict=True):
        assert m["name"] in page.of(f"row-{anchor}") and m["name"] in page.of(anchor)
        assert m["verdict"] in page.of(f"row-{anchor}") and m["verdict"] in page.of(anchor)
        assert page.all("a", href=f"#{anchor}"), anchor


def test_headline_counts_policy_and_context(report, page):
    counts = page.of("status-counts")
    assert "13 models" in counts
    assert report["counts"] == {
        "modified": 7,
        "removed": 1,
        "new": 1,
        "unchanged": 2,
        "not_built": 1,
        "not_diffed": 1,
    }
    for status, n in report["counts"].items():
        assert f"{n} {status.replace('_', ' ')}" in counts, counts
    assert page.of("verdict") == "FAILS --fail-on schema,removed"
    assert "schema: customers, customers_v2" in page.of("banner-failed")
    assert "removed: legacy" in page.of("banner-failed")
    context = page.of("context")
    for text in ("prod-artifacts", "changes-0123456789ab", "2025-01-02T03:04:05+00:00"):
        assert text in context, context
    passes = Page(render_html(full_report(("added",))))
    assert passes.of("verdict") == "FAILS --fail-on added"
    passes = Page(render_html(report_of(SMALL, ("added",))))
    assert passes.of("verdict") == "PASSES --fail-on added" and "banner-failed" not in passes.by_id
    assert Page(render_html(report_of(SMALL))).of("verdict") == "no --fail-on policy: never fails"
    assert "broken" in page.of("skipped") and "eph" in page.of("skipped")
    assert "fix the build" in page.of("model-broken")


def test_values_are_escaped_never_markup(page, html):
    assert not page.all("script") and not page.all("img")
    assert not any(k.startswith("on") for _, a in page.tags for k in a)
    text = "".join(page.text)
    assert HOSTILE_NAME in text and HOSTILE_LINE in text
    assert 'a note with <script>alert("n")</script> and "quotes"' in text
    assert '"><img src=x onerror=alert(1)>' in text and "<b>col</b>" in text
    assert "<b>bold</b>" in text and "<t>" in text and "<k>" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # The section of the hostile name has a safe id, and its link points at it.
    (hostile,) = [
        s["id"] for s in page.all("section") if s.get("id") and HOSTILE_NAME in page.of(s["id"])
    ]
    assert hostile == "model-x-script-alert-1-script"
    assert page.all("a", href=f"#{hostile}")


def test_partial_counts_show_as_at_least(page):
    partial = page.of("model-payments")
    assert "PARTIAL" in partial and "≥ 100,000" in partial and "≥ 5" in partial
    assert "modified (production -> this run), ≥ 100,000 rows:" in partial
    (summary,) = [r for r in page.all("tr", **{"class": "model-row"})][:1] or [None]
    assert summary is not None
    html_row = page.of("model-payments")
    assert "≥ 3" in html_row  # a column's count is a lower bound too
    orders = page.of("model-orders")
    assert "≥" not in orders and "PARTIAL" not in orders


def test_inputs_table_only_when_there_are_inputs(html, page):
    assert html.count('<table class="inputs">') == 1
    orders = page.of("model-orders")
    assert "Inputs" in orders and "shop.orders" in orders and "41 → 44" in orders
    assert "1,200 → 1,350" in orders and "150" in orders and "yes" in orders
    assert "shop.<fx>" in orders and "read as it is now <now>" in orders and "– → –" in orders
    assert "Inputs" not in page.of("model-customers")  # empty list
    assert "Inputs" not in page.of("model-events")  # no key at all (an older report)


def test_schema_changes_columns_and_samples(page):
    v2 = page.of("model-customers_v2")
    assert "region_code" in v2 and "– → string" in v2 and "string → –" in v2
    assert "decimal(10,2) → decimal(12,2)" in v2
    bars = [r for r in page.all("rect") if r.get("class") == "s-mismatched"]
    widths = sorted(float(r["width"]) for r in bars)
    assert widths[-1] == 160.0 and 0 < widths[0] < 160.0
    events = page.of("model-events")
    assert "no key: rows compared as a multiset" in events and "x3 event='click'" in events
    assert "Columns: id int" in page.of("model-big_orders")


def test_section_ids_are_safe_and_unique():
    assert section_ids(["a", "a", "x y", "<s>", "", "é.b-c"]) == [
        "model-a",
        "model-a-2",
        "model-x-y",
        "model-s",
        "model-unnamed",
        "model-é.b-c",
    ]


def test_one_self_contained_page_in_the_reports_style():
    html = render_html(report_of(SMALL))
    assert not any(tag in html for tag in ("<script", "<link", "src=", "@import"))
    style = environment("dbt_table_diff.page").get_template("page.css.j2").render()
    assert style.strip() and style.strip() in html
    empty = Page(render_html(report_of([])))
    assert "no-models" in empty.by_id and not empty.all("section")


def test_browser_shows_the_table_and_jumps_to_a_section(report, html, browser, tmp_path):
    path = tmp_path / "changes.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    assert page.locator("#verdict").inner_text() == "FAILS --fail-on schema,removed"
    assert page.locator("#models tbody tr").count() == len(report["models"])
    assert page.locator("section.model").count() == len(report["models"])
    for name in (UNICODE_NAME, HOSTILE_NAME, "legacy"):
        page.evaluate("window.scrollTo(0, 0)")
        link = page.locator("#models tbody a", has_text=name).first
        target = link.get_attribute("href")[1:]
        section = page.locator(f'section[id="{target}"]')
        assert section.count() == 1 and section.is_visible(), target
        height = page.evaluate("window.innerHeight")
        assert section.evaluate("e => e.getBoundingClientRect().top") > height  # below the fold
        link.click()
        assert page.evaluate("decodeURIComponent(location.hash.slice(1))") == target
        assert name in section.locator("h2").inner_text()
        top = section.evaluate("e => e.getBoundingClientRect().top")
        assert page.evaluate("window.scrollY") > 0 and -2 <= top < height - 100, (name, top)
    bar = page.locator("#model-payments svg.bar rect").first
    assert bar.is_visible() and bar.evaluate("e => getComputedStyle(e).fill") == "rgb(214, 69, 65)"
    badge = page.locator("#models .badge").first
    assert badge.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert errors == [], errors
    assert requests == [path.as_uri()], requests  # self-contained
    OUTPUT.mkdir(parents=True, exist_ok=True)
    shot = OUTPUT / "changes.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")
    page.close()
