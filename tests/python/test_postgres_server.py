"""The suite's PostgreSQL server (tests/python/postgres.py) and Spark's JDBC reads from it.

Marked `spark` as a whole, so `make check` (`-m "not spark or smoke"`) leaves it to `make test`:
the server may first have to be installed with apt-get, and half the module reads through the
SparkSession.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from postgres import (
    HOST,
    PostgresServer,
    PsqlError,
    accepts_connections,
)

pytestmark = pytest.mark.spark

HERE = Path(__file__).resolve().parent

ROWS = [
    (1, "Zürich", Decimal("12.50"), datetime.date(2024, 2, 29)),
    (2, "東京 🦆", Decimal("-0.01"), datetime.date(1999, 12, 31)),
    (3, "a|b, 'quoted'", None, None),
]


@pytest.fixture(scope="module")
def jdbc_spark(spark: Any) -> Any:
    """The shared session, with PostgreSQL's JDBC driver in spark.jars."""
    jars = spark.sparkContext.getConf().get("spark.jars", "")
    if not any(Path(jar).name.startswith("postgresql-") for jar in jars.split(",")):
        message = (
            "Spark's JDBC reads need PostgreSQL's driver in spark.jars: run through `make pytest`, "
            "or set TABLE_DIFF_LAKEHOUSE_JARS=$(scripts/fetch_lakehouse_jars.sh --print-jars) "
            f"(spark.jars is now {jars!r})"
        )
        if os.environ.get("TABLE_DIFF_REQUIRE_LAKEHOUSE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return spark


@pytest.fixture(scope="module")
def items_table(postgres: PostgresServer) -> str:
    """Table ``items`` with ROWS, created and loaded with psql."""
    postgres.psql(
        textwrap.dedent(
            """
            drop table if exists items;
            create table items (id int primary key, name text not null, amount numeric(10, 2),
                                day date);
            insert into items values
                (1, 'Zürich', 12.50, '2024-02-29'),
                (2, '東京 🦆', -0.01, '1999-12-31'),
                (3, 'a|b, ''quoted''', null, null);
            """
        )
    )
    return "items"


def test_server_is_postgresql_15_or_newer(postgres: PostgresServer) -> None:
    assert postgres.psql("select version()").startswith("PostgreSQL ")
    assert int(postgres.psql("show server_version_num")) >= 150000


def test_database_is_utf8_with_the_c_utf8_locale(postgres: PostgresServer) -> None:
    row = postgres.psql(
        "select current_database(), pg_encoding_to_char(encoding), datcollate, datctype "
        "from pg_database where datname = current_database()"
    )
    assert row == f"{postgres.database}|UTF8|C.UTF-8|C.UTF-8"
    assert postgres.psql("show server_encoding") == "UTF8"
    # characters, not bytes: the server decodes UTF-8
    assert postgres.psql("select length('Zürich 🦆'), octet_length('Zürich 🦆')") == "8|12"


def test_psql_stops_at_the_first_error(postgres: PostgresServer) -> None:
    postgres.psql("create table if not exists stop_marker (n int); truncate stop_marker")
    with pytest.raises(PsqlError, match="no_such_table"):
        postgres.psql(
            "insert into stop_marker values (1); select * from no_such_table; "
            "insert into stop_marker values (2);"
        )
    assert postgres.psql("select string_agg(n::text, ',') from stop_marker") == "1"


def test_a_wrong_password_is_refused(postgres: PostgresServer) -> None:
    env = {**os.environ, "PGPASSWORD": "not-" + postgres.password, "PGCONNECT_TIMEOUT": "10"}
    assert postgres.psql_bin is not None
    done = subprocess.run(
        [
            postgres.psql_bin,
            "-X",
            "-h",
            HOST,
            "-p",
            str(postgres.port),
            "-U",
            postgres.user,
            "-c",
            "select 1",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "password authentication failed" in done.stderr


def test_create_database(postgres: PostgresServer) -> None:
    url = postgres.create_database("second_db")
    assert url == f"jdbc:postgresql://{HOST}:{postgres.port}/second_db"
    assert postgres.psql("select current_database()", database="second_db") == "second_db"


def test_jdbc_url_and_spark_options(postgres: PostgresServer) -> None:
    url = f"jdbc:postgresql://127.0.0.1:{postgres.port}/{postgres.database}"
    assert postgres.jdbc_url == url
    assert postgres.spark_jdbc_options() == {
        "url": url,
        "driver": "org.postgresql.Driver",
        "user": postgres.user,
        "password": postgres.password,
    }


def test_spark_reads_a_table_loaded_with_psql(
    jdbc_spark: Any,
    postgres: PostgresServer,
    items_table: str,
) -> None:
    df = jdbc_spark.read.format("jdbc").options(**postgres.spark_jdbc_options())
    df = df.option("dbtable", items_table).load()
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("id", "int"),
        ("name", "string"),
        ("amount", "decimal(10,2)"),
        ("day", "date"),
    ]
    assert [tuple(row) for row in df.orderBy("id").collect()] == ROWS


def test_spark_query_option_runs_in_postgresql(
    jdbc_spark: Any,
    postgres: PostgresServer,
    items_table: str,
) -> None:
    """`query` is sent as is: string_agg(... order by ...) and ::casts are PostgreSQL's syntax."""
    query = (
        "select count(*) as n, string_agg(id::text, ',' order by id desc) as ids, "
        "current_setting('server_encoding') as encoding "
        f"from {items_table} where amount is not null"
    )
    df = jdbc_spark.read.format("jdbc").options(**postgres.spark_jdbc_options())
    rows = df.option("query", query).load().collect()
    assert [tuple(row) for row in rows] == [(2, "2,1", "UTF8")]


def test_stop_removes_the_folder_and_closes_the_port() -> None:
    server = PostgresServer(database="short_lived").start()
    root, port = server.root, server.port
    assert root is not None and (root / "data" / "PG_VERSION").is_file()
    assert accepts_connections(port)
    assert server.psql("select current_database()") == "short_lived"

    server.stop()
    assert not root.exists()
    assert not accepts_connections(port)
    server.stop()  # idempotent


def test_an_exception_inside_with_stops_the_server() -> None:
    with pytest.raises(ZeroDivisionError), PostgresServer() as server:
        root, port = server.root, server.port
        assert accepts_connections(port)
        1 / 0  # noqa: B018
    assert root is not None and not root.exists()
    assert not accepts_connections(port)


def test_interpreter_exit_stops_a_server_left_running(tmp_path: Path) -> None:
    """A process that never calls stop(): atexit stops the server and removes its folder."""
    child = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(HERE)!r})
        from postgres import PostgresServer
        server = PostgresServer().start()
        print(server.root, server.port, server.psql("select 1"), flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    root, port, answer = done.stdout.split()
    assert answer == "1"
    assert not Path(root).exists()
    assert not accepts_connections(int(port))
