"""The TOML suites as pytest-benchmark benchmarks (not in the default test pass).

Which suites, and how to run them: ``conftest.py`` in this folder (``--suite PATH``,
``SCHEDBENCH_SUITES``, ``make bench-pytest SUITES=...``).

One benchmark per (suite, instance family, solver), grouped by suite and family: a round solves
every instance of the family once; the quality metrics (means over the family, against the exact
references of the problem kind) go into ``extra_info``, so ``--benchmark-json`` carries quality
as well as time. Simulation scenarios are not benchmarked here (they are runs, not kernels).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schedbench.bench.run.runner import plan
from schedbench.bench.suite import load_suite, reference_solver
from schedbench.simcore.kinds.base import kind_of
from schedbench.simcore.problem import Budget
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import make_solver

#: The suite benchmarked when neither ``--suite`` nor ``SCHEDBENCH_SUITES`` names one.
DEFAULT_SUITE = Path(__file__).resolve().parent.parent / "suites" / "quick.toml"


def suites(config):
    """The suite files to benchmark: ``--suite`` (repeatable), else ``SCHEDBENCH_SUITES``
    (paths separated by ``:``), else quick.toml."""
    given = config.getoption("schedbench_suites", default=None) or []
    if not given and os.environ.get("SCHEDBENCH_SUITES"):
        given = [p for p in os.environ["SCHEDBENCH_SUITES"].split(os.pathsep) if p]
    return [Path(p) for p in given] or [DEFAULT_SUITE]


def _cases(paths):
    out = []
    for path in paths:
        suite = load_suite(path)
        instances, cells, _ = plan(suite)
        pairs = sorted({(c.family, c.solver) for c in cells}, key=lambda p: (p[0], p[1].id))
        for family, spec in pairs:
            fam = [i for i in instances if i.family == family]
            # the group names the suite; the id only when several suites share a run
            name = f"{family}:{spec.id}" if len(paths) == 1 else f"{suite.name}:{family}:{spec.id}"
            out.append(pytest.param(suite, family, spec, fam, id=name))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_suite_family":
        metafunc.parametrize(
            ("suite", "family", "spec", "instances"), _cases(suites(metafunc.config))
        )


_REFS: dict[str, object] = {}


def _reference(suite, inst):
    if inst.reference is not None:
        return inst.reference
    name = reference_solver(suite, inst.family)
    if name == "none":
        return None
    key = inst.fingerprint + name
    if key not in _REFS:
        _REFS[key] = timed_solve(make_solver(name), inst.problem, Budget(deadline_s=30))
    ref = _REFS[key]
    return ref if inst.kind.is_exact(ref) else None


def test_suite_family(benchmark, suite, family, spec, instances):
    benchmark.group = f"{suite.name}: {family}"
    benchmark.name = spec.id  # the table's name column: the group says suite and family
    solver = make_solver(spec.name, dict(spec.params))
    warm_up(solver)
    budget = Budget(deadline_s=suite.budget_s, seed=suite.seed)

    def solve_all():
        return [timed_solve(solver, inst.problem, budget) for inst in instances]

    decisions = benchmark.pedantic(solve_all, rounds=3, iterations=1)
    qualities = [
        kind_of(inst.problem).quality(
            inst.problem, d, _reference(suite, inst), budget_s=suite.budget_s
        )
        for d, inst in zip(decisions, instances, strict=True)
    ]
    for key in ("primal_gap", "igd_plus", "front_found", "hv_ratio"):
        vals = [q[key] for q in qualities if isinstance(q.get(key), (int, float))]
        if vals:
            benchmark.extra_info[key] = sum(vals) / len(vals)
    benchmark.extra_info["instances"] = len(instances)
    benchmark.extra_info["statuses"] = sorted({d.status.value for d in decisions})
    assert all(q["feasible"] for q in qualities if q.get("feasible") is not None)
