"""What every scaffolded model file shares: its materialization, Python values written as Jinja
literals, and writing the files without overwriting a user's by accident."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbt_table_diff.scaffold.args import ScaffoldError

# The package's table materialization (macros/materializations/table_diff_table.sql): the format of
# every table a scaffolded pipeline writes is chosen at run time by the var table_diff_file_format.
MATERIALIZATION = "table_diff_table"


def jinja_literal(value: Any) -> str:
    """A Python value as a Jinja literal (strings single-quoted with escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(jinja_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{jinja_literal(k)}: {jinja_literal(v)}" for k, v in value.items())
            + "}"
        )
    raise TypeError(f"cannot render {value!r} as a Jinja literal")


def write_files(files: dict[str, str], directory: Path, *, force: bool = False) -> list[Path]:
    """Write ``files`` (name -> content) into ``directory``; refuse to overwrite unless forced."""
    directory = Path(directory)
    existing = [directory / f for f in files if (directory / f).exists()]
    if existing and not force:
        names = ", ".join(str(p) for p in existing)
        raise ScaffoldError(f"refusing to overwrite {names}. Pass --force to replace them.")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in files.items():
        path = directory / name
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written
