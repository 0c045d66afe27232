"""Package metadata: one version everywhere, a changelog entry, documented macros and models.

The documentation checks are the offline equivalent of dbt-checkpoint's check-macro-has-description,
check-macro-arguments-have-desc and check-model-has-description (see scripts/check_dbt_docs.py).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]


def _load_checker():
    spec = importlib.util.spec_from_file_location(
        "check_dbt_docs", REPO_ROOT / "scripts" / "check_dbt_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


check_dbt_docs = _load_checker()


def _pyproject_version() -> str:
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def test_dbt_project_version_matches_pyproject():
    dbt_project = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    assert str(dbt_project["version"]) == _pyproject_version()


def test_installed_package_version_matches_pyproject():
    from dbt_table_diff import __version__

    assert __version__ == _pyproject_version(), "reinstall: make venv (stale editable install?)"


def test_changelog_has_an_entry_for_the_version():
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text()
    version = re.escape(_pyproject_version())
    assert re.search(rf"^## \[{version}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.MULTILINE)
    assert re.search(r"^## \[Unreleased\]$", changelog, re.MULTILINE)


def test_public_macros_and_generic_tests_are_documented():
    problems = check_dbt_docs.check_macros(REPO_ROOT)
    assert problems == [], "\n".join(problems)


def test_models_have_descriptions():
    problems = check_dbt_docs.check_models(REPO_ROOT)
    assert problems == [], "\n".join(problems)


def test_the_checker_finds_the_package_macros():
    blocks = check_dbt_docs.find_blocks((REPO_ROOT / "macros").rglob("*.sql"))
    assert "quote_identifier" in {block.name for block in blocks}


# --------------------------------------------------------------------------------------------------
# The checker itself, on a synthetic package
# --------------------------------------------------------------------------------------------------


def _write(root: Path, relative_path: str, content: str) -> None:
    path = root / relative_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(content).lstrip("\n"))


@pytest.fixture
def synthetic_package(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        "dbt_project.yml",
        """
        name: synthetic
        model-paths: ["models"]
        """,
    )
    _write(
        tmp_path,
        "macros/area/good.sql",
        """
        {% macro good(relation, columns=['a', 'b'], options={'x': (1, 2)}) -%}
            {{ return(adapter.dispatch('good', 'synthetic')(relation, columns, options)) }}
        {%- endmacro %}
        {% macro default__good(relation, columns, options) %}select 1{% endmacro %}
        {% macro spark__good(relation, columns, options) %}select 1{% endmacro %}
        {% macro _private_helper(x) %}{{ x }}{% endmacro %}
        {# {% macro commented_out(x) %}{% endmacro %} #}
        """,
    )
    _write(
        tmp_path,
        "macros/area/undocumented.sql",
        """
        {%- macro undocumented(a) -%}{{ a }}{%- endmacro -%}
        {%- macro half_documented(a, b, c=none) -%}{{ a }}{%- endmacro -%}
        """,
    )
    _write(
        tmp_path,
        "macros/area/_area__macros.yml",
        """
        version: 2
        macros:
          - name: good
            description: Does good things.
            arguments:
              - {name: relation, description: The relation.}
              - {name: columns, description: Column names.}
              - {name: options, description: Options.}
          - name: half_documented
            description: "  "
            arguments:
              - {name: a, description: First.}
              - {name: b}
              - {name: gone, description: Was removed from the signature.}
          - name: test_drift
            description: Fails on drift.
            arguments:
              - {name: compare_to, description: The other relation.}
        """,
    )
    _write(
        tmp_path,
        "tests/generic/test_drift.sql",
        """
        {% test drift(model, compare_to, primary_key) %}select 1{% endtest %}
        """,
    )
    _write(tmp_path, "tests/singular_check.sql", "select 1 where false\n")
    _write(tmp_path, "models/documented.sql", "select 1 as id\n")
    _write(tmp_path, "models/undocumented.py", "def model(dbt, session):\n    return None\n")
    _write(tmp_path, "models/blank.sql", "select 1 as id\n")
    _write(
        tmp_path,
        "models/_models.yml",
        """
        version: 2
        models:
          - name: documented
            description: A documented model.
          - name: blank
            description: ""
        """,
    )
    return tmp_path


def test_checker_reports_each_missing_macro_doc(synthetic_package: Path):
    problems = check_dbt_docs.check_macros(synthetic_package)
    text = "\n".join(problems)

    assert "macro 'undocumented' has no yml entry" in text
    assert "macro 'half_documented' has no description" in text
    assert "macro 'half_documented': argument 'b' has no description" in text
    assert "macro 'half_documented': argument 'c' is not documented" in text
    assert "macro 'half_documented': documents argument 'gone' missing from the signature" in text
    assert "test 'test_drift': argument 'primary_key' is not documented" in text
    # Documented, private, adapter implementations, commented out, implicit test args: no problem.
    for name in ("'good'", "default__good", "spark__good", "_private_helper", "commented_out"):
        assert name not in text
    assert "argument 'model'" not in text
    assert len(problems) == 6, text


def test_checker_reports_missing_model_descriptions(synthetic_package: Path):
    problems = check_dbt_docs.check_models(synthetic_package, project_dirs=["."])
    assert problems == [
        "models/blank.sql: model 'blank' has no description",
        "models/undocumented.py: model 'undocumented' has no yml entry under `models:`",
    ]


def test_checker_cli_exit_code(synthetic_package: Path, capsys):
    assert check_dbt_docs.main([str(synthetic_package)]) == 1
    assert "documentation problem(s)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("signature", "expected"),
    [
        ("", ()),
        ("a", ("a",)),
        ("a, b=none, c='x,y'", ("a", "b", "c")),
        ("rel,\n    cols=['a', 'b'],\n    opts={'k': (1, 2)}", ("rel", "cols", "opts")),
    ],
)
def test_split_arguments(signature, expected):
    assert check_dbt_docs.split_arguments(signature) == expected
