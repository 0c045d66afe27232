"""scripts/suite_profile.py: the profile `make pytest` prints after every run (module totals, each
worker's busy time and idle tail, the slowest tests), on a hand-written JUnit XML whose answers
are worked out below, and end to end on a real pytest run of this suite's conftest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import suite_profile  # noqa: E402

XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="tests.python.test_a" name="test_one" time="10.0">
    <properties><property name="worker" value="gw0"/><property name="started" value="100.0"/>
    </properties></testcase>
  <testcase classname="tests.python.test_a" name="test_two" time="30.0">
    <properties><property name="worker" value="gw0"/><property name="started" value="110.0"/>
    </properties><failure message="boom"/></testcase>
  <testcase classname="tests.python.test_b" name="test_three[x]" time="5.5">
    <properties><property name="worker" value="gw1"/><property name="started" value="101.0"/>
    </properties></testcase>
  <testcase classname="tests.python.test_c" name="test_skip" time="0.0">
    <skipped message="no"/></testcase>
</testsuite></testsuites>
"""


@pytest.fixture
def cases(tmp_path):
    path = tmp_path / "pytest.xml"
    path.write_text(XML)
    return suite_profile.read_cases(path)


def test_cases_keep_module_outcome_worker_and_start(cases):
    assert [(c.module, c.name, c.seconds, c.outcome, c.worker, c.started) for c in cases] == [
        ("test_a", "test_one", 10.0, "passed", "gw0", 100.0),
        ("test_a", "test_two", 30.0, "failure", "gw0", 110.0),
        ("test_b", "test_three[x]", 5.5, "passed", "gw1", 101.0),
        ("test_c", "test_skip", 0.0, "skipped", None, None),
    ]


def test_modules_costliest_first(cases):
    assert suite_profile.module_totals(cases) == [
        ("test_a", 2, 40.0, "gw0"),
        ("test_b", 1, 5.5, "gw1"),
        ("test_c", 1, 0.0, ""),
    ]


def test_worker_spans_and_the_idle_tail(cases):
    # The run starts at 100.0; gw0 ends at 140.0, gw1 at 106.5 and then waits 33.5 s.
    spans = {s.worker: s for s in suite_profile.worker_spans(cases)}
    assert spans["gw0"] == suite_profile.WorkerSpan("gw0", 2, 40.0, 40.0, 0.0)
    assert spans["gw1"] == suite_profile.WorkerSpan("gw1", 1, 5.5, 6.5, 33.5)
    text = suite_profile.render(cases, top=2)
    assert "4 tests (1 failure, 2 passed, 1 skipped), 0:45.5 of test time" in text
    assert "worker gw1: 1 tests, busy 0:05.5, span 0:06.5, idle at the end 0:33.5" in text
    assert "test_c" not in text.split("slowest tests:")[0]  # --top 2 lists two modules


def test_a_missing_xml_is_reported_not_failed(tmp_path, capsys):
    assert suite_profile.main([str(tmp_path / "absent.xml")]) == 0
    assert "no JUnit XML" in capsys.readouterr().out


def test_a_real_run_is_stamped_by_the_conftest(tmp_path):
    """conftest.py's stamps reach the XML pytest writes: one quick test of this suite, run as
    `make pytest` runs it (its own process, --junitxml)."""
    xml = tmp_path / "run.xml"
    here = Path(__file__).resolve().parent
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(here / "test_layout_rules.py::test_no_file_is_too_long"),
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={xml}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        # not this run's xdist worker (PYTEST_XDIST_WORKER): the child is a run of its own
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (case,) = suite_profile.read_cases(xml)
    assert (case.module, case.name, case.outcome, case.worker) == (
        "test_layout_rules",
        "test_no_file_is_too_long",
        "passed",
        "main",
    )
    assert case.started is not None and case.started > 1.7e9
    assert [s.worker for s in suite_profile.worker_spans([case])] == ["main"]
