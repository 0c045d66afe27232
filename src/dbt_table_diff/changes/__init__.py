"""``table-diff changes``: what a pull request's build did to the data, against production.

Downhill, each module only importing those listed after it:

* :mod:`~dbt_table_diff.changes.html`: ``changes.html``, one self-contained page with a section
  per model (``templates/changes.html.j2``, in the layout and style of
  :mod:`dbt_table_diff.page`, shared with ``table-diff report``'s page);
* :mod:`~dbt_table_diff.changes.render`: ``changes.md`` (a PR comment under GitHub's limit) and
  ``changes.json`` from the report (``templates/changes.md.j2``);
* :mod:`~dbt_table_diff.changes.report`: the per-model report from the macro's rows, the pruned
  and unbuilt models, and the ``--fail-on`` policy;
* :mod:`~dbt_table_diff.changes.same_inputs`: ``--same-inputs``: parse, the source versions
  production read, and the build that reads them (ADR 0043);
* :mod:`~dbt_table_diff.changes.invoke`: dbt in this process: the one ``dbt run-operation
  table_diff.diff_changes`` and the result rows it leaves, and the other invocations;
* :mod:`~dbt_table_diff.changes.plan`: the macro's input: the models in dependency order, their
  relations, keys, and which may be pruned;
* :mod:`~dbt_table_diff.changes.selection`: new, modified (dbt's own ``state:modified``),
  downstream and removed models, and which of them this run built;
* :mod:`~dbt_table_diff.changes.keys`: a model's key from its meta, contract or tests;
* :mod:`~dbt_table_diff.changes.artifacts`: reading manifest.json and run_results.json, and
  ``ChangesError``.
"""
