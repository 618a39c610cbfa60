"""schedbench warm: one line per step, the total, and exit codes that say which step failed."""

from __future__ import annotations

from schedbench.bench import warm as warm_module
from schedbench.bench.cli import main


def test_warm_reports_each_step_and_the_total(capsys):
    assert main(["warm", "--solver", "naive", "--solver", "binpack", "--no-cores"]) == 0
    err = capsys.readouterr().err
    assert "warm: solver naive:" in err and "warm: solver binpack:" in err
    assert "warm: 2 of 2 steps warmed" in err


def test_an_unknown_solver_is_bad_input(capsys):
    assert main(["warm", "--solver", "no-such-solver"]) == 2
    assert "--solver no-such-solver: unknown solver" in capsys.readouterr().err


def test_a_failing_step_is_named_and_the_others_still_warm(monkeypatch, capsys):
    real = warm_module.make_solver

    def broken(name, params):
        if name == "binpack":
            raise RuntimeError("cannot build")
        return real(name, params)

    monkeypatch.setattr(warm_module, "make_solver", broken)
    assert main(["warm", "--solver", "binpack", "--solver", "naive", "--no-cores"]) == 1
    err = capsys.readouterr().err
    assert "warm: solver binpack: failed: RuntimeError: cannot build" in err
    assert "warm: 1 of 2 steps warmed" in err
