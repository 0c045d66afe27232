"""``table-diff`` command line: ``scaffold pair``, ``scaffold merge``, ``demo``, ``report``,
``preview`` and ``changes``."""

# The docstring above is the parser's description (`table-diff --help`). Each subcommand is a module
# of this package with `add(subparsers)` and `run(args) -> exit code`; main only wires them.

from __future__ import annotations

import argparse

from dbt_table_diff.cli import changes, demo, preview, report, scaffold

COMMANDS = {
    "scaffold": scaffold,
    "demo": demo,
    "report": report,
    "preview": preview,
    "changes": changes,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="table-diff", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS.values():
        command.add(sub)
    args = parser.parse_args(argv)
    return COMMANDS[args.command].run(args)
