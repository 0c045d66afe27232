"""``table-diff scaffold pair NAME --source S --target R1 --target R2 ...``: a replica set.

One source, several replicas, one signature pass (ADR 0028): the shared ``NAME__ranges`` and
``NAME__block_hashes`` (the source read once, each replica once), per replica R the pair's own
models ``NAME__R__*`` (``NAME__R__ranges`` and ``NAME__R__block_hashes`` are the shared ones'
rows for R: no scan), and ``NAME__summary`` / ``NAME__row_diff`` with every replica's rows.
"""

from __future__ import annotations

import re
from dataclasses import replace

from dbt_table_diff.scaffold import (
    _NAME,
    _RELATION_EXPR,
    PairOptions,
    ScaffoldError,
    _block_hashes_file,
    _header,
    _ranges_file,
    render_pair,
)
from dbt_table_diff.scaffold_docs import replica_set_yml


def replica_name(expr: str) -> str:
    """A replica's name: its ``ref()`` / ``source()``'s table (the last argument), lower case."""
    return "".join(re.findall(r"'([^']*)'|\"([^\"]*)\"", expr)[-1]).lower()


def validate_replicas(opts: PairOptions) -> None:
    """A replica set's own rules (the macro checks the same, and the columns, before any scan)."""
    for value in opts.replicas:
        if not _RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid --target "{value}". Expected a dbt relation expression such as '
                "\"source('replica', 'orders')\"."
            )
    names = [replica_name(t) for t in opts.replicas]
    for name, expr in zip(names, opts.replicas, strict=True):
        if not _NAME.match(name):
            raise ScaffoldError(
                f"invalid --target \"{expr}\": its table name '{name}' names the replica's models "
                f"({opts.name}__{name}__summary) and must be letters, digits and underscores."
            )
        if names.count(name) > 1:
            raise ScaffoldError(
                f"invalid --target: two replicas are named '{name}' (each replica's models are "
                "named after its table). Diff a view of one under another name, or scaffold a "
                "separate pair for it."
            )
    for flag, value in (
        ("--track", opts.track),
        ("--repair", opts.repair),
        ("--target-as-of", opts.target_as_of),
    ):
        if value:
            raise ScaffoldError(
                f"give {flag} or several --target, not both: it belongs to one target. Scaffold "
                "a separate pair for the replica that needs it."
            )


def render_replica_set(opts: PairOptions) -> dict[str, str]:
    """A replica set (ADR 0028): the shared ranges and block_hashes (the source read once), then
    per replica R the pair's models NAME__R__*, whose ranges and block_hashes are the shared
    ones' rows for R, and NAME__summary / NAME__row_diff with every replica's rows."""
    n, header = opts.name, _header(opts.name)
    names = [replica_name(t) for t in opts.replicas]
    files = {
        f"{n}__ranges.sql": _ranges_file(opts),
        f"{n}__block_hashes.sql": _block_hashes_file(opts),
    }
    for name, expr in zip(names, opts.replicas, strict=True):
        sub = f"{n}__{name}"
        files.update(render_pair(replace(opts, name=sub, target=expr, replicas=())))
        files[f"{sub}__ranges.sql"] = (
            _header(sub)
            + f"-- The leaves of {n}__ranges with replica {name}'s own pair spec.\n"
            + "{{ table_diff.replica_ranges(\n"
            + f"    ranges=ref('{n}__ranges'),\n    replica='{name}'\n) }}}}\n"
        )
        files[f"{sub}__block_hashes.sql"] = (
            _header(sub)
            + f"-- The rows of {n}__block_hashes for the source and replica {name}.\n"
            + "{{ table_diff.replica_block_hashes(\n"
            + f"    ranges=ref('{sub}__ranges'),\n"
            + f"    block_hashes=ref('{n}__block_hashes')\n) }}}}\n"
        )
    for model in ("row_diff", "summary"):
        outputs = ", ".join(f"'{r}': ref('{n}__{r}__{model}')" for r in names)
        files[f"{n}__{model}.sql"] = (
            header
            + f"-- Every replica's {model}, with its name (target_name).\n"
            + "{{ table_diff.replica_outputs(\n"
            + f"    ranges=ref('{n}__ranges'),\n    outputs={{{outputs}}}\n) }}}}\n"
        )
    files[f"_{n}__models.yml"] = replica_set_yml(opts, names)
    return files
