"""scripts/engines.py (`make engines`) cleans up: interrupted while its master and two workers run,
it leaves no process of its run and no bound port; killed outright (SIGKILL, no handler runs), its
JVMs die with it. The engine runs themselves (dbt on thrift and on the cluster) are `make engines`,
not pytest. About 30 seconds: three small JVMs, no dbt."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "engines.py"

_spec = importlib.util.spec_from_file_location("engines", SCRIPT)
engines = importlib.util.module_from_spec(_spec)
sys.modules["engines"] = engines  # dataclasses look their module up there
_spec.loader.exec_module(engines)

# Starts a Spark master and workers of its own: `make check` leaves it to `make test`.
pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(shutil.which("java") is None, reason="needs Java (make check-java)"),
]


def _start_held_cluster() -> tuple[subprocess.Popen, dict, list[str]]:
    """`engines.py cluster --hold` in its own process group; returns once it printed `ready`."""
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "cluster", "--hold"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    ready: dict = {}
    got_ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("ready "):
                ready.update(json.loads(line.removeprefix("ready ")))
                got_ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not got_ready.wait(timeout=150):
        _kill(proc, ready)
        pytest.fail("the harness never got ready:\n" + "".join(lines))
    return proc, ready, lines


def _kill(proc: subprocess.Popen, ready: dict) -> None:
    """Last resort, so a failing test leaves nothing either."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for pid, _ in engines.processes_with(ready.get("run_id", "-")):
        os.kill(pid, signal.SIGKILL)


def _wait_gone(run_id: str, timeout: float = 30) -> list:
    deadline = time.monotonic() + timeout
    while (left := engines.processes_with(run_id)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def test_sigint_stops_every_jvm_and_frees_every_port():
    proc, ready, lines = _start_held_cluster()
    try:
        run_id, ports = ready["run_id"], ready["ports"]
        assert len(engines.processes_with(run_id)) >= 3  # master and two workers
        assert not engines.port_is_free(ports["master"])
        proc.send_signal(signal.SIGINT)  # as Ctrl-C would
        assert proc.wait(timeout=90) == 128 + signal.SIGINT, "".join(lines)
        assert engines.processes_with(run_id) == []
        assert [name for name, port in ports.items() if not engines.port_is_free(port)] == []
        assert not Path(ready["home"]).exists()  # the temporary folder is gone too
        assert "no process left, ports free" in "".join(lines)
    finally:
        _kill(proc, ready)


def test_sigkill_of_the_harness_takes_its_jvms_along():
    proc, ready, _ = _start_held_cluster()
    try:
        os.kill(proc.pid, signal.SIGKILL)  # no handler, no finally: only PR_SET_PDEATHSIG helps
        proc.wait(timeout=10)
        assert _wait_gone(ready["run_id"]) == []
    finally:
        _kill(proc, ready)
        shutil.rmtree(ready.get("home", "/nonexistent"), ignore_errors=True)
