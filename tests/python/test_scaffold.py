"""`table-diff scaffold`: files written, options rendered once, bad input refused with the fix."""

from __future__ import annotations

import pytest

from dbt_table_diff.cli import main
from dbt_table_diff.scaffold.args import (
    ScaffoldError,
    parse_column_map,
    parse_normalize,
    parse_tolerance,
)
from dbt_table_diff.scaffold.files import jinja_literal
from dbt_table_diff.scaffold.options import PairOptions
from dbt_table_diff.scaffold.pair import render_pair


def _opts(**kw):
    base = dict(name="orders", source="ref('orders')", target="source('replica', 'orders')")
    base["primary_key"] = ("order_id",)
    base.update(kw)
    return PairOptions(**base)


def test_pair_files_and_options_live_only_in_ranges():
    files = render_pair(_opts(table_filter="status != 'test'", normalize={"amount": {"round": 2}}))
    assert sorted(files) == [
        "_orders__models.yml",
        "orders__block_hashes.sql",
        "orders__block_split.py",
        "orders__column_stats.sql",
        "orders__ranges.sql",
        "orders__row_diff.sql",
        "orders__summary.sql",
    ]
    # the statistics sit before the summary, which checks their run (ADR 0021)
    assert "table_diff.column_stats(" in files["orders__column_stats.sql"]
    assert "row_diff=ref('orders__row_diff')" in files["orders__column_stats.sql"]
    assert "column_stats=ref('orders__column_stats')" in files["orders__summary.sql"]
    assert "- name: orders__column_stats" in files["_orders__models.yml"]
    assert "- name: changed_share" in files["_orders__models.yml"]
    ranges = files["orders__ranges.sql"]
    assert "table_diff.key_ranges(" in ranges
    assert "table_filter='status != \\'test\\''" in ranges
    assert "normalize={'amount': {'round': 2}}" in ranges
    for name in (
        "orders__block_hashes.sql",
        "orders__row_diff.sql",
        "orders__column_stats.sql",
        "orders__summary.sql",
    ):
        assert "normalize" not in files[name] and "table_filter" not in files[name]
        assert "{{ config(materialized='table_diff_table') }}" in files[name]
    assert 'dbt.ref("orders__block_hashes")' in files["orders__block_split.py"]
    assert 'dbt.config(materialized="table_diff_table")' in files["orders__block_split.py"]
    compile(files["orders__block_split.py"], "split.py", "exec")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "bad name"}, "invalid NAME 'bad name'"),
        ({"source": "orders"}, 'invalid --source "orders"'),
        ({"primary_key": ()}, "missing --primary-key"),
        ({"columns": ("a",), "exclude_columns": ("b",)}, "not both"),
        ({"block_count": 0}, "invalid --block-count 0"),
        ({"split_factor": 1}, "invalid --split-factor 1. Expected a whole number >= 2"),
        ({"strategy": "fast"}, "invalid --strategy 'fast'"),
        ({"quick_check": "yes"}, "invalid --quick-check 'yes'. Expected auto, true or false"),
        ({"split": "scala"}, "invalid --split 'scala'. Expected python (a Python model"),
        ({"repair": "both"}, "invalid --repair 'both'. Expected source_to_target or"),
        ({"column_map": {"amt": "amount"}, "track": True}, "give --column-map or --track"),
        (
            {"column_map": {"amt": "amount"}, "repair": "source_to_target"},
            "give --column-map or --repair",
        ),
    ],
)
def test_bad_pair_options_are_refused(kwargs, message):
    with pytest.raises(ScaffoldError, match=None) as err:
        render_pair(_opts(**kwargs))
    assert message in str(err.value)


def test_normalize_flags():
    assert parse_normalize(["amount:round=2", "name:trim", "name:lower", "ts:truncate=second"]) == {
        "amount": {"round": 2},
        "name": {"trim": True, "lower": True},
        "ts": {"truncate": "second"},
    }
    for bad in ("amount", "amount:ceil=1", "amount:round=x", "ts:truncate=week", "n:trim=yes"):
        with pytest.raises(ScaffoldError):
            parse_normalize([bad])


def test_column_map_flags_reach_the_ranges_model(tmp_path):
    assert parse_column_map(["amt=amount", " id = order_id "]) == {
        "amt": "amount",
        "id": "order_id",
    }
    for bad, message in (
        (["amt"], "Expected TARGET_COLUMN=SOURCE_COLUMN"),
        (["=amount"], "Expected TARGET_COLUMN=SOURCE_COLUMN"),
        (["amt=amount", "AMT=total"], "AMT is mapped twice"),
        (["amt=amount", "a2=Amount"], "two target columns map to Amount"),
    ):
        with pytest.raises(ScaffoldError) as err:
            parse_column_map(bad)
        assert message in str(err.value)
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    args += ["--primary-key", "order_id", "--column-map", "id=order_id", "--dir", str(tmp_path)]
    assert main(args) == 0
    ranges = (tmp_path / "p__ranges.sql").read_text()
    assert "column_map={'id': 'order_id'}" in ranges
    assert "column_map" not in (tmp_path / "p__block_hashes.sql").read_text()


def test_tolerance_flags_reach_the_ranges_model(tmp_path):
    assert parse_tolerance(["amount:abs=0.01", "rate:rel=1e-6", "ts:abs=2 seconds", "n:abs=3"]) == {
        "amount": {"abs": 0.01},
        "rate": {"rel": 1e-6},
        "ts": {"abs": "2 seconds"},
        "n": {"abs": 3},
    }
    for bad, message in (
        (["amount"], "Expected COLUMN:abs=N"),
        (["amount:max=1"], "Expected COLUMN:abs=N"),
        (["amount:abs=-1"], "Expected a number > 0"),
        (["rate:rel=often"], "rel takes a number"),
        (["a:abs=1", "a:rel=0.1"], "a has a tolerance already"),
    ):
        with pytest.raises(ScaffoldError) as err:
            parse_tolerance(bad)
        assert message in str(err.value)
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    args += ["--primary-key", "id", "--tolerance", "amount:abs=0.01", "--dir", str(tmp_path)]
    assert main(args + ["--tolerance", "rate:rel=1e-06"]) == 0
    ranges = (tmp_path / "p__ranges.sql").read_text()
    assert "tolerance={'amount': {'abs': 0.01}, 'rate': {'rel': 1e-06}}" in ranges


def test_limit_flags_reach_the_pair_test(tmp_path, capsys):
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    args += ["--primary-key", "id", "--dir", str(tmp_path), "--test"]
    assert main(args + ["--max-added", "100", "--max-modified", "0.1%"]) == 0
    props = (tmp_path / "_p__models.yml").read_text()
    assert '            max_added: 100\n            max_modified: "0.1%"\n' in props
    for bad, message in (
        (["--max-deleted", "-5"], "invalid --max-deleted '-5'"),
        (["--max-deleted", "120%"], "over 100%"),
        (["--max-deleted", "few"], "Expected a whole number of rows"),
    ):
        capsys.readouterr()
        assert main([*args, "--force", *bad]) != 0, bad
        assert message in capsys.readouterr().err
    capsys.readouterr()
    assert main([a for a in args if a != "--test"] + ["--force", "--max-added", "1"]) != 0
    assert "add --test" in capsys.readouterr().err


def test_jinja_literal_escapes_quotes_and_backslashes():
    assert jinja_literal("it's a \\ b") == "'it\\'s a \\\\ b'"
    assert jinja_literal({"a": [1, True]}) == "{'a': [1, true]}"


def test_cli_refuses_to_overwrite_without_force(tmp_path, capsys):
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    args += ["--primary-key", "id", "--primary-key", "region", "--dir", str(tmp_path)]
    assert main(args) == 0
    assert "primary_key=['id', 'region']" in (tmp_path / "p__ranges.sql").read_text()
    assert main(args) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    (tmp_path / "p__ranges.sql").write_text("edited")
    assert main([*args, "--force"]) == 0
    assert "key_ranges" in (tmp_path / "p__ranges.sql").read_text()


@pytest.mark.parametrize(
    ("flag", "rendered"),
    [
        ([], None),
        (["--quick-check", "false"], "quick_check=false"),
        (["--quick-check", "auto"], "quick_check='auto'"),
    ],
)
def test_cli_quick_check_reaches_the_ranges_model(tmp_path, flag, rendered):
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    assert main([*args, "--primary-key", "id", "--dir", str(tmp_path), *flag]) == 0
    ranges = (tmp_path / "p__ranges.sql").read_text()
    if rendered is None:
        assert "quick_check" not in ranges  # the macro's default, 'auto'
    else:
        assert rendered in ranges


def test_cli_split_sql_writes_the_sql_split_model_instead_of_the_python_one(tmp_path, capsys):
    """ADR 0025: --split sql writes NAME__block_split.sql (the macro table_diff.block_split);
    switching the language replaces the other file (two models of one name fail dbt's parse),
    and only with --force, like any other file of the pair."""
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    args += ["--primary-key", "id", "--dir", str(tmp_path)]
    assert main([*args, "--split", "sql"]) == 0
    split = (tmp_path / "p__block_split.sql").read_text()
    assert "table_diff.block_split(" in split
    assert "ranges=ref('p__ranges')" in split and "block_hashes=ref('p__block_hashes')" in split
    assert "{{ config(materialized='table_diff_table') }}" in split
    assert not (tmp_path / "p__block_split.py").exists()
    # The rest of the pair is the same whichever language the split step is in.
    sql_files = {f.name: f.read_text() for f in tmp_path.iterdir() if "split" not in f.name}
    assert main([*args, "--force"]) == 0
    assert (tmp_path / "p__block_split.py").exists() and not (
        tmp_path / "p__block_split.sql"
    ).exists()
    assert "--split sql" in (tmp_path / "p__block_split.py").read_text()
    py_files = {f.name: f.read_text() for f in tmp_path.iterdir() if "split" not in f.name}
    assert py_files == sql_files and len(py_files) == 6
    capsys.readouterr()
    assert main([*args, "--split", "sql"]) == 2
    assert "(the split step, now --split sql). Pass --force" in capsys.readouterr().err
    assert (tmp_path / "p__block_split.py").exists() and not (
        tmp_path / "p__block_split.sql"
    ).exists()


def test_cli_keys_only_reaches_the_ranges_model(tmp_path):
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    assert main([*args, "--primary-key", "id", "--dir", str(tmp_path), "--keys-only"]) == 0
    assert "keys_only=true" in (tmp_path / "p__ranges.sql").read_text()
    assert main([*args, "--primary-key", "id", "--dir", str(tmp_path), "--force"]) == 0
    assert "keys_only" not in (tmp_path / "p__ranges.sql").read_text()  # the macro's default


@pytest.mark.parametrize(
    ("flag", "direction"),
    [(["--repair"], "source_to_target"), (["--repair", "target_to_source"], "target_to_source")],
)
def test_cli_repair_adds_a_repair_model(tmp_path, capsys, flag, direction):
    args = ["scaffold", "pair", "p", "--source", "ref('a')", "--target", "ref('b')"]
    assert main([*args, "--primary-key", "id", "--dir", str(tmp_path), *flag]) == 0
    repair = (tmp_path / "p__repair.sql").read_text()
    assert "table_diff.repair_rows(" in repair and f"direction='{direction}'" in repair
    assert "row_diff=ref('p__row_diff')" in repair and "summary=ref('p__summary')" in repair
    assert "table_diff.apply_repair" in repair  # how to apply it, in the model's header
    assert "- name: p__repair" in (tmp_path / "_p__models.yml").read_text()
    assert "dbt build --select +p__repair" in capsys.readouterr().out


def test_cli_scaffolds_a_merge(tmp_path):
    args = ["scaffold", "merge", "m", "--base", "ref('b')", "--ours", "ref('o')"]
    args += ["--theirs", "source('crm', 't')", "--primary-key", "id", "--dir", str(tmp_path)]
    assert main(args) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert "m__merge.sql" in written and "m__merge_summary.sql" in written
    assert "m__merged.sql" in written and "m__conflicts.sql" in written
    # the classification is the one Python model (ADR 0040); --classify sql writes none
    assert [name for name in written if name.endswith(".py")] == ["m__merge_classified.py"]
    assert main(args + ["--classify", "sql", "--force"]) == 0
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".py")]
