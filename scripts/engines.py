#!/usr/bin/env python3
"""Real Spark engines for the test command (`make engines`; ADR 0026).

    engines.py thrift    a Spark Thrift Server from pyspark's own jars; integration_tests'
                         seeds and the `engine_thrift` selector through dbt-spark `method: thrift`
                         (pairs with the SQL split whole), and a check that a Python model fails
                         there with the companion's error
    engines.py cluster   a standalone master and two workers; the `engine_cluster` selector through
                         `method: session` with `spark.master: spark://...`, then the event log
                         proves the tasks ran on the workers' executors, never in the driver
    --hold               start the engine(s), print one `ready {json}` line and wait for SIGINT /
                         SIGTERM (tests/python/test_engines.py interrupts the harness this way)
    --keep               keep the temporary folder (logs, warehouse, event log) for a look after

Every run gets its own temporary folder (Derby metastore, warehouse, JVM logs, dbt's target and
logs), ports chosen at run time (bound to port 0 on 127.0.0.1), every JVM and dbt in its own process
group, all of them carrying the environment variable TABLE_DIFF_ENGINE_RUN=<run id>. Whatever ends
the run (success, a failure, Ctrl-C, SIGTERM) the harness stops the groups (SIGTERM, then SIGKILL),
then checks that no process with its run id is left and that its ports are free; it fails otherwise.
On a failure it prints the tail of each JVM log. The selections live in integration_tests/
selectors.yml, one selector per engine.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IT_DIR = REPO / "integration_tests"
BIN = Path(sys.executable).parent  # the venv's bin: dbt, python
MARKER = "TABLE_DIFF_ENGINE_RUN"
HOST = "127.0.0.1"

# `make test-deep` (TABLE_DIFF_TEST_DEPTH=deep) builds the thrift engine's whole selection,
# `make test` a smaller one (integration_tests/selectors.yml says what each leaves out and why).
DEEP = os.environ.get("TABLE_DIFF_TEST_DEPTH", "").strip().lower() == "deep"
THRIFT_SELECTOR = "engine_thrift_deep" if DEEP else "engine_thrift"
CLUSTER_SELECTOR = "engine_cluster"
# The one Python model left in the thrift copy of the project, a pair's Python split step: on
# thrift it must fail with this text (dbt-spark has no Python submission for `method: thrift`; the
# companion's `session` submission refuses it, naming `--split sql`). The merge cases classify in
# SQL, as `table-diff scaffold merge --classify sql` writes them (ADR 0027, ADR 0040: their outputs
# read the candidates, no NAME__merge_classified model): they run whole there.
THRIFT_PYTHON_PROBES = ("identical_diff__block_split",)
THRIFT_PYTHON_REFUSAL = "its method is 'thrift'"
THRIFT_STATUS_SKIPPED = "skipped Python model 'table_diff_pair_status'"

STOP_GRACE_SECONDS = 20
LOG_TAIL_LINES = 40


class Interrupted(BaseException):
    """SIGINT or SIGTERM reached the harness; cleanup runs in `finally`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class EngineFailure(Exception):
    pass


def _on_signal(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def hive_llap_common_jar() -> Path:
    """hive-llap-common at the version of the Hive that pyspark ships, fetched once with the
    machine's Maven into .spark-jars/ (as the lakehouse jars are, ADR 0012).

    Spark 4 no longer ships it (SPARK-51041), yet Hive's FunctionRegistry, first used when the
    Thrift Server closes a session on a thread with no Hive client yet, registers a table function
    whose class refers to LlapSigner: without the jar that close fails (`NoClassDefFoundError:
    org/apache/hadoop/hive/llap/security/LlapSigner$Signable`), and the dbt model closing it fails
    at random. The class must be on the driver's class path (--driver-class-path), not --jars:
    Hive's classes come from the application class loader."""
    jars = spark_home() / "jars"
    found = sorted(jars.glob("hive-exec-*-core.jar"))
    if not found:
        raise RuntimeError(f"no hive-exec-*-core.jar in {jars}: is pyspark installed with Hive?")
    version = found[0].name[len("hive-exec-") : -len("-core.jar")]
    dest = REPO / ".spark-jars" / f"hive-llap-common-{version}"
    jar = dest / f"hive-llap-common-{version}.jar"
    if jar.is_file():
        return jar
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError(
            "the Thrift Server needs hive-llap-common, fetched with Maven, and `mvn` is missing: "
            "run `make lakehouse-jars` (installs Maven as root with apt-get) or install maven"
        )
    dest.mkdir(parents=True, exist_ok=True)
    artifact = f"org.apache.hive:hive-llap-common:{version}"
    fetched = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "-Dstyle.color=never",
            # the plugin version scripts/fetch_lakehouse_jars.sh pins: no prefix resolution
            "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy",
            f"-Dartifact={artifact}",
            f"-DoutputDirectory={dest}",
        ],
        cwd=dest,
        capture_output=True,
        text=True,
    )
    if fetched.returncode != 0 or not jar.is_file():
        tail = "\n".join((fetched.stdout + fetched.stderr).splitlines()[-15:])
        raise RuntimeError(f"Maven could not fetch {artifact} into {dest}:\n{tail}")
    return jar


def free_port() -> int:
    """A port nothing listens on now, chosen by the kernel (bind to 0), on loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def port_is_free(port: int) -> bool:
    """True when nothing listens on the port (a server could bind it, as Spark's do)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def accepts_connections(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=2):
        return True
    return False


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the harness dies, even by SIGKILL (Linux only).
    spark-class and spark-submit exec java, which keeps this setting."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def processes_with(run_id: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment carries this run's marker."""
    needle = f"{MARKER}={run_id}".encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append((int(entry.name), cmd[:200]))
        except OSError:  # gone, or not ours
            continue
    return found


@dataclass
class Run:
    """The processes, ports and folder of one harness run."""

    home: Path
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    procs: list[tuple[str, subprocess.Popen, Path | None]] = field(default_factory=list)
    ports: dict[str, int] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                MARKER: self.run_id,
                "SPARK_CONF_DIR": str(REPO / "spark-conf"),
                "SPARK_LOCAL_IP": HOST,
                "PYSPARK_PYTHON": str(BIN / "python"),
                "SPARK_DAEMON_MEMORY": "512m",  # master and workers themselves
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            }
        )
        env.update(extra)
        return env

    def port(self, name: str) -> int:
        self.ports[name] = free_port()
        return self.ports[name]

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        """A JVM in its own process group, output to <home>/logs/<name>.log."""
        log_path = self.home / "logs" / f"{name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                argv,
                cwd=self.home,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self.procs.append((name, proc, log_path))
        print(f"engines: started {name} (pid {proc.pid})", flush=True)
        return proc

    def run(
        self, argv: list[str], env: dict[str, str], *, capture: bool = False, cwd: Path = IT_DIR
    ):
        """A command (dbt) in ``cwd`` (integration_tests), in its own process group, to the end."""
        print("engines: $ " + " ".join([Path(argv[0]).name, *argv[1:]]), flush=True)
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.STDOUT if capture else None,
            text=capture,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.procs.append((Path(argv[0]).name, proc, None))
        out, _ = proc.communicate()
        # dbt's own driver JVM (method: session) stops after dbt's exit: let it finish (it
        # completes the event log), or the next step would race it.
        _wait_group_gone(proc.pid, timeout=60)
        return proc.returncode, out or ""

    def wait_until(self, what: str, ready, timeout: float) -> None:
        """Poll `ready()` until true; fail at once if a started JVM exited, or after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            for name, proc, log in self.procs:
                if log is not None and proc.poll() is not None:
                    raise EngineFailure(f"{name} exited ({proc.returncode}) before {what}")
            with contextlib.suppress(Exception):
                if ready():
                    return
            if time.monotonic() > deadline:
                raise EngineFailure(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(1)

    def stop(self) -> list[str]:
        """Stop every process group (newest first): SIGTERM, a grace period, SIGKILL. Then the
        checks: no process with this run's marker, every port free. Returns the problems."""
        for name, proc, _ in reversed(self.procs):
            _signal_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=STOP_GRACE_SECONDS)
            if not _wait_group_gone(proc.pid, timeout=STOP_GRACE_SECONDS):
                print(f"engines: {name}: SIGTERM not enough; SIGKILL", flush=True)
                _signal_group(proc.pid, signal.SIGKILL)
                _wait_group_gone(proc.pid, timeout=10)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        problems = []
        deadline = time.monotonic() + 10
        while (left := processes_with(self.run_id)) and time.monotonic() < deadline:
            time.sleep(0.5)
        for pid, cmd in left:
            problems.append(f"process left behind: pid {pid}: {cmd}")
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while (busy := [n for n, p in self.ports.items() if not port_is_free(p)]) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.5)
        problems += [f"port still bound: {n} {self.ports[n]}" for n in busy]
        return problems

    def print_log_tails(self) -> None:
        for name, _, log in self.procs:
            if log is None or not log.exists():
                continue
            lines = log.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
            print(f"----- {name}: last {len(lines)} lines of {log}", file=sys.stderr)
            print("\n".join(lines), file=sys.stderr)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # Only zombies left (a leader we have not reaped yet) count as gone.
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
    return False


def _wait_group_gone(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


# --------------------------------------------------------------------------------------------------
# Thrift Server
# --------------------------------------------------------------------------------------------------


def start_thrift(run: Run, timeout: float = 240) -> int:
    """HiveThriftServer2 from pyspark's jars on 127.0.0.1:<free port>, its Derby metastore and
    warehouse under run.home; returns when a real query answers."""
    home = run.home / "thrift"
    home.mkdir(parents=True)
    port = run.port("thrift")
    argv = [
        str(spark_home() / "bin" / "spark-submit"),
        "--class",
        "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
        "--master",
        "local[2]",
        "--driver-memory",
        "1g",
        "--driver-class-path",
        str(hive_llap_common_jar()),
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",
        "--conf",
        "spark.sql.session.timeZone=UTC",
        "--conf",
        f"spark.sql.warehouse.dir={home}/warehouse",
        "--conf",
        f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={home}/metastore_db;create=true",
        "--conf",
        f"spark.driver.extraJavaOptions=-Dderby.system.home={home}",
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={HOST}",
    ]
    run.start("thrift-server", argv, run.env())
    listening = lambda: accepts_connections(port)  # noqa: E731
    run.wait_until(f"the Thrift Server to listen on {port}", listening, timeout)
    run.wait_until("the Thrift Server to answer `select 1`", lambda: _thrift_select_1(port), 60)
    _thrift_loads_hive_functions(port)
    print(f"engines: Thrift Server ready on {HOST}:{port}", flush=True)
    return port


def _thrift_select_1(port: int) -> bool:
    from pyhive import hive

    with contextlib.closing(hive.connect(host=HOST, port=port, username="dbt")) as conn:
        cursor = conn.cursor()
        cursor.execute("select 1")
        return cursor.fetchall() == [(1,)]


def _thrift_loads_hive_functions(port: int) -> None:
    """Hive's FunctionRegistry initialises in the server (what closing a session may need, at
    random): fails at once, whatever the timing, without hive-llap-common on its class path."""
    from pyhive import hive

    registry = "org.apache.hadoop.hive.ql.exec.FunctionRegistry"
    with contextlib.closing(hive.connect(host=HOST, port=port, username="dbt")) as conn:
        cursor = conn.cursor()
        try:
            cursor.execute(f"select reflect('java.lang.Class', 'forName', '{registry}')")
            loaded = cursor.fetchall() == [(f"class {registry}",)]
        except Exception as error:  # noqa: BLE001 - the server's error, shown below
            loaded, why = False, str(error)[:300]
        else:
            why = "unexpected answer"
    if not loaded:
        raise RuntimeError(
            f"the Thrift Server cannot load Hive's {registry} ({why}): hive-llap-common must be "
            "on its --driver-class-path (hive_llap_common_jar)"
        )


def dbt_env(run: Run, **extra: str) -> dict[str, str]:
    return run.env(
        DBT_PROFILES_DIR=str(IT_DIR),
        DBT_TARGET_PATH=str(run.home / "dbt-target"),
        DBT_LOG_PATH=str(run.home / "dbt-logs"),
        TABLE_DIFF_SPARK_HOME=str(run.home / "driver"),
        **extra,
    )


def dbt(
    run: Run, env: dict[str, str], *args: str, capture: bool = False, cwd: Path = IT_DIR
) -> tuple[int, str]:
    return run.run([str(BIN / "dbt"), *args], env, capture=capture, cwd=cwd)


# The pair's split step in SQL (ADR 0025), as `table-diff scaffold pair --split sql` writes it.
SQL_SPLIT_MODEL = """\
-- Written by scripts/engines.py for the Thrift Server run: the split step in SQL (ADR 0025).
{{{{ config(materialized='table') }}}}
{{{{ table_diff.block_split(
    ranges=ref('{pair}__ranges'),
    block_hashes=ref('{pair}__block_hashes')
) }}}}
"""


def project_copy(run: Run) -> Path:
    """A copy of integration_tests in the run's folder, the package being the checkout's (by
    absolute path): an engine's `dbt deps` and build then share no file with `make integration`,
    which `make test` runs at the same time (ADR 0026)."""
    project = run.home / "project"
    shutil.copytree(
        IT_DIR,
        project,
        ignore=shutil.ignore_patterns(
            "target", "logs", ".spark", "dbt_packages", "package-lock.yml", "__pycache__"
        ),
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(REPO))}\n")
    return project


def thrift_project(run: Run) -> Path:
    """`project_copy` in which every pair case's split step is the SQL one (the `--split sql`
    model), except the Python probes', so that every pair case builds whole on thrift."""
    project = project_copy(run)
    converted = 0
    for model in sorted((project / "models" / "cases").glob("*/*__block_split.py")):
        if model.stem in THRIFT_PYTHON_PROBES:
            continue
        pair = model.stem.removesuffix("__block_split")
        model.with_suffix(".sql").write_text(SQL_SPLIT_MODEL.format(pair=pair))
        model.unlink()
        converted += 1
    if converted == 0:
        raise EngineFailure("no pair case with a Python split step found to run in SQL on thrift")
    print(f"engines: thrift project: {converted} pair cases' split step in SQL", flush=True)
    return project


def check(rc: int, what: str) -> None:
    if rc != 0:
        raise EngineFailure(f"{what} failed (exit {rc})")


def thrift_tests(run: Run, port: int) -> None:
    env = dbt_env(run, TABLE_DIFF_THRIFT_PORT=str(port))
    project = thrift_project(run)
    check(dbt(run, env, "deps", cwd=project)[0], "dbt deps")
    seed = ("seed", "--target", "thrift")
    check(dbt(run, env, *seed, cwd=project)[0], " ".join(seed))
    build = ("build", "--target", "thrift", "--selector", THRIFT_SELECTOR)
    rc = dbt(run, env, *build, "--exclude", "resource_type:seed", cwd=project)[0]
    check(rc, " ".join(build))
    # Python models cannot run on thrift: each must fail, with the companion's message, not run.
    probe = ("run", "--target", "thrift", "--select", *THRIFT_PYTHON_PROBES)
    rc, out = dbt(run, env, *probe, capture=True, cwd=project)
    refused = out.count(THRIFT_PYTHON_REFUSAL)
    if rc == 0 or refused < len(THRIFT_PYTHON_PROBES):
        print(out)
        raise EngineFailure(
            f"expected {', '.join(THRIFT_PYTHON_PROBES)} to fail on thrift with "
            f"{THRIFT_PYTHON_REFUSAL!r}; got exit {rc} and {refused} such message(s)"
        )
    print(f"engines: thrift refuses Python models as expected ({', '.join(THRIFT_PYTHON_PROBES)})")
    # The package's own Python model (the pair status, ADR 0037) is left out with a line instead,
    # so a thrift project's plain `dbt build` stays green.
    status = ("run", "--target", "thrift", "--select", "table_diff_pair_status")
    rc, out = dbt(run, env, *status, capture=True, cwd=project)
    if rc != 0 or THRIFT_STATUS_SKIPPED not in out:
        print(out)
        raise EngineFailure(
            f"expected table_diff_pair_status to pass on thrift with {THRIFT_STATUS_SKIPPED!r}; "
            f"got exit {rc}"
        )
    print("engines: thrift leaves the pair status model out as expected")


# --------------------------------------------------------------------------------------------------
# Standalone cluster
# --------------------------------------------------------------------------------------------------


def master_status(ui_port: int) -> dict:
    with urllib.request.urlopen(f"http://{HOST}:{ui_port}/json/", timeout=5) as resp:
        return json.load(resp)


def start_cluster(run: Run, workers: int = 2, timeout: float = 120) -> dict[str, int]:
    """A master and `workers` workers (1 core, 1g each) on loopback; returns when all registered."""
    spark_class = str(spark_home() / "bin" / "spark-class")
    master_port, ui_port = run.port("master"), run.port("master-webui")
    run.start(
        "master",
        [
            spark_class,
            "org.apache.spark.deploy.master.Master",
            "--host",
            HOST,
            "--port",
            str(master_port),
            "--webui-port",
            str(ui_port),
        ],
        run.env(),
    )
    listening = lambda: accepts_connections(master_port)  # noqa: E731
    run.wait_until(f"the master on {master_port}", listening, timeout)
    for i in range(1, workers + 1):
        work_dir = run.home / f"worker-{i}"
        work_dir.mkdir(parents=True)
        run.start(
            f"worker-{i}",
            [
                spark_class,
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                HOST,
                "--port",
                str(run.port(f"worker-{i}")),
                "--webui-port",
                str(run.port(f"worker-{i}-webui")),
                "--cores",
                "1",
                "--memory",
                "1g",
                "--work-dir",
                str(work_dir),
                f"spark://{HOST}:{master_port}",
            ],
            run.env(),
        )
    run.wait_until(
        f"{workers} workers registered with the master",
        lambda: master_status(ui_port).get("aliveworkers") == workers,
        timeout,
    )
    print(f"engines: master spark://{HOST}:{master_port} with {workers} workers ready", flush=True)
    return {"master": master_port, "webui": ui_port}


def tasks_per_executor(event_dir: Path) -> tuple[Counter, dict[str, str]]:
    """From Spark's event logs (JSON lines): tasks ended per executor id, and each executor's
    worker (the web UI address in its log URLs)."""
    tasks: Counter = Counter()
    worker_of: dict[str, str] = {}
    for path in sorted(p for p in event_dir.iterdir() if p.is_file() and p.suffix != ".crc"):
        app = path.name.removesuffix(".inprogress")
        for line in path.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:  # a last line cut short
                continue
            kind = event.get("Event")
            if kind == "SparkListenerTaskEnd":
                tasks[f"{app}/{event['Task Info']['Executor ID']}"] += 1
            elif kind == "SparkListenerExecutorAdded":
                urls = (event.get("Executor Info") or {}).get("Log Urls") or {}
                url = next(iter(urls.values()), "")
                worker_of[f"{app}/{event['Executor ID']}"] = url.split("/logPage")[0]
    return tasks, worker_of


def assert_ran_on_workers(event_dir: Path, worker_ui_ports: list[int]) -> str:
    tasks, worker_of = tasks_per_executor(event_dir)
    total = sum(tasks.values())
    in_driver = sum(n for key, n in tasks.items() if key.endswith("/driver"))
    per_worker: Counter = Counter()
    for key, n in tasks.items():
        per_worker[worker_of.get(key, "?")] += n
    summary = ", ".join(f"{w or '?'}: {n}" for w, n in sorted(per_worker.items()))
    apps = len({key.split("/")[0] for key in tasks})
    summary = f"{total} tasks in {apps} application(s); per worker: {summary}"
    if total == 0:
        raise EngineFailure(f"no task in the event log: {summary}")
    if in_driver:
        raise EngineFailure(f"{in_driver} task(s) ran in the driver: {summary}")
    expected = {f"http://{HOST}:{p}" for p in worker_ui_ports}
    unused = sorted(expected - {w for w, n in per_worker.items() if n})
    if unused or set(per_worker) - expected:
        raise EngineFailure(f"tasks not spread over the workers {sorted(expected)}: {summary}")
    return summary


def cluster_tests(run: Run, ports: dict[str, int]) -> None:
    events = run.home / "events"
    events.mkdir()
    env = dbt_env(
        run,
        TABLE_DIFF_MASTER_PORT=str(ports["master"]),
        TABLE_DIFF_EVENT_LOG="true",
        TABLE_DIFF_EVENT_LOG_DIR=str(events),
    )
    project = project_copy(run)
    check(dbt(run, env, "deps", cwd=project)[0], "dbt deps")
    # One dbt process, one driver: seeds of the selected cases, models, Python split, tests.
    build = ("build", "--target", "cluster", "--selector", CLUSTER_SELECTOR)
    check(dbt(run, env, *build, cwd=project)[0], " ".join(build))
    worker_ui = [
        p for n, p in sorted(run.ports.items()) if n.startswith("worker-") and "webui" in n
    ]
    print("engines: cluster tasks: " + assert_ran_on_workers(events, worker_ui), flush=True)


# --------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def engine_run(keep: bool) -> Iterator[Run]:
    """A Run whose processes are stopped and checked whatever happens, SIGINT/SIGTERM included."""
    base = Path(tempfile.mkdtemp(prefix="table_diff_engines."))
    run = Run(home=base)
    previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    ok = interrupted = False
    try:
        yield run
        ok = True
    except Interrupted:
        interrupted = True
        raise
    finally:
        # A second Ctrl-C must not cut the cleanup short.
        for s in previous:
            signal.signal(s, signal.SIG_IGN)
        try:
            problems = run.stop()
            if not ok and not interrupted:
                run.print_log_tails()
            for problem in problems:
                print(f"engines: CLEANUP FAILED: {problem}", file=sys.stderr)
            if problems:
                ok = False
                raise EngineFailure("; ".join(problems))
            print(f"engines: stopped; no process left, ports free ({len(run.ports)})", flush=True)
        finally:
            if keep or (not ok and not interrupted):  # a failure keeps its logs
                print(f"engines: kept {base}", flush=True)
            else:
                shutil.rmtree(base, ignore_errors=True)
            for s, handler in previous.items():
                signal.signal(s, handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", choices=["thrift", "cluster"])
    parser.add_argument("--hold", action="store_true", help="start, print `ready`, wait for SIGINT")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        with engine_run(args.keep) as run:
            ports = start_thrift(run) if args.engine == "thrift" else start_cluster(run)
            if args.hold:
                ready = {"run_id": run.run_id, "ports": run.ports, "home": str(run.home)}
                print("ready " + json.dumps(ready), flush=True)
                while True:
                    time.sleep(3600)
            elif args.engine == "thrift":
                thrift_tests(run, ports)
            else:
                cluster_tests(run, ports)
    except Interrupted as exc:
        print(f"engines: {args.engine} interrupted ({exc}); stopped", file=sys.stderr)
        return 128 + exc.signum
    except EngineFailure as exc:
        print(f"engines: {args.engine} FAILED: {exc}", file=sys.stderr)
        return 1
    minutes = (time.monotonic() - started) / 60
    print(f"engines: {args.engine} passed in {minutes:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
