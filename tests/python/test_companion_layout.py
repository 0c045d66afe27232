"""The layout of the Python companion (src/dbt_table_diff), checked statically: no dbt, no Spark.

- Imports go down: every module belongs to one of LAYERS, and imports only modules of its own
  concept (subpackage) or of a lower layer. Inside a concept the imports form no cycle, imports
  inside functions included: a function-level import does not hide a cycle.
- A function-level import of the package's own modules is one of LAZY_OWN_IMPORTS, each with why.
- No module uses a `_`-prefixed name of another module (`from x import _y`, `x._y`): what two
  modules share is public in one of them. A `_` module is imported only from its own package.
- Nothing test-only ships in the wheel: no module of src/ imports a module of tests/python or
  bench/ (the Spark confs of tests and bench live in tests/python/lakehouse.py).

Each rule is a function returning its problems, so that the tests at the bottom can show it fails
on a synthetic bad input.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SRC = REPO_ROOT / "src"
PACKAGE = "dbt_table_diff"

# Top first. A module's concept is the longest of these names it is or starts with ("x."), the
# package's own __init__ only being "dbt_table_diff".
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dbt_table_diff",),  # dbt's plugin entry (`plugins`) and the version
    ("dbt_table_diff.cli",),  # the command line: scaffold, demo, report, preview, changes
    (
        "dbt_table_diff.scaffold",
        "dbt_table_diff.report",
        "dbt_table_diff.changes",
        "dbt_table_diff.plugin",
    ),
    (
        "dbt_table_diff.split",
        "dbt_table_diff.session_submission",
        "dbt_table_diff.merge_classify",
        "dbt_table_diff.page",  # the layout and style report.html and changes.html share
    ),
    ("dbt_table_diff.spec", "dbt_table_diff._version"),
)

# (importer, imported) -> why the import waits for the call.
LAZY_OWN_IMPORTS = {
    ("dbt_table_diff.plugin", "dbt_table_diff.session_submission"): (
        "only with dbt-spark installed: dbt imports the package on every invocation"
    ),
}


@dataclass(frozen=True)
class Import:
    module: str  # the imported module of the package
    names: tuple[str, ...]  # names taken from it (`from m import a, b`), none for `import m`
    lazy: bool  # inside a function
    line: int


@dataclass
class Module:
    name: str
    path: str
    imports: list[Import]
    foreign: set[str]  # top-level names of modules outside the package
    private_uses: list[tuple[int, str, str]]  # (line, module, `_name`) through a module alias


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def parse_package(files: dict[str, str]) -> dict[str, Module]:
    """Modules of `{path relative to src/: text}` with their imports of the package's modules."""
    names = {_module_name(p) for p in files}
    modules = {}
    for path, text in sorted(files.items()):
        me = _module_name(path)
        package = me if path.endswith("__init__.py") else me.rpartition(".")[0]
        tree = ast.parse(text)
        lazy_nodes = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in ast.walk(f)
        }
        imports, foreign, aliases = [], set(), {}
        for node in ast.walk(tree):
            lazy = id(node) in lazy_nodes
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == PACKAGE:
                        imports.append(Import(a.name, (), lazy, node.lineno))
                        if a.asname:
                            aliases[a.asname] = a.name
                    else:
                        foreign.add(a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                if base.split(".")[0] != PACKAGE:
                    foreign.add(base.split(".")[0])
                    continue
                taken = []
                for a in node.names:
                    if f"{base}.{a.name}" in names:  # a submodule
                        imports.append(Import(f"{base}.{a.name}", (), lazy, node.lineno))
                        aliases[a.asname or a.name] = f"{base}.{a.name}"
                    else:
                        taken.append(a.name)
                if taken:
                    imports.append(Import(base, tuple(taken), lazy, node.lineno))
        uses = [
            (n.lineno, aliases[n.value.id], n.attr)
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id in aliases
            and _is_private(n.attr)
        ]
        modules[me] = Module(me, path, imports, foreign, uses)
    return modules


def concept_of(module: str) -> str | None:
    found = None
    for layer in LAYERS:
        for concept in layer:
            inside = module == concept or (concept != PACKAGE and module.startswith(concept + "."))
            if inside and (found is None or len(concept) > len(found)):
                found = concept
    return found


def layer_of(concept: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if concept in layer)


def import_problems(modules: dict[str, Module]) -> list[str]:
    """Modules in no layer, imports that go up or sideways, and cycles inside a concept."""
    problems = []
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for m in modules.values():
        mine = concept_of(m.name)
        if mine is None:
            problems.append(f"{m.path}: {m.name} belongs to no layer; add it to LAYERS")
            continue
        for imp in m.imports:
            theirs = concept_of(imp.module)
            if theirs == mine:
                edges[m.name].add(imp.module)
            elif theirs is not None and layer_of(theirs) <= layer_of(mine):
                problems.append(
                    f"{m.path}:{imp.line}: {m.name} imports {imp.module}, which is not below it"
                )
    problems += [f"import cycle: {' -> '.join(c)}" for c in _cycles(edges)]
    return problems


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    cycles, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return cycles


def lazy_import_problems(modules: dict[str, Module]) -> list[str]:
    return [
        f"{m.path}:{imp.line}: {m.name} imports {imp.module} inside a function; import it at the "
        "top, or add it to LAZY_OWN_IMPORTS with the reason"
        for m in modules.values()
        for imp in m.imports
        if imp.lazy and (m.name, imp.module) not in LAZY_OWN_IMPORTS
    ]


def private_name_problems(modules: dict[str, Module]) -> list[str]:
    problems = []
    for m in modules.values():
        package = m.name if m.path.endswith("__init__.py") else m.name.rpartition(".")[0]
        for imp in m.imports:
            for name in imp.names:
                if _is_private(name):
                    problems.append(f"{m.path}:{imp.line}: {name} is private to {imp.module}")
            owner, _, last = imp.module.rpartition(".")
            if _is_private(last) and owner != package:
                problems.append(f"{m.path}:{imp.line}: {imp.module} is private to {owner}")
        for line, module, name in m.private_uses:
            problems.append(f"{m.path}:{line}: {name} is private to {module}")
    return problems


def shipped_test_code_problems(modules: dict[str, Module], bench_and_tests: set[str]) -> list[str]:
    return [
        f"{m.path}: imports {name}, a module of tests/python or bench/"
        for m in modules.values()
        for name in sorted(m.foreign & bench_and_tests)
    ]


def package_files(src: Path = SRC) -> dict[str, str]:
    return {
        p.relative_to(src).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((src / PACKAGE).rglob("*.py"))
    }


def bench_and_test_modules(root: Path = REPO_ROOT) -> set[str]:
    return {p.stem for d in ("tests/python", "bench") for p in (root / d).glob("*.py")}


# --------------------------------------------------------------------------------------------------
# The package
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def package() -> dict[str, Module]:
    return parse_package(package_files())


def test_the_parser_sees_the_package(package):
    assert {"dbt_table_diff", "dbt_table_diff.cli", "dbt_table_diff.scaffold.pair"} <= set(package)
    pair = package["dbt_table_diff.scaffold.pair"]
    assert "dbt_table_diff.scaffold.replicas" in {i.module for i in pair.imports}
    plugin = package["dbt_table_diff.plugin"]
    assert [i.module for i in plugin.imports if i.lazy] == ["dbt_table_diff.session_submission"]


def test_imports_go_down(package):
    assert import_problems(package) == []


def test_function_level_imports_of_the_package_are_listed_with_a_reason(package):
    assert lazy_import_problems(package) == []


def test_no_module_uses_another_modules_private_names(package):
    assert private_name_problems(package) == []


def test_nothing_test_only_in_the_wheel(package):
    assert "lakehouse" in bench_and_test_modules() and "conftest" in bench_and_test_modules()
    assert shipped_test_code_problems(package, bench_and_test_modules()) == []
    assert not any(name.rpartition(".")[2] == "lakehouse" for name in package)


# --------------------------------------------------------------------------------------------------
# The rules, on synthetic packages
# --------------------------------------------------------------------------------------------------


def _pkg(**files: str) -> dict[str, Module]:
    """`scaffold__pair="..."` -> dbt_table_diff/scaffold/pair.py; `cli__init`: cli/__init__.py."""
    paths = {k: k.replace("__", "/").split("/") for k in files}
    return parse_package(
        {
            f"{PACKAGE}/{'/'.join(p[:-1] + ['__init__' if p[-1] == 'init' else p[-1]])}.py": files[
                k
            ]
            for k, p in paths.items()
        }
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a cycle inside a concept, hidden by a function-level import
            {
                "scaffold__a": "from dbt_table_diff.scaffold.b import x\n",
                "scaffold__b": "def x():\n    from dbt_table_diff.scaffold.a import y\n",
            },
            "import cycle: dbt_table_diff.scaffold.a -> dbt_table_diff.scaffold.b -> "
            "dbt_table_diff.scaffold.a",
        ),
        (  # up: the scaffold reaches into the CLI
            {
                "scaffold__a": "from dbt_table_diff.cli.report import choose_pair\n",
                "cli__report": "",
            },
            "dbt_table_diff.scaffold.a imports dbt_table_diff.cli.report, which is not below it",
        ),
        (  # sideways: two concepts of one layer
            {
                "report__read": "from dbt_table_diff.scaffold.pair import render_pair\n",
                "scaffold__pair": "",
            },
            "imports dbt_table_diff.scaffold.pair, which is not below it",
        ),
        (  # a module outside the layers
            {"lakehouse": "X = 1\n"},
            "dbt_table_diff.lakehouse belongs to no layer",
        ),
    ],
)
def test_import_problems_are_found(files, expected):
    problems = import_problems(_pkg(**files))
    assert len(problems) == 1 and expected in problems[0], problems


def test_allowed_imports_pass():
    modules = _pkg(
        cli__init="from dbt_table_diff.cli import report\n",
        cli__report="from dbt_table_diff.report.html import x\nimport dbt_table_diff.split\n",
        report__html="from dbt_table_diff.report import read\nfrom . import text\n",
        report__read="import dbt_table_diff.split as s\n",
        report__text="from dbt_table_diff.report.read import KINDS\n",
        split="from dbt_table_diff.spec import Spec\n",
        spec="",
    )
    assert import_problems(modules) == []
    assert private_name_problems(modules) == []


def test_lazy_imports_of_the_package_are_found():
    modules = _pkg(
        cli__demo="def run():\n    from dbt_table_diff.report.text import print_summary\n"
        "    from dbt.cli.main import dbtRunner\n",
        report__text="",
    )
    problems = lazy_import_problems(modules)
    assert len(problems) == 1 and "dbt_table_diff.report.text inside a function" in problems[0]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from dbt_table_diff.report.text import _verdict\n", "_verdict is private to"),
        ("from dbt_table_diff.report import text\ntext._verdict({})\n", "_verdict is private to"),
        ("import dbt_table_diff.report.text as t\nt._show(1)\n", "_show is private to"),
        ("from dbt_table_diff import _version\n", "dbt_table_diff._version is private to"),
    ],
)
def test_private_names_across_modules_are_found(source, expected):
    modules = _pkg(cli__report=source, report__text="", _version="")
    problems = private_name_problems(modules)
    assert len(problems) == 1 and expected in problems[0], problems


def test_test_only_imports_are_found():
    modules = _pkg(cli__report="from lakehouse import lakehouse_conf\nimport yaml\n")
    assert shipped_test_code_problems(modules, {"lakehouse", "conftest"}) == [
        "dbt_table_diff/cli/report.py: imports lakehouse, a module of tests/python or bench/"
    ]
