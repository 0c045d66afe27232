"""Which dbt project a command runs in: the one given, the current directory, or the demo
project of a table_diff clone, and the errors that say the fix when none fits."""

from __future__ import annotations

import os
from pathlib import Path

import yaml


def find_demo_project(start: Path) -> Path:
    for base in [start, *start.parents]:
        candidate = base / "integration_tests"
        if (candidate / "dbt_project.yml").exists() and (candidate / "profiles.yml").exists():
            return candidate
    raise SystemExit(
        "table-diff demo: cannot find integration_tests/ (the demo project) from "
        f"{start}. Run it from a clone of the table_diff repository, or pass --project-dir."
    )


def demo_spark_home(project: Path) -> None:
    """The demo project's profile keeps its metastore under TABLE_DIFF_SPARK_HOME: `demo` and
    `report` must agree on it, or `report` would open an empty metastore."""
    os.environ.setdefault("TABLE_DIFF_SPARK_HOME", str(project / ".spark" / "demo"))


class ReportError(Exception):
    """`table-diff report` or `preview` cannot tell which pair to read, or where: the message says
    the fix."""


def is_user_project(directory: Path) -> bool:
    """A dbt project other than the table_diff package itself (the root of a clone)."""
    path = directory / "dbt_project.yml"
    if not path.exists():
        return False
    return (yaml.safe_load(path.read_text()) or {}).get("name") != "table_diff"


def project_dirs(args) -> tuple[Path, Path | None]:
    """The dbt project and profiles dir: --project-dir, else the current directory when it is a
    dbt project, else the demo project (integration_tests/ of a table_diff clone), as `demo`."""
    if args.project_dir:
        project = Path(args.project_dir).resolve()
        if not (project / "dbt_project.yml").exists():
            raise ReportError(f"{project} has no dbt_project.yml; pass the dbt project's directory")
    elif is_user_project(Path.cwd()):
        project = Path.cwd()
    else:
        project = find_demo_project(Path.cwd())
    if project.name == "integration_tests" and (project / "models" / "demo").is_dir():
        demo_spark_home(project)
    if args.profiles_dir:
        return project, Path(args.profiles_dir).resolve()
    return project, project if (project / "profiles.yml").exists() else None
