"""Speed of the locality simulator (issue 15, "Speed"): a one-day workload of about 20,000
jobs (about 1,500 evaluated) on the evaluated cluster (486 × 20 cores) under each of the ten
schedulers; the target is under 60 s each on this machine. The authors' C simulator takes
about a second on such a day (their statement; we cannot run it here), so the printed ratio is
against that 1 s figure, not a side-by-side measurement.

    .venv/bin/python bench/benchmarks/locality_speed.py [--mode reference|paper]
        [--schedulers fcfs lea ...] [--profile lea]

Each row gives wall and CPU (``time.process_time``) seconds — on the shared 2-core machine the
CPU figure is the one to compare, the load average is printed before and after — and a digest
of the schedule (per-job start, node, transfer, end, load wait), so that a speed change can be
checked to leave the schedules as they were. ``--profile NAME`` also runs ``NAME`` under
cProfile and prints where the time goes (the top functions by cumulative and by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import pstats
import sys
import time

import numpy as np

from schedbench.instances.locality_io import generate_locality
from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality
from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES

REFERENCE_C_S = 1.0  # the issue's figure for the authors' simulator on such a day
TARGET_S = 60.0


FIGURE = {
    "name": "locality-speed",
    "full": [],
    "quick": ["--schedulers", "fcfs", "eft", "lea"],
    "format": "text",
}


def workload(seed: int = 1) -> object:
    return generate_locality(
        jobs=20_000, nodes=486, days=1, users=400, seed=seed, load=1.05, evaluated_share=0.075
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("reference", "paper"), default="reference")
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULER_NAMES))
    parser.add_argument("--profile", default=None, help="a scheduler to profile")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    wl = workload(args.seed)
    plat = LocalityPlatform()
    opts = LocalityOptions.for_mode(args.mode)
    n_eval = len(wl.evaluated)  # type: ignore[attr-defined]
    print(f"# {len(wl)} jobs ({n_eval} evaluated), 486 x 20 cores, mode {args.mode}")  # type: ignore[arg-type]
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    print(
        "| scheduler | wall s | CPU s | vs C (1 s) | under 60 s (CPU) | scheduler runs "
        "| placements | schedule digest |"
    )
    print("|---|---|---|---|---|---|---|---|")
    walls = []
    cpus = []
    for name in args.schedulers:
        t0 = time.perf_counter()
        c0 = time.process_time()
        r = simulate_locality(wl, name, plat, opts)  # type: ignore[arg-type]
        cpu = time.process_time() - c0
        wall = time.perf_counter() - t0
        walls.append(wall)
        cpus.append(cpu)
        runs = r.counters.get("scheduler_runs_full", 0) + r.counters.get("scheduler_runs_new", 0)
        h = hashlib.sha256()
        for a in (r.start, r.node, r.transfer, r.end, r.load_wait):
            h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        print(
            f"| {name} | {wall:.1f} | {cpu:.1f} | {cpu / REFERENCE_C_S:.0f}x | "
            f"{'yes' if cpu < TARGET_S else 'no'} | {runs} | {r.counters.get('placements', 0)} "
            f"| {h.hexdigest()[:16]} |",
            flush=True,
        )
    print(f"CPU: median {np.median(cpus):.1f} s, worst {max(cpus):.1f} s")
    print(f"wall: median {np.median(walls):.1f} s, worst {max(walls):.1f} s")
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        simulate_locality(wl, args.profile, plat, opts)  # type: ignore[arg-type]
        prof.disable()
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(14)
            print(f"## {args.profile}: top by {key}")
            print("\n".join(buf.getvalue().splitlines()[6:26]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
