"""Simulation speed and memory against their targets, measured side by side in one run.

    .venv/bin/python bench/benchmarks/sim_speed.py            # KTH, Lublin 100k, 1M-job memory
    .venv/bin/python bench/benchmarks/sim_speed.py --quick    # KTH and Lublin 20k only
    .venv/bin/python bench/benchmarks/sim_speed.py --targets  # only performance targets 5, 6

Targets: FCFS + EASY at >= 10,000 jobs/s on the KTH-SP2 log (28k jobs) and on a 100,000-job
Lublin workload; peak memory under 1 GB for a 1,000,000-job workload (generation + simulation,
measured as the peak resident set size of a child process, so imports and numpy count too).

Performance target 5 and the conservative part of target 6 (docs/figures.md#performance-frontier),
printed in a section of its own:
FCFS + EASY >= 100,000 jobs/s in-process on a 188,000-job trace — on the largest real trace in
the shipped KTH-SP2 log (28,476 jobs) and, since no trace at hand has 188,000 jobs, on a
188,000-job synthetic Lublin workload standing in for it (256 and 4,096 nodes; labelled
STAND-IN; not with --quick) —, a 1,000,000-job Lublin workload under FCFS + EASY in < 60 s with
peak memory < 1 GB (child process, from the memory run below), FCFS + conservative backfilling
>= 25,000 jobs/s on KTH-SP2 and at >= 1/3 of EASY's throughput (row 6.3: the ratio round by round,
median and worst round), measured in rounds side by side with EASY and with conservative's
from-scratch pass (``ConservativeBackfill(incremental=False)``; the row says
whether both give the same schedule), and the time of one scheduling pass against the queue
length (KTH-SP2, FCFS + EASY, conservative and conservative's full pass: median per
queue-length bin, a table and ``figures/pass-time-vs-queue.png``). A pass is timed from the
engine's call of the policy to the end of the actions it yields (the engine's handling of those
actions included). The rows of that section give each rate by wall time and by the process's CPU
time, and a verdict for each: on a shared machine the wall time includes the time spent waiting
for a core, which says more about the neighbours than about the simulator.

Each speed row is the median of ``--repeat`` runs. The yardstick is
``bench/benchmarks/reference_sim.py``, a deliberately plain simulator with the same semantics (its
schedules are identical, see ``tests/simcore/test_sim_reference.py``); it is run once per workload because
it is slow on long queues. Machines here are shared and noisy: compare the ratio within one run, not
absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line as _machine_line  # noqa: E402
from _verdicts import record  # noqa: E402
from reference_sim import simulate_reference  # noqa: E402

from schedbench.instances import datasets  # noqa: E402
from schedbench.instances.lublin import generate_lublin  # noqa: E402
from schedbench.instances.swf import read_swf  # noqa: E402
from schedbench.simcore.backfill import ConservativeBackfill  # noqa: E402
from schedbench.simcore.engine import SimOptions, simulate  # noqa: E402
from schedbench.simcore.policies import NaivePolicy  # noqa: E402
from schedbench.simcore.system import System  # noqa: E402

KTH = datasets.path("kth-sp2")  # shipped with the package (gzip SWF)
TARGET_JOBS_PER_S = 10_000
TARGET_PEAK_MB = 1024
#: Performance target 5 (FCFS + EASY jobs/s; the 1M-job run's seconds) and 6 (conservative).
I17_EASY_JOBS_PER_S = 100_000
I17_MILLION_S = 60.0
I17_CONSERVATIVE_JOBS_PER_S = 25_000
I17_TODAY = {"easy": 56_000, "conservative": 6_600}  # the prior values on KTH-SP2
PASS_PLOT = Path(__file__).resolve().parent / "figures" / "pass-time-vs-queue.png"

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "sim-speed", "full": [], "quick": ["--quick"], "format": "text"}


def machine_line() -> str:
    return _machine_line("numpy")


def _rate(workload, system, policy_kw, priority, repeat):
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = simulate(workload, system, NaivePolicy(**policy_kw), SimOptions(priority=priority))
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    return len(workload) / med, med, result


def speed_rows(name, workload, system, repeat, *, reference: bool, extra: bool):
    rows = []
    rate, med, result = _rate(workload, system, {"backfill": "easy"}, "fcfs", repeat)
    ref_rate = None
    same = ""
    if reference:
        t = time.perf_counter()
        ref = simulate_reference(
            workload.submit, workload.runtime, workload.requested_time, workload.nodes, system.nodes
        )
        ref_rate = len(workload) / (time.perf_counter() - t)
        same = "yes" if np.array_equal(ref, result.start, equal_nan=True) else "NO"
    verdict = "met" if rate >= TARGET_JOBS_PER_S else "MISSED"
    rows.append(
        [
            name,
            "fcfs+easy",
            len(workload),
            f"{med:.2f}",
            f"{rate:,.0f}",
            f"{ref_rate:,.0f}" if ref_rate else "-",
            f"{rate / ref_rate:.1f}x" if ref_rate else "-",
            same,
            verdict,
        ]
    )
    if extra:
        for label, kw, prio in (
            ("wfp+easy", {"backfill": "easy"}, "wfp"),
            ("fcfs+conservative", {"backfill": "conservative"}, "fcfs"),
        ):
            r, m, _ = _rate(workload, system, kw, prio, 1)
            rows.append(
                [name, label, len(workload), f"{m:.2f}", f"{r:,.0f}", "-", "-", "", "(no target)"]
            )
    return rows


_MEMORY_CHILD = """
import resource, sys, time, json
sys.path.insert(0, {root!r})
from schedbench.instances.lublin import generate_lublin
from schedbench.simcore.engine import simulate, SimOptions
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.system import System
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
w = generate_lublin({n}, nodes={nodes}, seed=1)
gen = time.perf_counter() - t
t = time.perf_counter()
r = simulate(w, System.simple("lublin", {nodes}), NaivePolicy(backfill="easy"))
sim = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"base_mb": base / 1024, "peak_mb": peak / 1024, "gen_s": gen, "sim_s": sim,
                  "ended": int((r.state <= 1).sum())}}))
"""


def memory_row(n: int, nodes: int):
    code = _MEMORY_CHILD.format(root=str(ROOT), n=n, nodes=nodes)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    m = json.loads(out.stdout.strip().splitlines()[-1])
    verdict = "met" if m["peak_mb"] < TARGET_PEAK_MB else "MISSED"
    return [
        f"lublin {n:,} jobs, {nodes} nodes",
        f"{m['base_mb']:.0f}",
        f"{m['peak_mb']:.0f}",
        f"{m['gen_s']:.1f}",
        f"{m['sim_s']:.1f}",
        f"{n / m['sim_s']:,.0f}",
        m["ended"],
        verdict,
    ]


#: The policies whose passes are timed: key -> label in the table and the plot.
PASS_LABELS = {"easy": "easy", "conservative": "cons.", "conservative-full": "cons. full pass"}


def _timed_policy(backfill: str, record: list[tuple[int, float]]) -> NaivePolicy:
    """A NaivePolicy whose passes are timed: (queue length, seconds) per pass into ``record``.
    ``conservative-full``: conservative with the from-scratch pass (the plain path)."""
    bf = ConservativeBackfill(incremental=False) if backfill == "conservative-full" else backfill
    policy = NaivePolicy(backfill=bf)
    inner = policy.schedule

    def schedule(view, now):
        q = view.queue_length
        t = time.perf_counter()
        yield from inner(view, now)
        record.append((q, time.perf_counter() - t))

    policy.schedule = schedule  # type: ignore[method-assign]
    return policy


def pass_times(workload, system) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for backfill in PASS_LABELS:
        record: list[tuple[int, float]] = []
        simulate(workload, system, _timed_policy(backfill, record), SimOptions(priority="fcfs"))
        out[backfill] = record
    return out


_BINS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1 << 30)


def pass_table(records: dict[str, list[tuple[int, float]]]) -> list[list[str]]:
    rows = []
    for lo, hi in itertools.pairwise(_BINS):
        row = [
            f"{lo}-{hi - 1}"
            if hi - 1 > lo and hi < 1 << 30
            else (f">= {lo}" if hi == 1 << 30 else str(lo))
        ]
        any_data = False
        for backfill in PASS_LABELS:
            xs = [t for q, t in records[backfill] if lo <= q < hi]
            if xs:
                any_data = True
                row += [
                    str(len(xs)),
                    f"{1e6 * statistics.median(xs):,.1f}",
                    f"{1e6 * max(xs):,.0f}",
                ]
            else:
                row += ["0", "-", "-"]
        if any_data:
            rows.append(row)
    return rows


def pass_plot(records: dict[str, list[tuple[int, float]]]) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # report, do not gate
        return f"(no plot: {exc})"
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    colours = {"easy": "tab:blue", "conservative": "tab:orange", "conservative-full": "tab:red"}
    for backfill, colour in colours.items():
        mids, meds = [], []
        for lo, hi in itertools.pairwise(_BINS):
            xs = [t for q, t in records[backfill] if lo <= q < hi]
            if xs:
                qs = [q for q, _ in records[backfill] if lo <= q < hi]
                mids.append(max(1.0, statistics.median(qs)))
                meds.append(1e6 * statistics.median(xs))
        label = f"fcfs+{PASS_LABELS[backfill]} (median per bin)"
        ax.plot(mids, meds, "o-", color=colour, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("queue length at the pass (jobs)")
    ax.set_ylabel("time per scheduling pass (us)")
    ax.set_title("KTH-SP2: time per scheduling pass against queue length")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    PASS_PLOT.parent.mkdir(exist_ok=True)
    fig.tight_layout()
    fig.savefig(PASS_PLOT, dpi=100)
    plt.close(fig)
    return f"plot: {PASS_PLOT.relative_to(ROOT.parent)}"


#: CPU seconds of each timed run (``_runs``), keyed by the id of its list of wall times: on a
#: shared machine the wall time includes waiting for a core, the process's CPU time does not.
_CPU: dict[int, list[float]] = {}


def _runs(workload, system, make_policy, priority: str, repeat: int):
    """Wall times of ``repeat`` runs of a fresh ``make_policy()`` (their CPU times in
    ``_CPU[id(times)]``), and the last result."""
    times: list[float] = []
    cpu: list[float] = []
    _CPU[id(times)] = cpu  # a new list: an id of a freed one may come back
    result = None
    for _ in range(repeat):
        policy = make_policy()
        t, c = time.perf_counter(), time.process_time()
        result = simulate(workload, system, policy, SimOptions(priority=priority))
        cpu.append(time.process_time() - c)
        times.append(time.perf_counter() - t)
    return times, result


def _side_by_side(workload, system, variants: dict, priority: str, repeat: int):
    """``repeat`` rounds, each running every variant once (so load on a shared machine hits
    them alike): name -> (run times, last result)."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for name in variants:
        _CPU[id(times[name])] = []
    results: dict = {}
    for _ in range(repeat):
        for name, make in variants.items():
            ts, results[name] = _runs(workload, system, make, priority, 1)
            times[name] += ts
            _CPU[id(times[name])] += _CPU.pop(id(ts))
    return {name: (times[name], results[name]) for name in variants}


def _conservative(incremental: bool):
    return lambda: NaivePolicy(backfill=ConservativeBackfill(incremental=incremental))


def _cpu_rate(n: int, times: list[float]) -> float:
    return n / statistics.median(_CPU[id(times)])


def _rates(n: int, times: list[float]) -> str:
    return (
        f"{n / statistics.median(times):,.0f} jobs/s (slowest run {n / max(times):,.0f}; "
        f"by CPU time {_cpu_rate(n, times):,.0f})"
    )


def _verdict(n: int, times: list[float], target: float) -> str:
    wall = n / statistics.median(times) >= target
    cpu = _cpu_rate(n, times) >= target
    return f">= {target:,.0f}: {'yes' if wall else 'no'} (by CPU time: {'yes' if cpu else 'no'})"


def _third_of_easy_row(easy_t: list[float], cons_t: list[float], same: bool) -> list[str]:
    """Row 6.3: conservative's throughput over EASY's, round by round (both ran in each round,
    one after the other, on the same machine state): the median and the worst round, by wall
    and by CPU time, and the load average when the rounds ended."""
    wall = [e / c for e, c in zip(easy_t, cons_t, strict=True)]
    cpu = [e / c for e, c in zip(_CPU[id(easy_t)], _CPU[id(cons_t)], strict=True)]
    try:
        load = "load {:.1f} / {:.1f} / {:.1f}".format(*os.getloadavg())
    except OSError:
        load = "load unknown"
    rounds = ", ".join(f"{r:.2f}" for r in wall)
    med, worst = statistics.median(wall), min(wall)
    cpu_med, cpu_worst = statistics.median(cpu), min(cpu)
    return [
        f"6. fcfs+conservative >= 1/3 of fcfs+easy, KTH-SP2, same run ({len(wall)} rounds)",
        f"**{med:.2f}x** EASY median, worst round {worst:.2f}x (rounds {rounds}); by CPU time "
        f"{cpu_med:.2f}x median, worst {cpu_worst:.2f}x; {load}",
        "fcfs+easy in the same rounds; same schedule as the from-scratch pass: "
        + ("yes" if same else "NO"),
        f"median {'yes' if med >= 1 / 3 else 'no'}; worst round {'yes' if worst >= 1 / 3 else 'no'}"
        f" (by CPU time: median {'yes' if cpu_med >= 1 / 3 else 'no'}, worst "
        f"{'yes' if cpu_worst >= 1 / 3 else 'no'})",
    ]


#: Performance target 5: no 188,000-job trace is at hand, so a
#: synthetic Lublin workload of that size stands in, on the node counts of the Lublin rows above
#: (256) and of the 1,000,000-job run (4,096).
STAND_IN_JOBS = 188_000
STAND_IN_NODES = (256, 4096)


def targets_section(kth, repeat: int, million: list[str] | None, quick: bool) -> None:
    """Performance targets 5 and 6 (conservative): rates side by side in one run, verdicts."""
    print("\ntargets: simulator scale (target 5) and conservative backfilling (target 6)")
    print(
        "largest real trace shipped: KTH-SP2 (no 188,000-job trace is at hand: "
        f"a {STAND_IN_JOBS:,}-job Lublin workload stands in, labelled as such)"
    )
    rows: list[list[str]] = []

    def add(key: str, row: list[str]) -> None:
        rows.append(row)
        record(key, *row)

    if kth is not None:
        w, system = kth
        n = len(w)
        # load (or compile) the compiled kernels before the timed rounds
        _runs(w.take(slice(0, 500)), system, _conservative(True), "fcfs", 1)
        runs = _side_by_side(
            w,
            system,
            {
                "easy": lambda: NaivePolicy(backfill="easy"),
                "cons": _conservative(True),
                "cons-full": _conservative(False),
            },
            "fcfs",
            repeat,
        )
        easy_t, cons_t, old_t = (runs[k][0] for k in ("easy", "cons", "cons-full"))
        easy, cons, old = (n / statistics.median(t) for t in (easy_t, cons_t, old_t))
        new_r, old_r = runs["cons"][1], runs["cons-full"][1]
        same = (
            np.array_equal(new_r.start, old_r.start)
            and np.array_equal(new_r.end, old_r.end)
            and new_r.counters == old_r.counters
        )
        add(
            "5.1",
            [
                "5. fcfs+easy, KTH-SP2",
                _rates(n, easy_t),
                f"prior value {I17_TODAY['easy']:,}: {easy / I17_TODAY['easy']:.2f}x",
                _verdict(n, easy_t, I17_EASY_JOBS_PER_S),
            ],
        )
        add(
            "6.1",
            [
                "6. fcfs+conservative, KTH-SP2",
                _rates(n, cons_t),
                f"EASY same run {easy:,.0f}: {cons / easy:.2f}x (CPU time "
                f"{_cpu_rate(n, cons_t) / _cpu_rate(n, easy_t):.2f}x); full pass (incremental "
                f"off) same run {old:,.0f}: {cons / old:.2f}x (CPU time "
                f"{_cpu_rate(n, cons_t) / _cpu_rate(n, old_t):.2f}x); prior value "
                f"{I17_TODAY['conservative']:,}: {cons / I17_TODAY['conservative']:.2f}x; "
                f"same schedule as the full pass: {'yes' if same else 'NO'}",
                _verdict(n, cons_t, I17_CONSERVATIVE_JOBS_PER_S),
            ],
        )
        add("6.3", _third_of_easy_row(easy_t, cons_t, same))
    else:
        print(f"(skipping KTH: {KTH} not present)")
    if not quick:
        for i, nodes in enumerate(STAND_IN_NODES):
            w = generate_lublin(STAND_IN_JOBS, nodes=nodes, seed=1)
            ts, _ = _runs(
                w,
                System.simple("lublin", nodes),
                lambda: NaivePolicy(backfill="easy"),
                "fcfs",
                repeat,
            )
            add(
                f"5.{2 + i}",
                [
                    f"5. fcfs+easy, STAND-IN lublin {STAND_IN_JOBS:,} jobs/{nodes} nodes",
                    _rates(len(w), ts),
                    f"KTH-SP2 same run: {easy:,.0f}" if kth is not None else "-",
                    _verdict(len(w), ts, I17_EASY_JOBS_PER_S),
                ],
            )
    if million is not None:
        sim_s, peak = float(million[4]), float(million[2])
        add(
            "5.4",
            [
                "5. lublin 1,000,000 jobs, fcfs+easy",
                f"simulate {sim_s:.1f} s (+ generate {million[3]} s), peak RSS {peak:.0f} MB",
                "-",
                f"< {I17_MILLION_S:.0f} s: {'yes' if sim_s < I17_MILLION_S else 'no'}; "
                f"< {TARGET_PEAK_MB} MB: {'yes' if peak < TARGET_PEAK_MB else 'no'}",
            ],
        )
    if rows:
        print(tabulate(rows, headers=["target", "measured (median)", "anchor", "met?"]))
    if kth is not None:
        records = pass_times(*kth)
        print("\ntime per scheduling pass against queue length (KTH-SP2; us)")
        headers = ["queue"]
        for label in PASS_LABELS.values():
            headers += [f"{label} passes", f"{label} median", f"{label} max"]
        print(tabulate(pass_table(records), headers=headers))
        print(pass_plot(records))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small workloads, no 1M-job memory run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per speed row (median)")
    ap.add_argument(
        "--targets",
        action="store_true",
        help="only the section of performance targets 5 and 6 (no other rows, no 1M-job run; "
        "the stand-in unless --quick)",
    )
    args = ap.parse_args(argv)
    print(machine_line())
    rows = []
    kth = None
    if KTH.exists():
        w = read_swf(KTH)
        kth = (w, System.simple("kth", w.machine_size or int(w.nodes.max())))
    if args.targets:
        targets_section(kth, args.repeat, None, args.quick)
        return 0
    if kth is not None:
        rows += speed_rows(
            "KTH-SP2",
            kth[0],
            kth[1],
            args.repeat,
            reference=True,
            extra=not args.quick,
        )
    else:
        print(f"(skipping KTH: {KTH} not present)")
    n = 20_000 if args.quick else 100_000
    w = generate_lublin(n, nodes=256, seed=1)
    rows += speed_rows(
        f"lublin-{n // 1000}k/256",
        w,
        System.simple("lublin", 256),
        args.repeat,
        reference=True,
        extra=not args.quick,
    )
    print()
    print(
        tabulate(
            rows,
            headers=[
                "workload",
                "policy",
                "jobs",
                "median s",
                "jobs/s",
                "reference jobs/s",
                "speed-up",
                "same schedule",
                f">= {TARGET_JOBS_PER_S:,}/s",
            ],
        )
    )
    mem = None
    if not args.quick:
        print()
        mem = [memory_row(1_000_000, 4096)]
        print(
            tabulate(
                mem,
                headers=[
                    "memory run",
                    "after imports MB",
                    "peak RSS MB",
                    "generate s",
                    "simulate s",
                    "jobs/s",
                    "jobs ended",
                    f"< {TARGET_PEAK_MB} MB",
                ],
            )
        )
    targets_section(kth, args.repeat, mem[0] if mem else None, args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
