"""One source, several replicas, one pass (ADR 0028).

A replica set scaffolded with ``--target`` three times (one identical replica, two with different
drift; NULL values, duplicate and NULL keys on every side) is built in the same dbt run as three
separate two-way pairs of the same tables. Each replica's rows in NAME__row_diff / NAME__summary
must equal its pair's answer and the brute-force oracle's counts; the set's signature pass reads
the source once and each replica once (counted from the executed plans). Bad replica sets fail
before any table is read.
"""

from __future__ import annotations

import shutil

import pytest
from oracle import brute_force_diff
from plans import full_reads

from dbt_table_diff.scaffold.args import ScaffoldError
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair, write_pair

REPLICAS = ("r_same", "r_drift", "r_other")
# Keys: 0..599 with 10 stored twice (id 11 -> 10) and one NULL key (id 7); NULL values throughout.
SOURCE = """
select case when id = 7 then null when id = 11 then 10 else id end as id,
       if(id % 5 = 0, null, concat('v', id)) as v,
       if(id % 7 = 0, null, cast(id * 0.5 as double)) as d
from range(600) as t(id)
"""
TARGETS = {
    "r_same": f"select * from ({SOURCE})",
    # changed values, deleted rows, added rows
    "r_drift": f"""
        select id, if(id % 50 = 3, concat(v, '!'), v) as v, d from ({SOURCE}) where id % 60 != 1
        union all select id, concat('new', id), null from range(600, 612) as t(id)""",
    # other columns changed (a value to NULL too), one more duplicate key and NULL key
    "r_other": f"""
        select id, if(id % 33 = 4, null, v) as v, if(id % 40 = 2, d + 1, d) as d from ({SOURCE})
        union all select 20, 'dup', 1.0 union all select null, 'nullkey', 2.0""",
}
IGNORED = {"run_id", "generated_at", "target_name"}
# Layout-dependent counts: the set plans one layout over all its sides, a pair over its two.
LAYOUT = {"blocks_total", "blocks_mismatched", "leaves_total", "units_mismatched"}


def _opts(name: str, targets: tuple[str, ...], source: str = "src", **options) -> PairOptions:
    exprs = tuple(f"source('gen', '{t}')" for t in targets)
    return PairOptions(
        name=name,
        source=f"source('gen', '{source}')",
        target=exprs[0],
        replicas=exprs if len(exprs) > 1 else (),
        primary_key=("id",),
        block_count=4,
        **options,
    )


def _scaffold(project, pairs: list[PairOptions], tables: list[str]) -> None:
    pairs_dir = project.root / "models" / "pairs"
    shutil.rmtree(pairs_dir, ignore_errors=True)
    pairs_dir.mkdir(parents=True)
    for opts in pairs:
        write_pair(opts, pairs_dir)
    (pairs_dir / "_gen__sources.yml").write_text(
        f"version: 2\nsources:\n  - name: gen\n    schema: {project.schema}\n    tables:\n"
        + "".join(f"      - name: {t}\n" for t in tables)
    )


@pytest.fixture(scope="module")
def project(dbt_project_factory):
    """The project and its tables (the source and the replicas), nothing built."""
    project = dbt_project_factory(
        "replicas",
        packages=True,
        project_config={"flags": {"send_anonymous_usage_stats": False, "partial_parse": True}},
    )
    spark, schema = project.spark, project.schema
    spark.sql(f"create schema if not exists `{schema}`")
    for table, body in {"src": SOURCE, **TARGETS}.items():
        spark.sql(f"create table `{schema}`.{table} using parquet as {body}")
    return project


@pytest.fixture(scope="module")
def built(project):
    tables = ["src", *REPLICAS]
    pairs = [_opts("rs", REPLICAS)] + [_opts(f"p_{r}", (r,)) for r in REPLICAS]
    _scaffold(project, pairs, tables)
    project.run("build", "--select", "pairs").assert_success()
    return project


def _rows(project, model: str, where: str = "true") -> list[dict]:
    df = project.spark.table(project.relation(model)).where(where)
    return [{k: v for k, v in r.asDict().items() if k not in IGNORED} for r in df.collect()]


def _sorted(rows: list[dict]) -> list[tuple]:
    return sorted((tuple(sorted(r.items(), key=lambda kv: kv[0])) for r in rows), key=repr)


@pytest.mark.parametrize("replica", REPLICAS)
def test_each_replica_is_its_pair(built, replica):
    """A replica's rows in the set's row diff and summary are its separate pair's, and the
    counts are the oracle's."""
    _assert_is_its_pair(built, replica)


def _assert_is_its_pair(built, replica: str) -> None:
    where = f"target_name = '{replica}'"
    assert _sorted(_rows(built, "rs__row_diff", where)) == _sorted(
        _rows(built, f"p_{replica}__row_diff")
    )
    [mine] = _rows(built, "rs__summary", where)
    [pair] = _rows(built, f"p_{replica}__summary")
    for column in set(pair) - LAYOUT - {c for c in pair if c.endswith("_version")}:
        assert mine[column] == pair[column], column
    spark, schema = built.spark, built.schema
    oracle = brute_force_diff(
        [r.asDict() for r in spark.table(f"`{schema}`.src").collect()],
        [r.asDict() for r in spark.table(f"`{schema}`.{replica}").collect()],
        ["id"],
        ["v", "d"],
    ).counts()
    assert (mine["rows_added"], mine["rows_deleted"], mine["rows_modified"]) == (
        oracle["added"],
        oracle["deleted"],
        oracle["modified"],
    )
    assert replica in mine["target_relation"]


def test_source_read_once(built):
    """The set's signature pass reads the source once and each replica once (N+1 reads), also
    when it mixes both kinds of signature: after the fixture's build found r_same identical and
    the others drifted, quick_check 'auto' judges each replica on its own, so r_same takes the
    whole-table signature while the source and the drifted replicas are grouped into leaves, in
    one query. Every replica's answer is still its pair's. Three separate pairs read the source
    three times."""
    spark, schema = built.spark, built.schema
    sizes = {f"{schema}.{t}": spark.table(f"`{schema}`.{t}").count() for t in ("src", *REPLICAS)}
    reads = full_reads(
        spark,
        sizes,
        {"v", "d"},
        lambda: built.run("run", "--select", "rs__block_hashes").assert_success(),
    )
    assert reads == {t: 1.0 for t in sizes}, reads
    hashes = built.relation("rs__block_hashes")
    shape = {
        r["side"]: (r["whole"], r["leaves"])
        for r in spark.sql(
            "select side, count_if(leaf_id is null) as whole,"
            f" count_if(leaf_id is not null) as leaves from {hashes} group by side"
        ).collect()
    }
    # r_same is target_1 (REPLICAS' order): one whole-table row; the others: leaves only
    assert shape["target_1"] == (1, 0), shape
    assert all(w == 0 and n > 0 for s, (w, n) in shape.items() if s != "target_1"), shape
    built.run(
        "build", "--select", "rs__block_hashes+", "--exclude", "rs__block_hashes"
    ).assert_success()
    for replica in REPLICAS:
        _assert_is_its_pair(built, replica)
    [same] = _rows(built, "rs__summary", "target_name = 'r_same'")
    assert same["is_identical"] is True, same
    separate = full_reads(
        spark,
        sizes,
        {"v", "d"},
        lambda: built.run(
            "run", "--select", *(f"p_{r}__block_hashes" for r in REPLICAS)
        ).assert_success(),
    )
    assert separate[f"{schema}.src"] == 3.0, separate


def test_no_drift_against_a_list_of_replicas(built):
    """no_drift with a list in compare_to: one shared whole-table signature pass (the source read
    once for all three replicas), then each drifted replica diffed as one compare_to is; the
    failing rows carry target_name and equal each replica's pair's row diff."""
    spark, schema = built.spark, built.schema
    sources = built.root / "models" / "pairs" / "_gen__sources.yml"
    listed = ", ".join(f"\"source('gen', '{r}')\"" for r in REPLICAS)
    sources.write_text(
        sources.read_text().replace(
            "      - name: src\n",
            "      - name: src\n        data_tests:\n"
            f"          - table_diff.no_drift:\n              name: drift_all\n"
            f"              arguments:\n                compare_to: [{listed}]\n"
            "                primary_key: id\n"
            "          - table_diff.no_drift:\n              name: drift_same\n"
            "              arguments:\n                compare_to: [\"source('gen', 'r_same')\"]\n"
            "                primary_key: id\n",
        )
    )
    sizes = {f"{schema}.{t}": spark.table(f"`{schema}`.{t}").count() for t in ("src", *REPLICAS)}
    holder = {}
    reads = full_reads(
        spark,
        sizes,
        {"v", "d"},
        lambda: holder.update(run=built.run("test", "--store-failures", "--select", "drift_all")),
    )
    run = holder["run"]
    assert run.status("drift_all") == "fail", run.describe()
    # each replica once for the shared signatures, a drifted one twice more for its rows (the
    # narrow key/hash pass, then the fetch of the differing keys' rows: ADR 0033); the source once
    # for the signatures, then at most twice per drifted replica (Spark may reuse a scan of it for
    # both drifted replicas' rows, which are one cached query)
    assert reads.pop(f"{schema}.src") <= 5.0, reads
    assert reads == {f"{schema}.r_same": 1.0, f"{schema}.r_drift": 3.0, f"{schema}.r_other": 3.0}
    assert any("r_same" in m and "identical" in m and "one read of" in m for m in run.messages), (
        run.messages
    )
    same = built.run("test", "--select", "drift_same")
    assert same.status("drift_same") == "pass", same.describe()
    stored = spark.table(run.node("drift_all").node.relation_name).collect()
    columns = [c for c in stored[0].asDict() if c != "target_name"]
    for replica in REPLICAS:
        mine = [{c: r[c] for c in columns} for r in stored if r["target_name"] == replica]
        pair = _rows(built, f"p_{replica}__row_diff")
        assert _sorted(mine) == _sorted([{c: r[c] for c in columns} for r in pair]), replica
    assert {r["target_name"] for r in stored} == {"r_drift", "r_other"}


def test_bad_replica_sets_fail_before_any_scan(project):
    """A replica with another key type, one whose comparison type differs from the first
    replica's, an unknown column, two replicas of one name: clear errors from the set's ranges
    model, with no table read."""
    built = project
    spark, schema = built.spark, built.schema
    x = "select id, cast(id as decimal({})) as x from range(10) as t(id)"
    odd = {
        "r_strkey": f"select cast(id as string) as id, v, d from ({SOURCE})",  # another key type
        # x compares as decimal(10,1) with r_dec1, as decimal(12,1) with r_dec2
        "src_dec": x.format("10,1"),
        "r_dec1": x.format("10,1"),
        "r_dec2": x.format("12,1"),
    }
    for table, body in odd.items():
        spark.sql(f"drop table if exists `{schema}`.{table}")
        spark.sql(f"create table `{schema}`.{table} using parquet as {body}")
    tables = ["src", *REPLICAS, *odd]
    sizes = {f"{schema}.{t}": 1 for t in tables}
    cases = {
        "bad_key": (_opts("bad_key", ("r_same", "r_strkey")), "'id' is bigint in"),
        "bad_type": (
            _opts("bad_type", ("r_dec1", "r_dec2"), source="src_dec"),
            "Replica r_dec2 differs in columns at column x (decimal(10,1) for r_dec1, "
            "decimal(12,1) for r_dec2). Scaffold a separate pair for r_dec2",
        ),
        "bad_col": (_opts("bad_col", ("r_same", "r_drift"), columns=("nope",)), "nope"),
    }
    for name, (opts, needle) in cases.items():
        _scaffold(built, [opts], tables)
        holder = {}
        reads = full_reads(
            spark,
            sizes,
            {"id", "v", "d", "x"},
            lambda n=name, h=holder: h.update(run=built.run("run", "--select", f"{n}__ranges")),
        )
        run = holder["run"].assert_failure()
        message = run.message(f"{name}__ranges")
        assert needle in message and "table_diff.key_ranges" in message, message
        assert name != "bad_key" or "r_strkey" in message, message
        assert set(reads.values()) == {0.0}, reads
    # the same table twice: the macro refuses it (the scaffold does too, below)
    _scaffold(built, [], tables)
    (built.root / "models" / "pairs" / "dup__ranges.sql").write_text(
        "{{ table_diff.key_ranges(source=source('gen', 'src'), target=[source('gen', 'r_same'), "
        "source('gen', 'r_same')], primary_key=['id']) }}\n"
    )
    run = built.run("run", "--select", "dup__ranges").assert_failure()
    assert "two replicas are named 'r_same'" in run.message("dup__ranges").lower()
    with pytest.raises(ScaffoldError, match="two replicas are named 'r_same'"):
        render_pair(_opts("dup", ("r_same", "r_same")))
    # no_drift with a list: the same refusal, in the test's own argument names, before any scan
    sources = built.root / "models" / "pairs" / "_gen__sources.yml"
    sources.write_text(
        sources.read_text().replace(
            "      - name: src\n",
            "      - name: src\n        data_tests:\n"
            "          - table_diff.no_drift:\n              name: drift_bad\n"
            "              arguments:\n                compare_to: [\"source('gen', 'r_same')\","
            " \"source('gen', 'r_strkey')\"]\n                primary_key: id\n",
        )
    )
    holder = {}
    reads = full_reads(
        spark,
        sizes,
        {"id", "v", "d", "x"},
        lambda: holder.update(run=built.run("test", "--select", "drift_bad")),
    )
    message = holder["run"].assert_failure().message("drift_bad")
    assert "table_diff.no_drift" in message and "r_strkey" in message, message
    assert "'id' is bigint in" in message, message
    assert set(reads.values()) == {0.0}, reads


def test_scaffold_single_target_unchanged():
    """One --target writes a pair; several write the set's shared models and per-replica pairs."""
    single = render_pair(_opts("one", ("r_same",)))
    assert "replica" not in "".join(single.values())
    files = render_pair(_opts("rs", REPLICAS))
    for model in ("ranges", "block_hashes", "row_diff", "summary"):
        assert f"rs__{model}.sql" in files
    for r in REPLICAS:
        for model in ("ranges", "block_hashes", "block_split", "row_diff", "column_stats"):
            assert any(f.startswith(f"rs__{r}__{model}.") for f in files), (r, model)
    assert "target=[source('gen', 'r_same'), source('gen', 'r_drift')" in files["rs__ranges.sql"]
