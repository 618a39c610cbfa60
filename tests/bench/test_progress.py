"""The shared progress bar (bench/progress.py): shown only when wanted, counts what it is told."""

from __future__ import annotations

import io
import sys

import pytest

from schedbench.bench.progress import Progress, progress, wanted


def test_hidden_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHEDBENCH_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not wanted()
    bar = progress(10, "x")
    assert not bar.shown
    bar.update(3)
    bar.note("ignored")
    bar.close()
    assert sys.stderr.getvalue() == ""


def test_forced_on_and_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEDBENCH_PROGRESS", "1")
    assert wanted()
    assert not wanted(disable=True)  # --no-progress wins
    monkeypatch.setenv("SCHEDBENCH_PROGRESS", "0")
    assert not wanted()


def test_shown_bar_counts_running_totals_and_writes_to_stderr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SCHEDBENCH_PROGRESS", "1")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with progress(100, "sim", "job") as bar:
        assert bar.shown
        bar.set_done(40)
        bar.set_done(70)
        bar.update(5)
        assert bar._bar.n == 75
    text = err.getvalue()
    assert "sim" in text and "75/100" in text


def test_zero_total_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEDBENCH_PROGRESS", "1")
    assert not progress(0, "empty").shown
    assert not Progress(5, show=False).shown


def test_every_reproduction_accepts_no_progress() -> None:
    import argparse

    from schedbench.bench.cli import reproduce
    from schedbench.bench.reproduce import reproductions

    parser = argparse.ArgumentParser()
    reproduce.add_parser(parser.add_subparsers(dest="command"))
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    papers_action = next(
        a for a in sub.choices["reproduce"]._actions if isinstance(a, argparse._SubParsersAction)
    )
    papers = reproductions()
    assert papers, "no reproduction module found"
    for paper in papers:
        options = {o for a in papers_action.choices[paper]._actions for o in a.option_strings}
        assert "--no-progress" in options, paper
