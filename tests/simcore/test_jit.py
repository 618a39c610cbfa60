"""Compiled kernels: where numba's on-disk cache goes (``simcore/jit.py``), and that a solver's
untimed ``warm_up`` compiles everything its solves need, so that no deadline pays for a
compilation (a cold cache made the first ``bnb`` solve of a fresh clone take 9.8 s of 10)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from schedbench.simcore import jit
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget
from schedbench.solvers import base as solver_base
from schedbench.solvers.registry import make_solver
from schedbench.solvers.testing import random_problem

ROOT = Path(__file__).resolve().parents[2]


# -- where the cache goes -------------------------------------------------------------------------
def test_cache_location_follows_numba_then_the_tree_then_xdg_then_off(tmp_path):
    pkg = tmp_path / "pkg"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    always, never = (lambda p: True), (lambda p: False)

    def not_in_pkg(p: Path) -> bool:
        return pkg not in p.parents

    assert jit.cache_location(pkg, {**env, "NUMBA_CACHE_DIR": "/c"}, always) == (
        "numba",
        Path("/c"),
    )

    # a NUMBA_CACHE_DIR that cannot be written is passed over, not a traceback
    def not_c_nor_pkg(p: Path) -> bool:
        return p != Path("/c") and not_in_pkg(p)

    assert jit.cache_location(pkg, {**env, "NUMBA_CACHE_DIR": "/c"}, not_c_nor_pkg)[0] == "user"
    assert jit.cache_location(pkg, env, always) == ("in-tree", pkg / "__pycache__")
    assert jit.cache_location(pkg, env, not_in_pkg) == (
        "user",
        tmp_path / "xdg" / "schedbench" / "numba",
    )
    tmp = tmp_path / "tmp"

    def only_tmp(p: Path) -> bool:
        return p == tmp

    assert jit.cache_location(pkg, env, only_tmp, lambda: tmp) == ("temp", tmp)
    assert jit.cache_location(pkg, env, never, lambda: tmp) == ("off", None)
    assert jit.cache_location(pkg, env, never, lambda: None) == ("off", None)
    home = jit.cache_location(pkg, {}, not_in_pkg)
    assert home == ("user", Path.home() / ".cache" / "schedbench" / "numba")


def test_the_temporary_cache_folder_is_private_or_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(jit.tempfile, "gettempdir", lambda: str(tmp_path))
    folder = jit.temp_cache_dir()
    assert folder is not None and folder.parent == tmp_path
    assert folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o777)  # another user could write kernels there: never read
    assert jit.temp_cache_dir() is None


def test_writable_says_no_where_a_file_cannot_be_made(tmp_path):
    assert jit.writable(tmp_path / "a" / "b")
    (tmp_path / "file").write_text("x")
    assert not jit.writable(tmp_path / "file" / "sub")  # a file where a folder should be


def _kernel_run(tmp_path: Path, deny: str) -> tuple[int, str]:
    """Run, in a fresh interpreter, a module holding one cached kernel in a folder whose
    writability is faked (``deny``: 'tree' or 'all'); returns (cache hits, where)."""
    mod = tmp_path / "mod"
    mod.mkdir(exist_ok=True)
    (mod / "kern.py").write_text(
        "from schedbench.simcore.jit import njit\n\n\n"
        "@njit(cache=True)\ndef add(a, b):\n    return a + b\n"
    )
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(mod)!r})
        from schedbench.simcore import jit
        real = jit.writable
        jit.writable = (lambda p: False) if {deny!r} == "all" else (
            lambda p: Path({str(mod)!r}) not in p.parents and real(p))
        import kern, numba
        assert kern.add(2, 3) == 5
        print(sum(kern.add.stats.cache_hits.values()), numba.config.CACHE_DIR or "-")
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    hits, where = done.stdout.split()
    return int(hits), where


def test_a_read_only_package_caches_its_kernels_in_the_xdg_folder(tmp_path):
    first, where = _kernel_run(tmp_path, "tree")
    second, _ = _kernel_run(tmp_path, "tree")
    assert (first, second) == (0, 1)  # the second process loads what the first compiled
    assert Path(where) == tmp_path / "xdg" / "schedbench" / "numba"
    assert list(Path(where).rglob("*.nbi")) and not list((tmp_path / "mod").rglob("*.nbi"))


def test_without_any_writable_folder_kernels_compile_and_nothing_is_written(tmp_path):
    assert _kernel_run(tmp_path, "all") == (0, "-")
    assert _kernel_run(tmp_path, "all") == (0, "-")  # compiled again: no cache anywhere
    assert not list(tmp_path.rglob("*.nbi"))


def test_every_kernel_is_declared_through_simcore_jit():
    """``simcore.jit.njit`` is what picks a writable cache folder; numba's own decorator would
    fail to import in a read-only installation without a writable home."""
    found = []
    for folder in ("simcore", "solvers", "instances", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "numba":
                    bad = {a.name for a in node.names} & {"njit", "jit", "vectorize"}
                    if bad:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(bad)}")
                if (
                    isinstance(node, ast.Attribute)
                    and ast.unparse(node) == "numba.njit"
                    and path.name != "jit.py"
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: numba.njit")
    assert not found, "\n".join(found)


# -- warm_up compiles what the solves need -------------------------------------------------------
def _dispatchers() -> dict[str, object]:
    """Every numba kernel of the solver modules, by qualified name."""
    from numba.core.dispatcher import Dispatcher

    from schedbench.solvers import _bnb, _numba_rng, _pairdp, _reach, bnb, dp, ga, moo

    return {
        f"{m.__name__}.{name}": obj
        for m in (_bnb, _numba_rng, _pairdp, _reach, bnb, dp, ga, moo)
        for name, obj in vars(m).items()
        if isinstance(obj, Dispatcher)
    }


def _variety() -> list[SelectionProblem]:
    """Windows of every shape a solver meets: 1-3 resources and objectives, integral and
    fractional data, forced jobs, empty and one-job windows, a window too big to finish."""
    problems = [
        random_problem(seed, w, k, m, fractional=frac, must_include=forced)
        for seed, (w, k, m, frac, forced) in enumerate(
            [
                (12, 2, 2, False, 0),
                (20, 2, 1, False, 2),
                (15, 3, 3, False, 0),
                (10, 1, 1, True, 0),
                (14, 2, 2, True, 1),
                (18, 3, 1, False, 0),
                (30, 2, 2, False, 0),
            ]
        )
    ]
    problems.append(SelectionProblem(capacities=[4, 4], demands=np.zeros((0, 2))))
    problems.append(SelectionProblem(capacities=[4, 4], demands=[[1, 2]]))
    problems.append(
        SelectionProblem(
            capacities=[10, 10], demands=[[3, 4], [5, 1]], objectives=[[-1, 2], [3, -2]]
        )
    )
    return problems


NUMBA_SOLVERS = [
    ("bnb", {}),
    ("bnb", {"workers": 2}),
    ("dp", {}),
    ("dp", {"unit_nodes": 4, "unit_bb": 4}),
    ("dp", {"compiled": False}),
    ("dp", {"coupled_bound": False}),
    ("ga", {}),
    ("ga", {"packed": False}),
    ("bbsched-ga", {}),
    ("moo", {}),
    ("moo", {"anytime": True, "max_evaluations": 20_000}),
    ("moo", {"corner": 2}),
    ("weighted", {}),
    ("constrained", {}),
]


@pytest.mark.parametrize(
    ("name", "params"), NUMBA_SOLVERS, ids=[f"{n}{p or ''}" for n, p in NUMBA_SOLVERS]
)
def test_after_warm_up_no_solve_compiles_a_kernel(name, params, monkeypatch):
    """Whatever the window, a solve after ``warm_up()`` finds every kernel it calls compiled:
    no compilation inside a timed call (the set of compiled signatures does not grow)."""
    solver = make_solver(name, params)
    monkeypatch.setattr(solver_base, "_WARM", set())  # this process may have warmed it already
    solver.warm_up()
    kernels = _dispatchers()
    before = {k: len(d.overloads) for k, d in kernels.items()}
    for problem in _variety():
        if solver.supports(problem)[0]:
            solver.solve(problem, Budget(deadline_s=5, seed=1))
    grown = {
        k: (before[k], len(d.overloads)) for k, d in kernels.items() if len(d.overloads) > before[k]
    }
    assert not grown, f"{solver.id}: compiled inside solve (kernel: before, after): {grown}"


def test_solve_warms_up_before_its_clock_starts(monkeypatch):
    """A caller that never warmed up still gets the whole budget for the solve: the first
    ``solve`` runs ``warm_up`` before its clock starts, once per process and solver id."""
    calls = []
    clock_started = []

    class Clockwatch(solver_base.Clock):
        def __init__(self, budget):
            clock_started.append(len(calls))
            super().__init__(budget)

    monkeypatch.setattr(solver_base, "_WARM", set())
    monkeypatch.setattr(solver_base, "Clock", Clockwatch)
    solver = make_solver("naive")
    monkeypatch.setattr(type(solver), "_warm_up", lambda self: calls.append(self.id))
    problem = random_problem(1, 5, 2, 1)
    solver.solve(problem, Budget(1))
    solver.solve(problem, Budget(1))
    solver.warm_up()
    assert calls == ["naive"] and clock_started == [1, 1]
