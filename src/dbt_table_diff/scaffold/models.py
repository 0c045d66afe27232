"""The model files of one pair: each SQL model a single macro call, the split step a Python model
calling :func:`dbt_table_diff.split.block_split` (``split='python'``, the default: dbt-spark
``method: session`` with this package's submission method, or Databricks) or, with
``split='sql'``, a SQL model calling the macro ``table_diff.block_split``, which writes the same
rows and runs wherever SQL runs: the Spark Thrift Server, which cannot run Python models (ADR 0025).

Options go to the ranges model only: it stores the resolved spec with its leaves and every
downstream model reads it from there, so the options of a pair cannot drift apart.
"""

from __future__ import annotations

from dbt_table_diff.scaffold.files import MATERIALIZATION, jinja_literal
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.properties import properties_yml

MODEL_SUFFIXES = ("ranges", "block_hashes", "block_split", "row_diff", "column_stats", "summary")


def pair_files(opts: PairOptions) -> dict[str, str]:
    """File name -> content for the models and properties of one pair (one target), its options
    already checked (:func:`dbt_table_diff.scaffold.options.validate`)."""
    n = opts.name
    header = pair_header(n)
    files = {
        f"{n}__ranges.sql": ranges_file(opts),
        f"{n}__block_hashes.sql": block_hashes_file(opts),
        f"{n}__row_diff.sql": header
        + "{{ table_diff.row_diff(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_split=ref('{n}__block_split'),\n"
        + f"    source={opts.source},\n    target={opts.target}"
        + (f",\n    file_hashes=ref('{n}__file_hashes')" if opts.track else "")
        + "\n) }}\n",
        f"{n}__column_stats.sql": header
        + "{{ table_diff.column_stats(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes'),\n"
        + f"    block_split=ref('{n}__block_split'),\n    row_diff=ref('{n}__row_diff')"
        + "\n) }}\n",
        f"{n}__summary.sql": header
        + "{{ table_diff.diff_summary(\n"
        + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes'),\n"
        + f"    block_split=ref('{n}__block_split'),\n    row_diff=ref('{n}__row_diff')"
        + (f",\n    file_hashes=ref('{n}__file_hashes')" if opts.track else "")
        + f",\n    column_stats=ref('{n}__column_stats')"
        + "\n) }}\n",
        f"_{n}__models.yml": properties_yml(opts),
    }
    files.update(_split_file(opts, header))
    if opts.track:
        files[f"{n}__file_hashes.sql"] = (
            header
            + "-- The pair's changes track: per-file signatures kept between runs (ADR 0019).\n"
            + "{{ table_diff.file_hashes(\n"
            + f"    ranges=ref('{n}__ranges'),\n"
            + f"    source={opts.source},\n    target={opts.target}\n) }}}}\n"
        )
    if opts.repair:
        files[f"{n}__repair.sql"] = (
            header
            + "-- Nothing is written to a side until you run:\n"
            + f'--   dbt run-operation table_diff.apply_repair --args "{{pair: {n}}}"\n'
            + "{{ table_diff.repair_rows(\n"
            + f"    ranges=ref('{n}__ranges'),\n    row_diff=ref('{n}__row_diff'),\n"
            + f"    summary=ref('{n}__summary'),\n"
            + f"    source={opts.source},\n    target={opts.target},\n"
            + f"    direction={jinja_literal(opts.repair)}\n) }}}}\n"
        )
    return files


def ranges_file(opts: PairOptions) -> str:
    """NAME__ranges: the one model that takes the options (``target`` a list for a replica set)."""
    kwargs = [
        ("source", opts.source),
        ("target", _targets(opts)),
        ("primary_key", jinja_literal(list(opts.primary_key))),
    ]
    optional = {
        "columns": list(opts.columns) or None,
        "exclude_columns": list(opts.exclude_columns) or None,
        "table_filter": opts.table_filter,
        "strategy": opts.strategy,
        "block_count": opts.block_count,
        "block_size": opts.block_size,
        "split_factor": opts.split_factor,
        "compare_unit_size": opts.compare_unit_size,
        "max_depth": opts.max_depth,
        "max_diff_rows": opts.max_diff_rows,
        "normalize": opts.normalize or None,
        "check_duplicate_keys": opts.check_duplicate_keys,
        "quick_check": opts.quick_check,
        "keys_only": opts.keys_only,
        "source_as_of": opts.source_as_of,
        "target_as_of": opts.target_as_of,
        "track": opts.track,
        "column_map": opts.column_map or None,
        "tolerance": opts.tolerance or None,
    }
    kwargs += [(k, jinja_literal(v)) for k, v in optional.items() if v is not None]
    args = ",\n    ".join(f"{k}={v}" for k, v in kwargs)
    return (
        pair_header(opts.name)
        + "-- Options of the pair live here; downstream models read them from this table.\n"
        + f"{{{{ table_diff.key_ranges(\n    {args}\n) }}}}\n"
    )


def block_hashes_file(opts: PairOptions) -> str:
    """NAME__block_hashes: one signature pass over the source and the target(s)."""
    return (
        pair_header(opts.name)
        + "{{ table_diff.block_hashes(\n"
        + f"    ranges=ref('{opts.name}__ranges'),\n"
        + f"    source={opts.source},\n    target={_targets(opts)}"
        + (f",\n    file_hashes=ref('{opts.name}__file_hashes')" if opts.track else "")
        + "\n) }}\n"
    )


def pair_header(n: str) -> str:
    # Tables, whatever the project's default: downstream models read ranges and units by value, and
    # a view would re-run the sample and the scans on every read. The package's table
    # materialization writes Delta when the session has it (var table_diff_file_format, ADR 0015):
    # a killed build then leaves the last result readable, which the summary records by version.
    return (
        f"-- table_diff pair '{n}', written by `table-diff scaffold pair`.\n"
        f"{{{{ config(materialized='{MATERIALIZATION}') }}}}\n"
    )


def _targets(opts: PairOptions) -> str:
    """The ``target`` argument: the relation, or a replica set's list of them."""
    return f"[{', '.join(opts.replicas)}]" if opts.replicas else opts.target


def _split_file(opts: PairOptions, header: str) -> dict[str, str]:
    """The split step's model: the Python model, or with ``split='sql'`` the SQL macro's."""
    n = opts.name
    if opts.split == "sql":
        return {
            f"{n}__block_split.sql": header
            + "-- The split step in SQL (--split sql): runs on any target, the Thrift Server too.\n"
            + "{{ table_diff.block_split(\n"
            + f"    ranges=ref('{n}__ranges'),\n    block_hashes=ref('{n}__block_hashes')\n) }}}}\n"
        }
    return {
        f"{n}__block_split.py": (
            f'"""table_diff pair \'{n}\': recursive split of mismatched blocks '
            "(written by `table-diff scaffold pair`).\n\n"
            "A Python model: dbt-spark method session (with dbt-table-diff) or Databricks. For the "
            "Spark\nThrift Server, scaffold the pair with --split sql.\n"
            '"""\n\n\n'
            "def model(dbt, session):\n"
            f'    dbt.config(materialized="{MATERIALIZATION}")\n'
            "    from dbt_table_diff.split import block_split\n\n"
            "    return block_split(\n"
            f'        session, dbt.ref("{n}__ranges"), dbt.ref("{n}__block_hashes")\n'
            "    )\n"
        )
    }
