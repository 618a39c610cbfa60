"""Speed of the locality simulator: a one-day workload of about 20,000
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

Side by side: ``--against DIR`` (another checkout of the project, e.g.
``git worktree add --detach /tmp/loc-main main``) runs every scheduler twice, each in a fresh
process — once on DIR's code, once on this checkout's, alternating which goes first — and prints
the CPU seconds of both, their ratio (this / DIR; median and worst) and whether the schedule
digests are equal. The child processes import DIR's code by pointing the four subpackages of the
installed ``schedbench`` (simcore, solvers, instances, bench) at DIR's folders (``--code DIR``).
``--jobs N`` sets the size of the generated day (default 20,000; 5,000 for quick iterations).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib
import io
import json
import os
import pstats
import subprocess
import sys
import time

import numpy as np

REFERENCE_C_S = 1.0  # the figure quoted for the authors' simulator on such a day
TARGET_S = 60.0


FIGURE = {
    "name": "locality-speed",
    "full": [],
    "quick": ["--schedulers", "fcfs", "eft", "lea"],
    "format": "text",
}


def use_code(root: str) -> None:
    """Import the project's code from the checkout ``root`` instead of the installed one: the
    installed ``schedbench`` subpackages look up their modules in ``root``'s folders (the
    subpackages' ``__init__`` already ran from the installed checkout)."""
    for name in ("simcore", "solvers", "instances", "bench"):
        mod = importlib.import_module(f"schedbench.{name}")
        mod.__path__ = [os.path.join(root, name)]


def workload(seed: int = 1, jobs: int = 20_000) -> object:
    from schedbench.instances.locality_io import generate_locality

    return generate_locality(
        jobs=jobs, nodes=486, days=1, users=400, seed=seed, load=1.05, evaluated_share=0.075
    )


def run_one(name: str, args: argparse.Namespace, wl: object) -> dict[str, object]:
    """Run one scheduler; CPU and wall seconds, counters and the schedule digest."""
    from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality

    t0 = time.perf_counter()
    c0 = time.process_time()
    r = simulate_locality(wl, name, LocalityPlatform(), LocalityOptions.for_mode(args.mode))  # type: ignore[arg-type]
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    h = hashlib.sha256()
    for a in (r.start, r.node, r.transfer, r.end, r.load_wait):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    runs = r.counters.get("scheduler_runs_full", 0) + r.counters.get("scheduler_runs_new", 0)
    return {
        "scheduler": name,
        "cpu": cpu,
        "wall": wall,
        "runs": runs,
        "placements": r.counters.get("placements", 0),
        "digest": h.hexdigest()[:16],
        "code": os.path.dirname(sys.modules[simulate_locality.__module__].__file__ or ""),
    }


def child(args: argparse.Namespace, name: str, code: str | None) -> dict[str, object]:
    """``run_one`` in a fresh process (on the checkout ``code``, or this one)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--json", "--schedulers", name]
    cmd += ["--mode", args.mode, "--seed", str(args.seed), "--jobs", str(args.jobs)]
    if code:
        cmd += ["--code", code]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    row: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return row


def side_by_side(args: argparse.Namespace) -> int:
    other = os.path.abspath(args.against)
    print(f"# {args.jobs}-job day, mode {args.mode}; before = {other}, after = this checkout")
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    print(
        "| scheduler | CPU s before | CPU s after | after/before | under 60 s (after, CPU) "
        "| digest before = after |"
    )
    print("|---|---|---|---|---|---|")
    ratios = []
    for k, name in enumerate(args.schedulers):
        # alternate which runs first, so that a change in the machine's load hits both sides
        order = [other, None] if k % 2 == 0 else [None, other]
        rows = {code: child(args, name, code) for code in order}
        before, after = rows[other], rows[None]
        if str(before["code"]).startswith(other) == str(after["code"]).startswith(other):
            raise SystemExit(f"both runs used the same code ({before['code']})")
        ratio = float(after["cpu"]) / float(before["cpu"])  # type: ignore[arg-type]
        ratios.append(ratio)
        same = before["digest"] == after["digest"]
        print(
            f"| {name} | {before['cpu']:.1f} | {after['cpu']:.1f} | {ratio:.2f} "
            f"| {'yes' if float(after['cpu']) < TARGET_S else 'no'} "  # type: ignore[arg-type]
            f"| {'yes' if same else 'NO'} ({after['digest']}) |",
            flush=True,
        )
    print(f"after/before CPU: median {np.median(ratios):.2f}, worst {max(ratios):.2f}")
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("reference", "paper"), default="reference")
    parser.add_argument("--schedulers", nargs="+", default=None, help="default: all ten")
    parser.add_argument("--profile", default=None, help="a scheduler to profile")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=20_000, help="jobs of the generated day")
    parser.add_argument(
        "--against", default=None, help="another checkout: run both side by side, give ratios"
    )
    parser.add_argument("--code", default=None, help=argparse.SUPPRESS)  # child: DIR's code
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # child output
    args = parser.parse_args(argv)
    if args.code:
        use_code(os.path.abspath(args.code))
    # imported only now: a child on another checkout must not load this checkout's modules
    from schedbench.simcore.locality.schedulers import SCHEDULER_NAMES

    if args.schedulers is None:
        args.schedulers = list(SCHEDULER_NAMES)
    if args.against:
        return side_by_side(args)
    wl = workload(args.seed, args.jobs)
    if args.json:
        for name in args.schedulers:
            print(json.dumps(run_one(name, args, wl)), flush=True)
        return 0
    from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality

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
        row = run_one(name, args, wl)
        cpu, wall = float(row["cpu"]), float(row["wall"])  # type: ignore[arg-type]
        walls.append(wall)
        cpus.append(cpu)
        print(
            f"| {name} | {wall:.1f} | {cpu:.1f} | {cpu / REFERENCE_C_S:.0f}x | "
            f"{'yes' if cpu < TARGET_S else 'no'} | {row['runs']} | {row['placements']} "
            f"| {row['digest']} |",
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
