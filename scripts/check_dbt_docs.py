#!/usr/bin/env python3
"""Offline documentation checks for the table_diff dbt package.

The equivalent of dbt-checkpoint's ``check-macro-has-description``,
``check-macro-arguments-have-desc`` and ``check-model-has-description``, without a manifest, a
warehouse or the dbt-checkpoint package (which is not on the package registry available here). It
reads the source files directly:

* every public macro (name not starting with ``_``, not an adapter implementation such as
  ``spark__x`` or ``default__x``) defined under ``macros/`` has a ``macros:`` yml entry with a
  description, and each of its arguments is documented with a description; arguments documented but
  absent from the signature are reported too (stale docs);
* every generic test (``{% test name(...) %}`` in ``tests/generic/`` or ``macros/``) likewise, under
  the name dbt gives it in the manifest, ``test_<name>``; its ``model`` and ``column_name``
  arguments are supplied by dbt and need no description;
* every model (``.sql`` / ``.py``) under a project's model-paths has a ``models:`` yml entry with a
  description, for the package itself and for ``integration_tests/``.

Usage: ``python scripts/check_dbt_docs.py [repo_root]``; exits 1 and lists the problems.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# Adapter prefixes of dispatched implementations (``<adapter>__<macro>``).
ADAPTER_PREFIXES = frozenset(
    {
        "default",
        "spark",
        "databricks",
        "postgres",
        "redshift",
        "snowflake",
        "bigquery",
        "duckdb",
        "trino",
        "athena",
        "fabric",
        "sqlserver",
        "synapse",
    }
)
# Arguments dbt passes to every generic test.
IMPLICIT_TEST_ARGUMENTS = frozenset({"model", "column_name"})
SKIP_DIRS = frozenset({"dbt_packages", "target", "logs", ".venv", ".spark", "node_modules"})

_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_BLOCK = re.compile(
    r"\{%-?\s*(?P<kind>macro|test)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*"
    r"\((?P<args>.*?)\)\s*-?%\}",
    re.DOTALL,
)


@dataclass(frozen=True)
class MacroDef:
    """A ``{% macro %}`` or ``{% test %}`` block found in a file."""

    kind: str  # "macro" | "test"
    name: str
    arguments: tuple[str, ...]
    path: Path

    @property
    def doc_name(self) -> str:
        """The name of the block in dbt's manifest (and so in yml)."""
        return f"test_{self.name}" if self.kind == "test" else self.name


def split_arguments(signature: str) -> tuple[str, ...]:
    """Argument names of a Jinja signature: ``a, b=none, c=['x', 'y']`` -> ``(a, b, c)``."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current: list[str] = []
    for char in signature:
        if quote:
            current.append(char)
            if char == quote:
                quote = None
            continue
        if char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    names = (part.split("=", 1)[0].strip() for part in parts)
    return tuple(name for name in names if name)


def find_blocks(paths: Iterable[Path]) -> list[MacroDef]:
    """Every macro and test block in the given ``.sql`` files (Jinja comments ignored)."""
    found = []
    for path in paths:
        text = _COMMENT.sub("", path.read_text(encoding="utf-8"))
        for match in _BLOCK.finditer(text):
            found.append(
                MacroDef(
                    kind=match["kind"],
                    name=match["name"],
                    arguments=split_arguments(match["args"]),
                    path=path,
                )
            )
    return found


def is_public(block: MacroDef, all_names: set[str]) -> bool:
    """Public = documented: not ``_private`` and not an adapter implementation of another macro."""
    if block.name.startswith("_"):
        return False
    prefix, sep, rest = block.name.partition("__")
    if sep and rest and (prefix in ADAPTER_PREFIXES or rest in all_names):
        return False
    return True


def _walk(root: Path, subdirs: Iterable[str], suffixes: tuple[str, ...]) -> Iterator[Path]:
    for subdir in subdirs:
        base = root / subdir
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            rel_parts = path.relative_to(root).parts
            if path.is_file() and path.suffix in suffixes and not SKIP_DIRS.intersection(rel_parts):
                yield path


def _load_yaml_entries(paths: Iterable[Path], key: str) -> dict[str, tuple[dict[str, Any], Path]]:
    entries: dict[str, tuple[dict[str, Any], Path]] = {}
    for path in paths:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise SystemExit(f"{path}: invalid YAML: {exc}") from exc
        listed = data.get(key) if isinstance(data, dict) else None
        for entry in listed or []:
            if isinstance(entry, dict) and entry.get("name"):
                entries[str(entry["name"])] = (entry, path)
    return entries


def _has_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def check_macros(
    root: Path, macro_dirs: Iterable[str] = ("macros",), test_dirs: Iterable[str] = ("tests",)
) -> list[str]:
    """Problems with macro / generic-test documentation under ``root``."""
    macro_dirs, test_dirs = tuple(macro_dirs), tuple(test_dirs)
    sql_files = list(_walk(root, macro_dirs, (".sql",)))
    blocks = find_blocks(sql_files)  # macros, and generic tests defined among them
    # Generic tests live in tests/generic/ (or anywhere under macros/); singular tests have none.
    test_files = [p for p in _walk(root, test_dirs, (".sql",)) if "generic" in p.parts]
    blocks += [b for b in find_blocks(test_files) if b.kind == "test"]
    docs = _load_yaml_entries(_walk(root, macro_dirs + test_dirs, (".yml", ".yaml")), "macros")
    all_names = {b.name for b in blocks}

    problems = []
    for block in sorted(blocks, key=lambda b: (str(b.path), b.name)):
        if not is_public(block, all_names):
            continue
        where = f"{block.path.relative_to(root)}: {block.kind} '{block.doc_name}'"
        entry, _ = docs.get(block.doc_name, (None, None))
        if entry is None:
            problems.append(f"{where} has no yml entry under `macros:` (description, arguments)")
            continue
        if not _has_text(entry.get("description")):
            problems.append(f"{where} has no description")
        documented = {}
        for argument in entry.get("arguments") or []:
            if isinstance(argument, dict) and argument.get("name"):
                documented[str(argument["name"])] = argument
        implicit = IMPLICIT_TEST_ARGUMENTS if block.kind == "test" else frozenset()
        for name in block.arguments:
            if name in implicit:
                continue
            if name not in documented:
                problems.append(f"{where}: argument '{name}' is not documented")
            elif not _has_text(documented[name].get("description")):
                problems.append(f"{where}: argument '{name}' has no description")
        for name in documented:
            if name not in block.arguments:
                problems.append(f"{where}: documents argument '{name}' missing from the signature")
    return problems


def _model_paths(project_dir: Path) -> list[str]:
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    return list(config.get("model-paths") or ["models"])


def check_models(root: Path, project_dirs: Iterable[str] = (".", "integration_tests")) -> list[str]:
    """Problems with model descriptions in each dbt project (relative dirs of ``root``)."""
    problems = []
    for project in project_dirs:
        project_dir = (root / project).resolve()
        if not (project_dir / "dbt_project.yml").is_file():
            continue
        paths = _model_paths(project_dir)
        docs = _load_yaml_entries(_walk(project_dir, paths, (".yml", ".yaml")), "models")
        for model in _walk(project_dir, paths, (".sql", ".py")):
            if model.name.startswith("_") or model.name == "__init__.py":
                continue
            where = f"{model.resolve().relative_to(root.resolve())}: model '{model.stem}'"
            entry, _ = docs.get(model.stem, (None, None))
            if entry is None:
                problems.append(f"{where} has no yml entry under `models:`")
            elif not _has_text(entry.get("description")):
                problems.append(f"{where} has no description")
    return problems


def check_all(root: Path) -> list[str]:
    return check_macros(root) + check_models(root)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else Path(__file__).resolve().parents[1])
    problems = check_all(root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} documentation problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
