"""Simulation speed and memory (issue 3 targets), measured side by side in one run.

    .venv/bin/python bench/sim_speed.py            # full: KTH, Lublin 100k, 1M-job memory
    .venv/bin/python bench/sim_speed.py --quick    # KTH and Lublin 20k only

Targets: FCFS + EASY at >= 10,000 jobs/s on the KTH-SP2 log (28k jobs) and on a 100,000-job
Lublin workload; peak memory under 1 GB for a 1,000,000-job workload (generation + simulation,
measured as the peak resident set size of a child process, so imports and numpy count too).

Each speed row is the median of ``--repeat`` runs. The yardstick is ``bench/reference_sim.py``,
a deliberately plain simulator with the same semantics (its schedules are identical, see
``tests/test_sim_reference.py``); it is run once per workload because it is slow on long queues.
Machines here are shared and noisy: compare the ratio within one run, not absolute numbers
across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line as _machine_line  # noqa: E402
from reference_sim import simulate_reference  # noqa: E402

from schedbench.instances.lublin import generate_lublin  # noqa: E402
from schedbench.instances.swf import read_swf  # noqa: E402
from schedbench.simcore.engine import SimOptions, simulate  # noqa: E402
from schedbench.simcore.policies import NaivePolicy  # noqa: E402
from schedbench.simcore.system import System  # noqa: E402

KTH = ROOT.parent.parent / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf"  # ROOT is bench/
TARGET_JOBS_PER_S = 10_000
TARGET_PEAK_MB = 1024

#: What ``figures.py`` runs to regenerate this script's README block (``make figures``).
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
        import numpy as np

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small workloads, no 1M-job memory run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per speed row (median)")
    args = ap.parse_args(argv)
    print(machine_line())
    rows = []
    if KTH.exists():
        w = read_swf(KTH)
        rows += speed_rows(
            "KTH-SP2",
            w,
            System.simple("kth", w.machine_size or int(w.nodes.max())),
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
