"""Trust boundaries (docs/design.md#trust-boundaries-and-bounded-work): a suite file or command line
runs no code it does not name.

A solver named ``module:Attr`` must be a solver class (``name`` + a Python ``solve``) before
anything is called with the user's parameters; functions such as ``os:system`` and classes
without the protocol (``subprocess:Popen``) are refused with a clear error, at planning time too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedbench.bench.cli import main
from schedbench.bench.suite import SuiteError, load_suite
from schedbench.simcore.errors import SolverParameterError
from schedbench.solvers import registry

HOSTILE = [
    ("os:system", "command"),
    ("subprocess:run", "args"),
    ("subprocess:Popen", "args"),
    ("builtins:eval", "source"),
    ("builtins:exec", "source"),
    ("shutil:rmtree", "path"),
]

SUITE = """
[suite]
name = "hostile"
budget_s = 1

[[instances]]
family = "theta"
source = "theta-window"
w = 5
seeds = 1

[[solvers]]
name = "{name}"
params = {{ {param} = "{command}" }}
"""

SIM_SUITE = """
[suite]
name = "hostile-sim"
budget_s = 1

[[simulations]]
name = "tiny"
workload = "lublin:jobs=20,nodes=64,seed=1"
system = "theta"
window = 5
policies = ["window:{name}[{param}={command}]"]
"""


def _touch_command(marker: Path) -> str:
    return f"touch {marker}"


@pytest.mark.parametrize("name, param", HOSTILE)
def test_registry_refuses_non_solver_callables(name, param):
    with pytest.raises(SolverParameterError, match="expected a solver class"):
        registry.load_object(name)


@pytest.mark.parametrize("name, param", HOSTILE)
@pytest.mark.parametrize("plan", [True, False])
def test_suite_naming_a_hostile_callable_runs_nothing(tmp_path, capsys, name, param, plan):
    marker = tmp_path / "pwned"
    suite = tmp_path / "s.toml"
    suite.write_text(SUITE.format(name=name, param=param, command=_touch_command(marker)))
    with pytest.raises(SuiteError, match="expected a solver class"):
        load_suite(suite)
    argv = ["run", str(suite), "--store", str(tmp_path / "r.sqlite")]
    assert main([*argv, "--plan"] if plan else argv) == 2
    err = capsys.readouterr().err
    assert "expected a solver class" in err and str(suite) in err
    assert not marker.exists()


@pytest.mark.parametrize("name, param", HOSTILE[:2])
def test_simulation_policy_naming_a_hostile_callable_runs_nothing(tmp_path, capsys, name, param):
    marker = tmp_path / "pwned"
    suite = tmp_path / "s.toml"
    suite.write_text(SIM_SUITE.format(name=name, param=param, command=_touch_command(marker)))
    assert main(["run", str(suite), "--plan", "--store", str(tmp_path / "r.sqlite")]) == 2
    assert "expected a solver class" in capsys.readouterr().err
    assert not marker.exists()


@pytest.mark.parametrize("cmd", ["simulate", "check-solver"])
def test_commands_refuse_a_hostile_solver(tmp_path, capsys, cmd):
    marker = tmp_path / "pwned"
    if cmd == "simulate":
        argv = [
            "simulate",
            "--workload",
            "lublin:jobs=20,nodes=64,seed=1",
            "--policy",
            "window",
            "--solver",
            "os:system",
            "--set",
            f"command=touch {marker}",
            "--out",
            str(tmp_path / "out"),
        ]
    else:
        argv = ["check-solver", "os:system", "--set", f"command=touch {marker}"]
    assert main(argv) == 2
    assert "expected a solver class" in capsys.readouterr().err
    assert not marker.exists()


def test_a_real_plugin_class_still_loads():
    cls = registry.load_object("tests.plugins_for_suites:Sleeper")
    solver = registry.instantiate(cls, {"seconds": "0"})
    assert solver.id == "sleeper[seconds=0]"
