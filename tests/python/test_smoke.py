"""The smoke pair of `make check`: one pair, `no_drift` and one merge on the embedded session, each
on the corner data (strategies.corner_pair, corner_three_way: every hostile value and every kind of
change at once), each against the brute-force oracle. A minute or two: what a contributor runs
before `make test`, which runs it too.
"""

from __future__ import annotations

import pytest
from strategies import corner_pair, corner_three_way, write_table
from test_diff_property import Case, _check_batch, _check_no_drift, _run_batch, property_project
from test_merge import _build, _check_against_oracle, _opts

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module")
def smoke_project(dbt_project_factory):
    return property_project(dbt_project_factory, "smoke")


@pytest.fixture(scope="module")
def smoke_merge_project(dbt_project_factory):
    # a project of its own: the pairs' and the merges' models each declare the source `gen`
    return property_project(dbt_project_factory, "smoke_merge")


def test_smoke_pair_and_no_drift_match_the_oracle(smoke_project):
    # A string key (collation traps) split three levels deep, a bigint key by hash, both with
    # the duplicate-key check: every row of every kind the oracle names, and no_drift's count.
    batch = [
        Case(corner_pair("string"), "range", 2, 2, 2, 3, check_duplicate_keys=True),
        Case(corner_pair("bigint").swapped(), "hash", 3, 3, 4, 2, check_duplicate_keys=True),
    ]
    _run_batch(smoke_project, batch)
    _check_batch(smoke_project, batch, ansi=False)
    _check_no_drift(smoke_project, batch)


def test_smoke_merge_matches_the_oracle(smoke_merge_project):
    project = smoke_merge_project
    tw = corner_three_way("bigint")
    for side, rows in (("base", tw.base), ("ours", tw.ours), ("theirs", tw.theirs)):
        write_table(project.spark, tw.spec, rows, f"`{project.schema}`.`m_{side}`")
    _build(project, [_opts("m", key=("k",))], ["m_base", "m_ours", "m_theirs"])
    _check_against_oracle(project, "m", tw)
