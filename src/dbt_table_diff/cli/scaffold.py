"""`table-diff scaffold pair` and `table-diff scaffold merge`: the command line of
:mod:`dbt_table_diff.scaffold`."""

from __future__ import annotations

import sys
from pathlib import Path

from dbt_table_diff.scaffold.args import (
    ScaffoldError,
    parse_column_map,
    parse_normalize,
    parse_resolve,
    parse_tolerance,
)
from dbt_table_diff.scaffold.merge import MergeOptions, write_merge
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair
from dbt_table_diff.scaffold.schema import BY_NAME, Option, options_of


def _split_list(values: list[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for v in values or []:
        out.extend(part.strip() for part in v.split(",") if part.strip())
    return tuple(out)


def _as_of(value: str) -> int | str:
    """``--source-as-of 12`` is a version number; anything else a timestamp, kept as text."""
    return int(value) if value.isdigit() else value


def _generated_flags() -> tuple[Option, ...]:
    return tuple(o for o in options_of("pair") if o.flag and not o.flag_bespoke)


def _add_flag(parser, opt: Option) -> None:
    """One option's flag as the schema describes it: a switch, a repeatable text, a whole
    number, one of its choices or a text (checked by `validate`, not by argparse)."""
    kw: dict = {"dest": opt.name, "help": opt.help_text()}
    if opt.kind == "bool":
        kw.update(action="store_true", default=None)
    elif opt.repeatable:
        kw.update(action="append", default=[] if opt.kind == "mapping" else None)
    elif opt.kind == "int":
        kw.update(type=int)
    if opt.choices:
        kw.update(choices=list(opt.choices))
    if opt.default is not None and not opt.repeatable:
        kw.update(default=opt.default)
    if opt.metavar:
        kw.update(metavar=opt.metavar)
    parser.add_argument(opt.flag, **kw)


# The text of a flag turned into the option's value (others are used as parsed).
_PARSE = {
    "primary_key": _split_list,
    "columns": _split_list,
    "exclude_columns": _split_list,
    "quick_check": lambda v: {"true": True, "false": False}.get(v, v),
    "normalize": parse_normalize,
    "column_map": parse_column_map,
    "tolerance": parse_tolerance,
}


def add(sub) -> None:
    scaffold = sub.add_parser("scaffold", help="write the model files of a diff pipeline")
    kinds = scaffold.add_subparsers(dest="kind", required=True)
    pair = kinds.add_parser("pair", help="two-way diff of a source and a target relation")
    pair.add_argument("name", help="model-name prefix, e.g. orders_replica")
    pair.add_argument("--source", required=True, help="e.g. \"ref('orders')\"")
    pair.add_argument(
        "--target",
        action="append",
        required=True,
        help="e.g. \"source('replica', 'orders')\"; repeat for several replicas of the source "
        "(one signature pass over the source, rows per replica: ADR 0028)",
    )
    # Bespoke flags, written by hand: --primary-key is required; --source-as-of / --target-as-of
    # read a number as a version (`_as_of`); --repair takes an optional direction; --max-* are
    # collected into one `limits` mapping; --quick-check turns text into true / false / 'auto'.
    pair.add_argument(
        "--primary-key", action="append", required=True, help="repeat for composite keys"
    )
    for side in ("source", "target"):
        pair.add_argument(
            f"--{side}-as-of",
            type=_as_of,
            metavar="VERSION|TIMESTAMP",
            help=f"read the {side} (a Delta or Iceberg table) at this version number or timestamp "
            "instead of its current version, e.g. to diff a table against itself a day ago",
        )
    pair.add_argument(
        "--repair",
        nargs="?",
        const="source_to_target",
        choices=BY_NAME["repair"].choices,
        help="also write NAME__repair, the actions that make the target equal the source "
        "(or, with target_to_source, the source equal the target); applied only by "
        "`dbt run-operation table_diff.apply_repair`",
    )
    for limit in (o for o in options_of("pair") if o.kind == "limit"):
        pair.add_argument(
            limit.flag,
            metavar="N|P%",
            help=f"with --test: {limit.name[4:].replace('_', ' ')} rows allowed "
            "(a count or a share)",
        )
    pair.add_argument(
        "--quick-check",
        choices=["auto", "true", "false"],
        help="whole-table signature before the per-block pass: auto (default: unless the last "
        "run found drift), true (always) or false (never; drift is expected)",
    )
    # Every other option's flag, from the option schema (scaffold/schema.py).
    for opt in _generated_flags():
        _add_flag(pair, opt)
    pair.add_argument(
        "--dir", default="models/table_diff", help="where to write (default models/table_diff)"
    )
    pair.add_argument("--force", action="store_true", help="overwrite existing files")

    merge = kinds.add_parser("merge", help="three-way merge of a base and two descendants")
    merge.add_argument("name", help="model-name prefix, e.g. orders_merge")
    merge.add_argument("--base", required=True, help="common ancestor, e.g. \"ref('snapshot')\"")
    merge.add_argument("--ours", required=True, help="our descendant (kept on conflict)")
    merge.add_argument("--theirs", required=True, help="their descendant")
    merge.add_argument("--primary-key", action="append", required=True, help="repeatable")
    merge.add_argument("--columns", action="append", help="merge only these")
    merge.add_argument("--exclude-columns", action="append", help="merge all but these")
    merge.add_argument("--table-filter", help="raw SQL predicate applied to all three sides")
    merge.add_argument("--normalize", action="append", default=[], help="COLUMN:RULE[=ARG]")
    merge.add_argument("--leaf-count", type=int, help="leaves compared to skip unchanged rows")
    merge.add_argument(
        "--strategy", choices=["hash", "range"], help="leaf layout, as a pair's (default hash)"
    )
    merge.add_argument("--on-schema-conflict", choices=["error", "report"], default="error")
    merge.add_argument("--constraint", action="append", default=[], help="SQL check on merged rows")
    merge.add_argument("--no-materialize-conflicts", action="store_true", help="no conflicts table")
    _add_flag(merge, BY_NAME["classify"])
    resolve = BY_NAME["resolve"]
    merge.add_argument(
        resolve.flag, action="append", default=[], metavar=resolve.metavar, help=resolve.help
    )
    merge.add_argument("--dir", default="models/table_diff", help="where to write")
    merge.add_argument("--force", action="store_true", help="overwrite existing files")


def _scaffold_pair(args) -> int:
    values = {
        o.name: _PARSE.get(o.name, lambda v: v)(getattr(args, o.name))
        for o in options_of("pair")
        if o.flag and o.kind != "limit"
    }
    opts = PairOptions(
        name=args.name,
        source=args.source,
        target=args.target[0],
        replicas=tuple(args.target) if len(args.target) > 1 else (),
        limits={
            o.name: int(v) if v.isdigit() else v
            for o in options_of("pair")
            if o.kind == "limit" and (v := getattr(args, o.name)) is not None
        },
        **values,
    )
    for path in write_pair(opts, Path(args.dir), force=args.force):
        print(f"wrote {path}")
    last = "repair" if args.repair else "summary"
    print(f"next: dbt build --select +{args.name}__{last}")
    return 0


def _scaffold_merge(args) -> int:
    opts = MergeOptions(
        name=args.name,
        base=args.base,
        ours=args.ours,
        theirs=args.theirs,
        primary_key=_split_list(args.primary_key),
        columns=_split_list(args.columns),
        exclude_columns=_split_list(args.exclude_columns),
        table_filter=args.table_filter,
        normalize=parse_normalize(args.normalize),
        leaf_count=args.leaf_count,
        strategy=args.strategy,
        on_schema_conflict=args.on_schema_conflict,
        constraints=tuple(args.constraint),
        materialize_conflicts=not args.no_materialize_conflicts,
        classify=args.classify,
        resolve=parse_resolve(args.resolve),
    )
    for path in write_merge(opts, Path(args.dir), force=args.force):
        print(f"wrote {path}")
    print(f"next: dbt build --select +{args.name}__merge_summary")
    return 0


def run(args) -> int:
    try:
        return _scaffold_merge(args) if args.kind == "merge" else _scaffold_pair(args)
    except ScaffoldError as exc:
        print(f"table-diff scaffold: {exc}", file=sys.stderr)
        return 2
