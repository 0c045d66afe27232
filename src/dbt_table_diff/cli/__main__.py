"""``python -m dbt_table_diff.cli``: the ``table-diff`` command."""

from dbt_table_diff.cli import main

raise SystemExit(main())
