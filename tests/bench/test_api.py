"""The public Python API (bench/api.py): its docstring examples run, arguments are checked
before any workload is read, and every core is reached the same way."""

from __future__ import annotations

import doctest
import json

import pytest

from schedbench.bench import api
from schedbench.simcore.core import SpecError, get_core
from schedbench.simcore.errors import (
    BudgetError,
    PolicyOptionError,
    SolverParameterError,
    UnknownPolicyError,
    UnknownSolverError,
)


def test_the_docstring_examples_run():
    result = doctest.testmod(api, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


@pytest.fixture
def no_loading(monkeypatch):
    """Every core's ``load`` fails the test: nothing may be read before the checks pass."""

    def refuse(self, spec):
        raise AssertionError(f"core {self.name} loaded {spec.workload} before the checks")

    for name in ("bbsched", "cerberus", "locality", "reservations"):
        monkeypatch.setattr(type(get_core(name)), "load", refuse)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"policy": "naive", "budget": 99}, BudgetError, "30"),
        ({"policy": "nope"}, UnknownPolicyError, "unknown policy 'nope'"),
        ({"policy": "window"}, PolicyOptionError, "needs --solver"),
        ({"policy": "naive", "solver": "dp"}, PolicyOptionError, "takes none"),
        ({"policy": "window", "solver": "dpx"}, UnknownSolverError, "dpx"),
        ({"policy": "window", "solver": "dp", "params": {"unit": 2}}, SolverParameterError, "unit"),
        ({"policy": "window", "solver": "ff"}, PolicyOptionError, "poses selection problems"),
        ({"policy": "naive", "options": {"window": 0}}, SpecError, "window: expected an integer"),
        ({"policy": "naive", "options": {"mode": "paper"}}, SpecError, "mode: expected a key"),
        ({"policy": "lea", "options": {"mode": "fast"}}, SpecError, "mode: expected reference"),
        ({"policy": "reserve"}, PolicyOptionError, "needs --solver"),
        (
            {"policy": "cerberus-fcfs", "policy_options": {"run_solver": "dp"}},
            SpecError,
            "run_solver",
        ),
    ],
)
def test_arguments_are_checked_before_any_workload_is_read(no_loading, kwargs, error, words):
    workload = {
        "lea": "locality:jobs=50,nodes=2,seed=1",
        "reserve": "ar:jobs=10,seed=1",
        "cerberus-fcfs": "cerberus:jobs=10,seed=1",
    }.get(kwargs["policy"], "lublin:jobs=50,nodes=64,seed=1")
    with pytest.raises(error, match=words):
        api.simulate(workload, **kwargs)


def test_a_workload_of_another_core_is_refused_by_form(no_loading):
    with pytest.raises(SpecError, match="workload: expected a Cerberus workload"):
        api.simulate("lublin:jobs=50,nodes=64,seed=1", policy="cerberus-maxt")
    with pytest.raises(SpecError, match="workload: expected"):
        api.simulate("cerberus:jobs=50,seed=1", policy="naive", system="theta")


def test_simulate_writes_and_returns_every_core_alike(tmp_path):
    runs = {
        "bbsched": api.simulate(
            "lublin:jobs=80,nodes=64,seed=1", system="theta", policy="window", solver="naive"
        ),
        "cerberus": api.simulate("cerberus:jobs=20,seed=1", policy="cerberus-maxp", solver="dp"),
        "locality": api.simulate(
            "locality:jobs=60,nodes=2,days=1,users=3,seed=1",
            policy="eft",
            options={"gate_s": 0},
            out=tmp_path / "loc",
        ),
        "reservations": api.simulate("ar:jobs=40,seed=1", policy="reserve", solver="fit"),
    }
    for core, done in runs.items():
        assert done.core.name == core
        table = done.run.jobs.columns
        assert {"id", "submit", "start", "end", "nodes", "status"} <= set(table)
    assert runs["reservations"].run.policy == "reserve:fit"
    doc = json.loads((tmp_path / "loc" / "metrics.json").read_text())
    assert doc["config"]["core"] == "locality" and doc["config"]["unit"] == "core"
    assert runs["locality"].files == ["jobs.csv", "metrics.json"]


def test_reproduce_takes_the_papers_options_as_keywords(tmp_path):
    requests = tmp_path / "r.csv"
    requests.write_text("id,arrival_s,ready_s,duration_s,deadline_s,pes\n1,0,0,10,100,2\n")
    out = tmp_path / "ar"
    assert api.reproduce("ar", requests=str(requests), pes=4, policy="ff", out=str(out)) == 0
    assert (out / "decisions.csv").is_file()
    with pytest.raises(SpecError, match="polcy: expected an option of reproduce ar"):
        api.reproduce("ar", polcy="ff")
    with pytest.raises(SpecError, match="paper: expected one of"):
        api.reproduce("nope")
    with pytest.raises(SpecError, match="out: expected a value"):
        api.reproduce("locality")
