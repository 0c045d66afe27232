"""Python companion of the ``table_diff`` dbt package.

Importing this module is cheap on purpose: dbt-core imports every installed top-level module whose
name starts with ``dbt_`` and instantiates the classes listed in its ``plugins`` attribute on every
invocation. Our plugin registers the ``session`` submission method for Python models on dbt-spark's
``method: session`` (see :mod:`dbt_table_diff.session_submission`).
"""

from dbt_table_diff._version import __version__
from dbt_table_diff.plugin import TableDiffPlugin

plugins = [TableDiffPlugin]

__all__ = ["__version__", "plugins", "TableDiffPlugin"]
