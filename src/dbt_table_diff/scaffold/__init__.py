"""``table-diff scaffold``: the thin model files of a diff pipeline or a three-way merge.

* :mod:`~dbt_table_diff.scaffold.pair`: ``render_pair`` / ``write_pair``, for one target
  (:mod:`~dbt_table_diff.scaffold.models`) or a replica set
  (:mod:`~dbt_table_diff.scaffold.replicas`);
* :mod:`~dbt_table_diff.scaffold.merge`: ``MergeOptions``, ``render_merge`` / ``write_merge``;
* :mod:`~dbt_table_diff.scaffold.options`: ``PairOptions`` and their checks;
* :mod:`~dbt_table_diff.scaffold.properties`: the pair's ``_NAME__models.yml`` for `dbt docs`;
* :mod:`~dbt_table_diff.scaffold.files`: Jinja literals and writing the files;
* :mod:`~dbt_table_diff.scaffold.args`: the command line's option parsers and ``ScaffoldError``.
"""
