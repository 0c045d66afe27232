"""The documentation holds together: every public macro and generic test has its section in
docs/macros.md, every relative link of README.md and docs/*.md resolves (file and anchor), the
README stays a ten-minute read, and the commands it names exist (make targets, `table-diff`
subcommands). No Spark is started.

Each check is a function returning its problems, so that the tests at the bottom can show it fails
on a synthetic bad input.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
README_MAX_BYTES = 12_800  # 12.5 KB

# Adapter implementations (`spark__x`, `default__x`) are reached through `x`: not separate entries.
_ADAPTER_IMPLEMENTATION = re.compile(r"^[a-z]+__")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`+[^`\n]*`+")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _prose(markdown: str) -> str:
    """The text outside fenced code blocks and inline code spans."""
    return _INLINE_CODE.sub("", _FENCE.sub("", markdown))


def headings(markdown: str) -> list[str]:
    """Heading texts, backticks dropped, in document order (fenced code ignored)."""
    return [h.replace("`", "").strip() for h in _HEADING.findall(_FENCE.sub("", markdown))]


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(markdown):
        base = github_anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


# --------------------------------------------------------------------------------------------------
# (a) every public macro and generic test in docs/macros.md
# --------------------------------------------------------------------------------------------------


def public_macro_names(root: Path) -> set[str]:
    """Public macros and generic tests declared in macros/**/_*__macros.yml, and the generic tests
    defined in tests/generic/, by the name a schema file uses (`no_drift`, not `test_no_drift`)."""
    names = set()
    for path in (root / "macros").rglob("_*__macros.yml"):
        for entry in (yaml.safe_load(path.read_text()) or {}).get("macros") or []:
            name = entry["name"]
            if name.startswith("_") or _ADAPTER_IMPLEMENTATION.match(name):
                continue
            names.add(name.removeprefix("test_"))
    for path in (root / "tests" / "generic").glob("*.sql"):
        names.update(re.findall(r"\{%-?\s*test\s+(\w+)\s*\(", path.read_text()))
    return names


def undocumented_macros(names: set[str], macros_md: str) -> list[str]:
    documented = set(headings(macros_md))
    return sorted(names - documented)


# --------------------------------------------------------------------------------------------------
# (b) relative links resolve
# --------------------------------------------------------------------------------------------------


def broken_links(path: Path, root: Path) -> list[str]:
    """Relative links of one markdown file whose file, or anchor in a markdown file, is missing."""
    problems = []
    text = path.read_text()
    for target in _LINK.findall(_prose(text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}: link {target!r}"
        if not resolved.exists():
            problems.append(f"{where}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text()):
            problems.append(f"{where}: no heading with anchor #{anchor}")
    return problems


def markdown_files(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


# --------------------------------------------------------------------------------------------------
# (d) the README's commands exist
# --------------------------------------------------------------------------------------------------


def make_targets(makefile: str) -> set[str]:
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", makefile, re.MULTILINE))


def readme_make_targets(readme: str) -> set[str]:
    return set(re.findall(r"\bmake ([a-z][a-z0-9_-]*)\b", readme))


def readme_cli_commands(readme: str) -> set[tuple[str, ...]]:
    """`table-diff` invocations as their leading lower-case words (`scaffold pair orders`)."""
    return {tuple(m.split()) for m in re.findall(r"\btable-diff((?: [a-z]+\b(?![_\-(]))+)", readme)}


def rejected_cli_commands(commands: set[tuple[str, ...]]) -> list[str]:
    """Commands the CLI's parser does not accept with `--help` (exit code other than 0)."""
    from dbt_table_diff import cli

    problems = []
    for words in sorted(commands):
        try:
            cli.main([*words, "--help"])
            code = 0
        except SystemExit as exc:
            code = exc.code
        if code != 0:
            problems.append(f"table-diff {' '.join(words)}: exit {code}")
    return problems


# --------------------------------------------------------------------------------------------------
# The repository
# --------------------------------------------------------------------------------------------------


def test_every_public_macro_and_generic_test_has_a_section_in_docs_macros():
    names = public_macro_names(REPO_ROOT)
    # The checker sees what it should: the pair, merge and drift macros and the four tests.
    assert {"key_ranges", "merge_candidates", "no_drift", "no_merge_conflicts"} <= names
    assert not any(n.startswith(("_", "spark__", "test_")) for n in names)
    missing = undocumented_macros(names, (DOCS / "macros.md").read_text())
    assert missing == [], f"add a heading for each to docs/macros.md: {missing}"


def test_relative_links_of_readme_and_docs_resolve():
    files = markdown_files(REPO_ROOT)
    assert {p.name for p in files} >= {
        "README.md",
        "how-it-works.md",
        "macros.md",
        "performance.md",
        "engines.md",
        "semantics.md",
    }
    problems = [p for path in files for p in broken_links(path, REPO_ROOT)]
    assert problems == [], "\n".join(problems)


def test_readme_is_a_ten_minute_read():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail to docs/"


def test_readme_make_targets_exist():
    named = readme_make_targets(README.read_text())
    assert {"demo", "test"} <= named
    missing = named - make_targets((REPO_ROOT / "Makefile").read_text())
    assert missing == set(), f"README names make targets the Makefile lacks: {missing}"


def test_readme_table_diff_commands_are_accepted(capsys):
    commands = readme_cli_commands(README.read_text())
    assert {c[:2] for c in commands} >= {("scaffold", "pair"), ("scaffold", "merge")}
    assert rejected_cli_commands(commands) == []


# --------------------------------------------------------------------------------------------------
# The checks fail where they should
# --------------------------------------------------------------------------------------------------


def test_undocumented_macro_is_reported():
    doc = "# Macros\n\n### key_ranges\n\n```\n### row_diff\n```\n"
    assert undocumented_macros({"key_ranges", "row_diff"}, doc) == ["row_diff"]


def test_public_macro_names_skip_internal_and_adapter_macros(tmp_path: Path):
    (tmp_path / "macros" / "a").mkdir(parents=True)
    (tmp_path / "tests" / "generic").mkdir(parents=True)
    (tmp_path / "macros" / "a" / "_a__macros.yml").write_text(
        "version: 2\nmacros:\n  - name: good\n  - name: _private\n  - name: spark__good\n"
        "  - name: test_in_yml\n"
    )
    (tmp_path / "tests" / "generic" / "test_x.sql").write_text(
        "{% test only_in_sql(model) %}select 1{% endtest %}\n"
    )
    assert public_macro_names(tmp_path) == {"good", "in_yml", "only_in_sql"}


def test_broken_links_are_reported(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n## The `no_drift` test\n")
    (tmp_path / "README.md").write_text(
        "# R\n\n## Options\n\n[ok](docs/a.md#the-no_drift-test) [ok](#options) "
        "[web](https://example.com/x) `[code](missing.md)`\n"
        "[gone](docs/b.md) [bad anchor](docs/a.md#nope) [self](#nothing)\n"
    )
    problems = broken_links(tmp_path / "README.md", tmp_path)
    assert len(problems) == 3, problems
    assert "docs/b.md" in problems[0] and "#nope" in problems[1] and "#nothing" in problems[2]


def test_github_anchors():
    assert github_anchor("`no_drift` in `dbt test`".replace("`", "")) == "no_drift-in-dbt-test"
    assert github_anchor("Why: passes per case") == "why-passes-per-case"
    assert anchors("# A\n## A\n") == {"a", "a-1"}


def test_missing_make_target_and_unknown_subcommand_are_reported(capsys):
    readme = (
        "Run `make demo`, `make nothing` and `table-diff scaffold pear x` or `table-diff nope`."
    )
    assert readme_make_targets(readme) - make_targets("demo: venv\nX := 1\n") == {"nothing"}
    commands = readme_cli_commands(readme)
    assert commands == {("scaffold", "pear", "x"), ("nope",)}
    assert len(rejected_cli_commands(commands)) == 2
