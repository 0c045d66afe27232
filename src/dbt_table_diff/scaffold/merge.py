"""``table-diff scaffold merge``: write the thin model files of a three-way merge.

Models (NAME = the merge's prefix):

* ``NAME__merge_schema`` (SQL): the schema phase, one row per column; fails the build on a schema
  conflict unless ``on_schema_conflict='report'``.
* ``NAME__merge_candidates`` (SQL): rows of the keys of leaves that changed on either side.
* ``NAME__merge_classified`` (Python, ``dbt_table_diff.merge_classify.classify``; with
  ``classify='python'``, the default): the candidates classified, conflicting cells resolved by
  the ``resolve`` policies (ADR 0040). With ``classify='sql'`` there is no such model: every
  output classifies the candidates inline (``_merge_classified``), as before.
* ``NAME__merge`` (SQL, ``table_diff.merge_rows``): per changed key, merge_status, conflict_type.
* ``NAME__merged`` (SQL, ``table_diff.merged_rows``): the merged table.
* ``NAME__conflicts`` (SQL, ``table_diff.merge_conflicts``; unless ``materialize_conflicts=False``).
* ``NAME__merge_violations`` (SQL, ``table_diff.merge_violations``): constraint and key violations
  of the merged table.
* ``NAME__merge_summary`` (SQL, ``table_diff.merge_summary``): one row of counts of the candidates.

Every model but the classified one is SQL (ADR 0027); with ``classify='sql'`` every one is, so a
merge runs on any dbt-spark target, the Thrift Server too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbt_table_diff.merge_classify import PolicyError, parse_policies
from dbt_table_diff.scaffold.args import ScaffoldError
from dbt_table_diff.scaffold.files import MATERIALIZATION, jinja_literal, write_files
from dbt_table_diff.scaffold.options import NAME, RELATION_EXPR
from dbt_table_diff.scaffold.schema import BY_NAME

ON_SCHEMA_CONFLICT = ("error", "report")
CLASSIFY = BY_NAME["classify"]
STRATEGIES = ("hash", "range")


@dataclass(frozen=True)
class MergeOptions:
    name: str
    base: str
    ours: str
    theirs: str
    primary_key: tuple[str, ...]
    columns: tuple[str, ...] = ()
    exclude_columns: tuple[str, ...] = ()
    table_filter: str | None = None
    normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    leaf_count: int | None = None
    strategy: str | None = None
    on_schema_conflict: str = "error"
    constraints: tuple[str, ...] = ()
    materialize_conflicts: bool = True
    # The classification: a Python model (default; takes `resolve`) or inline SQL (ADR 0040).
    classify: str = "python"
    # Column -> conflict resolution policy ('ours', 'theirs', 'max', 'min', {'latest': COLUMN},
    # {'python': 'pkg.module.function'}); classify 'python' only.
    resolve: dict[str, Any] = field(default_factory=dict)


def validate_merge(opts: MergeOptions) -> None:
    if not NAME.match(opts.name):
        raise ScaffoldError(
            f"invalid NAME '{opts.name}'. Expected a model-name prefix of letters, digits and "
            "underscores (e.g. orders_merge)."
        )
    for arg, value in (("--base", opts.base), ("--ours", opts.ours), ("--theirs", opts.theirs)):
        if not isinstance(value, str) or not RELATION_EXPR.match(value):
            raise ScaffoldError(
                f'invalid {arg} "{value}". Expected a dbt relation expression such as '
                "\"ref('orders')\" or \"source('replica', 'orders')\"."
            )
    if not opts.primary_key or any(not k or not k.strip() for k in opts.primary_key):
        raise ScaffoldError("missing --primary-key. Name the key column(s): --primary-key order_id")
    if opts.columns and opts.exclude_columns:
        raise ScaffoldError("give --columns or --exclude-columns, not both.")
    if opts.leaf_count is not None and opts.leaf_count < 1:
        raise ScaffoldError(
            f"invalid --leaf-count {opts.leaf_count}. Expected a whole number >= 1."
        )
    if opts.strategy is not None and opts.strategy not in STRATEGIES:
        raise ScaffoldError(f"invalid --strategy '{opts.strategy}'. Expected hash or range.")
    if opts.on_schema_conflict not in ON_SCHEMA_CONFLICT:
        raise ScaffoldError(
            f"invalid --on-schema-conflict '{opts.on_schema_conflict}'. Expected error or report."
        )
    if opts.classify not in CLASSIFY.choices:
        raise ScaffoldError(f"invalid --classify '{opts.classify}'. Expected {CLASSIFY.expected}.")
    try:
        policies = parse_policies(opts.name, opts.resolve)
    except PolicyError as exc:
        raise ScaffoldError(f"invalid --resolve: {exc}") from exc
    if policies and opts.classify == "sql":
        p = policies[0]
        raise ScaffoldError(
            f"merge '{opts.name}': --resolve {p.column}:{p.label} needs the Python "
            "classification: SQL cannot run a resolution policy. Scaffold with --classify "
            f"python (the default; not on the Spark Thrift Server), or drop the policy of "
            f"column '{p.column}'."
        )
    keys = {k.lower() for k in opts.primary_key}
    for p in policies:
        if p.column.lower() in keys or (p.kind == "latest" and p.arg.lower() in keys):
            raise ScaffoldError(
                f"merge '{opts.name}': invalid --resolve {p.column}:{p.label}: "
                f"'{p.arg if p.column.lower() not in keys else p.column}' is a key column. "
                "Keys never conflict; name a merged column."
            )
    for c in opts.constraints:
        if not isinstance(c, str) or not c.strip():
            raise ScaffoldError(
                f"invalid --constraint {c!r}. Expected a SQL boolean expression "
                "such as 'amount >= 0'."
            )


def render_merge(opts: MergeOptions) -> dict[str, str]:
    """File name -> content for the merge's models and properties."""
    validate_merge(opts)
    n = opts.name
    rels = [("base", opts.base), ("ours", opts.ours), ("theirs", opts.theirs)]
    common = rels + [("primary_key", jinja_literal(list(opts.primary_key)))]
    shared = {
        "columns": list(opts.columns) or None,
        "exclude_columns": list(opts.exclude_columns) or None,
        "normalize": opts.normalize or None,
    }
    schema_kwargs = common + [(k, jinja_literal(v)) for k, v in shared.items() if v is not None]
    schema_kwargs.append(("on_schema_conflict", jinja_literal(opts.on_schema_conflict)))
    cand_optional = {
        **shared,
        "table_filter": opts.table_filter,
        "leaf_count": opts.leaf_count,
        "strategy": opts.strategy,
        "on_schema_conflict": opts.on_schema_conflict,
    }
    cand_kwargs = common + [
        (k, jinja_literal(v)) for k, v in cand_optional.items() if v is not None
    ]

    def call(macro: str, kwargs: list[tuple[str, str]]) -> str:
        args = ",\n    ".join(f"{k}={v}" for k, v in kwargs)
        return f"{{{{ table_diff.{macro}(\n    {args}\n) }}}}\n"

    header = (
        f"-- table_diff merge '{n}', written by `table-diff scaffold merge`.\n"
        f"{{{{ config(materialized='{MATERIALIZATION}') }}}}\n"
    )

    def model(doc: str, macro: str, kwargs: list[tuple[str, str]]) -> str:
        return header + f"-- {doc}.\n" + call(macro, kwargs)

    python = opts.classify == "python"
    # The outputs read the classified model (Python) or classify the candidates inline (SQL).
    cand = ("candidates", f"ref('{n}__merge_{'classified' if python else 'candidates'}')")
    schema = ("schema", f"ref('{n}__merge_schema')")
    constraints = (
        [("constraints", jinja_literal(list(opts.constraints)))] if opts.constraints else []
    )
    merged_kwargs = [cand, ("ours", opts.ours), schema]
    if opts.table_filter is not None:
        merged_kwargs.append(("table_filter", jinja_literal(opts.table_filter)))
    files = {
        f"{n}__merge_schema.sql": header + call("merge_schema_table", schema_kwargs),
        f"{n}__merge_candidates.sql": header
        + "-- Options of the merge live here and in the schema model (keep them in step).\n"
        + call("merge_candidates", cand_kwargs),
        f"{n}__merge.sql": model("One row per changed key", "merge_rows", [cand]),
        f"{n}__merged.sql": model("The merged table", "merged_rows", merged_kwargs),
        f"{n}__merge_violations.sql": model(
            "Constraint and key violations of the merged table",
            "merge_violations",
            [
                ("merged", f"ref('{n}__merged')"),
                ("primary_key", jinja_literal(list(opts.primary_key))),
                *constraints,
            ],
        ),
        f"{n}__merge_summary.sql": model(
            "One-row summary",
            "merge_summary",
            [cand, schema, ("violations", f"ref('{n}__merge_violations')"), *constraints],
        ),
        f"_{n}__merge_models.yml": _properties_yml(opts),
    }
    if python:
        files[f"{n}__merge_classified.py"] = _classified_model(opts)
    if opts.materialize_conflicts:
        files[f"{n}__conflicts.sql"] = model(
            "Conflicting keys with every side's values", "merge_conflicts", [cand]
        )
    return files


def _classified_model(opts: MergeOptions) -> str:
    n = opts.name
    resolve = f"        resolve={opts.resolve!r},\n" if opts.resolve else ""
    return (
        f'"""table_diff merge \'{n}\': the classification of its candidates (written by '
        "`table-diff scaffold merge`).\n\n"
        "A Python model: dbt-spark method session (with dbt-table-diff) or Databricks. For the "
        "Spark\nThrift Server, scaffold the merge with --classify sql (no --resolve there).\n"
        '"""\n\n\n'
        "def model(dbt, session):\n"
        f'    dbt.config(materialized="{MATERIALIZATION}")\n'
        "    from dbt_table_diff.merge_classify import classify\n\n"
        "    return classify(\n"
        f'        session,\n        dbt.ref("{n}__merge_candidates"),\n        merge="{n}",\n'
        f"{resolve}    )\n"
    )


def _properties_yml(opts: MergeOptions) -> str:
    n = opts.name
    resolutions = (
        "\n      Keys resolved by a policy are listed too, resolved = true, with `resolutions`:\n"
        "      one struct per resolved cell (column_name, policy, base, ours, theirs, chosen,\n"
        "      as text)."
        if opts.resolve
        else ""
    )
    conflicts = (
        f"""  - name: {n}__conflicts
    description: >
      Conflicting keys of merge {n}: key, conflict_type (update_update, update_delete,
      delete_update, insert_insert), in_base / in_ours / in_theirs, and base__ / ours__ / theirs__
      values of every merged column. The merged table keeps ours for these keys.{resolutions}
"""
        if opts.materialize_conflicts
        else ""
    )
    classified = (
        f"""  - name: {n}__merge_classified
    description: >
      The candidates of merge {n} classified (a Python model, ADR 0040): merge_status,
      conflict_type, td_merged_from{
            ", and the resolution of conflicting cells by the policies "
            + "(td_resolutions, resolved__<column>)"
            if opts.resolve
            else ""
        }. Every output reads it.
"""
        if opts.classify == "python"
        else ""
    )
    resolved = (
        """      - name: resolved
        description: Keys whose every conflicting cell a resolution policy resolved.
      - name: resolved_cells
        description: Cells resolved by a policy.
"""
        if opts.resolve
        else ""
    )
    return f"""version: 2

# table_diff merge '{n}': base {opts.base}, ours {opts.ours}, theirs {opts.theirs},
# key {", ".join(opts.primary_key)}.
models:
  - name: {n}__merge_schema
    description: >
      Schema phase of merge {n}: one row per column with its type on each side, the status
      (unchanged, added_*, dropped_*, type_changed_*, type_conflict), the merged type, and
      schema_conflict / reason. A conflict fails the build unless on_schema_conflict is 'report'.
    columns:
      - name: position
        description: Position of the column (base order, then columns added on a side).
      - name: column_name
        description: The column.
      - name: status
        description: unchanged, added_*, dropped_*, type_changed_* or type_conflict.
      - name: base_type
        description: Type in base (NULL when absent).
      - name: ours_type
        description: Type in ours (NULL when absent).
      - name: theirs_type
        description: Type in theirs (NULL when absent).
      - name: merged_type
        description: Type of the column in the merged table (NULL when dropped or in conflict).
      - name: reason
        description: Why a schema conflict is one (NULL otherwise).
      - name: schema_conflict
        description: True when the column's changes conflict.
  - name: {n}__merge_candidates
    description: >
      Rows of merge {n} from the hash leaves whose signatures differ between base and ours or base
      and theirs: key, presence flags, changed-column arrays and base__ / ours__ / theirs__ values.
      Unchanged leaves are never fetched.
{classified}  - name: {n}__merge
    description: >
      One row per changed key of merge {n}: merge_status (ours_only, theirs_only, convergent,
      cell_merged, conflict{", resolved" if opts.resolve else ""}), conflict_type, and
      ours_changed / theirs_changed (columns changed from base, table order; all columns for an
      insert or a delete).
    data_tests:
      # Fails (as a warning; set severity: error to fail the build) on every conflicting key and
      # every schema conflict of the merge.
      - table_diff.no_merge_conflicts:
          name: {n}__no_merge_conflicts
          arguments:
            merge_schema: ref('{n}__merge_schema')
          config:
            severity: warn
    columns:
      - name: merge_status
        description: ours_only, theirs_only, convergent, cell_merged or conflict.
      - name: conflict_type
        description: update_update, update_delete, delete_update or insert_insert; NULL otherwise.
      - name: ours_changed
        description: Columns ours changed from base, in table order.
      - name: theirs_changed
        description: Columns theirs changed from base, in table order.
  - name: {n}__merged
    description: >
      The merged table of merge {n}: ours rows of unchanged keys plus the resolved changed keys
      (clean merges applied, conflicts keep ours), over the key and the merged columns. Empty when
      a schema conflict was reported.
{conflicts}  - name: {n}__merge_violations
    description: >
      Rows of {n}__merged that break a constraint ({"; ".join(opts.constraints) or "none given"}),
      a NULL key component ('key not null') or key uniqueness ('unique key').
    columns:
      - name: violation
        description: The constraint the row breaks ('key not null', 'unique key' or a --constraint).
  - name: {n}__merge_summary
    description: >
      One-row summary of merge {n}: keys checked, counts per merge status and conflict type,
      duplicate keys, schema conflicts, constraint violations, is_clean.
    columns:
      - name: keys_checked
        description: Keys whose rows were read in full (those of changed leaves).
      - name: unchanged
        description: Checked keys that no side changed.
      - name: ours_only
        description: Keys only ours changed (ours taken).
      - name: theirs_only
        description: Keys only theirs changed (theirs taken).
      - name: convergent
        description: Keys both sides changed the same way.
      - name: cell_merged
        description: Keys both sides changed in different cells (merged cell by cell).
      - name: conflict
        description: Conflicting keys (ours kept).
      - name: update_update
        description: Conflicts where both sides changed the same cell differently.
      - name: update_delete
        description: Conflicts where ours updated and theirs deleted.
      - name: delete_update
        description: Conflicts where ours deleted and theirs updated.
      - name: insert_insert
        description: Conflicts where both sides inserted the key with different values.
      - name: duplicate_keys
        description: Keys stored more than once on a side.
      - name: changed_keys
        description: Keys changed on either side.
      - name: schema_conflicts
        description: Columns in schema conflict.
      - name: schema_conflict_columns
        description: Names of the columns in schema conflict.
      - name: constraint_violations
        description: Rows of the merged table that break a constraint.
      - name: constraints
        description: The constraints checked.
      - name: is_clean
        description: True when no conflict, schema conflict or violation was found.
{resolved}"""


# Models an earlier version wrote as Python (dbt_table_diff.merge): now SQL of the same names.
_FORMER_PYTHON_MODELS = ("merge", "merged", "conflicts", "merge_violations", "merge_summary")


def write_merge(opts: MergeOptions, directory: Path, *, force: bool = False) -> list[Path]:
    """Write the merge's files into ``directory``; refuse to overwrite unless ``force``.

    A merge scaffolded before its models were SQL has ``NAME__merge.py`` etc. (dbt refuses two
    models of one name): those count as files to overwrite, and are removed once the SQL is
    written; so does ``NAME__merge_classified.py`` when the merge is now ``classify='sql'``."""
    files = render_merge(opts)
    former = [Path(directory) / f"{opts.name}__{m}.py" for m in _FORMER_PYTHON_MODELS]
    former = [p for p in former if p.exists()]
    classified = Path(directory) / f"{opts.name}__merge_classified.py"
    if opts.classify == "sql" and classified.exists():
        if not force:
            raise ScaffoldError(
                f"refusing to overwrite {classified} (the merge's Python classification, now "
                "--classify sql). Pass --force to remove it."
            )
        former.append(classified)
    if former and not force:
        raise ScaffoldError(
            f"refusing to overwrite {', '.join(str(p) for p in former)} (Python models of an "
            "earlier version, now SQL). Pass --force to replace them."
        )
    written = write_files(files, directory, force=force)
    for path in former:
        path.unlink()
    return written
