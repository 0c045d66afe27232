"""scripts/fetch_lakehouse_jars.sh and its pins (no Spark, no network: `mvn` is faked).

The versions live in spark-conf/lakehouse.env only; the ADR and profiles.example.yml repeat the
Delta and Iceberg ones for readers, so these tests keep the three from drifting apart. PostgreSQL's
JDBC driver is pinned there too and lands in the same folder (tests/python/postgres.py reads it).
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fetch_lakehouse_jars.sh"
PINS = ROOT / "spark-conf" / "lakehouse.env"
ADR = ROOT / "docs" / "decisions" / "0012-lakehouse-versions.md"
PROFILES = ROOT / "profiles.example.yml"
REQUIREMENTS = ROOT / "requirements.txt"


def _pins() -> dict[str, str]:
    pins = {}
    for line in PINS.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pins[key] = value
    return pins


def _jdbc_jar() -> str:
    """The file name Maven gives the pinned driver's jar (artifactId-version.jar)."""
    pins = _pins()
    return f"{pins['POSTGRES_JDBC_ARTIFACT'].split(':', 1)[1]}-{pins['POSTGRES_JDBC_VERSION']}.jar"


def test_pins_name_the_postgres_jdbc_driver():
    pins = _pins()
    assert pins["POSTGRES_JDBC_ARTIFACT"] == "org.postgresql:postgresql"
    major, minor, *_ = (int(part) for part in pins["POSTGRES_JDBC_VERSION"].split("."))
    assert (major, minor) >= (42, 7), pins["POSTGRES_JDBC_VERSION"]


def test_pins_share_one_spark_line():
    pins = _pins()
    line, scala = pins["LAKEHOUSE_SPARK_LINE"], pins["LAKEHOUSE_SCALA_BINARY"]
    assert pins["LAKEHOUSE_PYSPARK_VERSION"].startswith(line + ".")
    assert pins["DELTA_ARTIFACT"] == f"io.delta:delta-spark_{line}_{scala}"
    assert pins["ICEBERG_ARTIFACT"] == f"org.apache.iceberg:iceberg-spark-runtime-{line}_{scala}"


def test_requirements_pin_the_lakehouse_spark():
    """The suite's pyspark is the one the jars are built for (one Spark line, ADR 0012)."""
    pinned = [
        line.split("==", 1)[1].split()[0]
        for line in REQUIREMENTS.read_text().splitlines()
        if line.lower().startswith("pyspark==")
    ]
    assert pinned == [_pins()["LAKEHOUSE_PYSPARK_VERSION"]], (pinned, PINS.name)


def test_adr_names_the_pinned_versions():
    pins, adr = _pins(), ADR.read_text()
    for key in (
        "DELTA_ARTIFACT",
        "DELTA_VERSION",
        "ICEBERG_ARTIFACT",
        "ICEBERG_VERSION",
        "LAKEHOUSE_PYSPARK_VERSION",
    ):
        assert pins[key] in adr, f"{ADR.name} does not mention {key}={pins[key]}"


def test_example_profile_points_at_the_pinned_jar_folder():
    pins, profiles = _pins(), PROFILES.read_text()
    assert f".spark-jars/{pins['DELTA_VERSION']}-{pins['ICEBERG_VERSION']}/" in profiles
    assert "io.delta.sql.DeltaSparkSessionExtension" in profiles
    assert "org.apache.iceberg.spark.SparkCatalog" in profiles


def _fake_bin(tmp_path: Path, mvn_body: str | None) -> Path:
    """A PATH directory with the tools the script needs, plus a fake ``mvn`` (None: no mvn)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in (
        "bash",
        "env",
        "dirname",
        "mktemp",
        "rm",
        "cat",
        "tail",
        "sed",
        "paste",
        "wc",
        "date",
        "mkdir",
        "cp",
        "mv",
        "sort",
        "basename",
        "du",
        "cut",
        "id",
    ):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    if mvn_body is not None:
        mvn = bin_dir / "mvn"
        mvn.write_text("#!/bin/bash\n" + mvn_body)
        mvn.chmod(0o755)
    return bin_dir


def _run(tmp_path: Path, bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp_path),
        "LAKEHOUSE_JARS_ROOT": str(tmp_path / "jars"),
    }
    return subprocess.run(
        [str(bin_dir / "bash"), str(SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _dest(tmp_path: Path) -> Path:
    pins = _pins()
    return tmp_path / "jars" / f"{pins['DELTA_VERSION']}-{pins['ICEBERG_VERSION']}"


# Writes one jar per pinned artifact into -DoutputDirectory=..., as copy-dependencies would, and
# keeps the pom it was given (-f) as $HOME/pom.xml.
FAKE_MVN_OK = r"""
prev=""
for arg in "$@"; do
  case "$arg" in -DoutputDirectory=*) out="${arg#-DoutputDirectory=}" ;; esac
  [[ "$prev" == -f ]] && cp "$arg" "$HOME/pom.xml"
  prev="$arg"
done
mkdir -p "$out" && echo jar > "$out/delta.jar" && echo jar > "$out/iceberg.jar"
echo jar > "$out/@JDBC_JAR@"
echo called >> "$HOME/mvn-calls"
""".replace("@JDBC_JAR@", _jdbc_jar())


def test_fetches_once_then_skips_when_the_stamp_is_complete(tmp_path):
    bin_dir = _fake_bin(tmp_path, FAKE_MVN_OK)
    first = _run(tmp_path, bin_dir, "--print-jars")
    assert first.returncode == 0, first.stderr
    dest, jdbc = _dest(tmp_path), _jdbc_jar()
    assert first.stdout.strip() == f"{dest}/delta.jar,{dest}/iceberg.jar,{dest}/{jdbc}"
    assert (dest / ".complete").read_text().split() == ["delta.jar", "iceberg.jar", jdbc]

    second = _run(tmp_path, bin_dir, "--print-dir")
    assert second.returncode == 0, second.stderr
    assert "nothing fetched" in second.stderr
    assert second.stdout.strip() == str(dest)
    third = _run(tmp_path, bin_dir, "--print-classpath")
    assert third.stdout.strip() == f"{dest}/delta.jar:{dest}/iceberg.jar:{dest}/{jdbc}"
    assert (tmp_path / "mvn-calls").read_text().count("called") == 1
    assert not list(dest.glob(".*.tmp")), "a jar's temporary copy was left behind"


def test_pom_asks_for_the_pinned_driver_without_dependencies(tmp_path):
    pins = _pins()
    bin_dir = _fake_bin(tmp_path, FAKE_MVN_OK)
    assert _run(tmp_path, bin_dir).returncode == 0
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}

    def coordinates(element: ET.Element) -> str:
        return ":".join(
            element.findtext(f"m:{tag}", namespaces=ns) for tag in ("groupId", "artifactId")
        )

    pom = ET.parse(tmp_path / "pom.xml").getroot()
    driver = [
        dep
        for dep in pom.iterfind("m:dependencies/m:dependency", ns)
        if coordinates(dep) == pins["POSTGRES_JDBC_ARTIFACT"]
    ]
    assert len(driver) == 1, ET.tostring(pom, encoding="unicode")
    assert driver[0].findtext("m:version", namespaces=ns) == pins["POSTGRES_JDBC_VERSION"]
    exclusions = [coordinates(ex) for ex in driver[0].iterfind("m:exclusions/m:exclusion", ns)]
    assert exclusions == ["*:*"]


def test_a_stamp_without_the_driver_fetches_once_more(tmp_path):
    """A folder stamped before the driver was pinned: fetched once, then up to date."""
    dest = _dest(tmp_path)
    dest.mkdir(parents=True)
    for jar in ("delta.jar", "iceberg.jar"):
        (dest / jar).write_text("old")
    (dest / ".complete").write_text("delta.jar\niceberg.jar\n")
    bin_dir = _fake_bin(tmp_path, FAKE_MVN_OK)

    first = _run(tmp_path, bin_dir, "--print-jars")
    assert first.returncode == 0, first.stderr
    assert f"does not list {_jdbc_jar()}" in first.stderr
    assert first.stdout.strip().split(",")[-1] == f"{dest}/{_jdbc_jar()}"
    assert (dest / ".complete").read_text().split() == ["delta.jar", "iceberg.jar", _jdbc_jar()]
    second = _run(tmp_path, bin_dir)
    assert "nothing fetched" in second.stderr, second.stderr
    assert (tmp_path / "mvn-calls").read_text().count("called") == 1


def test_maven_without_the_driver_jar_fails(tmp_path):
    bin_dir = _fake_bin(tmp_path, FAKE_MVN_OK.replace(f'echo jar > "$out/{_jdbc_jar()}"', ""))
    result = _run(tmp_path, bin_dir)
    assert result.returncode != 0
    assert f"produced no {_jdbc_jar()}" in result.stderr
    assert "delta.jar iceberg.jar" in result.stderr
    assert not (_dest(tmp_path) / ".complete").exists()


def test_refetches_when_a_stamped_jar_is_missing(tmp_path):
    bin_dir = _fake_bin(tmp_path, FAKE_MVN_OK)
    assert _run(tmp_path, bin_dir).returncode == 0
    (_dest(tmp_path) / "iceberg.jar").unlink()
    again = _run(tmp_path, bin_dir)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "mvn-calls").read_text().count("called") == 2


def test_maven_failure_says_what_is_missing(tmp_path):
    pins = _pins()
    bin_dir = _fake_bin(tmp_path, 'echo "[ERROR] Could not transfer artifact" >&2\nexit 1\n')
    result = _run(tmp_path, bin_dir)
    assert result.returncode != 0
    assert "Could not transfer artifact" in result.stderr
    assert "Maven could not fetch" in result.stderr
    assert f"{pins['DELTA_ARTIFACT']}:{pins['DELTA_VERSION']}" in result.stderr
    assert f"{pins['ICEBERG_ARTIFACT']}:{pins['ICEBERG_VERSION']}" in result.stderr
    assert f"{pins['POSTGRES_JDBC_ARTIFACT']}:{pins['POSTGRES_JDBC_VERSION']}" in result.stderr
    assert f"Missing: {_dest(tmp_path)}" in result.stderr
    assert not (_dest(tmp_path) / ".complete").exists()


def _fake_tool(bin_dir: Path, name: str, body: str) -> None:
    tool = bin_dir / name
    if tool.is_symlink():
        tool.unlink()
    tool.write_text("#!/bin/bash\n" + body)
    tool.chmod(0o755)


def test_missing_mvn_says_how_to_install_it(tmp_path):
    bin_dir = _fake_bin(tmp_path, None)
    _fake_tool(bin_dir, "id", "echo 1000\n")  # not root: no install attempt
    result = _run(tmp_path, bin_dir)
    assert result.returncode != 0
    assert "mvn not found" in result.stderr
    assert "apt-get update && apt-get install -y maven" in result.stderr


def test_missing_mvn_as_root_reports_a_failed_install(tmp_path):
    bin_dir = _fake_bin(tmp_path, None)
    _fake_tool(bin_dir, "id", "echo 0\n")
    _fake_tool(bin_dir, "apt-get", 'echo "E: Could not open lock file" >&2\nexit 100\n')
    result = _run(tmp_path, bin_dir)
    assert result.returncode != 0
    assert "installing Maven with apt-get" in result.stderr
    assert "apt-get install -y maven' failed" in result.stderr
