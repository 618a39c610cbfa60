"""The locality heuristics' per-decision quality as a gap to the exact window placement
(beyond the paper, docs/design.md#beyond-the-papers; model: ``simcore/locality/window.py``).

Runs one scheduler (default ``lea``, reference mode) on a workload with a
:class:`~schedbench.simcore.locality.window.WindowRecorder`, which records the first
``--window`` queued jobs at every full scheduler run; then, per recorded window, places it with
each one-job-at-a-time rule (FCFS, EFT, LEA scores in the window model) and exactly with CP-SAT
(``bench/analysis/locality_window.py``, ``--budget`` seconds per window, one worker), and prints per
rule the median / mean / worst relative gap to the optimum and how often the rule is optimal,
and the exact solver's latency (median, worst) against the budget.

    .venv/bin/python bench/benchmarks/locality_window_gap.py [--workload FILE --system locality:N]

``--closed-loop`` also runs :class:`~schedbench.bench.analysis.locality_window.WindowExactScheduler`
(the first ``--window`` jobs of every full scheduler run placed exactly, the rest by
``--scheduler``) and prints transfer + wait, stretch, queue time and core time against the
plain scheduler and FCFS.

Without ``--workload`` a seeded synthetic workload (``generate_locality``: 1,500 jobs, 8 nodes,
one evaluated day) is used.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from schedbench.bench.analysis.locality_window import WindowExactScheduler, solve_window
from schedbench.instances.locality_io import generate_locality, read_locality
from schedbench.instances.systems import locality_platform
from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality
from schedbench.simcore.locality.metrics import locality_metrics
from schedbench.simcore.locality.registry import make_locality_scheduler
from schedbench.simcore.locality.window import RULES, LocalityWindow, WindowRecorder

FIGURE = {
    "name": "locality-window-gap",
    "full": ["--closed-loop"],
    "quick": ["--windows", "15", "--budget", "5"],
    "format": "text",
}


def study(
    windows: list[LocalityWindow], budget_s: float, w_load: float
) -> tuple[dict[str, list[float]], list[float], int]:
    gaps: dict[str, list[float]] = {r: [] for r in RULES}
    latency: list[float] = []
    proven = 0
    for win0 in windows:
        win = LocalityWindow(
            now=win0.now,
            core_free=win0.core_free,
            cores=win0.cores,
            duration=win0.duration,
            load=win0.load,
            w_load=w_load,
        )
        ans = solve_window(win, time_limit_s=budget_s)
        latency.append(ans.latency_s)
        if ans.status != "optimal":
            continue
        proven += 1
        for rule in RULES:
            cost, _ = win.cost(*win.greedy(rule))
            gaps[rule].append((cost - ans.cost) / max(ans.cost, 1.0))
    return gaps, latency, proven


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", default=None)
    parser.add_argument(
        "--system", default=None, help="locality:N (default: 8 nodes synthetic, 486 for files)"
    )
    parser.add_argument("--scheduler", default="lea")
    parser.add_argument("--window", type=int, default=6)
    parser.add_argument("--windows", type=int, default=40, help="windows recorded at most")
    parser.add_argument("--budget", type=float, default=10.0, help="CP-SAT seconds per window")
    parser.add_argument(
        "--w-load", type=float, default=1.0, help="weight of transfer + wait in the cost"
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument(
        "--closed-loop",
        action="store_true",
        help="also run the exact window placement in closed loop (first --window jobs of every "
        "full run exact, the rest by --scheduler) against the plain scheduler and FCFS",
    )
    parser.add_argument(
        "--loop-budget", type=float, default=0.5, help="CP-SAT seconds per run in closed loop"
    )
    args = parser.parse_args(argv)
    if args.workload:
        wl = read_locality(args.workload)
        plat: LocalityPlatform = locality_platform(args.system or "locality")
    else:
        wl = generate_locality(jobs=1500, nodes=8, days=1, users=15, seed=args.seed, load=1.4)
        plat = locality_platform(args.system or "locality:8")
    rec = WindowRecorder(
        make_locality_scheduler(args.scheduler), max_jobs=args.window, limit=args.windows
    )
    simulate_locality(wl, rec, plat, LocalityOptions.reference())
    gaps, latency, proven = study(rec.windows, args.budget, args.w_load)
    print(
        f"# {len(rec.windows)} windows of up to {args.window} jobs recorded under {args.scheduler} "
        f"({plat.name}, {plat.nodes} nodes); {proven} solved to proven optimality "
        f"within {args.budget:g} s; cost = queue wait + {args.w_load:g} x (transfer + wait)"
    )
    print("| rule | optimal share | median gap | mean gap | worst gap |")
    print("|---|---|---|---|---|")
    for rule, g in gaps.items():
        if not g:
            print(f"| {rule} | - | - | - | - |")
            continue
        arr = np.array(g)
        print(
            f"| {rule} | {np.mean(arr <= 1e-9):.0%} | {np.median(arr):.1%} | {np.mean(arr):.1%} "
            f"| {np.max(arr):.1%} |"
        )
    if latency:
        print(
            f"exact (CP-SAT, 1 worker): median {statistics.median(latency) * 1000:.0f} ms, "
            f"worst {max(latency) * 1000:.0f} ms per window (budget {args.budget:g} s)"
        )
    if args.closed_loop:
        print(
            "| closed loop | wall s | transfer + wait s | mean stretch | mean queue time s | core time s |"
        )
        print("|---|---|---|---|---|---|")
        exact = WindowExactScheduler(
            make_locality_scheduler(args.scheduler),
            window=args.window,
            budget_s=args.loop_budget,
            w_load=args.w_load,
        )
        for sched in ("fcfs", args.scheduler, exact):
            t0 = time.perf_counter()
            r = simulate_locality(wl, sched, plat, LocalityOptions.reference())
            m = locality_metrics(r)
            print(
                f"| {getattr(sched, 'name', sched)} | {time.perf_counter() - t0:.1f} | "
                f"{m['transfer_wait_s']:,.0f} | {m['mean_stretch']:.2f} | "
                f"{m['queue_time_mean_s']:,.0f} | {m['core_time_s']:,.0f} |",
                flush=True,
            )
        print(
            f"exact runs {exact.runs}, fallbacks {exact.fallbacks}, CP-SAT {exact.latency_s:.1f} s in all"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
