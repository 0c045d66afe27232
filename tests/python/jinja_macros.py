"""The package's macro files rendered by Jinja itself, no dbt and no Spark: for rules that must hold
at sizes no test table reaches (the layout plan, the row fetch's tuning). dbt's `return()` ends a
macro by raising; so does this harness, so the macros run unchanged.

    namespace = SimpleNamespace(...fakes of the macros they call...)
    load_macros(env, namespace, "macros/internal/_layout.sql")
    namespace._plan_layout(...)  # called as the package calls it
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jinja2

REPO_ROOT = Path(__file__).resolve().parents[2]


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def _raise_return(value):
    raise _Return(value)


def _call(macro, *args, **kwargs):
    try:
        macro(*args, **kwargs)
    except _Return as done:
        return done.value
    return None


def macro_env(namespace: SimpleNamespace, **globals_) -> jinja2.Environment:
    """A Jinja environment with dbt's `do`, `return` and `table_diff` (the namespace the loaded
    macros are attached to, beside the fakes already in it)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": _raise_return, "table_diff": namespace, **globals_})
    return env


def load_macros(env: jinja2.Environment, namespace: SimpleNamespace, *paths: str) -> None:
    """Attach every macro of the files (relative to the repository) to `namespace`, under the names
    the package calls them by."""
    for path in paths:
        text = (REPO_ROOT / path).read_text()
        # A template module exports no name that starts with "_": renamed, then called by it.
        module = env.from_string(text.replace("{% macro _", "{% macro private__")).module
        for attr in dir(module):
            macro = getattr(module, attr)
            if isinstance(macro, jinja2.runtime.Macro):
                called = "_" + attr[len("private__") :] if attr.startswith("private__") else attr
                setattr(namespace, called, lambda *a, _m=macro, **k: _call(_m, *a, **k))
