"""`table-diff scaffold pair` and `table-diff scaffold merge`: the command line of
:mod:`dbt_table_diff.scaffold`."""

from __future__ import annotations

import sys
from pathlib import Path

from dbt_table_diff.scaffold.args import (
    ScaffoldError,
    parse_column_map,
    parse_normalize,
    parse_tolerance,
)
from dbt_table_diff.scaffold.merge import MergeOptions, write_merge
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import write_pair


def _split_list(values: list[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for v in values or []:
        out.extend(part.strip() for part in v.split(",") if part.strip())
    return tuple(out)


def _as_of(value: str) -> int | str:
    """``--source-as-of 12`` is a version number; anything else a timestamp, kept as text."""
    return int(value) if value.isdigit() else value


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
    pair.add_argument(
        "--primary-key", action="append", required=True, help="repeat for composite keys"
    )
    pair.add_argument(
        "--columns", action="append", help="compare only these (comma-separated or repeated)"
    )
    pair.add_argument("--exclude-columns", action="append", help="compare all but these")
    pair.add_argument("--table-filter", help="raw SQL predicate applied to both sides")
    pair.add_argument("--strategy", choices=["range", "hash"])
    pair.add_argument("--block-count", type=int)
    pair.add_argument("--block-size", type=int)
    pair.add_argument("--split-factor", type=int)
    pair.add_argument("--compare-unit-size", type=int)
    pair.add_argument("--max-depth", type=int)
    pair.add_argument("--max-diff-rows", type=int)
    pair.add_argument(
        "--check-duplicate-keys",
        action="store_true",
        default=None,
        help="count duplicate keys in every block, not only where the sides differ",
    )
    pair.add_argument(
        "--keys-only",
        action="store_true",
        default=None,
        help="compare only which keys exist on each side (no column values); required when "
        "--columns/--exclude-columns leave no non-key column",
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
        choices=["source_to_target", "target_to_source"],
        help="also write NAME__repair, the actions that make the target equal the source "
        "(or, with target_to_source, the source equal the target); applied only by "
        "`dbt run-operation table_diff.apply_repair`",
    )
    pair.add_argument(
        "--track",
        action="store_true",
        default=None,
        help="keep per-file signatures between runs (NAME__file_hashes): later runs hash only "
        "the data files that changed since the last one",
    )
    pair.add_argument(
        "--test",
        action="store_true",
        default=None,
        help="add the test pair_matches on NAME__summary: `dbt build` of the pair fails when it "
        "finds drift, with the row diff already built",
    )
    for limit in ("added", "deleted", "modified", "duplicate-key-rows"):
        pair.add_argument(
            f"--max-{limit}",
            metavar="N|P%",
            help=f"with --test: {limit.replace('-', ' ')} rows allowed (a count or a share)",
        )
    pair.add_argument(
        "--quick-check",
        choices=["auto", "true", "false"],
        help="whole-table signature before the per-block pass: auto (default: unless the last "
        "run found drift), true (always) or false (never; drift is expected)",
    )
    pair.add_argument(
        "--normalize", action="append", default=[], help="COLUMN:RULE[=ARG], repeatable"
    )
    pair.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="COLUMN:abs=N|COLUMN:rel=N",
        help="values within N are equal (abs=0.01, rel=1e-6, abs='2 seconds'), repeatable",
    )
    pair.add_argument(
        "--column-map",
        action="append",
        default=[],
        metavar="TARGET_COLUMN=SOURCE_COLUMN",
        help="compare the target's column under the source's name (keys included), repeatable",
    )
    pair.add_argument(
        "--split",
        choices=["python", "sql"],
        default="python",
        help="the split step as a Python model (default: dbt-spark method session, Databricks) "
        "or a SQL model, same rows (sql: any target, the Spark Thrift Server included)",
    )
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
    merge.add_argument("--dir", default="models/table_diff", help="where to write")
    merge.add_argument("--force", action="store_true", help="overwrite existing files")


def _scaffold_pair(args) -> int:
    opts = PairOptions(
        name=args.name,
        source=args.source,
        target=args.target[0],
        replicas=tuple(args.target) if len(args.target) > 1 else (),
        primary_key=_split_list(args.primary_key),
        columns=_split_list(args.columns),
        exclude_columns=_split_list(args.exclude_columns),
        table_filter=args.table_filter,
        strategy=args.strategy,
        block_count=args.block_count,
        block_size=args.block_size,
        split_factor=args.split_factor,
        compare_unit_size=args.compare_unit_size,
        max_depth=args.max_depth,
        max_diff_rows=args.max_diff_rows,
        check_duplicate_keys=args.check_duplicate_keys,
        keys_only=args.keys_only,
        source_as_of=args.source_as_of,
        target_as_of=args.target_as_of,
        repair=args.repair,
        track=args.track,
        test=args.test,
        quick_check={"true": True, "false": False}.get(args.quick_check, args.quick_check),
        normalize=parse_normalize(args.normalize),
        column_map=parse_column_map(args.column_map),
        tolerance=parse_tolerance(args.tolerance),
        split=args.split,
        limits={
            k: int(v) if v.isdigit() else v
            for k in ("max_added", "max_deleted", "max_modified", "max_duplicate_key_rows")
            if (v := getattr(args, k)) is not None
        },
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
