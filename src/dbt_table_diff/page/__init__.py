"""What the HTML pages of the companion share: `table-diff report`'s report.html of a pair and
`table-diff changes`'s changes.html of a change set.

:func:`environment` is the Jinja environment both render with (autoescape on everywhere,
undefined names an error); its loader finds the page's own templates first, then the ones here:

* ``page.html.j2``: the layout, one self-contained page (blocks ``title``, ``style``, ``body``);
* ``page.css.j2``: the style both pages use (the layout includes it inline);
* ``page_macros.html.j2``: pieces both draw (a count or a dash, a bar).

Below :mod:`~dbt_table_diff.report` and :mod:`~dbt_table_diff.changes`, which may not import
each other.
"""

from __future__ import annotations

from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape

# What a missing value shows in a cell.
DASH = "–"


def dash(value: Any) -> Any:
    """``value``, or a dash for None."""
    return DASH if value is None else value


def environment(package: str) -> Environment:
    """The environment of a page whose templates are in ``package``'s ``templates/`` folder."""
    env = Environment(
        loader=ChoiceLoader(
            [
                PackageLoader(package, "templates"),
                PackageLoader("dbt_table_diff.page", "templates"),
            ]
        ),
        autoescape=select_autoescape(["html", "j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["dash"] = dash
    return env
