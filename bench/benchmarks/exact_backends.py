"""Exact backends side by side, in one run (issue 4's speed section).

    python bench/exact_backends.py [--quick] [--budget S]

(a) Single-objective 2-resource knapsacks on Theta-like windows (w = 50): the weighted objective
    (50/50 utilisations, made integral as in ``solvers.scalarised``) and the constrained-BB
    objective (BB first, then nodes). For every exact backend: median and worst latency, and how
    often it proved optimality within the budget; all answers checked against ``dp``'s optimum.
(b) The exact Pareto front (objectives = node and BB demands) at w = 20, 50, 100: latency of
    ``dp`` and ``cpsat`` (1 and 2 workers), how often within the 15 s budget, and whether the
    front equals ``dp``'s.

Medians over seeds; every solver warmed up first. Reports, never gates (exit 0).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from _machine import machine_line
from tabulate import tabulate

from schedbench.instances.windows import theta_window
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import known_solvers, make_solver
from schedbench.solvers.scalarised import lexicographic_objective, weighted_objective

#: What ``figures.py`` runs to regenerate this script's README block (``make figures``).
FIGURE = {"name": "exact-backends", "full": [], "quick": ["--quick"], "format": "text"}


def _single(problem: SelectionProblem, kind: str) -> SelectionProblem:
    row = (
        weighted_objective(problem, (0.5, 0.5))
        if kind == "weighted"
        else lexicographic_objective(problem, 1)
    )
    return SelectionProblem(
        capacities=problem.capacities, demands=problem.demands, objectives=[row]
    )


def part_a(seeds: int, budget: Budget) -> None:
    engines = [n for n in ("dp", "cpsat", "mip-cbc", "mip-highs") if n in known_solvers()]
    solvers = {n: make_solver(n) for n in engines}
    for s in solvers.values():
        warm_up(s)
    rows = []
    for kind in ("weighted", "constrained-bb"):
        problems = [_single(theta_window(50, seed), kind) for seed in range(seeds)]
        reference = [solvers["dp"].solve(p, budget).objectives[0] for p in problems]
        for name, solver in solvers.items():
            ds = [timed_solve(solver, p, budget) for p in problems]
            lat = [d.latency_s for d in ds]
            proven = sum(d.status == Status.OPTIMAL for d in ds)
            right = sum(
                abs(d.objectives[0] - r) <= 1e-9 * max(1.0, abs(r))
                for d, r in zip(ds, reference, strict=True)
            )
            rows.append(
                [
                    kind,
                    name,
                    f"{statistics.median(lat) * 1e3:.1f}",
                    f"{max(lat) * 1e3:.1f}",
                    f"{proven}/{len(ds)}",
                    f"{right}/{len(ds)}",
                    "<= 10 ms median" if name == "dp" else "",
                ]
            )
    print(
        f"\n(a) single objective, theta_window(w=50), {seeds} seeds, budget {budget.deadline_s:g} s"
    )
    print(
        tabulate(
            rows,
            headers=[
                "objective",
                "backend",
                "median ms",
                "worst ms",
                "proved optimal",
                "value = dp's",
                "target",
            ],
            tablefmt="github",
            disable_numparse=True,
        )
    )


def part_b(seeds: int, budget: Budget, windows: tuple[int, ...]) -> None:
    solvers = [make_solver("dp"), make_solver("cpsat"), make_solver("cpsat", {"workers": 2})]
    for s in solvers:
        warm_up(s)
    rows = []
    for w in windows:
        problems = [theta_window(w, seed) for seed in range(seeds)]
        fronts = [
            sorted(p.objectives for p in solvers[0].solve(x, budget).pareto) for x in problems
        ]
        for solver in solvers:
            ds = [timed_solve(solver, p, budget) for p in problems]
            lat = [d.latency_s for d in ds]
            within = sum(d.status == Status.OPTIMAL for d in ds)
            same = sum(
                sorted(p.objectives for p in d.pareto) == f for d, f in zip(ds, fronts, strict=True)
            )
            rows.append(
                [
                    w,
                    solver.id,
                    f"{statistics.median(lat) * 1e3:.1f}",
                    f"{np.percentile(lat, 95) * 1e3:.1f}",
                    f"{max(lat) * 1e3:.1f}",
                    f"{within}/{len(ds)}",
                    f"{same}/{len(ds)}",
                    statistics.median(len(f) for f in fronts),
                ]
            )
    print(f"\n(b) exact Pareto front, theta_window, {seeds} seeds, budget {budget.deadline_s:g} s")
    print(
        tabulate(
            rows,
            headers=[
                "w",
                "backend",
                "median ms",
                "p95 ms",
                "max ms",
                "exact in budget",
                "front = dp's",
                "front size",
            ],
            tablefmt="github",
            disable_numparse=True,
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and windows")
    parser.add_argument("--budget", type=float, default=15.0, help="decision budget in seconds")
    args = parser.parse_args(argv)
    budget = Budget(deadline_s=args.budget)
    print(machine_line("numpy", "ortools", "pulp", "highspy"))
    start = time.perf_counter()
    part_a(3 if args.quick else 10, budget)
    part_b(2 if args.quick else 8, budget, (20, 50) if args.quick else (20, 50, 100))
    print(f"\ntotal wall time {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
