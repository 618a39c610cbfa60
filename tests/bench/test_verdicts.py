"""The verdict ledger the benchmark scripts record into and ``perf_table.py`` renders the README's
performance table from (bench/benchmarks/_verdicts.py)."""

from __future__ import annotations

import json

import pytest

from tests._benchmarks import load_benchmark_module

verdicts = load_benchmark_module("_verdicts")
perf_table = load_benchmark_module("perf_table")


@pytest.fixture
def ledger(tmp_path, monkeypatch):
    path = tmp_path / "figures" / "verdicts.json"
    monkeypatch.setenv(verdicts.LEDGER_ENV, str(path))
    monkeypatch.setattr("sys.argv", ["/somewhere/frontier.py", "--seed", "1"])
    return path


def test_record_then_load_round_trips_and_names_the_run(ledger):
    v = verdicts.record("1.2", "1. dp worst <= 30 ms", "9.2 ms", "old 15 ms", True)
    assert ledger.is_file()
    rows = verdicts.load()
    assert rows == {"1.2": v}
    assert v.met == "yes"
    assert v.command == "python bench/benchmarks/frontier.py --seed 1"
    assert v.when.endswith("UTC") and v.load.startswith("load")


def test_a_rerun_replaces_its_row_and_keeps_the_others(ledger):
    verdicts.record("1.1", "a", "1 ms", "-", False)
    verdicts.record("4.1", "b", "x", "-", "median yes; worst no")
    verdicts.record("1.1", "a", "2 ms", "-", True)
    rows = verdicts.load()
    assert sorted(rows) == ["1.1", "4.1"]
    assert rows["1.1"].measured == "2 ms" and rows["1.1"].met == "yes"
    assert rows["4.1"].met == "median yes; worst no"


def test_rows_sort_by_target_then_row_number_not_as_text(ledger):
    for key in ("1.10", "1.2", "10.1", "2.1"):
        verdicts.record(key, f"t{key}", "m", "a", True)
    table = perf_table_text()
    order = [table.index(f"| t{k} |") for k in ("1.2", "1.10", "2.1", "10.1")]
    assert order == sorted(order)
    # each target's group ends with the command its rows came from
    assert table.count("*from* `python bench/benchmarks/frontier.py --seed 1`") == 3


def test_cells_with_pipes_do_not_break_the_table(ledger):
    verdicts.record("3.1", "a | b", "c", "d", True)
    row = next(line for line in perf_table_text().splitlines() if line.startswith("| a"))
    assert row.count(" | ") == 3 and "a \\| b" in row


def test_bad_keys_are_refused():
    with pytest.raises(ValueError, match=r"'<target>\.<row>'"):
        verdicts.Verdict("one", "t", "m", "a", "yes", "c", "w", "l")


def test_an_unreadable_ledger_is_named_and_moved_aside_not_lost(ledger, capsys):
    ledger.parent.mkdir(parents=True)
    ledger.write_text('{"format": 1, "verdicts": {"1.1": ', encoding="utf-8")
    with pytest.raises(verdicts.LedgerError, match=r"verdicts\.json: not JSON \(line 1"):
        verdicts.load()
    verdicts.record("2.1", "t", "m", "a", True)
    assert "moved it to" in capsys.readouterr().err
    assert (ledger.parent / "verdicts.json.bad").read_text().startswith('{"format": 1')
    assert list(verdicts.load()) == ["2.1"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"verdicts": {}}, '"format": 1'),
        ({"format": 1, "verdicts": []}, 'key "verdicts"'),
        ({"format": 1, "verdicts": {"1.1": {"key": "1.1"}}}, r"verdicts\['1.1'\]: expected"),
    ],
)
def test_layout_errors_name_the_file_and_key(ledger, content, message):
    ledger.parent.mkdir(parents=True)
    ledger.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(verdicts.LedgerError, match=message):
        verdicts.load()


def test_a_field_of_the_wrong_type_is_named(ledger):
    verdicts.record("1.1", "t", "m", "a", True)
    data = json.loads(ledger.read_text())
    data["verdicts"]["1.1"]["met"] = 1
    ledger.write_text(json.dumps(data))
    with pytest.raises(verdicts.LedgerError, match=r"verdicts\['1.1'\]\.met: expected a string"):
        verdicts.load()


def test_perf_table_says_so_when_nothing_is_recorded(ledger, capsys):
    assert perf_table.main([]) == 2
    assert "no verdicts recorded yet" in capsys.readouterr().err


def test_perf_table_runs_after_every_other_figure():
    figures = load_benchmark_module("figures")
    specs = figures.figures()
    assert specs["perf-table"].get("last") is True
    assert [n for n, s in specs.items() if s.get("last")] == ["perf-table"]


def perf_table_text() -> str:
    return verdicts.render(verdicts.load())


def test_a_quick_run_does_not_replace_a_full_runs_row(ledger, monkeypatch, capsys):
    verdicts.record("4.4", "t", "full figure", "a", True)
    monkeypatch.setattr("sys.argv", ["exact_backends.py", "--parts", "z", "--quick"])
    verdicts.record("4.4", "t", "quick figure", "a", False)
    verdicts.record("4.5", "t", "quick only", "a", True)
    rows = verdicts.load()
    assert rows["4.4"].measured == "full figure"
    assert rows["4.5"].command.endswith("--quick")
    assert "does not replace a full run's row" in capsys.readouterr().err
    monkeypatch.setattr("sys.argv", ["exact_backends.py", "--parts", "z"])
    verdicts.record("4.5", "t", "full now", "a", True)
    assert verdicts.load()["4.5"].measured == "full now"
