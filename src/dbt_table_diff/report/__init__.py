"""A pair's result, read and shown.

* :mod:`~dbt_table_diff.report.read`: ``read_pair``, the tables of one completed run (ADR 0011);
* :mod:`~dbt_table_diff.report.text`: the text ``table-diff demo`` and ``report`` print;
* :mod:`~dbt_table_diff.report.html`: report.json and the self-contained report.html
  (``templates/report.html.j2``, in the layout and style of :mod:`dbt_table_diff.page`).
"""
