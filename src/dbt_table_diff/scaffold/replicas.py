"""``table-diff scaffold pair NAME --source S --target R1 --target R2 ...``: a replica set.

One source, several replicas, one signature pass (ADR 0028): the shared ``NAME__ranges`` and
``NAME__block_hashes`` (the source read once, each replica once), per replica R the pair's own
models ``NAME__R__*`` (``NAME__R__ranges`` and ``NAME__R__block_hashes`` are the shared ones'
rows for R: no scan), and ``NAME__summary`` / ``NAME__row_diff`` with every replica's rows.
"""

from __future__ import annotations

from dataclasses import replace

from dbt_table_diff.scaffold.models import (
    block_hashes_file,
    pair_files,
    pair_header,
    ranges_file,
)
from dbt_table_diff.scaffold.options import PairOptions, replica_name
from dbt_table_diff.scaffold.properties import replica_set_yml


def render_replica_set(opts: PairOptions) -> dict[str, str]:
    """A replica set (ADR 0028): the shared ranges and block_hashes (the source read once), then
    per replica R the pair's models NAME__R__*, whose ranges and block_hashes are the shared
    ones' rows for R, and NAME__summary / NAME__row_diff with every replica's rows."""
    n, header = opts.name, pair_header(opts.name)
    names = [replica_name(t) for t in opts.replicas]
    files = {
        f"{n}__ranges.sql": ranges_file(opts),
        f"{n}__block_hashes.sql": block_hashes_file(opts),
    }
    for name, expr in zip(names, opts.replicas, strict=True):
        sub = f"{n}__{name}"
        # Each replica's pair passes the set's checks (options.validate_replicas).
        files.update(pair_files(replace(opts, name=sub, target=expr, replicas=())))
        files[f"{sub}__ranges.sql"] = (
            pair_header(sub)
            + f"-- The leaves of {n}__ranges with replica {name}'s own pair spec.\n"
            + "{{ table_diff.replica_ranges(\n"
            + f"    ranges=ref('{n}__ranges'),\n    replica='{name}'\n) }}}}\n"
        )
        files[f"{sub}__block_hashes.sql"] = (
            pair_header(sub)
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
