"""The pair spec (docs/spec.md, dbt_table_diff.spec): one schema that every stage reads (no Spark).

Walks every macro under macros/ and every module under src/dbt_table_diff/ for the spec fields
they read, and checks each against docs/spec.md's tables and the dataclasses; then load_spec on a
realistic spec, stale versions and missing or mistyped fields.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest
import tomllib

from dbt_table_diff.spec import (
    COLUMN_FIELDS,
    HASH_SPEC_VERSION,
    KEY_FIELDS,
    LAYOUT_FIELDS,
    PIN_FIELDS,
    SPEC_FIELDS,
    SPEC_VERSION,
    QuickCheck,
    Spec,
    SpecError,
    StaleSpecError,
    Status,
    Strategy,
    UnitReason,
    load_spec,
)
from dbt_table_diff.split import UNIT_SCHEMA, block_split, plan_units

REPO_ROOT = Path(__file__).resolve().parents[2]
DOC = REPO_ROOT / "docs" / "spec.md"
SPEC_SQL = REPO_ROOT / "macros" / "internal" / "_spec.sql"

# ---------------------------------------------------------------------------------------------
# docs/spec.md


def _doc_tables() -> dict[str, set[str]]:
    """Field names of each table in docs/spec.md, by the heading above it."""
    tables: dict[str, set[str]] = {}
    heading = ""
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif heading.endswith("(separate)") and line.startswith("Merge key and column items"):
            heading = "merge items"
        m = re.match(r"^\| `([a-z_0-9]+)` \|", line)
        if m:
            tables.setdefault(heading, set()).add(m.group(1))
    return tables


DOCS = _doc_tables()
DOC_TOP = DOCS["Top-level fields"]
DOC_KEY = DOCS["`key[]` items"]
DOC_COLUMNS = DOCS["`columns[]` items"]
DOC_LAYOUT = DOCS["`layout`"]
DOC_PINS = DOCS["`pins` items"]
DOC_MERGE = DOCS["The merge spec (separate)"]
DOC_MERGE_ITEMS = DOCS["merge items"]


def test_docs_name_exactly_the_dataclass_fields():
    assert DOC_TOP == SPEC_FIELDS
    assert DOC_KEY == KEY_FIELDS
    assert DOC_COLUMNS == COLUMN_FIELDS
    assert DOC_LAYOUT == LAYOUT_FIELDS
    assert DOC_PINS == PIN_FIELDS


# ---------------------------------------------------------------------------------------------
# What the macros write


def _macro_body(text: str, name: str) -> str:
    start = text.index("{% macro " + name + "(")
    return text[start : text.index("{% endmacro %}", start)]


def _dict_keys(literal: str) -> set[str]:
    return set(re.findall(r"'([a-z_0-9]+)':", literal))


def _resolve_spec_keys() -> set[str]:
    body = _macro_body(SPEC_SQL.read_text(), "_resolve_spec")
    literal = body[
        body.index("{% set spec = {") : body.index("} %}", body.index("{% set spec = {"))
    ]
    return _dict_keys(literal)


def test_the_written_spec_has_exactly_the_documented_fields():
    ranges_sql = (REPO_ROOT / "macros" / "ranges" / "key_ranges.sql").read_text()
    update = re.search(r"\{% do spec\.update\((\{.*?\})\) %\}", ranges_sql)
    assert update, "key_ranges no longer extends the spec with spec.update({...})"
    assert _resolve_spec_keys() | _dict_keys(update.group(1)) == DOC_TOP


def test_the_written_layout_and_merge_spec_have_the_documented_fields():
    layout_sql = (REPO_ROOT / "macros" / "internal" / "_layout.sql").read_text()
    body = _macro_body(layout_sql, "_plan_layout")
    assert _dict_keys(body[body.rindex("{{ return({") :]) == DOC_LAYOUT
    merge_sql = (REPO_ROOT / "macros" / "merge" / "_merge_internal.sql").read_text()
    literal = merge_sql[merge_sql.index("{% set spec = {") :]
    assert _dict_keys(literal[: literal.index("} %}")]) == DOC_MERGE


def _jinja_number(text: str, macro: str) -> str:
    m = re.search(r"\{% macro " + macro + r"\(\) %\}\{\{ return\('?([0-9.]+)'?\) \}\}", text)
    assert m, f"{macro} not found in {SPEC_SQL}"
    return m.group(1)


def test_versions_agree_between_jinja_python_and_the_project():
    text = SPEC_SQL.read_text()
    assert int(_jinja_number(text, "_spec_version")) == SPEC_VERSION
    assert int(_jinja_number(text, "_hash_spec_version")) == HASH_SPEC_VERSION
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        version = tomllib.load(handle)["project"]["version"]
    assert _jinja_number(text, "_package_version") == version


# ---------------------------------------------------------------------------------------------
# What the stages read

_Q = r"""['"]([a-z_0-9]+)['"]"""
JINJA_READS = {
    "top": [rf"\bspec\[\s*{_Q}\s*\]", rf"\bspec\.get\(\s*{_Q}"],
    "layout": [rf"\blayout\[\s*{_Q}\s*\]", rf"\blayout\.get\(\s*{_Q}"],
    "item": [
        rf"\b(?:k|c|col|first)\[\s*{_Q}\s*\]",
        rf"\b(?:k|c|col|first)\.get\(\s*{_Q}",
        rf"\bspec\[\s*'(?:key|columns)'\s*\]\[\s*\d+\s*\]\[\s*{_Q}\s*\]",
    ],
}


def jinja_reads(text: str) -> dict[str, set[str]]:
    """Spec fields a macro file reads: spec['x'], spec.get('x'), layout['x'], k['x'], c['x']..."""
    return {
        kind: {m.group(1) for pattern in patterns for m in re.finditer(pattern, text)}
        for kind, patterns in JINJA_READS.items()
    }


def python_reads(source: str) -> dict[str, set[str]]:
    """Spec fields a module reads: spec.x, spec.layout.x, spec['x'], data.get('x'), _required()."""
    found: dict[str, set[str]] = {"top": set(), "layout": set(), "item": set()}
    where = {"spec": "top", "data": "top", "layout": "layout", "lay": "layout", "item": "item"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "spec":
                found["top"].add(node.attr)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            if node.value.attr == "layout":
                found["layout"].add(node.attr)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            kind = where.get(node.value.id)
            if kind and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                found[kind].add(node.slice.value)
        if isinstance(node, ast.Call) and node.args:
            func, first = node.func, node.args[0]
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and isinstance(func.value, ast.Name)
                and func.value.id in where
                and isinstance(first, ast.Constant)
            ):
                found[where[func.value.id]].add(first.value)
            if (
                isinstance(func, ast.Name)
                and func.id in {"_required", "_optional"}
                and isinstance(first, ast.Name)
                and first.id in where
                and isinstance(node.args[1], ast.Constant)
            ):
                found[where[first.id]].add(node.args[1].value)
    return found


SPEC_PROPERTIES = {n for n, v in vars(Spec).items() if isinstance(v, property) or callable(v)}


def undocumented(path: str, reads: dict[str, set[str]]) -> list[str]:
    """Fields read at ``path`` that docs/spec.md (and the dataclasses, for Python) do not name."""
    merge = "/merge/" in path
    allowed = {
        "top": DOC_MERGE | DOC_TOP if merge else DOC_TOP,
        "layout": DOC_LAYOUT,
        "item": (DOC_MERGE_ITEMS if merge else set()) | DOC_KEY | DOC_COLUMNS | DOC_PINS,
    }
    if path.endswith(".py"):
        allowed["top"] = (allowed["top"] & SPEC_FIELDS) | SPEC_PROPERTIES
        allowed["layout"] = allowed["layout"] & LAYOUT_FIELDS
        allowed["item"] = allowed["item"] & (KEY_FIELDS | COLUMN_FIELDS | PIN_FIELDS)
    return [
        f"{path}: {kind} field '{name}'"
        for kind, names in reads.items()
        for name in sorted(names - allowed[kind])
    ]


def _sources() -> list[tuple[str, str]]:
    files = sorted((REPO_ROOT / "macros").rglob("*.sql"))
    files += sorted((REPO_ROOT / "src" / "dbt_table_diff").rglob("*.py"))
    return [(str(p.relative_to(REPO_ROOT)), p.read_text()) for p in files]


def _reads(path: str, text: str) -> dict[str, set[str]]:
    return python_reads(text) if path.endswith(".py") else jinja_reads(text)


def test_no_stage_reads_a_field_the_schema_does_not_name():
    problems, seen = [], {"top": set(), "layout": set(), "item": set()}
    for path, text in _sources():
        reads = _reads(path, text)
        problems += undocumented(path, reads)
        for kind in seen:
            seen[kind] |= reads[kind]
    assert problems == [], "\n".join(problems)
    # The walk finds the reads it is meant to find (it would pass vacuously otherwise).
    assert {"key", "columns", "max_diff_rows", "run_id", "strategy", "split_factor"} <= seen["top"]
    assert {"depth", "leaf_count", "sample_fraction"} <= seen["layout"]
    assert {"name", "type", "source_type", "normalize", "merged_type"} <= seen["item"]


@pytest.mark.parametrize(
    ("path", "text", "field"),
    [
        ("macros/x.sql", "{{ spec['bogus'] }}", "bogus"),
        ("macros/x.sql", "{% if spec.get('bogus') %}", "bogus"),
        ("macros/x.sql", "{{ layout['bogus'] }}", "bogus"),
        ("macros/x.sql", "{% for c in spec['columns'] %}{{ c['bogus'] }}", "bogus"),
        ("macros/x.sql", "{{ spec['key'][0]['bogus'] }}", "bogus"),
        ("macros/x.sql", "{{ c['merged_type'] }}", "merged_type"),  # merge-only outside merge/
        ("src/dbt_table_diff/x.py", "spec.bogus", "bogus"),
        ("src/dbt_table_diff/x.py", "spec.layout.bogus", "bogus"),
        ("src/dbt_table_diff/x.py", "spec['bogus']", "bogus"),
        ("src/dbt_table_diff/x.py", "data.get('bogus')", "bogus"),
        ("src/dbt_table_diff/x.py", "_required(lay, 'bogus', int, w)", "bogus"),
    ],
)
def test_the_walk_reports_an_undocumented_read(path, text, field):
    problems = undocumented(path, _reads(path, text))
    assert any(p.endswith(f"'{field}'") for p in problems), problems


# ---------------------------------------------------------------------------------------------
# load_spec


def example() -> dict:
    """A spec as key_ranges stores it (the fields of _resolve_spec plus layout, run_id, ranges,
    track_layout)."""
    return {
        "spec_version": SPEC_VERSION,
        "package_version": "0.2.0",
        "hash_spec_version": HASH_SPEC_VERSION,
        "source": "spark_catalog.analytics.orders_v1",
        "target": "spark_catalog.analytics.orders_v2",
        "key": [
            {"name": "order_id", "type": "bigint", "source_type": "int", "target_type": "bigint"}
        ],
        "columns": [
            {
                "name": "amount",
                "type": "decimal(18,2)",
                "source_type": "decimal(18,2)",
                "target_type": "decimal(18,2)",
                "normalize": {"round": 2},
                "tolerance": {"abs": 0.01},
            },
            {
                "name": "status",
                "type": "string",
                "source_type": "string",
                "target_type": "string",
                "normalize": {},
                "tolerance": {},
            },
        ],
        "table_filter": "status != 'test'",
        "strategy": "range",
        "block_count": None,
        "block_size": None,
        "split_factor": 8,
        "compare_unit_size": 10000,
        "max_depth": 4,
        "max_diff_rows": 100000,
        "check_duplicate_keys": False,
        "quick_check": "auto",
        "keys_only": False,
        "pins": {
            "source": {"format": "parquet", "version": None, "timestamp": None, "explicit": False},
            "target": {"format": "delta", "version": 12, "timestamp": None, "explicit": False},
        },
        "layout": {
            "estimated_rows": 2500000,
            "block_count": 64,
            "depth": 2,
            "leaf_count": 4096,
            "leaves_per_block": 64,
            "sample_fraction": 0.052429,
            "compare_unit_size": 10000,
        },
        "run_id": "3f1c9a52-0b7e-4d0e-9a55-1c2b3d4e5f60",
        "ranges": "spark_catalog.analytics.orders__ranges",
        "track": False,
        "track_layout": None,
        "column_map": {"id": "order_id"},
        "projections": {"target": [["id", "order_id"], ["amount", "amount"], ["status", "status"]]},
        "replicas": None,
        "replica": None,
        "quick_check_planned": False,
        "quick_check_decided": False,
        "leaves_of": None,
        "leaves_kept": False,
        "databases": {},
    }


def test_the_example_has_the_fields_the_macros_write():
    assert set(example()) == DOC_TOP
    assert set(example()["layout"]) == DOC_LAYOUT


def test_load_spec_round_trip():
    data = example()
    spec = load_spec(json.dumps(data), "orders__ranges")
    assert spec.strategy is Strategy.RANGE
    assert spec.quick_check is QuickCheck.AUTO
    assert spec.key[0].type == "bigint"
    assert spec.columns[0].normalize == {"round": 2}
    assert spec.layout.depth == 2
    assert spec.block_count is None
    assert spec.label == "spark_catalog.analytics.orders_v1 vs spark_catalog.analytics.orders_v2"
    assert spec.to_dict() == data
    assert load_spec(spec.to_dict(), "orders__ranges") == spec
    with pytest.raises(AttributeError):
        spec.max_diff_rows = 1  # frozen


@pytest.mark.parametrize(("stored", "loaded"), [(True, QuickCheck.TRUE), (False, QuickCheck.FALSE)])
def test_quick_check_booleans_round_trip(stored, loaded):
    data = {**example(), "quick_check": stored, "strategy": "hash"}
    spec = load_spec(data)
    assert spec.quick_check is loaded and spec.strategy is Strategy.HASH
    assert spec.to_dict()["quick_check"] is stored


@pytest.mark.parametrize(
    ("change", "built"),
    [
        ({"spec_version": SPEC_VERSION + 1, "package_version": "9.0.0"}, "version 9.0.0"),
        ({"hash_spec_version": HASH_SPEC_VERSION + 1, "package_version": "0.2.0"}, "version 0.2.0"),
        ({"spec_version": None, "package_version": None}, "an earlier version"),
    ],
)
def test_a_stale_spec_asks_for_a_rebuild(change, built):
    data = {k: v for k, v in {**example(), **change}.items() if v is not None}
    with pytest.raises(StaleSpecError) as err:
        load_spec(json.dumps(data), "analytics.orders__ranges")
    message = str(err.value)
    assert message.startswith(
        f"table_diff.block_split: rebuild analytics.orders__ranges: it was built by {built} "
        "of the package (spec v"
    )
    assert f"this version reads spec v{SPEC_VERSION}" in message
    assert message.endswith("dbt build --select analytics.orders__ranges+")


def test_a_stale_spec_without_a_label_names_its_own_ranges():
    with pytest.raises(StaleSpecError, match=r"rebuild spark_catalog\.analytics\.orders__ranges:"):
        load_spec({**example(), "spec_version": 0})


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("max_diff_rows",), ..., "no field 'max_diff_rows'"),
        (("run_id",), ..., "no field 'run_id'"),
        (("table_filter",), ..., "no field 'table_filter'"),
        (("layout", "depth"), ..., "no field 'depth'"),
        (("key", 0, "type"), ..., "no field 'type'"),
        (("columns", 1, "normalize"), ..., "no field 'normalize'"),
        (("split_factor",), "8", "'split_factor' is '8'"),
        (("max_depth",), True, "'max_depth' is True"),
        (("keys_only",), None, "'keys_only' is None"),
        (("key",), [], "'key' is empty"),
        (("strategy",), "random", "'random' is not a valid Strategy"),
        (("quick_check",), "sometimes", "'sometimes' is not a valid QuickCheck"),
    ],
)
def test_a_missing_or_mistyped_field_fails(path, value, message):
    data = copy.deepcopy(example())
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    if value is ...:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    with pytest.raises(SpecError, match=re.escape(message)) as err:
        load_spec(data, "orders__ranges")
    assert not isinstance(err.value, StaleSpecError)
    assert isinstance(err.value, ValueError)


def test_summary_statuses_are_the_enum():
    sql = (REPO_ROOT / "macros" / "diff" / "diff_summary.sql").read_text()
    case = sql[sql.index("    case\n") : sql.index("end as status")]
    found = {a or b for a, b in re.findall(r"then '([a-z_]+)'|else '([a-z_]+)'", case)}
    assert found == {s.value for s in Status}


def test_unit_reasons_are_the_enum():
    row = {"n_keys": 1, "h1_hi": 1, "h1_lo": 1, "h2_hi": 1, "h2_lo": 1}
    leaves = [
        {**row, "side": "source", "leaf_id": 0, "n_rows": 1},
        {**row, "side": "target", "leaf_id": 0, "n_rows": 2},
        {**row, "side": "source", "leaf_id": 1, "n_rows": 2},
        {**row, "side": "target", "leaf_id": 1, "n_rows": 2, "h1_hi": 2},
    ]
    units = plan_units(leaves, split_factor=2, depth=0, compare_unit_size=10, log=lambda _: None)
    assert [u.reason for u in units] == [
        UnitReason.MISMATCH_AND_DUPLICATE_KEYS.value,
        UnitReason.MISMATCH_AND_DUPLICATE_KEYS.value,
    ]


# ---------------------------------------------------------------------------------------------
# block_split reads the spec through load_spec (fake DataFrames: no Spark)


class _Frame:
    def __init__(self, rows):
        self.rows = rows

    def select(self, *_):
        return self

    def limit(self, _):
        return self

    def collect(self):
        return self.rows


class _Row(dict):
    def asDict(self):  # noqa: N802 - pyspark's Row API
        return dict(self)


class _Session:
    def createDataFrame(self, rows, schema):  # noqa: N802 - pyspark's API
        return rows, schema


def _hashes(run_id, target_rows=2):
    sig = {"n_keys": 1, "h1_hi": 1, "h1_lo": 1, "h2_hi": 1, "h2_lo": 1, "run_id": run_id}
    return _Frame(
        [
            _Row(sig, side="source", leaf_id=5, n_rows=1),
            _Row(sig, side="target", leaf_id=5, n_rows=target_rows, n_keys=target_rows),
        ]
    )


def test_block_split_uses_the_loaded_spec():
    data = example()
    rows, schema = block_split(
        _Session(), _Frame([(json.dumps(data),)]), _hashes(data["run_id"]), log=lambda _: None
    )
    assert schema == UNIT_SCHEMA
    # Depth 2, split factor 8: leaf 5 is in level-0 block 0 (leaves 0-63), small enough to stop
    # there: one unit, selected, stamped with the pair's run.
    assert [(r[1], r[4], r[5], r[8], r[9], r[10]) for r in rows] == [
        (0, 0, 63, "mismatch", True, data["run_id"])
    ]


def test_block_split_refuses_a_stale_ranges_table():
    data = {**example(), "spec_version": SPEC_VERSION - 1}
    with pytest.raises(StaleSpecError, match="rebuild spark_catalog.analytics.orders__ranges"):
        block_split(_Session(), _Frame([(json.dumps(data),)]), _hashes(data["run_id"]))


def test_a_spec_written_before_the_track_reads_as_untracked():
    data = example()
    del data["track"], data["track_layout"]
    spec = load_spec(json.dumps(data), "orders__ranges")
    assert spec.track is False and spec.track_layout is None
    tracked = {**example(), "track": True, "track_layout": {"id": "abc:run", "replanned": None}}
    assert load_spec(json.dumps(tracked)).track_layout == {"id": "abc:run", "replanned": None}
