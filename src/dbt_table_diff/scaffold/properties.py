"""The properties file a scaffolded pair gets: what `dbt docs` shows for each of its models.

Every model and every stored column has a description, so the lineage source/target -> ranges ->
block_hashes -> block_split -> row_diff -> column_stats -> summary (-> repair) explains itself in
`dbt docs`.
"""

from __future__ import annotations

import json

from dbt_table_diff.scaffold.options import PairOptions


def properties_yml(opts: PairOptions) -> str:
    """``_NAME__models.yml`` of a pair (with its repair model when scaffolded)."""
    return (
        _properties_yml(opts)
        + (_track_yml(opts) if opts.track else "")
        + (_repair_yml(opts) if opts.repair else "")
    )


def _track_yml(opts: PairOptions) -> str:
    n = opts.name
    columns = _column_entries(
        [
            ("side", "'source' or 'target'."),
            ("file_path", "The data file (NULL for a side with no file identity, hashed whole)."),
            ("file_size", "Its size in bytes when hashed."),
            ("file_modified", "Its modification time when hashed."),
            ("file_rows", "Its live rows after table_filter (Delta deletion vectors applied)."),
            ("leaf_id", "Leaf of the pair's ranges."),
            ("n_rows", "Rows of the file in the leaf."),
            ("n_keys", "Same as n_rows (distinct keys do not add up over files)."),
            ("n_null_key_rows", "Rows of the file in the leaf with a NULL key component."),
            ("h1_hi", "Sum of the high 32 bits of the rows' first hash."),
            ("h1_lo", "Sum of the low 32 bits of the rows' first hash."),
            ("h2_hi", "Sum of the high 32 bits of the rows' second hash."),
            ("h2_lo", "Sum of the low 32 bits of the rows' second hash."),
            ("rehashed", "True when this run read the file; false when the row was reused."),
            ("hashed_whole_because", "Why this run hashed the side whole (NULL: changes only)."),
            ("state_rows", "Rows of this table when written (a shorter table is incomplete)."),
            ("layout_id", "The leaf layout the signatures belong to."),
            ("run_id", "The run of the pair."),
            ("started_at", "When this run's hashing started."),
        ]
    )
    return f"""  - name: {n}__file_hashes
    description: >
      Changes track of pair {n}: per side, data file and leaf, the file's share of the leaf's
      signature. Kept between runs; a run hashes only files that are new or changed (path, size,
      modification time, live rows) and reuses the rest, so {n}__block_hashes is a sum over it.
    columns:
{columns}"""


def _repair_yml(opts: PairOptions) -> str:
    n = opts.name
    side = "target" if opts.repair == "source_to_target" else "source"
    return f"""  - name: {n}__repair
    description: >
      Actions that make the {side} of pair {n} equal to the other side, one row each: delete,
      insert (the full row) or update (the changed columns). Nothing is written until
      `dbt run-operation table_diff.apply_repair --args "{{pair: {n}}}"`, which checks that the
      pair's last run is complete and the {side} unchanged since, then writes it (MERGE INTO on
      Delta Lake and Iceberg: one commit).
    columns:
      - name: repair_action
        description: delete, insert or update.
      - name: changed_columns
        description: For update, the columns it sets; the others keep their value.
      - name: repair_direction
        description: {opts.repair}.
"""


# Every column of NAME__summary (macros/diff/diff_summary.sql), as `dbt docs` shows it.
SUMMARY_COLUMNS = (
    ("source_relation", "The source side (relation or `ref`)."),
    ("target_relation", "The target side."),
    ("rows_source", "Rows of the source (after table_filter)."),
    ("rows_target", "Rows of the target (after table_filter)."),
    ("blocks_total", "Level-0 blocks of the layout."),
    ("blocks_mismatched", "Level-0 blocks whose signatures differ (or hold duplicate keys)."),
    ("leaves_total", "Leaves (finest blocks) of the layout."),
    ("units_mismatched", "Compare units the split step produced."),
    ("rows_added", "Rows only in the target."),
    ("rows_deleted", "Rows only in the source."),
    ("rows_modified", "Keys on both sides whose compared columns differ."),
    ("duplicate_key_rows", "Rows of keys stored more than once on a side."),
    ("null_key_rows_source", "Source rows with a NULL key component."),
    ("null_key_rows_target", "Target rows with a NULL key component."),
    ("max_diff_rows", "The limit of differing rows kept."),
    ("max_diff_rows_reached", "Whether the limit was reached (same as is_partial)."),
    ("is_partial", "True when max_diff_rows stopped the diff early; counts are then lower bounds."),
    ("is_identical", "True when no row differs (and no side changed during the run)."),
    ("source_changed_during_run", "The source was written while the pair ran (NULL: unknown)."),
    ("target_changed_during_run", "The target was written while the pair ran (NULL: unknown)."),
    ("status", "complete, partial or changed_during_run."),
    ("key_columns", "The primary key columns."),
    ("columns_compared", "The non-key columns compared, in table order."),
    (
        "column_map",
        "The pair's column_map as JSON (target column -> source column), NULL without one.",
    ),
    ("keys_only", "True when only key existence was compared."),
    ("strategy", "range or hash."),
    ("hash_spec_version", "Version of the row fingerprint."),
    ("run_id", "The run of the pair (the invocation that built its ranges)."),
    *(
        (
            f"{model}_version",
            f"Delta version of the {model} table this summary was computed from: read it at this"
            " version (table_diff.pair_output, ADR 0015); NULL without versions.",
        )
        for model in ("ranges", "block_hashes", "block_split", "row_diff", "column_stats")
    ),
    ("source_format", "Table format of the source (delta, iceberg, parquet, ...)."),
    ("source_version", "Version of the source every pass read (NULL without versions)."),
    ("target_format", "Table format of the target."),
    ("target_version", "Version of the target every pass read."),
    *(
        (f"track_{what}_{side}", f"Changes track: {text} {side} (NULL without a track).")
        for side in ("source", "target")
        for what, text in (
            ("hashed_whole", "why this run hashed the whole"),
            ("files_hashed", "data files this run read of the"),
            ("files_reused", "data files whose stored signatures were reused, of the"),
            ("bytes_hashed", "bytes of the files read, of the"),
            ("bytes_reused", "bytes of the files not read, of the"),
        )
    ),
    ("track_leaves_recomputed", "Changes track: leaves (per side) with a new contribution."),
    ("track_leaves_reused", "Changes track: leaves (per side) entirely from stored signatures."),
    ("generated_at", "When the summary was built."),
)


# Every column of NAME__column_stats (macros/diff/column_stats.sql).
COLUMN_STATS_COLUMNS = (
    ("column_name", "A compared column."),
    ("column_position", "Its position among the compared columns (table order, from 1)."),
    ("rows_changed", "Modified rows in which it changed (at least this many when is_partial)."),
    (
        "matched_keys",
        "Keys stored exactly once on each side (unchanged + modified); NULL when is_partial.",
    ),
    ("changed_share", "rows_changed / matched_keys (0 to 1); NULL when is_partial or no key."),
    ("is_partial", "True when max_diff_rows cut the row diff short: the counts are incomplete."),
    ("run_id", "The run of the pair these statistics belong to."),
)


# Columns the shared models of a replica set (ADR 0028) add to, or describe differently from, a
# pair's: NAME__ranges and NAME__block_hashes keep the pair's columns.
RANGES_COLUMNS = (
    ("leaf_id", "Leaf number, in key order for strategy range."),
    ("block_id", "Level-0 block holding the leaf."),
    ("lower_bound", "Smallest key of the leaf (inclusive); NULL for leaf 0 and for strategy hash."),
    ("upper_bound", "Lower bound of the next leaf (exclusive); NULL for the last leaf."),
    ("spec", "JSON of the resolved options, column types, block layout and replicas."),
    ("run_id", "The run (the invocation that built this table); every model of the set has it."),
)
BLOCK_HASH_COLUMNS = (
    ("leaf_id", "Leaf of the ranges; NULL for a whole-table row of the quick check."),
    ("n_rows", "Rows of the side in the leaf."),
    ("n_keys", "Distinct keys of the side in the leaf (fewer than n_rows: duplicate keys)."),
    ("n_null_key_rows", "Rows whose key has a NULL component."),
    ("h1_hi", "Sum of the high 32 bits of the rows' first 64-bit hash (exact, no overflow)."),
    ("h1_lo", "Sum of the low 32 bits of the rows' first 64-bit hash."),
    ("h2_hi", "Sum of the high 32 bits of the rows' second 64-bit hash."),
    ("h2_lo", "Sum of the low 32 bits of the rows' second 64-bit hash."),
    ("run_id", "The run of the ranges this pass belongs to."),
    ("started_at", "When the block pass started (a side written after it is flagged)."),
)
TARGET_NAME = ("target_name", "The replica the row belongs to (its table's name).")


def replica_set_yml(opts: PairOptions, names: list[str]) -> str:
    """``_NAME__models.yml`` of a replica set: its shared models (each replica's pair models are
    documented in ``_NAME__REPLICA__models.yml``)."""
    n = opts.name
    replicas = ", ".join(f"{n}__{r}" for r in names)
    row_diff = [
        TARGET_NAME,
        ("diff_type", "added, deleted, modified or duplicate_key."),
        ("side", "Where the row is (source, target, or both for modified)."),
        ("changed_columns", "Compared columns whose values differ, in table order."),
        ("changed_paths", "Where inside each changed column: paths such as items[3].price."),
        ("run_id", "The run of the set these rows belong to."),
        *((k, "Key column (from the side the row is on).") for k in opts.primary_key),
    ]
    return f"""version: 2

# table_diff replica set '{n}': {opts.source} (source) vs {", ".join(opts.replicas)} (ADR 0028).
models:
  - name: {n}__ranges
    description: >
      Key ranges shared by every replica of set {n}: one leaf layout, planned from one sample.
      `spec` holds the resolved options and each replica's own pair spec.
    columns:
{_column_entries(list(RANGES_COLUMNS))}  - name: {n}__block_hashes
    description: >
      One signature pass over the source and each replica of set {n} (the source read once):
      per leaf and side, the pair's signatures. The replicas' pair models ({replicas}) read
      their rows from here.
    columns:
      - name: side
        description: "'source', or the replica's side in the spec (target_1, target_2, ...)."
{_column_entries(list(BLOCK_HASH_COLUMNS))}  - name: {n}__row_diff
    description: >
      The differing rows of every replica of set {n}: each replica's row diff, with its name.
    columns:
{_column_entries(row_diff)}  - name: {n}__summary
    description: >
      One row per replica of set {n}: that replica's pair summary, with its name.
    columns:
{_column_entries([TARGET_NAME, *SUMMARY_COLUMNS])}"""


def _column_entries(columns: list[tuple[str, str]]) -> str:
    return "".join(
        f"      - name: {name}\n        description: {json.dumps(text)}\n" for name, text in columns
    )


def _properties_yml(opts: PairOptions) -> str:
    n, src, tgt = opts.name, opts.source, opts.target
    row_diff = [(k, "Key column (from the side the row is on).") for k in opts.primary_key]
    for c in opts.columns:  # the compared columns, when the scaffold knows them
        row_diff.append((f"source__{c}", f"{c} on the source (NULL for added rows)."))
        row_diff.append((f"target__{c}", f"{c} on the target (NULL for deleted rows)."))
    row_diff_columns = _column_entries(row_diff)
    summary_columns = _column_entries(list(SUMMARY_COLUMNS))
    limits = "".join(
        f"            {k}: {json.dumps(v) if isinstance(v, str) else v}\n"
        for k, v in opts.limits.items()
    )
    summary_tests = (
        "    data_tests:\n"
        "      # Fails on any differing row beyond the limits per kind (max_added / max_deleted /\n"
        "      # max_modified / max_duplicate_key_rows: unset = 0), read from the row diff.\n"
        "      - table_diff.pair_matches:\n"
        "          arguments:\n"
        f"            row_diff: ref('{n}__row_diff')\n" + limits
        if opts.test
        else ""
    )
    return f"""version: 2

# table_diff pair '{n}': {src} (source) vs {tgt} (target), key {", ".join(opts.primary_key)}.
models:
  - name: {n}__ranges
    description: >
      Key ranges of pair {n}: one row per leaf (finest block). Leaf 0 is open below, the last
      leaf open above; bounds are half-open, so each row of either side belongs to one leaf.
      `spec` holds the resolved options every downstream model of the pair uses.
    columns:
      - name: leaf_id
        description: Leaf number, in key order for strategy range.
      - name: block_id
        description: Level-0 block holding the leaf.
      - name: lower_bound
        description: Smallest key of the leaf (inclusive); NULL for leaf 0 and for strategy hash.
      - name: upper_bound
        description: Lower bound of the next leaf (exclusive); NULL for the last leaf.
      - name: spec
        description: JSON of the resolved options, column types and block layout.
      - name: run_id
        description: The run (the invocation that built this table); every model of the pair has it.
  - name: {n}__block_hashes
    description: >
      One pass over each side of pair {n}: per leaf and side, row count, distinct keys, rows with a
      NULL key component, and overflow-safe sums of the two 64-bit halves of every row's
      fingerprint. When the quick check ran: one whole-table row per side (leaf_id NULL) instead,
      and no leaf pass (identical sides; or different ones, every block then a unit: ADR 0020).
    columns:
      - name: side
        description: "'source' or 'target'."
      - name: leaf_id
        description: Leaf of {n}__ranges; NULL for a whole-table row of the quick check.
      - name: n_rows
        description: Rows of the side in the leaf.
      - name: n_keys
        description: Distinct keys of the side in the leaf (fewer than n_rows means duplicate keys).
      - name: n_null_key_rows
        description: Rows whose key has a NULL component.
      - name: h1_hi
        description: Sum of the high 32 bits of the rows' first 64-bit hash (exact, no overflow).
      - name: h1_lo
        description: Sum of the low 32 bits of the rows' first 64-bit hash.
      - name: h2_hi
        description: Sum of the high 32 bits of the rows' second 64-bit hash.
      - name: h2_lo
        description: Sum of the low 32 bits of the rows' second 64-bit hash.
      - name: run_id
        description: The run of {n}__ranges this pass belongs to.
      - name: started_at
        description: When the block pass started (a side written after it is flagged).
  - name: {n}__block_split
    description: >
      Compare units of pair {n}: blocks whose signatures differ (or hold duplicate keys), split
      recursively by the split factor until small enough. `selected` is false for units left out
      once max_diff_rows was reached.
    columns:
      - name: unit_id
        description: Unit number in key order.
      - name: level
        description: Tree level of the unit (0 = level-0 block).
      - name: block_id
        description: Block number of the unit at its level.
      - name: level0_block_id
        description: Level-0 block holding the unit.
      - name: leaf_lo
        description: First leaf of the unit.
      - name: leaf_hi
        description: Last leaf of the unit (inclusive).
      - name: reason
        description: >
          mismatch, duplicate_keys or both; whole_table when the quick check found drift (every
          block a unit).
      - name: source_rows
        description: Source rows in the unit (NULL for a whole_table unit).
      - name: target_rows
        description: Target rows in the unit (NULL for a whole_table unit).
      - name: selected
        description: Whether the row diff fetched this unit's rows.
      - name: run_id
        description: The run of {n}__ranges this split belongs to.
  - name: {n}__row_diff
    description: >
      Rows of pair {n} that differ, fetched only from the compare units: added (only in target),
      deleted (only in source), modified (with changed_columns) and duplicate_key rows.
    columns:
      - name: diff_type
        description: added, deleted, modified or duplicate_key.
      - name: side
        description: Where the row is (source, target, or both for modified).
      - name: changed_columns
        description: Compared columns whose values differ, in table order (modified rows).
      - name: changed_paths
        description: >
          Where inside each changed column the values differ (items[3].price, attrs['color'],
          a flat column's own name), in table order, at most var table_diff_changed_paths_limit.
      - name: run_id
        description: The run of {n}__ranges these rows belong to.
{row_diff_columns}  - name: {n}__column_stats
    description: >
      Per compared column of pair {n}, in table order: in how many modified rows it changed and
      the share of the matched keys (keys stored exactly once on each side, NULL keys included)
      that changed in it. Read from {n}__row_diff and the block counts, no scan of a side. When
      is_partial (max_diff_rows reached), rows_changed is only a lower bound and the share NULL.
    columns:
{_column_entries(list(COLUMN_STATS_COLUMNS))}  - name: {n}__summary
    description: >
      One-row summary of pair {n}: rows per side, blocks total and mismatched, added / deleted /
      modified / duplicate-key / NULL-key counts, whether the result is partial, run id.
{summary_tests}    columns:
{summary_columns}"""
