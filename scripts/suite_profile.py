#!/usr/bin/env python3
"""Where a pytest run's time went: by module, by worker, and the slowest tests.

``make pytest`` writes pytest's JUnit XML (``tests/output/pytest.xml``) and prints this after every
run, passed or failed, so each fresh-clone run of ``make test`` leaves the profile that decides
the next cut of the test budget (ADR 0044): which modules cost the most worker time, whether the
two workers ended together or one idled while the other finished a heavy module, and which tests
are slowest. ``tests/python/conftest.py`` stamps each test with the xdist worker that ran it and
its start time (JUnit properties ``worker`` and ``started``); a run without them (an older XML,
one process) is profiled by module and test only.

Usage: ``python scripts/suite_profile.py [tests/output/pytest.xml] [--top N]``.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

DEFAULT_XML = Path(__file__).resolve().parents[1] / "tests" / "output" / "pytest.xml"


@dataclass(frozen=True)
class Case:
    """One test as JUnit recorded it: setup, call and teardown together in ``seconds``."""

    module: str
    name: str
    seconds: float
    outcome: str
    worker: str | None
    started: float | None


def read_cases(path: Path) -> list[Case]:
    """Every ``testcase`` of the JUnit XML at ``path``."""
    root = ET.parse(path).getroot()
    cases = []
    for tc in root.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        outcome = next(
            (child.tag for child in tc if child.tag in ("failure", "error", "skipped")), "passed"
        )
        started = props.get("started")
        cases.append(
            Case(
                module=(tc.get("classname") or "").split(".")[-1] or "?",
                name=tc.get("name") or "?",
                seconds=float(tc.get("time") or 0.0),
                outcome=outcome,
                worker=props.get("worker"),
                started=float(started) if started else None,
            )
        )
    return cases


@dataclass(frozen=True)
class WorkerSpan:
    worker: str
    tests: int
    busy: float  # the sum of its tests' times
    span: float  # from its first test's start to its last test's end
    idle_at_end: float  # how long it waited for the last worker to finish


def worker_spans(cases: list[Case]) -> list[WorkerSpan]:
    """Per worker, from the ``worker`` and ``started`` stamps; empty without them."""
    stamped = [c for c in cases if c.worker and c.started is not None]
    if not stamped:
        return []
    start = min(c.started for c in stamped)
    by_worker: dict[str, list[Case]] = defaultdict(list)
    for c in stamped:
        by_worker[c.worker].append(c)
    ends = {w: max(c.started + c.seconds for c in cs) for w, cs in by_worker.items()}
    last = max(ends.values())
    return [
        WorkerSpan(
            worker=w,
            tests=len(cs),
            busy=sum(c.seconds for c in cs),
            span=ends[w] - start,
            idle_at_end=last - ends[w],
        )
        for w, cs in sorted(by_worker.items())
    ]


def module_totals(cases: list[Case]) -> list[tuple[str, int, float, str]]:
    """(module, tests, seconds, workers) for each module, the costliest first."""
    seconds: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    workers: dict[str, set[str]] = defaultdict(set)
    for c in cases:
        seconds[c.module] += c.seconds
        count[c.module] += 1
        if c.worker:
            workers[c.module].add(c.worker)
    return sorted(
        ((m, count[m], s, ",".join(sorted(workers[m]))) for m, s in seconds.items()),
        key=lambda row: -row[2],
    )


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def render(cases: list[Case], top: int) -> str:
    total = sum(c.seconds for c in cases)
    outcomes: dict[str, int] = defaultdict(int)
    for c in cases:
        outcomes[c.outcome] += 1
    lines = [
        f"suite profile: {len(cases)} tests ("
        + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
        + f"), {_minutes(total)} of test time"
    ]
    spans = worker_spans(cases)
    for s in spans:
        lines.append(
            f"  worker {s.worker}: {s.tests} tests, busy {_minutes(s.busy)}, "
            f"span {_minutes(s.span)}, idle at the end {_minutes(s.idle_at_end)}"
        )
    lines.append("modules, costliest first (test time, share of the suite, worker):")
    for module, n, seconds, workers in module_totals(cases)[:top]:
        share = seconds / total if total else 0.0
        lines.append(
            f"  {_minutes(seconds):>8} {share:6.1%} {n:4d} tests  {module}"
            + (f"  [{workers}]" if workers else "")
        )
    lines.append("slowest tests:")
    for c in sorted(cases, key=lambda c: -c.seconds)[:top]:
        lines.append(f"  {c.seconds:8.1f}s  {c.module}::{c.name}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("xml", nargs="?", type=Path, default=DEFAULT_XML)
    parser.add_argument("--top", type=int, default=15, help="modules and tests to list")
    args = parser.parse_args(argv)
    if not args.xml.is_file():
        print(f"suite_profile: no JUnit XML at {args.xml} (pytest did not get to write it)")
        return 0  # a profile is a report: its absence must not change the run's outcome
    print(render(read_cases(args.xml), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
