"""What asking a solver through an isolated child costs (``simulate --isolate``, and what
``simulate`` does by default for a plug-in), against the in-process soft deadline (what it does
for the project's own solvers; docs/design.md#trust-boundaries-and-bounded-work), side by side.

    .venv/bin/python bench/benchmarks/isolation_cost.py [--jobs N] [--solver NAME] [--rounds R]

Printed, with the load average before and after: (a) the wall time of one call on Theta windows
of 20 and of 200 jobs, median and worst case, in this process and through a warm child, their
difference (what sending the problem and the answer across costs) and ratio, and the child's
start-up (spawn, imports, warm-up: paid once, and again after each kill); (b) a whole
simulation's wall time in both modes (median of ``--rounds`` runs, the modes alternating: the
machine is shared), its decisions and their summed latency, and the overhead per decision.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line  # noqa: E402

from schedbench.bench.api import simulate  # noqa: E402
from schedbench.bench.run.isolate import IsolatedSolver, SoftDeadlineSolver  # noqa: E402
from schedbench.bench.suite.schema import make_solver_spec  # noqa: E402
from schedbench.instances.windows import theta_window  # noqa: E402
from schedbench.simcore.problem import Budget  # noqa: E402
from schedbench.simcore.solver import timed_solve  # noqa: E402
from schedbench.solvers.registry import warm_solver  # noqa: E402

FIGURE = {"name": "isolation-cost", "full": [], "quick": ["--quick"], "format": "text"}


def _run(workload: str, solver: str, isolate: bool) -> tuple[float, int, float]:
    t0 = time.perf_counter()
    done = simulate(workload, system="theta", policy="window", solver=solver, isolate=isolate)
    wall = time.perf_counter() - t0
    metrics = done.run.metrics
    decisions = int(done.run.counters.get("decisions", 0))
    latency = float(metrics.get("decision_latency_total_s") or 0.0)
    return wall, decisions, latency


def _per_call(solver: str, windows: int, w: int) -> tuple[list[float], list[float], float]:
    """Wall seconds of each call on ``windows`` Theta windows of ``w`` jobs, in this process
    (soft deadline) and through a warm isolated child, the two alternating window by window;
    and the child's start-up (spawn, imports, warm-up, first answer)."""
    problems = [theta_window(w, seed) for seed in range(windows)]
    budget = Budget(deadline_s=5)
    soft = SoftDeadlineSolver(warm_solver(solver))

    def wall(target: Any, problem: Any) -> float:
        t0 = time.perf_counter()
        timed_solve(target, problem, budget)
        return time.perf_counter() - t0

    here: list[float] = []
    there: list[float] = []
    t0 = time.perf_counter()
    with IsolatedSolver(make_solver_spec(solver, {})) as iso:
        timed_solve(iso, problems[0], budget)
        startup = time.perf_counter() - t0
        for p in problems:
            here.append(wall(soft, p))
            there.append(wall(iso, p))
    return here, there, startup


def _load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--solver", default="dp")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one round, 50 windows a size")
    args = ap.parse_args(argv)
    jobs, rounds = (args.jobs, 1) if args.quick else (args.jobs, args.rounds)
    warm_solver(args.solver)  # JIT compilation paid here, untimed, not by the first mode run
    workload = f"lublin:jobs={jobs},nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2"
    load_before = _load()
    walls: dict[bool, list[float]] = {False: [], True: []}
    decisions = latency = 0.0
    for _ in range(rounds):
        for isolate in (False, True):
            wall, decisions, latency = _run(workload, args.solver, isolate)
            walls[isolate].append(wall)
    soft, iso = statistics.median(walls[False]), statistics.median(walls[True])
    print(machine_line())
    print(f"load average before: {load_before}")
    for w in (20, 200):
        here, there, startup = _per_call(args.solver, 50 if args.quick else 200, w)
        print(f"per call, {w}-job Theta windows, {args.solver} (median / worst of {len(here)}):")
        h, t = statistics.median(here), statistics.median(there)
        print(f"  in-process (soft deadline): {1000 * h:.2f} / {1000 * max(here):.2f} ms")
        print(f"  isolated child:             {1000 * t:.2f} / {1000 * max(there):.2f} ms")
        print(
            f"  child - in-process:         +{1000 * (t - h):.2f} ms median "
            f"(x{t / h:.1f}), +{1000 * (max(there) - max(here)):.2f} ms worst"
        )
        print(f"  child start-up, once:       {startup:.2f} s")
    n = max(1, int(decisions))
    print(f"simulation {workload}, {int(decisions)} decisions:")
    print(f"  in-process (soft deadline): {soft:.2f} s wall (worst {max(walls[False]):.2f} s)")
    print(f"  isolated child:             {iso:.2f} s wall (worst {max(walls[True]):.2f} s)")
    print(
        f"  child / in-process:         x{iso / soft:.1f}, +{1000 * (iso - soft) / n:.1f} ms a decision"
    )
    print(f"  solver latency, summed:     {latency:.2f} s")
    print(f"load average after: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
