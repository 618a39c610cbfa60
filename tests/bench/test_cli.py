"""The command-line contract (docs/reference/cli.md): output keys, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from schedbench.bench.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "instances" / "examples"
TABLE1 = EXAMPLES / "bbsched_table1.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_the_contract_keys(capsys):
    code, out, _ = run(capsys, "solve", str(TABLE1), "--solver", "dp")
    assert code == 0
    data = json.loads(out)
    assert {"status", "selected", "objectives", "pareto", "latency_s", "solver"} <= set(data)
    assert data["status"] == "optimal"
    assert data["selected"] == [1, 2, 3, 4]
    assert sorted(tuple(p["objectives"]) for p in data["pareto"]) == [(80, 90), (100, 20)]
    assert data["latency_s"] > 0
    assert data["solver"] == "dp"


def test_solve_with_parameters_records_the_id(capsys):
    code, out, _ = run(capsys, "solve", str(TABLE1), "--solver", "dp", "--set", "unit_nodes=10")
    assert code == 0
    data = json.loads(out)
    assert data["solver"] == "dp[unit_nodes=10]"
    assert data["status"] == "feasible"
    assert any("coarse" in n for n in data["notes"])


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "line 1 column 2"),
        ('{"capacities": [1, 2], "demands": [[1, 2], [3]]}', "demands[1]"),
        ('{"capacities": [1, 2], "demands": [[1, 2], [3, -1]]}', "demands[1][1]"),
        ('{"capacities": [1, 2]}', "demands"),
        ('{"capacities": [1, 2], "demands": [[1, 2]], "colour": 3}', "colour"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_bad_problem_file_gives_one_clear_line(capsys, tmp_path, content, expected):
    path = tmp_path / "PROBLEM.json"
    path.write_text(content)
    code, out, err = run(capsys, "solve", str(path), "--solver", "naive")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert str(path) in lines[0] and expected in lines[0]


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "solve", str(tmp_path / "nope.json"), "--solver", "naive")
    assert code == 2 and "nope.json" in err


def test_unknown_solver_lists_known(capsys):
    code, _, err = run(capsys, "solve", str(TABLE1), "--solver", "nope")
    assert code == 2
    assert "known solvers" in err and "dp" in err and "naive" in err


def test_bad_budget(capsys):
    with pytest.raises(SystemExit) as info:  # refused by the flag's own check
        run(capsys, "solve", str(TABLE1), "--solver", "dp", "--budget", "45")
    err = capsys.readouterr().err
    assert info.value.code == 2 and "--budget" in err and "30" in err


def test_solvers_lists_builtins(capsys):
    code, out, _ = run(capsys, "solvers")
    assert code == 0
    for name in ("naive", "binpack", "exhaustive", "dp", "unit_nodes"):
        assert name in out


def test_table_compares_solvers(capsys):
    code, out, _ = run(capsys, "table", str(TABLE1), str(EXAMPLES / "theta_w100.json"))
    assert code == 0
    assert "front 2/2" in out  # exact solvers on Table 1
    assert "front 0/2" in out  # naive misses the front on Table 1
    assert "declined" in out  # exhaustive on w = 100


def _blocks(out):
    """The rows of each problem's table in ``schedbench table`` output: {file: {solver: row}}."""
    blocks, current = {}, None
    for line in out.splitlines():
        if line.startswith("problem "):
            current = blocks.setdefault(line.split()[1], {})
        elif current is not None and line and not line.startswith(("solver", "---", " ")):
            name, _, rest = line.partition(" ")
            current[name] = rest.strip()
        elif not line:
            current = None
    return blocks


def test_table_shows_each_kinds_answer_and_only_solvers_of_that_kind(capsys):
    from schedbench.instances.problem_files import load_problem
    from schedbench.simcore.problem import Budget
    from schedbench.solvers import registry

    files = {
        k: EXAMPLES / f
        for k, f in (
            ("placement", "locality_placement.json"),
            ("reservation", "ar_reservation.json"),
        )
    }
    code, out, _ = run(capsys, "table", *(str(f) for f in files.values()))
    assert code == 0 and "declined" not in out
    blocks = _blocks(out)
    for kind, path in files.items():
        rows = blocks[path.name]
        assert sorted(rows) == sorted(registry.solvers_for(kind))  # kind-matched rows only
        problem = load_problem(path)
        for name, row in rows.items():
            d = registry.make_solver(name).solve(problem, Budget(deadline_s=10))
            if kind == "reservation":
                assert d.accepted
                shown = re.search(r"start (\d+) on PEs ([\d,-]+)", row)
                assert shown and int(shown[1]) == d.start, row
                pes = set()
                for part in shown[2].split(","):
                    lo, _, hi = part.partition("-")
                    pes |= set(range(int(lo), int(hi or lo) + 1))
                assert pes == set(d.pe_set), row
            else:
                assert f"node {int(problem.node_ids[d.node])} at t={d.start:g}" in row, row
    # the answers differ where solvers differ: not one objective value for all
    answers = {
        re.search(r"start .*? on PEs \S+", r)[0] for r in blocks["ar_reservation.json"].values()
    }
    assert len(answers) > 1


def test_table_names_a_requested_solver_of_another_kind_instead_of_a_declined_row(capsys):
    code, out, _ = run(
        capsys, "table", str(EXAMPLES / "ar_reservation.json"), "--solver", "dp", "--solver", "ff"
    )
    assert code == 0
    assert list(_blocks(out)["ar_reservation.json"]) == ["ff"]
    assert "not of the reservation kind, not run: dp" in out


def test_check_solver_passes_builtin_and_fails_broken(capsys):
    code, out, _ = run(capsys, "check-solver", "schedbench.solvers.naive:NaiveSolver")
    assert code == 0 and "0 failed" in out
    code, out, _ = run(capsys, "check-solver", "tests.solvers.test_conformance:TakesEverything")
    assert code == 1 and "failed" in out


def test_check_solver_bad_target(capsys):
    code, _, err = run(capsys, "check-solver", "no_such_module:X")
    assert code == 2 and "no_such_module" in err


def test_console_script_is_installed():
    exe = Path(sys.executable).with_name("schedbench")
    result = subprocess.run(
        [str(exe), "solve", str(TABLE1), "--solver", "naive"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["selected"] == [0, 3]


_LOCAL_SOLVER = """
from dataclasses import dataclass

from schedbench.solvers.naive import NaiveSolver


@dataclass(frozen=True)
class MySolver(NaiveSolver):
    name = "my-solver"
    factor: int = 1

    def __post_init__(self) -> None:
        if self.factor < 1:
            raise ValueError(f"factor: expected an integer >= 1, got {self.factor}")
"""


def _console(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("schedbench")
    return subprocess.run(
        [str(exe), *argv], capture_output=True, text=True, cwd=cwd, timeout=600, check=False
    )


def test_check_solver_finds_a_module_in_the_current_folder(tmp_path):
    """The console script does not put the current folder on the path (python -m does):
    a plug-in next to the user is found all the same, without PYTHONPATH."""
    (tmp_path / "my_solver.py").write_text(_LOCAL_SOLVER)
    result = _console(tmp_path, "check-solver", "my_solver:MySolver")
    assert result.returncode == 0, result.stderr
    assert "0 failed" in result.stdout


def test_a_plugin_parameter_check_is_one_line(tmp_path):
    (tmp_path / "my_solver.py").write_text(_LOCAL_SOLVER)
    result = _console(tmp_path, "check-solver", "my_solver:MySolver", "--set", "factor=0")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "schedbench: error: solver 'my_solver:MySolver': factor: expected an integer >= 1, got 0"
    ]


def test_a_missing_local_module_says_where_it_looked(tmp_path):
    result = _console(tmp_path, "check-solver", "not_here_at_all:X")
    assert result.returncode == 2
    assert "current folder" in result.stderr and len(result.stderr.strip().splitlines()) == 1


_LOCAL_POLICY = """
from schedbench.simcore.policies import NaivePolicy


class Careful(NaivePolicy):
    name = "careful"

    def __init__(self, *, backfill: str = "easy", margin: int = 0):
        super().__init__(backfill=backfill)
        if margin < 0:
            raise ValueError(f"margin: expected an integer >= 0, got {margin}")
"""


def test_a_policy_option_check_is_one_line(tmp_path):
    (tmp_path / "my_policy.py").write_text(_LOCAL_POLICY)
    result = _console(
        tmp_path,
        "simulate",
        "--workload",
        "lublin:jobs=20,nodes=16,seed=1",
        "--policy",
        "my_policy:Careful",
        "--policy-set",
        "margin=-1",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "schedbench: error: policy 'my_policy:Careful': margin: expected an integer >= 0, got -1"
    ]


def test_every_command_is_in_the_lazy_table():
    """``COMMAND_MODULES`` (what ``main`` imports for a command) names exactly the commands the
    modules define, each in the module that defines it."""
    from schedbench.bench import cli

    defined = {name: m.__name__.rsplit(".", 1)[1] for m in cli.modules() for name in m.COMMANDS}
    assert defined == cli.COMMAND_MODULES


def test_a_command_imports_only_what_it_needs():
    """``schedbench solve`` and ``solvers`` do not load the report, reproductions or Dask:
    a fresh process's start-up is the cold start users wait for."""
    probe = (
        "import sys, contextlib, io\n"
        "from schedbench.bench.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['solve', {str(TABLE1)!r}, '--solver', 'naive', '--no-isolate'])\n"
        "    main(['solvers'])\n"
        "heavy = ('matplotlib', 'distributed', 'schedbench.bench.reproduce',\n"
        "         'schedbench.bench.report.html', 'schedbench.bench.cli.run')\n"
        "print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.')\n"
        "                                          for h in heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    assert out.strip() == "[]", out
