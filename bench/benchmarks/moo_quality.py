"""How much of the exact Pareto front do the multi-objective heuristics find, and how fast?
Measured side by side, in one run, on this machine.

Usage::

    python bench/benchmarks/moo_quality.py          # full: 20 seeds per w, the numbers to quote
    python bench/benchmarks/moo_quality.py --quick  # 5 seeds, about a minute (mostly NSGA-II)

For w = 20, 50, 100 and several seeds of ``instances.windows.theta_window`` (BBSched windows on
Theta: nodes and burst buffer, the objectives are the two demands):

* the exact front Z by ``dp`` (checked to be ``optimal``);
* ``bbsched-ga`` — BBSched's GA as the paper describes it (P = 20, G = 500, p_m = 0.05 %);
* ``ga`` — the same GA with repair and fill of every chromosome (``solvers/ga.py``);
* ``moo`` — our seeded Pareto local search, defaults;
* ``nsga2`` — pymoo's NSGA-II, population 20, 500 generations, binary random sampling, two-point
  crossover, bit-flip mutation (pymoo's defaults for its rates), duplicates eliminated,
  capacities as inequality constraints (pymoo's feasibility-first ranking). pymoo is a benchmark
  dependency only (``pip install -e '.[bench]'``); without it the column is skipped with a note.

Per method: median, p95 and max latency (``ga`` and ``moo`` through
``simcore.solver.timed_solve`` after an untimed ``warm_up()``; NSGA-II as wall time around
``pymoo.optimize.minimize`` after one untimed run), the share of Z found (a point of Z counts as
found when some answer has exactly its objective vector; mean over seeds), and IGD+ (Ishibuchi et
al. 2015) with objectives normalised by Z's ideal and nadir — for maximisation

    IGD+(A, Z) = mean over z in Z of min over a in A of sqrt(sum_i max(z_i − a_i, 0)^2)

(mean over seeds; 0 means the whole front was found). An objective on which Z has a single value
(ideal = nadir, e.g. a one-point front) is divided by max(|ideal|, 1) instead. A run that ends with
no feasible selection answers the empty selection (our solvers do so; an NSGA-II run without a
feasible individual is scored the same way and counted in the ``no feasible`` column).

Targets, printed next to the results: ``ga`` median <= 5 ms at w = 20; ``moo`` found
share and IGD+ at least as good as NSGA-II's at every w, median <= 50 ms.

The script reports; it does not gate: the exit status is 0 whatever the numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _machine import machine_line as _machine_line
from tabulate import tabulate

from schedbench.instances.windows import theta_window
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.ga import BBSCHED_GA, GASolver
from schedbench.solvers.moo import MOOSolver

WINDOWS = (20, 50, 100)
BUDGET_S = 15.0
GA_TARGET_MS = 5.0
MOO_TARGET_MS = 50.0
NSGA_POP, NSGA_GENERATIONS = 20, 500

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "moo-quality", "full": [], "quick": ["--quick"], "format": "text"}


# -- indicators ----------------------------------------------------------------------------------
def normaliser(front: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nadir, range) of the exact front Z for normalising objective vectors (module docstring)."""
    ideal, nadir = front.max(axis=0), front.min(axis=0)
    span = ideal - nadir
    span = np.where(span > 0, span, np.maximum(np.abs(ideal), 1.0))
    return nadir, span


def igd_plus(found: np.ndarray, front: np.ndarray) -> float:
    """IGD+ of ``found`` (n × M) against the exact front Z (|Z| × M), maximisation, normalised by
    Z's ideal and nadir: mean over z in Z of min over a of sqrt(sum_i max(z_i − a_i, 0)^2)."""
    if front.shape[0] == 0:
        return 0.0
    if found.shape[0] == 0:
        return float("inf")
    nadir, span = normaliser(front)
    z = (front - nadir) / span
    a = (found - nadir) / span
    shortfall = np.clip(z[:, None, :] - a[None, :, :], 0.0, None)  # |Z| × n × M
    return float(np.sqrt((shortfall**2).sum(axis=2)).min(axis=1).mean())


def share_found(found: np.ndarray, front: np.ndarray) -> float:
    """Share of the points of Z whose objective vector some answer matches exactly."""
    if front.shape[0] == 0:
        return 1.0
    if found.shape[0] == 0:
        return 0.0
    tol = 1e-9 * np.maximum(1.0, np.abs(front))
    hit = np.all(np.abs(front[:, None, :] - found[None, :, :]) <= tol[:, None, :], axis=2)
    return float(hit.any(axis=1).mean())


# -- methods -------------------------------------------------------------------------------------
@dataclass
class Run:
    latency_s: float
    found: np.ndarray  # objective vectors of the answer's Pareto set
    status: str


@dataclass
class Method:
    name: str
    run: Callable[[SelectionProblem, int], Run]
    prepare: Callable[[], None] = lambda: None
    runs: dict[int, list[tuple[Run, float, float]]] = field(default_factory=dict)


def solver_method(name: str, solver) -> Method:
    def run(problem: SelectionProblem, seed: int) -> Run:
        d = timed_solve(solver, problem, Budget(deadline_s=BUDGET_S, seed=seed))
        found = np.array([p.objectives for p in d.pareto], dtype=float).reshape(-1, problem.M)
        return Run(d.latency_s, found, d.status.value)

    return Method(name, run, prepare=lambda: warm_up(solver))


def nsga2_method() -> Method | None:
    try:
        from pymoo.algorithms.moo.nsga2 import NSGA2
        from pymoo.core.problem import Problem
        from pymoo.operators.crossover.pntx import TwoPointCrossover
        from pymoo.operators.mutation.bitflip import BitflipMutation
        from pymoo.operators.sampling.rnd import BinaryRandomSampling
        from pymoo.optimize import minimize
    except ImportError:
        return None

    class Window(Problem):
        """The selection problem for pymoo: minimise −f, constraints usage − capacity <= 0."""

        def __init__(self, problem: SelectionProblem):
            self.demands = np.asarray(problem.demands)
            self.objectives = np.asarray(problem.objectives)
            self.capacities = np.asarray(problem.capacities)
            super().__init__(
                n_var=problem.w,
                n_obj=problem.M,
                n_ieq_constr=problem.K,
                xl=0,
                xu=1,
                vtype=bool,
            )

        def _evaluate(self, x, out, *args, **kwargs):
            x = np.asarray(x, dtype=float)
            out["F"] = -(x @ self.objectives.T)
            out["G"] = x @ self.demands - self.capacities

    def run(problem: SelectionProblem, seed: int) -> Run:
        algorithm = NSGA2(
            pop_size=NSGA_POP,
            sampling=BinaryRandomSampling(),
            crossover=TwoPointCrossover(),
            mutation=BitflipMutation(),
            eliminate_duplicates=True,
        )
        start = time.perf_counter()
        res = minimize(
            Window(problem), algorithm, ("n_gen", NSGA_GENERATIONS), seed=seed, verbose=False
        )
        latency = time.perf_counter() - start
        if res.X is None or res.F is None:
            return Run(latency, np.zeros((1, problem.M)), "no feasible")
        selections = [np.flatnonzero(x).tolist() for x in np.atleast_2d(np.asarray(res.X))]
        feasible = [s for s in selections if problem.is_feasible(s)]
        if not feasible:
            return Run(latency, np.zeros((1, problem.M)), "no feasible")
        found = np.array([problem.evaluate(s) for s in feasible])
        return Run(latency, found, "feasible")

    def prepare() -> None:
        run(theta_window(20, 10_000), 0)

    return Method("nsga2", run, prepare=prepare)


# -- reporting -----------------------------------------------------------------------------------
def ms(seconds: float) -> str:
    return f"{1e3 * seconds:.2f}"


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def summary_rows(methods: list[Method], w: int) -> list[list[object]]:
    rows = []
    for m in methods:
        runs = m.runs.get(w, [])
        if not runs:
            continue
        lat = [r.latency_s for r, _, _ in runs]
        statuses = Counter(r.status for r, _, _ in runs)
        rows.append(
            [
                m.name,
                len(runs),
                ms(statistics.median(lat)),
                ms(percentile(lat, 95)),
                ms(max(lat)),
                f"{100 * statistics.fmean(s for _, s, _ in runs):.1f}",
                f"{statistics.fmean(i for _, _, i in runs):.4f}",
                sum(1 for _, s, _ in runs if s == 1.0),
                ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())),
            ]
        )
    return rows


def target_lines(methods: dict[str, Method], windows: Sequence[int]) -> list[str]:
    def ok(flag: bool) -> str:
        return "ok" if flag else "MISSED"

    lines = []
    for name in ("bbsched-ga", "ga"):
        ga = methods.get(name)
        if ga and 20 in ga.runs:
            med = statistics.median(r.latency_s for r, _, _ in ga.runs[20])
            lines.append(
                f"{name} median at w=20: {ms(med)} ms (target <= {GA_TARGET_MS:g} ms) "
                f"{ok(1e3 * med <= GA_TARGET_MS)}"
            )
    moo, nsga = methods.get("moo"), methods.get("nsga2")
    for w in windows:
        if not moo or w not in moo.runs:
            continue
        runs = moo.runs[w]
        med = statistics.median(r.latency_s for r, _, _ in runs)
        share = statistics.fmean(s for _, s, _ in runs)
        igd = statistics.fmean(i for _, _, i in runs)
        line = f"moo at w={w}: median {ms(med)} ms (target <= {MOO_TARGET_MS:g}) {ok(1e3 * med <= MOO_TARGET_MS)}"
        if nsga and w in nsga.runs:
            n_share = statistics.fmean(s for _, s, _ in nsga.runs[w])
            n_igd = statistics.fmean(i for _, _, i in nsga.runs[w])
            line += (
                f"; found {100 * share:.1f} % vs NSGA-II {100 * n_share:.1f} % "
                f"{ok(share >= n_share)}; IGD+ {igd:.4f} vs {n_igd:.4f} {ok(igd <= n_igd)}"
            )
        else:
            line += f"; found {100 * share:.1f} %, IGD+ {igd:.4f} (no NSGA-II to compare)"
        lines.append(line)
    return lines


def machine_line() -> str:
    return _machine_line("numpy", "numba", "pymoo")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 seeds per window size")
    parser.add_argument("--seeds", type=int, help="seeds per window size (default 20, quick 5)")
    parser.add_argument(
        "--windows", type=int, nargs="+", default=list(WINDOWS), help="window sizes w"
    )
    parser.add_argument("--no-nsga2", action="store_true", help="skip pymoo's NSGA-II")
    args = parser.parse_args(argv)
    seeds = range(args.seeds if args.seeds else (5 if args.quick else 20))

    print(f"moo_quality: Theta-like windows, seeds {seeds.start}..{seeds.stop - 1}")
    print(machine_line())
    methods = [
        solver_method("bbsched-ga", BBSCHED_GA()),
        solver_method("ga", GASolver()),
        solver_method("moo", MOOSolver()),
    ]
    notes = []
    nsga = None if args.no_nsga2 else nsga2_method()
    if nsga is None:
        notes.append(
            "nsga2 skipped: "
            + (
                "--no-nsga2"
                if args.no_nsga2
                else "pymoo is not installed (pip install -e '.[bench]')"
            )
        )
    else:
        methods.append(nsga)
    for m in methods:
        m.prepare()  # untimed: numba compilation, pymoo imports
    dp = DPSolver()

    for w in args.windows:
        sizes, dp_lat = [], []
        for seed in seeds:
            problem = theta_window(w, seed)
            exact = timed_solve(dp, problem, Budget(deadline_s=30.0))
            if exact.status != Status.OPTIMAL:
                notes.append(f"w={w} seed={seed}: dp {exact.status.value}, skipped")
                continue
            front = np.array([p.objectives for p in exact.pareto], dtype=float)
            sizes.append(front.shape[0])
            dp_lat.append(exact.latency_s)
            for m in methods:
                run = m.run(problem, seed)
                m.runs.setdefault(w, []).append(
                    (run, share_found(run.found, front), igd_plus(run.found, front))
                )
        if not sizes:
            continue
        print(
            f"\nw = {w}: exact front (dp) of {min(sizes)}–{max(sizes)} points "
            f"(median {statistics.median(sizes):g}); dp median {ms(statistics.median(dp_lat))} ms"
        )
        print(
            tabulate(
                summary_rows(methods, w),
                headers=[
                    "method",
                    "runs",
                    "median ms",
                    "p95 ms",
                    "max ms",
                    "front found %",
                    "IGD+",
                    "whole front",
                    "status",
                ],
                tablefmt="github",
            )
        )

    print("\nTargets:")
    for line in target_lines({m.name: m for m in methods}, args.windows):
        print("  " + line)
    for note in notes:
        print("note: " + note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
