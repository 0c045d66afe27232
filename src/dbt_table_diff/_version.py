"""Single source of the Python package version; dbt_project.yml carries the same number (tested)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dbt-table-diff")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
