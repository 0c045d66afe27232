"""The brute-force side of the `table-diff changes` tests: two schemas' tables diffed in Python
(by key: added / deleted / modified keys and the rows each column changed in; without a key: rows
only on one side, repeats counted), the prod and pr targets of the profile, and the session's
runtime confs put back after a dbt run."""

from __future__ import annotations

from collections import Counter
from typing import Any

import yaml
from conftest import restored_runtime_conf


def restored_conf(spark):
    """dbt-spark sets runtime confs (ANSI off) on the shared session: put them back after."""
    return restored_runtime_conf(spark)


def prod_and_pr_targets(project) -> None:
    """The project's profile gains targets `prod` and `pr` (its schema + `_prod`, `_pr`), `pr`
    the default: production and a pull request's build of the same project, side by side."""
    path = project.root / "profiles.yml"
    profile = yaml.safe_load(path.read_text())
    profile_name = next(iter(profile))
    output = profile[profile_name]["outputs"].pop("pytest")
    for name in ("prod", "pr"):
        profile[profile_name]["outputs"][name] = {**output, "schema": f"{project.schema}_{name}"}
    profile[profile_name]["target"] = "pr"
    path.write_text(yaml.safe_dump(profile, sort_keys=False))


def table(spark, schema: str, name: str) -> list[dict[str, Any]]:
    return [r.asDict() for r in spark.table(f"{schema}.{name}").collect()]


def oracle(spark, project, name: str, key: list[str] | None) -> dict[str, Any]:
    """The diff of <schema>_prod.name and <schema>_pr.name by brute force: compared on their
    common columns, by key (added / deleted / modified keys, rows each column changed in) or as
    multisets (rows only on one side, repeats counted)."""
    prod = table(spark, f"{project.schema}_prod", name)
    pr = table(spark, f"{project.schema}_pr", name)
    prod_cols = list(spark.table(f"{project.schema}_prod.{name}").columns)
    pr_cols = set(spark.table(f"{project.schema}_pr.{name}").columns)
    common = [c for c in prod_cols if c in pr_cols]
    out = {"rows_production": len(prod), "rows_current": len(pr)}
    if key is None:
        before = Counter(tuple(r[c] for c in common) for r in prod)
        after = Counter(tuple(r[c] for c in common) for r in pr)
        out.update(added=sum((after - before).values()), deleted=sum((before - after).values()))
        return out
    by_key_before = {tuple(r[k] for k in key): r for r in prod}
    by_key_after = {tuple(r[k] for k in key): r for r in pr}
    changed = Counter()
    modified = 0
    for k in by_key_before.keys() & by_key_after.keys():
        cols = [c for c in common if c not in key and by_key_before[k][c] != by_key_after[k][c]]
        modified += bool(cols)
        changed.update(cols)
    out.update(
        added=len(by_key_after.keys() - by_key_before.keys()),
        deleted=len(by_key_before.keys() - by_key_after.keys()),
        modified=modified,
        column_changes=dict(changed),
    )
    return out
