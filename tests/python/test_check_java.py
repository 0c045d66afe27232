"""scripts/check_java.sh: `make demo` / `make test` stop early when Java is missing or too old."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_java.sh"
HINT = "Install e.g. `apt-get install openjdk-17-jre-headless` and set JAVA_HOME"


def _fake_java_home(tmp_path: Path, version_line: str) -> Path:
    """A JAVA_HOME whose bin/java prints ``version_line`` like `java -version` (on stderr)."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(0o755)
    return java.parent.parent


def _run(env_overrides: dict[str, str | None]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    for key, value in env_overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    bash = shutil.which("bash") or "/bin/bash"
    return subprocess.run([bash, str(SCRIPT)], env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "version_line",
    [
        'openjdk version "17.0.15" 2025-04-15',
        'openjdk version "21" 2023-09-19',
        'openjdk version "25-ea" 2025-09-16',
    ],
)
def test_accepts_java_17_and_newer(tmp_path, version_line):
    result = _run({"JAVA_HOME": str(_fake_java_home(tmp_path, version_line))})
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout


@pytest.mark.parametrize(
    ("version_line", "found"),
    [
        ('java version "1.8.0_351"', "1.8.0_351"),
        ('openjdk version "11.0.2" 2019-01-15', "11.0.2"),
    ],
)
def test_rejects_old_java_with_a_clear_message(tmp_path, version_line, found):
    result = _run({"JAVA_HOME": str(_fake_java_home(tmp_path, version_line))})
    assert result.returncode != 0
    assert "table_diff needs Java 17 or newer (found Java " + found in result.stderr
    assert HINT in result.stderr


def test_rejects_missing_java(tmp_path):
    # Only bash and the coreutils the script needs are on PATH; no java, no JAVA_HOME.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sed", "head", "cut"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    result = _run({"JAVA_HOME": None, "PATH": str(bin_dir)})
    assert result.returncode != 0
    assert "table_diff needs Java 17 or newer (found no java on PATH" in result.stderr
    assert HINT in result.stderr


def test_rejects_java_home_without_java(tmp_path):
    result = _run({"JAVA_HOME": str(tmp_path / "nowhere")})
    assert result.returncode != 0
    assert "not executable" in result.stderr
