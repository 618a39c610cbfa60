"""``ga`` with BBSched's settings at w = 20 (performance target 3: "stays under 5 ms";
docs/figures.md#performance-frontier), side by side
with the byte-per-gene kernel it replaced.

A helper of ``frontier.py`` (part (b) prints its block; ``--part g`` prints it alone)::

    python bench/benchmarks/frontier.py --part g            # 20 windows x 5 repeats, seed 0
    python bench/benchmarks/frontier.py --part g --seed 1   # fresh windows
    python bench/benchmarks/frontier.py --part g --quick    # 4 windows x 2 repeats

The windows are ``instances.conflict_windows`` at w = 20 (exact front of at
least 3 points by ``dp``). ``ga`` (population 20, 500 generations, mutation 0.05 %: BBSched
§4.3) against ``ga[packed=false]`` (the kernel before the packing: one byte per gene, the lazy
Fisher-Yates fill), alternating which runs first window by window and repeat by repeat, one
seed per window. Per decision: the thread's CPU time around ``timed_solve`` (the solve and the
kind's check of the answer; time the thread spends descheduled is not in it) and the wall
latency ``timed_solve`` records (the solve alone). Printed: median, the worst window (the
largest per-window median) and the worst single run, for both, and the ratios new / old (median
of the per-decision ratios, ratio of the worst cases), and the mean share of the exact front
each finds (the same search distribution, different draws: close, not equal). The load average before and after is
printed too: on a shared machine the worst single run measures the neighbours as much as the
solver. It reports; it does not gate.
"""

from __future__ import annotations

import os
import statistics
import time

from _verdicts import record
from tabulate import tabulate

from schedbench.instances.conflict_windows import conflict_windows
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import make_solver

TARGET_MS = 5.0
W = 20
SOLVERS = {"ga": {}, "ga[packed=false]": {"packed": False}}


def draw(count: int, seed: int) -> list[SelectionProblem]:
    dp = make_solver("dp")
    warm_up(dp)

    def front_size(problem: SelectionProblem) -> int:
        decision = timed_solve(dp, problem, Budget(deadline_s=30))
        if decision.status != Status.OPTIMAL:
            raise RuntimeError("dp did not prove a w = 20 front")
        return len(decision.pareto)

    return conflict_windows(W, count, seed, front_size)


def measure(
    problems: list[SelectionProblem], repeats: int
) -> dict[str, dict[str, list[list[float]]]]:
    """{solver: {"cpu": per window, per repeat (ms), "wall": ..., "found": share of the exact
    front found, per window and repeat}}, alternating the order."""
    dp = make_solver("dp")
    exact = [
        {p.objectives for p in timed_solve(dp, problem, Budget(deadline_s=30)).pareto}
        for problem in problems
    ]
    solvers = {name: make_solver("ga", params) for name, params in SOLVERS.items()}
    for solver in solvers.values():
        warm_up(solver)
    out: dict[str, dict[str, list[list[float]]]] = {
        name: {key: [[] for _ in problems] for key in ("cpu", "wall", "found")} for name in solvers
    }
    names = list(solvers)
    for rep in range(repeats):
        for i, problem in enumerate(problems):
            for name in names if (rep + i) % 2 == 0 else names[::-1]:
                budget = Budget(deadline_s=30, seed=i)
                c0 = time.thread_time()
                decision = timed_solve(solvers[name], problem, budget)
                c1 = time.thread_time()
                out[name]["cpu"][i].append((c1 - c0) * 1e3)
                out[name]["wall"][i].append(decision.latency_s * 1e3)
                found = {p.objectives for p in decision.pareto} & exact[i]
                out[name]["found"][i].append(len(found) / len(exact[i]))
    return out


def summary(runs: list[list[float]]) -> tuple[float, float, float]:
    """(median of all runs, worst per-window median, worst run)."""
    flat = [x for window in runs for x in window]
    return (
        statistics.median(flat),
        max(statistics.median(window) for window in runs),
        max(flat),
    )


def ga_block(problems: list[SelectionProblem], repeats: int, label: str) -> list[str]:
    """The printed block: table and target line."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    data = measure(problems, repeats)
    elapsed = time.perf_counter() - start
    load_after = os.getloadavg()[0]
    new, old = data["ga"], data["ga[packed=false]"]
    rows = []
    for name, runs in data.items():
        row = [name]
        for clock in ("cpu", "wall"):
            med, worst_window, worst = summary(runs[clock])
            row += [f"{med:.2f}", f"{worst_window:.2f}", f"{worst:.2f}"]
        shares = [x for window in runs["found"] for x in window]
        row.append(f"{100 * statistics.mean(shares):.1f}%")
        rows.append(row)
    ratio_row = ["new / old"]
    for clock in ("cpu", "wall"):
        paired = [
            a / b
            for wa, wb in zip(new[clock], old[clock], strict=True)
            for a, b in zip(wa, wb, strict=True)
        ]
        n_sum, o_sum = summary(new[clock]), summary(old[clock])
        ratio_row += [
            f"{statistics.median(paired):.2f}x",
            f"{n_sum[1] / o_sum[1]:.2f}x",
            f"{n_sum[2] / o_sum[2]:.2f}x",
        ]
    rows.append([*ratio_row, "-"])
    lines = [
        f"ga at w={W}, BBSched's settings (population 20, 500 generations), {label}: "
        f"{len(problems)} windows x {repeats} repeats, alternating; load average "
        f"{load_before:.1f} before, {load_after:.1f} after ({elapsed:.0f} s)",
        tabulate(
            rows,
            headers=[
                "solver",
                "CPU ms median",
                "CPU worst window",
                "CPU worst run",
                "wall ms median",
                "wall worst window",
                "wall worst run",
                "exact front found (mean)",
            ],
            tablefmt="github",
            disable_numparse=True,
        ),
    ]
    cpu_new, cpu_old = summary(new["cpu"]), summary(old["cpu"])
    wall_new = summary(new["wall"])
    record(
        "3.4",
        f"3. BBSched's settings (population 20, 500 generations) < {TARGET_MS:g} ms at w={W}",
        f"`ga` CPU per decision: median **{cpu_new[0]:.2f} ms**, worst run **{cpu_new[2]:.2f} "
        f"ms**; wall median {wall_new[0]:.2f}, worst run {wall_new[2]:.2f} ms ({label}, "
        f"{len(problems)} windows x {repeats})",
        f"`ga[packed=false]` (the kernel before) same run, CPU: {cpu_old[0]:.2f} / "
        f"{cpu_old[2]:.2f} ms ({ratio_row[1]} per decision)",
        "yes (CPU)"
        if cpu_new[2] < TARGET_MS
        else "median yes; worst run no"
        if cpu_new[0] < TARGET_MS
        else "no",
    )
    lines.append(
        f"target 3, ga < {TARGET_MS:g} ms at w={W}: CPU median {cpu_new[0]:.2f} ms, worst window "
        f"{cpu_new[1]:.2f} ms, worst run {cpu_new[2]:.2f} ms: "
        f"{'yes' if cpu_new[2] < TARGET_MS else 'worst run no' if cpu_new[1] < TARGET_MS else 'no'}"
        f" (CPU); wall worst run {summary(new['wall'])[2]:.2f} ms"
    )
    return lines
