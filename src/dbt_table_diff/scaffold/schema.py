"""Every option of a pair and of the ``no_drift`` test, once, as plain data (ADR 0039).

The scaffold's flags, the generic checks of :func:`dbt_table_diff.scaffold.options.validate`,
the macro ``_option_schema()`` (``macros/internal/_option_schema.sql``, written by
``scripts/gen_option_schema.py``) are produced from :data:`OPTIONS`;
``tests/python/test_option_schema.py`` checks the rest against it: ``PairOptions``' fields, the
macros' signatures, the README's Options table and docs/semantics.md. Adding an option is one
entry here plus its behaviour (a ``PairOptions`` field, the macro's argument and what it does).

Modes, the places that take an option:
- ``pair``: a pair (``table-diff scaffold pair``, ``PairOptions``); with ``pair_macro`` also an
  argument of the pair's first model, the macro ``key_ranges``;
- ``no_drift``: the generic test ``no_drift`` and its engine ``drift_rows``;
- ``merge``: a three-way merge (``table-diff scaffold merge``, ``MergeOptions``), which has
  options of its own besides (not listed here: ``leaf_count``, ``on_schema_conflict``, ...;
  listed: ``classify`` and ``resolve``, the scaffold's choice of the classification and its
  policies, ADR 0040);
- ``replicas``: a pair with several targets (ADR 0028) still takes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Mode = Literal["pair", "no_drift", "merge", "replicas"]
MODES: tuple[Mode, ...] = ("pair", "no_drift", "merge", "replicas")

# What a value is: column names (a list, or one name); SQL or other text; one of `choices`; a
# whole number; true / false; a Delta / Iceberg version (a number) or timestamp (text); a mapping
# (its shape checked by the option's own code); a limit (a count of rows or a share, '0.1%').
Kind = Literal["names", "text", "choice", "int", "bool", "version", "mapping", "limit"]

_PAIR: frozenset[Mode] = frozenset({"pair", "replicas"})
_ALL: frozenset[Mode] = frozenset({"pair", "no_drift", "replicas"})
_SHARED: frozenset[Mode] = frozenset({"pair", "no_drift", "merge", "replicas"})


@dataclass(frozen=True)
class Option:
    name: str
    kind: Kind
    modes: frozenset[Mode]
    # One line: the "meaning" of the README's Options table (when `readme`) and the flag's help
    # unless `help` says more.
    doc: str
    # The value when the option is left out, as PairOptions and the macros hold it (None: unset,
    # resolved later, e.g. quick_check 'auto'); `no_drift_default` where the test differs.
    default: object = None
    no_drift_default: object = None
    # The README table's "default" cell (for an option in it) or its equivalent.
    default_text: str = "none"
    readme: bool = False
    # False: the scaffold's own option (which model files to write), not a `key_ranges` argument.
    pair_macro: bool = True
    # The name the `no_drift` test gives it where the test's sides are `model` / `compare_to`.
    no_drift_name: str | None = None
    # The scaffold flag; None: no flag.
    flag: str | None = None
    # True: cli/scaffold.py writes the flag by hand (its parsing is its own; it says why there).
    flag_bespoke: bool = False
    # argparse details of a generated flag: `int` values, an `append` flag (repeatable), a
    # store_true flag (`kind` bool), its metavar and help text when `doc` is not enough.
    repeatable: bool = False
    metavar: str | None = None
    help: str | None = None
    # Generic checks (the scaffold's `validate`, the macros through `_option_schema()`).
    minimum: int | None = None
    choices: tuple[str | bool, ...] = ()
    # The check's "Expected ..." text when a value is refused, when choices / minimum do not say it.
    expected: str | None = None

    def name_in(self, mode: Mode) -> str:
        """The option's argument name in `mode` (``no_drift`` renames the sides' options)."""
        return self.no_drift_name if mode == "no_drift" and self.no_drift_name else self.name

    def label(self) -> str:
        """How a scaffold error names the option: its flag, else its name."""
        return self.flag or self.name

    def help_text(self) -> str:
        return self.help or self.doc


def _limit(kind: str) -> Option:
    words = kind.replace("_", " ")
    return Option(
        f"max_{kind}",
        "limit",
        frozenset({"pair", "no_drift", "replicas"}),
        f"{words} rows allowed before the test fails: a count or a share of the rows ('0.1%')",
        default_text="0",
        pair_macro=False,
        flag=f"--max-{kind.replace('_', '-')}",
        flag_bespoke=True,
    )


# In the order of the `no_drift` test's arguments (its error names them in this order).
OPTIONS: tuple[Option, ...] = (
    Option(
        "primary_key",
        "names",
        _SHARED,
        "key column(s)",
        default_text="required",
        readme=True,
        flag="--primary-key",
        flag_bespoke=True,
    ),
    Option(
        "columns",
        "names",
        _SHARED,
        "compare only / all but these (not both)",
        default=(),
        default_text="all common columns",
        readme=True,
        flag="--columns",
        repeatable=True,
        help="compare only these (comma-separated or repeated)",
    ),
    Option(
        "exclude_columns",
        "names",
        _SHARED,
        "compare only / all but these (not both)",
        default=(),
        default_text="all common columns",
        readme=True,
        flag="--exclude-columns",
        repeatable=True,
        help="compare all but these",
    ),
    Option(
        "table_filter",
        "text",
        _SHARED,
        "**raw SQL** boolean applied to both sides, verbatim: trusted SQL only; checked before "
        "any scan",
        readme=True,
        flag="--table-filter",
        help="raw SQL predicate applied to both sides",
    ),
    Option(
        "strategy",
        "choice",
        _SHARED,
        "key ranges from a sample, or leaf = hash of the key",
        no_drift_default="hash",
        default_text="`range` (pipeline), `hash` (`no_drift`)",
        readme=True,
        flag="--strategy",
        choices=("range", "hash"),
    ),
    Option(
        "block_count",
        "int",
        _ALL,
        "level-0 blocks, or rows per block",
        default_text="min(64, rows / compare_unit_size)",
        readme=True,
        flag="--block-count",
        minimum=1,
    ),
    Option(
        "block_size",
        "int",
        _ALL,
        "level-0 blocks, or rows per block",
        default_text="min(64, rows / compare_unit_size)",
        readme=True,
        flag="--block-size",
        minimum=1,
    ),
    Option(
        "split_factor",
        "int",
        _PAIR,
        "children per split of a mismatched block",
        default_text="8",
        readme=True,
        flag="--split-factor",
        minimum=2,
    ),
    Option(
        "compare_unit_size",
        "int",
        _PAIR,
        "stop splitting at this many rows a side",
        default_text="by size",
        readme=True,
        flag="--compare-unit-size",
        minimum=1,
    ),
    Option(
        "max_depth",
        "int",
        _PAIR,
        "split levels below level 0 (at most 16384 leaves)",
        default_text="4",
        readme=True,
        flag="--max-depth",
        minimum=0,
    ),
    Option(
        "normalize",
        "mapping",
        _SHARED,
        "per column: `round`, `truncate`, `trim`, `lower`",
        default={},
        readme=True,
        flag="--normalize",
        repeatable=True,
        help="COLUMN:RULE[=ARG], repeatable",
    ),
    Option(
        "max_diff_rows",
        "int",
        _ALL,
        "early stop (`is_partial`)",
        default_text="100000",
        readme=True,
        flag="--max-diff-rows",
        minimum=1,
    ),
    Option(
        "check_duplicate_keys",
        "bool",
        _ALL,
        "also find duplicate keys in blocks both sides hold identically",
        default_text="false",
        readme=True,
        flag="--check-duplicate-keys",
        help="count duplicate keys in every block, not only where the sides differ",
    ),
    Option(
        "quick_check",
        "choice",
        _ALL,
        "one whole-table signature per side first",
        no_drift_default=True,
        default_text="`'auto'`",
        readme=True,
        flag="--quick-check",
        flag_bespoke=True,
        choices=("auto", True, False),
        expected="auto, true or false",
    ),
    Option(
        "keys_only",
        "bool",
        _ALL,
        "compare only which keys exist (required when no non-key column is left)",
        default_text="false",
        readme=True,
        flag="--keys-only",
        help="compare only which keys exist on each side (no column values); required when "
        "--columns/--exclude-columns leave no non-key column",
    ),
    Option(
        "source_as_of",
        "version",
        _ALL,
        "read a Delta / Iceberg side at a past version or timestamp",
        default_text="current version, pinned",
        readme=True,
        no_drift_name="model_as_of",
        flag="--source-as-of",
        flag_bespoke=True,
    ),
    Option(
        "target_as_of",
        "version",
        frozenset({"pair", "no_drift"}),
        "read a Delta / Iceberg side at a past version or timestamp",
        default_text="current version, pinned",
        readme=True,
        no_drift_name="compare_to_as_of",
        flag="--target-as-of",
        flag_bespoke=True,
    ),
    _limit("added"),
    _limit("deleted"),
    _limit("modified"),
    _limit("duplicate_key_rows"),
    Option(
        "column_map",
        "mapping",
        _ALL,
        "`{target column: source column}`, keys too; outputs in the source's names",
        default={},
        readme=True,
        flag="--column-map",
        repeatable=True,
        metavar="TARGET_COLUMN=SOURCE_COLUMN",
        help="compare the target's column under the source's name (keys included), repeatable",
    ),
    Option(
        "tolerance",
        "mapping",
        _ALL,
        "per column: `{abs: 0.01}`, `{rel: 1e-6}`, `{abs: '2 seconds'}`: within is equal",
        default={},
        readme=True,
        flag="--tolerance",
        repeatable=True,
        metavar="COLUMN:abs=N|COLUMN:rel=N",
        help="values within N are equal (abs=0.01, rel=1e-6, abs='2 seconds'), repeatable",
    ),
    Option(
        "track",
        "bool",
        frozenset({"pair"}),
        "keep per-file signatures; re-hash only changed files ([track](docs/track.md))",
        default_text="false",
        readme=True,
        flag="--track",
        help="keep per-file signatures between runs (NAME__file_hashes): later runs hash only "
        "the data files that changed since the last one",
    ),
    Option(
        "repair",
        "choice",
        frozenset({"pair"}),
        "also write NAME__repair, the actions that make one side equal the other",
        pair_macro=False,
        flag="--repair",
        flag_bespoke=True,
        choices=("source_to_target", "target_to_source"),
        expected="source_to_target or target_to_source (source_to_target writes the target)",
    ),
    Option(
        "test",
        "bool",
        _PAIR,
        "add the test pair_matches on NAME__summary",
        default_text="false",
        pair_macro=False,
        flag="--test",
        help="add the test pair_matches on NAME__summary: `dbt build` of the pair fails when it "
        "finds drift, with the row diff already built",
    ),
    Option(
        "split",
        "choice",
        _PAIR,
        "the split step as a Python model or a SQL model, same rows",
        default="python",
        default_text="`python`",
        pair_macro=False,
        flag="--split",
        choices=("python", "sql"),
        help="the split step as a Python model (default: dbt-spark method session, Databricks) "
        "or a SQL model, same rows (sql: any target, the Spark Thrift Server included)",
        expected="python (a Python model: dbt-spark method session, or Databricks) or sql (a SQL "
        "model: any target, the Thrift Server included)",
    ),
    Option(
        "classify",
        "choice",
        frozenset({"merge"}),
        "the merge's classification as a Python model (policies) or inline SQL, same rows",
        default="python",
        default_text="`python`",
        pair_macro=False,
        flag="--classify",
        choices=("python", "sql"),
        help="classify the merge in a Python model, NAME__merge_classified (default: dbt-spark "
        "method session, Databricks; takes --resolve) or inline in the SQL outputs, same rows "
        "(sql: any target, the Spark Thrift Server included; no --resolve)",
        expected="python (a Python model: dbt-spark method session, or Databricks) or sql (SQL "
        "only: any target, the Thrift Server included)",
    ),
    Option(
        "resolve",
        "mapping",
        frozenset({"merge"}),
        "per column, how a conflicting cell is resolved: `ours`, `theirs`, `max`, `min`, "
        "`{latest: COLUMN}`, `{python: 'pkg.mod.fn'}` (`classify: python` only)",
        default={},
        pair_macro=False,
        flag="--resolve",
        flag_bespoke=True,
        repeatable=True,
        metavar="COLUMN:POLICY[=ARG]",
        help="resolve a column's conflicting cells: COLUMN:ours, :theirs, :max, :min, "
        ":latest=ORDER_COLUMN or :python=PKG.MODULE.FUNCTION (called as f(base, ours, theirs) on "
        "the driver), repeatable; needs --classify python",
    ),
)

BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}


def options_of(mode: Mode) -> tuple[Option, ...]:
    """The options `mode` takes, in :data:`OPTIONS`' order."""
    return tuple(o for o in OPTIONS if mode in o.modes)
