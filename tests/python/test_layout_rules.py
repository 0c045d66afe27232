"""The layout of macros/ holds (ADR 0013), checked statically: no dbt, no Spark.

- A stage folder (blocks, diff, drift, ranges, merge, ...) calls no `_`-prefixed macro defined in
  another stage folder: what two stages share lives in `internal/` or `dialect/`.
- `internal/` calls no macro defined in a stage folder (it is below them).
- `dialect/` (the Spark-specific building blocks an adapter overrides) calls no macro of a stage
  folder, and its own `_` helpers are called from `dialect/` only: the rest of the package reaches
  the dialect through its dispatched macros.
- No file under macros/ or src/ is longer than MAX_LINES.

Each rule is a function returning its problems, so that the tests at the bottom can show it fails
on a synthetic bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 400
SHARED_FOLDERS = frozenset({"internal", "dialect", "utils"})

_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_MACRO = re.compile(
    r"\{%-?\s*macro\s+(?P<name>[A-Za-z_]\w*)\s*\(.*?-?%\}(?P<body>.*?)\{%-?\s*endmacro\s*-?%\}",
    re.DOTALL,
)
# `table_diff.name(` or a bare `name(` (not an attribute such as `adapter.name(`).
_CALL = re.compile(r"(?:\btable_diff\.|(?<![\w.]))(?P<name>[A-Za-z_]\w*)\s*\(")
_DISPATCH = re.compile(r"adapter\.dispatch\(\s*['\"](?P<name>\w+)['\"]")


@dataclass(frozen=True)
class Macro:
    name: str
    folder: str  # first directory under macros/ ('' for a file directly in macros/)
    path: str
    calls: frozenset[str]


def parse_macros(files: dict[str, str]) -> list[Macro]:
    """Macros of `{path relative to macros/: text}`, each with the macro names its body calls."""
    macros = []
    for path, text in sorted(files.items()):
        folder = path.split("/", 1)[0] if "/" in path else ""
        for m in _MACRO.finditer(_COMMENT.sub("", text)):
            body = m["body"]
            calls = {c["name"] for c in _CALL.finditer(body)} | {
                d["name"] for d in _DISPATCH.finditer(body)
            }
            macros.append(Macro(m["name"], folder, path, frozenset(calls)))
    return macros


def layout_problems(macros: list[Macro]) -> list[str]:
    """Calls across folders that ADR 0013 rules out."""
    home: dict[str, str] = {}
    for macro in macros:
        home.setdefault(macro.name, macro.folder)
    problems = []
    for macro in macros:
        for name in sorted(macro.calls):
            callee = home.get(name)
            if callee is None or callee == macro.folder:
                continue
            where = f"macros/{macro.path}: {macro.name} ({macro.folder}/) calls {name} ({callee}/)"
            is_stage = callee not in SHARED_FOLDERS
            if is_stage and macro.folder in ("internal", "dialect"):
                problems.append(f"{where}: {macro.folder}/ must not call into a stage folder")
            elif is_stage and name.startswith("_"):
                problems.append(f"{where}: a stage's private macro; move it to internal/")
            elif callee == "dialect" and name.startswith("_"):
                problems.append(f"{where}: a private dialect helper; call the dispatched macro")
    return problems


def long_files(root: Path, folders: tuple[str, ...] = ("macros", "src")) -> list[str]:
    problems = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in (".sql", ".py", ".yml"):
                n = len(path.read_text(encoding="utf-8").splitlines())
                if n > MAX_LINES:
                    problems.append(f"{path.relative_to(root)}: {n} lines (at most {MAX_LINES})")
    return problems


def package_macro_files(root: Path = REPO_ROOT) -> dict[str, str]:
    base = root / "macros"
    return {
        p.relative_to(base).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(base.rglob("*.sql"))
    }


# --------------------------------------------------------------------------------------------------
# The package
# --------------------------------------------------------------------------------------------------


def test_the_parser_sees_the_package():
    macros = parse_macros(package_macro_files())
    by_name = {m.name: m for m in macros}
    assert by_name["row_diff"].folder == "diff"
    assert "row_diff" in by_name["row_diff"].calls  # through adapter.dispatch
    assert "_read_ranges" in by_name["spark__block_hashes"].calls  # its spec, leaf count, clock


def test_no_macro_calls_across_the_layout():
    assert layout_problems(parse_macros(package_macro_files())) == []


def test_no_file_is_too_long():
    assert long_files(REPO_ROOT) == []


# --------------------------------------------------------------------------------------------------
# The rules fail on bad input
# --------------------------------------------------------------------------------------------------

_DEF = "{{% macro {name}() %}}{body}{{% endmacro %}}\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a stage calls another stage's private macro
            {
                "diff/a.sql": _DEF.format(name="_helper", body=""),
                "drift/b.sql": _DEF.format(name="drift_x", body="{{ table_diff._helper() }}"),
            },
            "a stage's private macro",
        ),
        (  # internal calls up into a stage (bare call, no namespace)
            {
                "diff/a.sql": _DEF.format(name="_vars", body=""),
                "internal/b.sql": _DEF.format(name="_spec", body="{% do _vars() %}"),
            },
            "internal/ must not call into a stage folder",
        ),
        (  # internal calls a stage's public macro
            {
                "hashing/a.sql": _DEF.format(name="fingerprint", body=""),
                "internal/b.sql": _DEF.format(name="_sigs", body="{{ table_diff.fingerprint() }}"),
            },
            "internal/ must not call into a stage folder",
        ),
        (  # a stage reaches a private dialect helper instead of the dispatched macro
            {
                "dialect/a.sql": _DEF.format(name="_explain", body=""),
                "ranges/b.sql": _DEF.format(name="ranges_x", body="{{ table_diff._explain() }}"),
            },
            "a private dialect helper",
        ),
    ],
)
def test_layout_problems_are_found(files, expected):
    problems = layout_problems(parse_macros(files))
    assert len(problems) == 1 and expected in problems[0], problems


def test_allowed_calls_pass():
    files = {
        "internal/a.sql": _DEF.format(name="_shared", body="{{ table_diff.hash_bucket() }}"),
        "dialect/b.sql": _DEF.format(name="hash_bucket", body="{{ table_diff._shared() }}"),
        "diff/c.sql": _DEF.format(name="_own", body="{{ table_diff._shared() }}"),
        "drift/d.sql": _DEF.format(
            name="drift_x", body="{{ table_diff.hash_bucket() }}{# table_diff._own() #}"
        ),
    }
    assert layout_problems(parse_macros(files)) == []


def test_long_files_are_found(tmp_path: Path):
    (tmp_path / "macros" / "area").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "macros" / "area" / "x.sql").write_text("select 1\n" * (MAX_LINES + 1))
    (tmp_path / "src" / "ok.py").write_text("x = 1\n" * MAX_LINES)
    assert long_files(tmp_path) == [f"macros/area/x.sql: {MAX_LINES + 1} lines (at most 400)"]
