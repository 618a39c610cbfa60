"""How fast and how exact are ``mip-cbc`` and ``mip-highs``? Measured side by side with ``dp`` (the
exact reference) on Theta-like BBSched windows (``instances.windows.theta_window``).

Usage::

    python bench/benchmarks/mip_speed.py            # the numbers to quote
    python bench/benchmarks/mip_speed.py --quick    # fewer seeds, a couple of minutes

Part (a) — single objective (M = 1) at w = 50 (and 100 unless --quick), resources nodes and BB GB:

* ``weighted`` — 0.5 · nodes/N + 0.5 · bb/B per job (N, B the free capacities), as floats. These
  numbers are not decimal, so the integer form rounds them to 1e-6 and an exact backend may not
  claim optimality (status ``feasible``); "= opt" says whether the dp optimum was reached anyway;
* ``weighted-int`` — the same ranking in whole numbers, nodes · B + bb · N (= 2NB × the above);
* ``constrained-cpu`` — maximise nodes under both capacities.

Part (b) — the exact Pareto front (M = 2, objectives = the two demands, BBSched) at w = 20 and 50
(100 unless --quick), with the epsilon-constraint method and dominance cuts (the defaults are
dominance cuts for ``mip-cbc`` and epsilon for ``mip-highs``, the faster of the two for each).

Latency is ``timed_solve`` wall time after an untimed ``warm_up`` (the worker process is running),
``Budget(deadline_s=15)``. "proven" counts status ``optimal``; "= opt" / "front" count answers
equal to dp's (optimum value, or the whole front of objective vectors); "WRONG" counts answers
claimed optimal that are not — it must be 0.

The script reports; it does not gate (exit status 0).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from tabulate import tabulate

from schedbench.instances.windows import theta_window
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.mip import CBCSolver, HiGHSSolver

BUDGET = Budget(deadline_s=15.0)

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "mip-speed", "full": [], "quick": ["--quick"], "format": "text"}


def single_objective(kind: str, w: int, seed: int) -> SelectionProblem:
    p = theta_window(w, seed)
    cap_n, cap_b = p.capacities
    nodes, bb = p.demands[:, 0], p.demands[:, 1]
    objective = {
        "weighted": 0.5 * nodes / cap_n + 0.5 * bb / cap_b,
        "weighted-int": nodes * cap_b + bb * cap_n,
        "constrained-cpu": nodes,
    }[kind]
    return SelectionProblem(
        capacities=p.capacities, demands=p.demands, objectives=[objective], resources=p.resources
    )


def summarise(rows: list, label: list, solver_id: str, runs: list[tuple]) -> None:
    """runs: (latency_s, status, equal_to_reference, solves)."""
    lat = sorted(r[0] for r in runs)
    statuses = Counter(r[1] for r in runs)
    wrong = sum(r[1] == Status.OPTIMAL and not r[2] for r in runs)
    rows.append(
        [
            *label,
            solver_id,
            f"{1e3 * statistics.median(lat):.1f}",
            f"{1e3 * lat[max(0, int(np.ceil(0.95 * len(lat))) - 1)]:.1f}",
            f"{1e3 * lat[-1]:.1f}",
            f"{statuses[Status.OPTIMAL]}/{len(runs)}",
            f"{sum(r[2] for r in runs)}/{len(runs)}",
            wrong,
            f"{statistics.median(r[3] for r in runs):g}",
            ", ".join(f"{k.value} {v}" for k, v in sorted(statuses.items())),
        ]
    )


def part_a(windows: list[int], seeds: int) -> None:
    # reduce=False: the same models without the exact reductions, to show what they buy.
    solvers = [
        DPSolver(),
        CBCSolver(),
        HiGHSSolver(),
        CBCSolver(reduce=False),
        HiGHSSolver(reduce=False),
    ]
    rows: list = []
    for w in windows:
        for kind in ("weighted", "weighted-int", "constrained-cpu"):
            runs: dict[str, list] = {s.id: [] for s in solvers}
            for seed in range(seeds):
                problem = single_objective(kind, w, seed)
                best = None
                for solver in solvers:
                    d = timed_solve(solver, problem, BUDGET)
                    best = d.objectives[0] if best is None else best
                    same = abs(d.objectives[0] - best) <= 1e-9 * max(1.0, abs(best))
                    runs[solver.id].append((d.latency_s, d.status, same, d.stats.get("solves", 0)))
            for solver in solvers:
                summarise(rows, [w, kind], solver.id, runs[solver.id])
    print(f"\n(a) M = 1 on theta_window, {seeds} seeds each, budget {BUDGET.deadline_s:g} s")
    print(
        tabulate(
            rows,
            headers=[
                "w",
                "objective",
                "solver",
                "median ms",
                "p95 ms",
                "max ms",
                "proven",
                "= opt",
                "WRONG",
                "solves",
                "statuses",
            ],
        )
    )


def part_b(windows: list[int], seeds: dict[int, int]) -> None:
    # The defaults (mip-cbc: dominance cuts, mip-highs: epsilon) and the other method of each.
    solvers = [
        CBCSolver(),
        HiGHSSolver(),
        CBCSolver(pareto_method="epsilon"),
        HiGHSSolver(pareto_method="dominance-cuts"),
    ]
    rows: list = []
    for w in windows:
        runs: dict[str, list] = {s.id: [] for s in solvers}
        reference = DPSolver()
        sizes = []
        for seed in range(seeds[w]):
            problem = theta_window(w, seed)
            exact = {p.objectives for p in reference.solve(problem, Budget(30.0)).pareto}
            sizes.append(len(exact))
            for solver in solvers:
                d = timed_solve(solver, problem, BUDGET)
                front = {p.objectives for p in d.pareto}
                runs[solver.id].append(
                    (d.latency_s, d.status, front == exact, d.stats.get("solves", 0))
                )
        for solver in solvers:
            summarise(rows, [w, statistics.median(sizes)], solver.id, runs[solver.id])
    print(f"\n(b) exact Pareto front (M = 2) on theta_window, budget {BUDGET.deadline_s:g} s")
    print(
        tabulate(
            rows,
            headers=[
                "w",
                "front (median)",
                "solver",
                "median ms",
                "p95 ms",
                "max ms",
                "proven",
                "front",
                "WRONG",
                "solves",
                "statuses",
            ],
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and windows")
    args = parser.parse_args()
    for solver in (CBCSolver(), HiGHSSolver()):
        warm_up(solver)
    if args.quick:
        part_a([50], 10)
        part_b([20, 50], {20: 10, 50: 5})
    else:
        part_a([50, 100], 50)
        part_b([20, 50, 100], {20: 30, 50: 30, 100: 10})


if __name__ == "__main__":
    main()
