"""Cerberus speed against its targets, measured side by side in one run.

(a) The faithful reproduction of the six published runs (the shipped dataset ``cerberus``; generated
    workloads of the same size when it is absent): wall time per run and in all, median of
    ``--repeats`` runs. Target: all six under 30 s.
(b) Per-queue knapsack decisions on 10-job windows through ``timed_solve`` (latency as the
    simulation measures it, the core's check included): the shipped faithful corpus
    (``instances/decisions/cerberus-maxt-faithful-w10.jsonl``: core units, whole TB) and the
    run-queue problems of a corrected-mode run recorded here (exact cores and GB, window 10).
    Median, p95, max per solver and the median's ratio to the 1 ms target. Target: ``dp`` median
    under 1 ms.
(c) The authors' method for scale: ``bench/benchmarks/cerberus_reference.py``'s dense nested-list
    memo (pure Python) on three faithful run-queue problems of the corpus (median, 90th percentile
    and largest free capacity), in the same units.

Run: ``.venv/bin/python bench/benchmarks/cerberus_speed.py [--quick]``. The script reports; it
does not gate.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _machine import machine_line
from cerberus_reference import cerberus_dense_dp
from tabulate import tabulate

from schedbench.bench.reproduce.cerberus import RUNS
from schedbench.instances import datasets
from schedbench.instances.cerberus import (
    load_cerberus_workload,
    published_workloads,
    read_cerberus_workload,
)
from schedbench.instances.cores.cerberus import cerberus_config, run_cerberus
from schedbench.instances.recorded import read_recorded
from schedbench.instances.systems import CERBERUS
from schedbench.simcore.problem import Budget
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import warm_solver, warm_solver_by_id

ROOT = Path(__file__).resolve().parents[2]
SHARED = datasets.path("cerberus")  # the six published workloads, shipped
CORPUS = ROOT / "instances" / "decisions" / "cerberus-maxt-faithful-w10.jsonl"
SOLVERS = ("dp", "cerberus-dp", "naive", "cpsat")


FIGURE = {"name": "cerberus-speed", "full": [], "quick": ["--quick"], "format": "text"}


def part_a(repeats: int) -> None:
    files = published_workloads(SHARED)
    if len(files) == 6:
        workloads = {
            r: read_cerberus_workload(p, max_cores=CERBERUS.nodes) for r, p in files.items()
        }
        where = str(SHARED)
    else:
        workloads = {
            r: load_cerberus_workload(f"cerberus:jobs=1185,seed={k + 1}")
            for k, r in enumerate(RUNS)
        }
        where = "generated (the dataset cerberus is missing: check `schedbench data`)"
    config = cerberus_config({"mode": "faithful"})
    rows, total = [], []
    times: dict[str, list[float]] = {r: [] for r in workloads}
    for _ in range(repeats):
        t_all = time.perf_counter()
        for run, w in workloads.items():
            t = time.perf_counter()
            run_cerberus(w, CERBERUS, RUNS[run], config=config, solvers=warm_solver_by_id)
            times[run].append(time.perf_counter() - t)
        total.append(time.perf_counter() - t_all)
    for run, ts in times.items():
        rows.append([run, RUNS[run], f"{statistics.median(ts):.2f}"])
    med = statistics.median(total)
    rows.append(["all six", "", f"{med:.2f}"])
    print(f"\n(a) faithful reproduction of the six runs ({where}); median of {repeats}")
    print(tabulate(rows, headers=["run", "policy", "wall s"], tablefmt="simple"))
    print(
        f"target: all six < 30 s -> {med:.1f} s ({'met' if med < 30 else 'NOT met'}; {30 / med:.0f}x margin)"
    )


def corrected_w10_problems(limit: int) -> list:
    problems: list = []

    def keep(problem, context):
        if context["queue"] == "run" and problem.w == 10 and len(problems) < limit:
            problems.append(problem)

    run_cerberus(
        load_cerberus_workload("cerberus:jobs=600,seed=1"),
        CERBERUS,
        "cerberus-maxt",
        config=cerberus_config({"mode": "corrected"}, 10),
        record=keep,
        solvers=warm_solver_by_id,
    )
    return problems


def latency_table(label: str, problems: list, solvers: tuple[str, ...]) -> None:
    budget = Budget(15.0)
    rows = []
    for name in solvers:
        solver = warm_solver(name, {})
        for p in problems[:3]:  # warm caches, imports, CP-SAT's first model
            timed_solve(solver, p, budget)
        lat = np.array([timed_solve(solver, p, budget).latency_s for p in problems])
        med = float(np.median(lat))
        rows.append(
            [
                name,
                f"{1e3 * med:.3f}",
                f"{1e3 * np.percentile(lat, 95):.3f}",
                f"{1e3 * lat.max():.3f}",
                f"{med / 1e-3:.2f}",
            ]
        )
    print(f"\n(b) {label}: {len(problems)} decisions")
    print(
        tabulate(
            rows,
            headers=["solver", "median ms", "p95 ms", "max ms", "median / 1 ms"],
            tablefmt="simple",
        )
    )


def part_c(problems: list) -> None:
    chosen = sorted(problems, key=lambda p: float(p.capacities.prod()))
    picks = [chosen[len(chosen) // 2], chosen[9 * len(chosen) // 10], chosen[-1]]
    rows = []
    dp = warm_solver("cerberus-dp", {})
    for p in picks:
        t = time.perf_counter()
        cerberus_dense_dp(p, unit_nodes=1, unit_bb=1)
        dense = time.perf_counter() - t
        ours = timed_solve(dp, p, Budget(15.0)).latency_s
        rows.append(
            [
                f"{int(p.capacities[0])} x {int(p.capacities[1])}",
                f"{dense:.2f}",
                f"{1e3 * ours:.3f}",
                f"{dense / ours:,.0f}x",
            ]
        )
    print("\n(c) the authors' dense memo (pure Python, every (core unit, TB) cell) vs cerberus-dp")
    print(
        tabulate(
            rows,
            headers=["free units (cores/256 x TB)", "dense s", "cerberus-dp ms", "ratio"],
            tablefmt="simple",
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one repetition, fewer decisions")
    args = ap.parse_args()
    print(machine_line("numpy", "ortools"))
    part_a(1 if args.quick else 3)
    faithful = [p for _label, p, ctx in read_recorded(CORPUS) if p.w == 10]
    latency_table(
        "faithful run-queue windows of 10 (shipped corpus; core units, whole TB)", faithful, SOLVERS
    )
    corrected = corrected_w10_problems(60 if args.quick else 200)
    latency_table("corrected run-queue windows of 10 (exact cores and GB)", corrected, SOLVERS)
    part_c(faithful)


if __name__ == "__main__":
    main()
