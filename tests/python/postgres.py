"""A throwaway PostgreSQL server for tests: its own data folder, port and password, always removed.

``PostgresServer`` (a context manager) runs ``initdb`` (UTF8, locale C.UTF-8, scram-sha-256) in a
fresh temporary folder and starts the server on a free loopback port; ``stop`` (also on exceptions
and, with ``pg_ctl stop -m immediate``, at interpreter exit) ends it and removes the folder. The
session fixture ``postgres`` (function ``postgres_server``) holds one server per pytest process
(each xdist worker has its own). Spark reads it through its JDBC data source
(``spark_jdbc_options``), with the driver that ``scripts/fetch_lakehouse_jars.sh`` puts in
``spark.jars``. Standard library only: SQL goes through the ``psql`` client.

The binaries are Debian's package ``postgresql`` (``/usr/lib/postgresql/<major>/bin``, the newest
wins), else the folder ``pg_config --bindir`` names, else ``initdb`` on PATH. When none is found
and we are root with apt-get, the package is installed; otherwise the error says how. PostgreSQL
refuses to run as root: as root, ``initdb`` and ``pg_ctl`` run as the OS user ``postgres`` (the
package creates it) and the folder is theirs.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PACKAGE = "postgresql"
INSTALL = f"apt-get update && apt-get install -y {PACKAGE}"
HOST = "127.0.0.1"
SERVER_TOOLS = ("initdb", "pg_ctl", "postgres")
JDBC_DRIVER = "org.postgresql.Driver"
# Durability is of no use to a throwaway server; these make initdb and writes quicker.
FAST_SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
# Statement statistics: the rows each statement returned, so a test can count what left the server.
STAT_SETTINGS = ("shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all")
# The session server's password, in the environment before any Spark JVM starts: a database side
# reads it as `${env:...}` (Spark substitutes it from the JVM's environment, fixed at launch).
PASSWORD_ENV = "TABLE_DIFF_TEST_PG_PASSWORD"
os.environ.setdefault(PASSWORD_ENV, secrets.token_urlsafe(18))


class PostgresUnavailable(RuntimeError):
    """The server binaries are missing or the server would not start; the message says why."""


class PsqlError(RuntimeError):
    """A statement run through ``psql`` failed."""


def _has_server_tools(bindir: Path) -> bool:
    return all(os.access(bindir / tool, os.X_OK) for tool in SERVER_TOOLS)


def find_bindir() -> Path | None:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    debian = []
    for candidate in Path("/usr/lib/postgresql").glob("*/bin"):
        major = candidate.parent.name
        if re.fullmatch(r"\d+(\.\d+)?", major) and _has_server_tools(candidate):
            debian.append((float(major), candidate))
    if debian:
        return max(debian)[1]
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        bindir = Path(found.stdout.strip())
        if found.returncode == 0 and _has_server_tools(bindir):
            return bindir
    initdb = shutil.which("initdb")
    if initdb and _has_server_tools(Path(initdb).parent):
        return Path(initdb).parent
    return None


def _stop_package_clusters() -> None:
    """Stop the default cluster Debian's post-install may have started (we use our own folder)."""
    if not shutil.which("pg_lsclusters"):
        return
    listed = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True)
    for line in listed.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3] == "online":
            subprocess.run(
                ["pg_ctlcluster", fields[0], fields[1], "stop", "-m", "fast"],
                capture_output=True,
            )


def ensure_bindir() -> Path:
    """``find_bindir``, installing Debian's package first when missing (as root with apt-get)."""
    bindir = find_bindir()
    if bindir is not None:
        return bindir
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise PostgresUnavailable(
            f"PostgreSQL's server binaries ({', '.join(SERVER_TOOLS)}) were not found in "
            "/usr/lib/postgresql/*/bin, `pg_config --bindir` or PATH: install the package "
            f"`{PACKAGE}` (Debian/Ubuntu, as root: `{INSTALL}`), then rerun"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    installed = subprocess.run(["sh", "-c", INSTALL], capture_output=True, text=True, env=env)
    if installed.returncode != 0:
        tail = "\n".join((installed.stdout + installed.stderr).splitlines()[-15:])
        raise PostgresUnavailable(
            f"PostgreSQL's server binaries were missing and `{INSTALL}` failed "
            f"(exit {installed.returncode}); install the package `{PACKAGE}` and rerun:\n{tail}"
        )
    _stop_package_clusters()
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(
            f"`{INSTALL}` succeeded but no initdb/pg_ctl/postgres was found in "
            f"/usr/lib/postgresql/*/bin; check the package `{PACKAGE}`"
        )
    return bindir


def free_port() -> int:
    """A loopback port nothing listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def accepts_connections(port: int, timeout: float = 1.0) -> bool:
    """True when something accepts TCP connections on HOST:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        return s.connect_ex((HOST, port)) == 0


def _clean_env() -> dict[str, str]:
    """This process's environment without libpq's PG* variables (they would redirect psql)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("PG")}


class PostgresServer:
    """A PostgreSQL server in a temporary folder, from ``start()`` (or ``with``) to ``stop()``.

    After ``start``: ``port``, ``user``, ``password``, ``database`` (created empty), ``jdbc_url``,
    ``root`` (the folder: ``data/``, the socket, ``server.log``), ``bindir``, ``psql_bin``.
    """

    def __init__(
        self, database: str = "table_diff", user: str = "td", password: str | None = None
    ) -> None:
        self.database = database
        self.user = user
        self.password = password or secrets.token_urlsafe(18)
        self.port: int | None = None
        self.root: Path | None = None
        self.bindir: Path | None = None
        self.psql_bin: str | None = None
        self._run_as: pwd.struct_passwd | None = None

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> PostgresServer:
        """initdb, then start on a free port (a few tries: another process may take the port)."""
        if self.root is not None:
            raise RuntimeError("this PostgresServer is already started")
        self.bindir = ensure_bindir()
        psql = self.bindir / "psql"
        self.psql_bin = str(psql) if psql.exists() else shutil.which("psql")
        if self.psql_bin is None:
            raise PostgresUnavailable(
                f"no psql next to {self.bindir / 'initdb'} or on PATH: install the package "
                "`postgresql-client` (Debian/Ubuntu)"
            )
        self._run_as = self._server_user()
        self.root = Path(tempfile.mkdtemp(prefix="table_diff_pg_"))
        atexit.register(self._stop_at_exit)
        try:
            self._initdb()
            for attempt in range(3):
                self.port = free_port()
                started = self._pg_ctl("-o", self._server_options(), "-l", str(self._log), "start")
                if started.returncode == 0:
                    break
                if "could not bind" not in self._log_tail() or attempt == 2:
                    raise PostgresUnavailable(
                        f"PostgreSQL did not start on port {self.port} (pg_ctl exit "
                        f"{started.returncode}): {started.stdout}{started.stderr}\n"
                        f"server log:\n{self._log_tail()}"
                    )
            self.create_database(self.database)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the server (fast, else immediate, else SIGQUIT), remove its folder; idempotent."""
        atexit.unregister(self._stop_at_exit)
        if self.root is None:
            return
        try:
            if self._pid() is not None:
                stopped = self._pg_ctl("-m", "fast", "-t", "30", "stop")
                if stopped.returncode != 0:
                    self._pg_ctl("-m", "immediate", "-t", "10", "stop")
                self._quit_if_still_ours()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def _stop_at_exit(self) -> None:
        if self.root is None:
            return
        with contextlib.suppress(Exception):
            self._pg_ctl("-m", "immediate", "-t", "10", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    def __enter__(self) -> PostgresServer:
        return self if self.root is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what tests use ---------------------------------------------------------------------

    def jdbc_url_for(self, database: str) -> str:
        return f"jdbc:postgresql://{HOST}:{self.port}/{database}"

    @property
    def jdbc_url(self) -> str:
        """``jdbc:postgresql://127.0.0.1:PORT/DATABASE``."""
        return self.jdbc_url_for(self.database)

    def spark_jdbc_options(self, database: str | None = None) -> dict[str, str]:
        """Options of Spark's JDBC data source: url, driver, user, password."""
        return {
            "url": self.jdbc_url_for(database or self.database),
            "driver": JDBC_DRIVER,
            "user": self.user,
            "password": self.password,
        }

    def psql(self, sql: str, database: str | None = None) -> str:
        """Run SQL text with psql (unaligned, tuples only: ``a|b`` per row); its stdout, without
        the final newline. Stops at the first error and raises :class:`PsqlError`."""
        if self.root is None or self.psql_bin is None:
            raise RuntimeError("the PostgreSQL server is not running (call start() first)")
        command = [
            self.psql_bin,
            *("-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"),
            *("-h", HOST, "-p", str(self.port), "-U", self.user, "-d", database or self.database),
            *("-f", "-"),
        ]
        env = {**_clean_env(), "PGPASSWORD": self.password, "PGCLIENTENCODING": "UTF8"}
        env["PGCONNECT_TIMEOUT"] = "10"
        done = subprocess.run(
            command, input=sql, capture_output=True, text=True, encoding="utf-8", env=env
        )
        if done.returncode != 0:
            raise PsqlError(f"psql exit {done.returncode}: {done.stderr.strip()}\nSQL:\n{sql}")
        return done.stdout.removesuffix("\n")

    def create_database(self, name: str) -> str:
        """Create database ``name`` (UTF8, owned by ``user``); its JDBC URL."""
        quoted = '"' + name.replace('"', '""') + '"'
        self.psql(f"create database {quoted}", database="postgres")
        return self.jdbc_url_for(name)

    # --- internals --------------------------------------------------------------------------

    @property
    def _data(self) -> Path:
        assert self.root is not None
        return self.root / "data"

    @property
    def _log(self) -> Path:
        assert self.root is not None
        return self.root / "server.log"

    def _log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self._log.read_text(errors="replace").splitlines()[-lines:])
        return "(no server log)"

    def _pid(self) -> int | None:
        """The postmaster's pid from postmaster.pid, if the file is there."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self._data / "postmaster.pid").read_text().splitlines()[0])
        return None

    def _quit_if_still_ours(self) -> None:
        """SIGQUIT (immediate shutdown) to a postmaster pg_ctl could not stop, if the pid in
        postmaster.pid is still a postgres of this data folder (never a reused pid)."""
        pid = self._pid()
        if pid is None:
            return
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if str(self._data).encode() in cmdline:
                os.kill(pid, signal.SIGQUIT)

    @staticmethod
    def _server_user() -> pwd.struct_passwd | None:
        """As root, the OS user ``postgres`` (PostgreSQL refuses root); else None (ourselves)."""
        if os.geteuid() != 0:
            return None
        try:
            return pwd.getpwnam("postgres")
        except KeyError:
            raise PostgresUnavailable(
                "running as root, and PostgreSQL refuses to run as root, but there is no OS user "
                f"`postgres` to run it as: install Debian's package `{PACKAGE}` (`{INSTALL}`, it "
                "creates the user) or run the tests as a non-root user"
            ) from None

    def _as_server_user(self, command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        """Run a server tool as the server's OS user, output captured, PG* variables dropped."""
        if self._run_as is not None:
            kwargs.update(user=self._run_as.pw_uid, group=self._run_as.pw_gid, extra_groups=[])
        return subprocess.run(
            command, capture_output=True, text=True, env=_clean_env(), cwd=self.root, **kwargs
        )

    def _initdb(self) -> None:
        assert self.root is not None and self.bindir is not None
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        pwfile.chmod(0o600)
        if self._run_as is not None:
            for path in (self.root, pwfile):
                os.chown(path, self._run_as.pw_uid, self._run_as.pw_gid)
            reachable = self._as_server_user(["test", "-w", str(self.root)])
            if reachable.returncode != 0:
                raise PostgresUnavailable(
                    f"the OS user postgres cannot write {self.root}: a folder above it is closed "
                    "to other users; point TMPDIR at a folder it can reach (e.g. /tmp)"
                )
        done = self._as_server_user(
            [
                str(self.bindir / "initdb"),
                *("-D", str(self._data), "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"),
                *("-A", "scram-sha-256", f"--pwfile={pwfile}", "-U", self.user),
            ]
        )
        pwfile.unlink()
        if done.returncode != 0:
            raise PostgresUnavailable(
                f"initdb failed (exit {done.returncode}) in {self._data}:\n"
                f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )

    def _server_options(self) -> str:
        assert self.root is not None
        settings = [f"listen_addresses={HOST}", *FAST_SETTINGS, *STAT_SETTINGS]
        options = ["-p", str(self.port), "-k", str(self.root)]
        for setting in settings:
            options += ["-c", setting]
        return shlex.join(options)  # pg_ctl hands the string to a shell

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess:
        assert self.bindir is not None
        return self._as_server_user(
            [str(self.bindir / "pg_ctl"), "-D", str(self._data), "-w", *args]
        )


# Fixture `postgres`; the function has another name so that tests' `postgres` arguments do not
# shadow an import of it (conftest.py: `from postgres import postgres_server`).
@pytest.fixture(scope="session", name="postgres")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for this pytest process; fails (never skips) when it cannot start."""
    server = PostgresServer(password=os.environ[PASSWORD_ENV])
    try:
        server.start()
        server.psql("create extension if not exists pg_stat_statements")
    except PostgresUnavailable as error:
        pytest.fail(str(error), pytrace=False)
    with server:
        yield server


if __name__ == "__main__":
    # `make postgres`: install the server binaries when missing (as root), say where they are.
    try:
        print(f"PostgreSQL server binaries: {ensure_bindir()}")
    except PostgresUnavailable as error:
        raise SystemExit(f"postgres: {error}") from None
