"""``table-diff scaffold pair``: write the thin model files of a two-way diff pipeline, for one
target (:mod:`dbt_table_diff.scaffold.models`) or a replica set
(:mod:`dbt_table_diff.scaffold.replicas`)."""

from __future__ import annotations

from pathlib import Path

from dbt_table_diff.scaffold.args import ScaffoldError
from dbt_table_diff.scaffold.files import write_files
from dbt_table_diff.scaffold.models import pair_files
from dbt_table_diff.scaffold.options import PairOptions, validate
from dbt_table_diff.scaffold.replicas import render_replica_set


def render_pair(opts: PairOptions) -> dict[str, str]:
    """File name -> content for the pair's models and properties."""
    validate(opts)
    if opts.replicas:
        return render_replica_set(opts)
    return pair_files(opts)


def write_pair(opts: PairOptions, directory: Path, *, force: bool = False) -> list[Path]:
    """Write the pair's files into ``directory``; refuse to overwrite unless ``force``.

    The split step is one model in either language: scaffolding with the other ``split`` replaces
    ``NAME__block_split.py`` by ``.sql`` or back (dbt refuses two models of one name), so the file
    of the other language counts as one to overwrite."""
    files = render_pair(opts)
    other = Path(directory) / f"{opts.name}__block_split.{'py' if opts.split == 'sql' else 'sql'}"
    if other.exists() and not force:
        raise ScaffoldError(
            f"refusing to overwrite {other} (the split step, now --split {opts.split}). "
            "Pass --force to replace it."
        )
    written = write_files(files, directory, force=force)
    if other.exists():
        other.unlink()
    return written
