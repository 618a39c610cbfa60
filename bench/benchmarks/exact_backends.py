"""Exact backends side by side, in one run (issue 4's speed section).

    python bench/exact_backends.py [--quick] [--budget S]

(a) Single-objective 2-resource knapsacks on Theta-like windows (w = 50): the weighted objective
    (50/50 utilisations, made integral as in ``solvers.scalarised``) and the constrained-BB
    objective (BB first, then nodes). For every exact backend: median and worst latency, and how
    often it proved optimality within the budget; all answers checked against ``dp``'s optimum.
(b) The exact Pareto front (objectives = node and BB demands) at w = 20, 50, 100: latency of
    ``dp`` and ``cpsat`` (1 and 2 workers), how often within the 15 s budget, and whether the
    front equals ``dp``'s.

(c) Issue 17 target 4, the knapsack classics in ../shared/knapsack (skipped when absent): every
    OR-Library instance present (mknap1: 7 of the issue's 85; mknap2 and mknapcb1 are not in the
    folder) by ``cpsat`` and ``mip-highs`` with 15 s each: proven optimal, equal to the published
    optimum, latency. Then the full exact front of the Zitzler-Thiele knapsack that is there
    (``knapsack.100.2``, 121 points; the issue's 250.2 with 567 points is absent) by ``dp``,
    ``cpsat`` and ``mip-highs`` within 30 s: points found, front equal, IGD+ and latency.

Medians over seeds; every solver warmed up first. Reports, never gates (exit 0).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from _machine import machine_line
from tabulate import tabulate

from schedbench.instances.knapsack_files import read_front, read_mknap, read_zitzler_thiele
from schedbench.instances.windows import theta_window
from schedbench.simcore.indicators import igd_plus
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


KNAPSACK = Path(__file__).resolve().parents[2].parent / "shared" / "knapsack"
CLASSIC_SOLVERS = ("cpsat", "mip-highs")
FRONT_SOLVERS = ("dp", "cpsat", "mip-highs")


def part_c(quick: bool) -> None:
    """Issue 17 target 4 on the classics that exist here; says which are absent."""
    print("\n(c) issue 17 target 4: OR-Library and Zitzler-Thiele classics, ../shared/knapsack")
    absent = [
        n for n in ("mknap2.txt", "mknapcb1.txt", "knapsack.250.2") if not (KNAPSACK / n).exists()
    ]
    if absent:
        print(
            f"absent, skipped: {', '.join(absent)} (the issue's 85 optima need mknap2 and mknapcb1)"
        )
    mknap = KNAPSACK / "mknap1.txt"
    if mknap.exists():
        known = read_mknap(mknap)
        rows = []
        budget = Budget(deadline_s=15)
        for name in CLASSIC_SOLVERS:
            if name not in known_solvers():
                print(f"{name}: not installed, skipped")
                continue
            solver = make_solver(name)
            warm_up(solver)
            lat, proven, equal = [], 0, 0
            for k in known:
                d = timed_solve(solver, k.problem, budget)
                lat.append(d.latency_s)
                proven += d.status == Status.OPTIMAL
                equal += abs(float(d.objectives[0]) - k.optimum) <= 1e-6 * max(1.0, abs(k.optimum))
            rows.append(
                [
                    name,
                    f"{proven}/{len(known)}",
                    f"{equal}/{len(known)}",
                    f"{1e3 * statistics.median(lat):.1f}",
                    f"{1e3 * max(lat):.1f}",
                    "yes" if proven == equal == len(known) and max(lat) <= 15 else "no",
                ]
            )
        print(f"mknap1 ({len(known)} instances), budget 15 s each")
        print(
            tabulate(
                rows,
                headers=[
                    "solver",
                    "proven",
                    "= published opt",
                    "median ms",
                    "worst ms",
                    "all within 15 s",
                ],
                tablefmt="github",
                disable_numparse=True,
            )
        )
    else:
        print(f"{mknap} absent: skipped")
    zt, zt_front = KNAPSACK / "knapsack.100.2", KNAPSACK / "knapsack.100.2.pareto"
    if zt.exists() and zt_front.exists():
        problem = read_zitzler_thiele(zt)
        exact = read_front(zt_front)
        budget = Budget(deadline_s=30)
        exact_set = {tuple(r) for r in exact.tolist()}
        rows = []
        for name in FRONT_SOLVERS if not quick else ("dp", "cpsat"):
            if name not in known_solvers():
                continue
            solver = make_solver(name)
            warm_up(solver)
            d = timed_solve(solver, problem, budget)
            found = np.array([p.objectives for p in d.pareto], dtype=float).reshape(-1, 2)
            hit = sum(tuple(r) in exact_set for r in found.tolist())
            rows.append(
                [
                    name,
                    str(d.status.value if hasattr(d.status, "value") else d.status),
                    f"{hit}/{len(exact_set)}",
                    "yes" if hit == len(exact_set) == len(found) else "no",
                    f"{igd_plus(found, exact):.3g}",
                    f"{d.latency_s:.2f}",
                    "yes" if hit == len(exact_set) and d.latency_s <= 30 else "no",
                ]
            )
        print(f"\nZitzler-Thiele knapsack.100.2 ({len(exact_set)}-point front), budget 30 s")
        print(
            tabulate(
                rows,
                headers=[
                    "solver",
                    "status",
                    "points found",
                    "front equal",
                    "IGD+",
                    "s",
                    "whole front <= 30 s",
                ],
                tablefmt="github",
                disable_numparse=True,
            )
        )
    else:
        print(f"{zt} absent: skipped")


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
    part_c(args.quick)
    print(f"\ntotal wall time {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
