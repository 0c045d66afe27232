"""How deep a test run goes: `make test` (CI) or `make test-deep` (a release, a change to the
fingerprint, the split or the row diff). CONTRIBUTING.md says which command to run when.

``TABLE_DIFF_TEST_DEPTH=deep`` (set by ``make test-deep``) gives every property test the example
budget it had before the CI depth existed and runs the tests marked ``deep`` (conftest.py deselects
them otherwise, and says how many). Anything else, or nothing, is the CI depth: the same behaviours,
each hostile corner pinned as an explicit example (strategies.py's ``corner_*`` builders), fewer
random draws on top.
"""

from __future__ import annotations

import os

from hypothesis import assume
from hypothesis import strategies as st

DEPTH = os.environ.get("TABLE_DIFF_TEST_DEPTH", "ci").strip().lower() or "ci"
if DEPTH not in ("ci", "deep"):
    raise RuntimeError(f"TABLE_DIFF_TEST_DEPTH={DEPTH!r}: use 'ci' (make test) or 'deep'")
DEEP = DEPTH == "deep"


def examples(ci: int, deep: int) -> int:
    """A property test's number of random examples (or batches) at this depth."""
    return deep if DEEP else ci


# Drawn last by a property test's check, which passes it to `not_simplest` first.
SALT = st.integers(0, 2**31)


def not_simplest(salt: int) -> None:
    """Reject hypothesis' first example, every choice at its minimum (empty or near-empty tables):
    with a budget of one or two examples it would be most of the random coverage. A test draws
    ``salt=SALT`` last among its arguments and calls this first; hypothesis then draws another."""
    assume(salt != 0)
