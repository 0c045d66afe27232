"""The option schema (src/dbt_table_diff/scaffold/schema.py, ADR 0039) and everything that must
agree with it: the generated macro ``_option_schema()``, ``PairOptions`` and ``MergeOptions``, the
scaffold's flags, the signatures of ``key_ranges``, ``drift_rows`` and the ``no_drift`` test, the
README's Options table and docs/semantics.md. No dbt run, no Spark.

Each check is a function returning its problems, so that a test can show it fails on a
synthetic bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import re
from pathlib import Path

import jinja2

from dbt_table_diff.cli import scaffold as scaffold_cli
from dbt_table_diff.scaffold.merge import MergeOptions
from dbt_table_diff.scaffold.options import LIMITS, PairOptions
from dbt_table_diff.scaffold.schema import BY_NAME, OPTIONS, Option, options_of

ROOT = Path(__file__).resolve().parents[2]
_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
_SIGNATURE = r"\{%-?\s*(?:macro|test)\s+NAME\s*\((?P<args>.*?)\)\s*-?%\}"

# PairOptions' fields that are not options of the schema: the pair's name and sides, the replica
# set (several --target), and the test's limits gathered in one mapping (the schema's max_*).
PAIR_FIELDS_BESIDES = {"name", "source", "target", "replicas", "limits"}
# drift_rows takes the limits as one mapping, the test's argument names for its messages, and
# whether a result cut short at max_diff_rows may be returned (diff_changes: partial counts).
DRIFT_ROWS_BESIDES = {"thresholds", "arg_names", "allow_partial"}


def _gen_script():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_option_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def signature(text: str, name: str) -> list[tuple[str, str | None]]:
    """The arguments of ``{% macro name(...) %}`` / ``{% test name(...) %}``: (name, default)."""
    match = re.search(_SIGNATURE.replace("NAME", name), _COMMENT.sub("", text), re.DOTALL)
    assert match, f"no macro or test {name}"
    out = []
    for part in match["args"].split(","):
        arg, _, default = part.strip().partition("=")
        out.append((arg.strip(), default.strip() or None))
    return out


def _names(text: str, name: str) -> list[str]:
    return [a for a, _ in signature(text, name)]


def signature_problems(text: str, name: str, expected: list[str]) -> list[str]:
    """The macro's signature must name exactly `expected` (order aside)."""
    got = _names(text, name)
    return [f"{name}: takes {a}, not an option of its mode" for a in got if a not in expected] + [
        f"{name}: lacks {a}, an option of its mode" for a in expected if a not in got
    ]


def _read(rel: str) -> str:
    return (ROOT / rel).read_text()


# --- the generated macro -------------------------------------------------------------------


def test_generated_macro_is_up_to_date():
    gen = _gen_script()
    assert gen.TARGET.read_text() == gen.render(), "run scripts/gen_option_schema.py"
    assert gen.main(["--check"]) == 0


def test_check_mode_fails_on_a_stale_file(tmp_path, monkeypatch, capsys):
    gen = _gen_script()
    stale = tmp_path / "_option_schema.sql"
    stale.write_text(gen.render().replace("'minimum': 2", "'minimum': 3"))
    monkeypatch.setattr(gen, "TARGET", stale)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().out


class _Returned(Exception):
    def __init__(self, value):
        self.value = value


def _macros():
    """`_option_schema` and `_option_names` run in plain Jinja, `return` as dbt's (it ends the
    macro with a value)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])

    def _return(value):
        raise _Returned(value)

    def call(macro):
        def run(*args):
            try:
                macro(*args)
            except _Returned as r:
                return r.value
            raise AssertionError("macro returned nothing")

        return run

    spec = _COMMENT.sub("", _read("macros/internal/_spec.sql"))
    names = re.search(r"\{% macro _option_names.*?\{% endmacro %\}", spec, re.DOTALL)[0]
    ns = type("table_diff", (), {})()  # the package's namespace, as macros call each other
    # Jinja exports no macro whose name starts with `_`: compiled here without it.
    text = (_read("macros/internal/_option_schema.sql") + names).replace("macro _", "macro ")
    module = env.from_string(text, globals={"return": _return, "table_diff": ns}).module
    ns._option_schema = call(module.option_schema)
    return ns._option_schema, call(module.option_names)


def test_macro_schema_holds_the_python_schema():
    schema, _ = _macros()
    schema = schema()
    assert list(schema) == [o.name for o in OPTIONS]
    for opt in OPTIONS:
        entry = schema[opt.name]
        assert entry["type"] == opt.kind
        assert entry["minimum"] == opt.minimum
        assert tuple(entry["choices"]) == opt.choices
        assert set(entry["modes"]) == set(opt.modes)
        assert entry["no_drift_name"] == opt.no_drift_name


def test_no_drift_checks_its_keyword_names_from_the_schema():
    """The names `_check_kwargs` lists for no_drift: its signature, in the same order (the
    error message names them in that order)."""
    _, option_names = _macros()
    text = _read("tests/generic/test_no_drift.sql")
    assert "table_diff._option_names('no_drift')" in text
    assert ["model", "compare_to"] + option_names("no_drift") == _names(text, "no_drift")


# --- signatures ----------------------------------------------------------------------------


def _key_ranges_expected() -> list[str]:
    return ["source", "target"] + [o.name for o in options_of("pair") if o.pair_macro]


def _drift_rows_expected() -> list[str]:
    names = [o.name for o in options_of("no_drift") if o.kind != "limit"]
    return ["source", "target", *names, *sorted(DRIFT_ROWS_BESIDES)]


def test_key_ranges_signature_is_the_schemas_pair_options():
    text = _read("macros/ranges/key_ranges.sql")
    assert signature_problems(text, "key_ranges", _key_ranges_expected()) == []
    # its hand-kept `_check_kwargs` list names the same
    listed = re.search(r"_check_kwargs\('key_ranges', kwargs, \[(.*?)\]\)", text, re.DOTALL)[1]
    assert sorted(re.findall(r"'(\w+)'", listed)) == sorted(_key_ranges_expected())


def test_drift_rows_signature_is_the_schemas_no_drift_options():
    text = _read("macros/drift/drift_rows.sql")
    assert signature_problems(text, "drift_rows", _drift_rows_expected()) == []


def test_no_drift_signature_and_defaults_are_the_schemas():
    text = _read("tests/generic/test_no_drift.sql")
    expected = ["model", "compare_to"] + [o.name_in("no_drift") for o in options_of("no_drift")]
    assert signature_problems(text, "no_drift", expected) == []
    defaults = dict(signature(text, "no_drift"))
    for opt in options_of("no_drift"):
        want = opt.no_drift_default
        literal = "none" if want is None else ("true" if want is True else f"'{want}'")
        if opt.name != "primary_key":  # required: no default
            assert defaults[opt.name_in("no_drift")] == literal, opt.name


def test_signature_check_fails_on_a_missing_or_extra_argument():
    text = "{% macro m(source, target, primary_key, colour=none) %}{% endmacro %}"
    problems = signature_problems(text, "m", ["source", "target", "primary_key", "columns"])
    assert any("colour" in p for p in problems) and any("columns" in p for p in problems)


# --- the Python side -----------------------------------------------------------------------


def _default(f: dataclasses.Field):
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None if f.default is dataclasses.MISSING else f.default


def test_pair_options_fields_are_the_schemas_pair_options():
    fields = {f.name: f for f in dataclasses.fields(PairOptions)}
    options = {o.name for o in options_of("pair") if o.kind != "limit"}
    assert set(fields) == options | PAIR_FIELDS_BESIDES
    for name in options:  # a required field (primary_key) has no default: None in the schema
        assert _default(fields[name]) == BY_NAME[name].default, name
    assert list(LIMITS) == [o.name for o in options_of("pair") if o.kind == "limit"]


def test_merge_options_take_the_schemas_merge_options():
    fields = {f.name for f in dataclasses.fields(MergeOptions)}
    assert {o.name for o in options_of("merge")} <= fields


def _pair_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    scaffold_cli.add(parser.add_subparsers())
    scaffold = parser._subparsers._group_actions[0].choices["scaffold"]
    return scaffold._subparsers._group_actions[0].choices["pair"]


def test_every_flag_of_the_schema_is_on_the_cli_with_help():
    actions = {s: a for a in _pair_parser()._actions for s in a.option_strings}
    for opt in options_of("pair"):
        assert opt.flag in actions, opt.flag
        assert actions[opt.flag].help, opt.flag
    # and every flag of scaffold pair has help text
    for flag, action in actions.items():
        assert action.help, flag


def test_generated_flags_parse_like_the_schema_says():
    args = _pair_parser().parse_args(
        ["o", "--source", "s", "--target", "t", "--primary-key", "id", "--split-factor", "3"]
        + ["--columns", "a", "--columns", "b", "--keys-only"]
    )
    assert args.split_factor == 3 and args.columns == ["a", "b"] and args.keys_only is True
    assert args.split == BY_NAME["split"].default and args.track is None


# --- the docs ------------------------------------------------------------------------------


def options_table(markdown: str, heading: str = "## Options") -> list[list[str]]:
    """The cells of the first table under `heading` (header and rule rows dropped)."""
    section = markdown.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", r.strip("|"))] for r in rows[2:]]


def readme_problems(markdown: str, options: tuple[Option, ...] = OPTIONS) -> list[str]:
    """The README's Options table names exactly the schema's `readme` options, each with the
    schema's default text and doc line."""
    problems, named = [], set()
    for cells in options_table(markdown):
        names = re.findall(r"`(\w+)`", cells[0])
        for name in names:
            named.add(name)
            opt = next((o for o in options if o.name == name), None)
            if opt is None or not opt.readme:
                problems.append(f"README row {name}: not a README option in the schema")
                continue
            if cells[1] != opt.default_text:
                problems.append(
                    f"README row {name}: default {cells[1]!r}, schema {opt.default_text!r}"
                )
            if cells[2] != opt.doc:
                problems.append(f"README row {name}: meaning {cells[2]!r}, schema {opt.doc!r}")
    problems += [
        f"README lacks a row for {o.name}" for o in options if o.readme and o.name not in named
    ]
    return problems


def test_readme_options_table_is_the_schemas():
    assert readme_problems(_read("README.md")) == []


def test_readme_check_fails_on_a_wrong_default_or_a_missing_row():
    text = (
        "x\n## Options\n\n| option | default | meaning |\n|---|---|---|\n| `max_depth` | 5 | x |\n"
    )
    problems = readme_problems(text)
    assert any("default '5'" in p for p in problems)
    assert any("lacks a row for split_factor" in p for p in problems)


def semantics_problems(markdown: str) -> list[str]:
    """Every option of the schema has its row in docs/semantics.md's Options table."""
    named = {n for cells in options_table(markdown) for n in re.findall(r"`(\w+)`", cells[0])}
    return [
        f"docs/semantics.md lacks an entry for {o.name}" for o in OPTIONS if o.name not in named
    ]


def test_every_option_has_its_entry_in_semantics():
    assert semantics_problems(_read("docs/semantics.md")) == []
    assert semantics_problems("x\n## Options\n\n| a | b | c |\n|---|---|---|\n| `x` | y | z |\n")
