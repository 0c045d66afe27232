"""dbt plugin: teaches dbt-spark to run Python models in the in-process SparkSession.

dbt-spark submits Python models only to Databricks (``job_cluster`` / ``all_purpose_cluster``).
With ``method: session`` dbt already holds a local SparkSession in its own process, so the cheapest
correct execution is to run the compiled model right there. dbt-core's plugin manager instantiates
:class:`TableDiffPlugin` on every invocation; ``initialize`` patches the Spark adapter class once:

* ``python_submission_helpers`` gains ``"session"``;
* ``default_python_submission_method`` becomes ``"session"`` when the profile's method is
  ``session``, and also for ``thrift``, where no submission method can run a Python model: the
  session helper then fails the model with what to do instead (a pair's split step in SQL:
  ``table-diff scaffold pair ... --split sql``). ``http`` and ``odbc`` (Databricks) keep
  dbt-spark's default, so Databricks users see no change.
"""

from __future__ import annotations

from typing import Any

from dbt.plugins.manager import dbtPlugin

_PATCHED_ATTR = "_table_diff_session_patched"


def install_session_submission() -> bool:
    """Patch dbt-spark's adapter class; returns False when dbt-spark is not installed."""
    try:
        from dbt.adapters.spark.impl import SparkAdapter
    except ImportError:  # another adapter only: nothing to do
        return False
    if getattr(SparkAdapter, _PATCHED_ATTR, False):
        return True

    # Imported once dbt-spark is known to be there: dbt imports this package on every invocation,
    # whatever the adapter, so the package's import stays cheap.
    from dbt_table_diff.session_submission import SessionPythonJobHelper

    original_helpers = SparkAdapter.python_submission_helpers
    original_default = SparkAdapter.default_python_submission_method

    def python_submission_helpers(self: Any) -> dict[str, Any]:
        helpers = dict(original_helpers.fget(self))
        helpers["session"] = SessionPythonJobHelper
        return helpers

    def default_python_submission_method(self: Any) -> str:
        credentials = self.connections.profile.credentials
        # A StrEnum on dbt-spark. The Thrift Server runs no Python at all, and dbt-spark's
        # Databricks default would fail there asking for a cluster_id: `session` refuses instead,
        # naming the way out (a pair's `--split sql`, ADR 0025).
        if getattr(credentials, "method", None) in ("session", "thrift"):
            return "session"
        return original_default.fget(self)

    SparkAdapter.python_submission_helpers = property(python_submission_helpers)
    SparkAdapter.default_python_submission_method = property(default_python_submission_method)
    setattr(SparkAdapter, _PATCHED_ATTR, True)
    return True


class TableDiffPlugin(dbtPlugin):
    """Registered through ``dbt_table_diff.plugins``; dbt calls ``initialize`` on each run."""

    def initialize(self) -> None:
        install_session_submission()
