"""Speed of the locality simulator (issues 15 and 27, "Speed"): the ten schedulers side by side
on the same workloads, each one's CPU seconds and its ratio to FCFS on the same workload (issue
27's target: every scheduler within 3× of FCFS, and under 60 s on a 35,000-job trace), with the
worst case and the machine's load.

    .venv/bin/python bench/benchmarks/locality_speed.py [--case day week calibration]
        [--mode reference|paper] [--schedulers fcfs lea ...] [--profile lea]

Cases (default: all three; ``calibration`` only when its folder is there):

* ``day`` — a generated one-day workload of about 20,000 jobs on the evaluated cluster
  (486 × 20 cores), as in issue 15;
* ``week`` — a generated week of about 35,000 jobs on 205 nodes, the size of the user's trace in
  issue 27 (33,499 jobs, 205 nodes; LEA took 39× FCFS there before the speed work);
* ``calibration`` — the authors' real day (``--calibration DIR``, default the shipped dataset
  ``locality-day``: 21,819 jobs, 486 nodes). The authors' C simulator takes 2.5–19 s per
  scheduler on it on this machine (issue 27's measurement), printed next to ours; and since the
  folder holds that simulator's outputs, each row also compares our run with them
  (``locality_calibration.py``: evaluated jobs, transfer + wait and mean stretch ours / theirs,
  share of per-job stretches within 0.1 %, targets met).

Each row gives CPU seconds (``time.process_time``, the least of ``--repeat`` runs, default 2: on
the shared 2-core machine the figure to compare; the load average is printed before and after
each case) and, of the wall time, the
part spent planning (inside the scheduler runs: the compiled planner, ``simcore/locality/
_plan.py``) and the rest (the clock, job starts and ends, the file view's upkeep): where the
time goes. Every scheduler runs once on a small workload first, so that loading the compiled
kernels is not charged to the first row. The schedule digest (per-job start, node, transfer,
end, load wait) lets a speed change be checked to leave the schedules as they were.
``--profile NAME`` also runs ``NAME`` under cProfile (the top functions by cumulative and own
time).

Side by side with another checkout: ``--against DIR`` (e.g. ``git worktree add --detach
/tmp/loc-main main``) runs every scheduler twice on the ``day`` case, each in a fresh process —
once on DIR's code, once on this checkout's, alternating which goes first — and prints the CPU
seconds of both, their ratio (this / DIR; median and worst) and whether the digests are equal.
The child processes import DIR's code by pointing the four subpackages of the installed
``schedbench`` (simcore, solvers, instances, bench) at DIR's folders (``--code DIR``).
``--jobs N`` sets the size of the generated day (default 20,000).
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
from pathlib import Path
from typing import Any

import locality_calibration as cal
import numpy as np

TARGET_S = 60.0
TARGET_RATIO = 3.0
#: The authors' C simulator on the calibration day, per scheduler, on this machine (issue 27).
C_RANGE_S = (2.5, 19.0)
CASES = ("day", "week", "calibration")

FIGURE = {
    "name": "locality-speed",
    "full": [],
    "quick": ["--case", "day", "--schedulers", "fcfs", "eft", "lea"],
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
    """The ``day`` case: a generated day on the evaluated cluster."""
    from schedbench.instances.locality_io import generate_locality

    return generate_locality(
        jobs=jobs, nodes=486, days=1, users=400, seed=seed, load=1.05, evaluated_share=0.075
    )


def case_workload(case: str, args: argparse.Namespace) -> tuple[Any, Any, str]:
    """(workload, platform, description) of a case."""
    from schedbench.instances.locality_io import generate_locality
    from schedbench.simcore.locality import LocalityPlatform

    if case == "day":
        return workload(args.seed, args.jobs), LocalityPlatform(), "generated day, 486 nodes"
    if case == "week":
        w = generate_locality(jobs=35_200, nodes=205, days=7, users=400, seed=args.seed, load=1.05)
        return w, LocalityPlatform(nodes=205), "generated week, 205 nodes"
    w, plat = cal.read_day(_folder(args))
    return w, plat, f"the authors' calibration day ({cal.WORKLOAD}), 486 nodes"


def _folder(args: argparse.Namespace) -> Path | None:
    return None if args.calibration is None else Path(args.calibration)


def digest(r: Any) -> str:
    h = hashlib.sha256()
    for a in (r.start, r.node, r.transfer, r.end, r.load_wait):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def timed(name: str, wl: Any, plat: Any, opts: Any, repeat: int) -> tuple[Any, float]:
    """The run and its CPU seconds, the least of ``repeat`` runs (on a shared machine a run
    can only be slowed down by the others)."""
    from schedbench.simcore.locality import simulate_locality

    best = float("inf")
    r = None
    for _ in range(max(repeat, 1)):
        c0 = time.process_time()
        r = simulate_locality(wl, name, plat, opts)
        best = min(best, time.process_time() - c0)
    return r, best


def warm_up(names: list[str], opts: Any) -> None:
    """Every scheduler once on a small workload: the compiled kernels are loaded (or compiled)
    before the timed runs."""
    from schedbench.instances.locality_io import generate_locality
    from schedbench.simcore.locality import LocalityPlatform, simulate_locality

    small = generate_locality(jobs=300, nodes=4, days=1, users=10, seed=1)
    for name in names:
        simulate_locality(small, name, LocalityPlatform(nodes=4), opts.but(gate_s=0))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_case(case: str, args: argparse.Namespace) -> list[float]:
    """Print one case's table; returns the ratios to FCFS."""
    from schedbench.simcore.locality import LocalityOptions

    wl, plat, what = case_workload(case, args)
    opts = LocalityOptions.for_mode(args.mode)
    names = list(args.schedulers)
    if "fcfs" not in names:
        names.insert(0, "fcfs")
    # the authors' outputs are reference mode's: compare only then
    compare = case == "calibration" and args.mode == "reference"
    print(
        f"## {case}: {what}; {len(wl)} jobs ({len(wl.evaluated)} evaluated), mode {args.mode}, "
        f"load average {load()} (2 cores)"
    )
    head = ["scheduler", "CPU s", "× fcfs", "planning s", "rest s", "under 60 s", "digest"]
    if case == "calibration":
        head.insert(3, f"ours / C ({C_RANGE_S[0]:g}–{C_RANGE_S[1]:g} s)")
    if compare:
        head += ["evaluated ours/theirs", "transfer+wait ours/theirs", "mean stretch ours/theirs"]
        head += ["stretches within 0.1 %", "targets met"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    base = None
    ratios: list[float] = []
    for name in names:
        r, cpu = timed(name, wl, plat, opts, args.repeat)
        base = cpu if name == "fcfs" else base
        ratio = cpu / base if base else float("nan")
        if name != "fcfs":
            ratios.append(ratio)
        row = [
            name,
            f"{cpu:.1f}",
            f"{ratio:.2f}",
            f"{r.plan_s:.1f}",
            f"{r.wall_s - r.plan_s:.1f}",
            "yes" if cpu < TARGET_S else "NO",
            digest(r),
        ]
        if case == "calibration":
            row.insert(3, f"{cpu / C_RANGE_S[1]:.2f}–{cpu / C_RANGE_S[0]:.2f}")
        if compare:
            got = cal.compare(r, cal.load_reference(_folder(args), name))
            row += [
                f"{got.evaluated[0]}/{got.evaluated[1]}",
                f"{got.transfer_wait[0]}/{got.transfer_wait[1]:.0f}",
                f"{got.mean_stretch[0]:.4f}/{got.mean_stretch[1]:.4f}",
                f"{100 * got.stretch_share:.1f} %",
                "yes" if got.ok else "NO",
            ]
        print("| " + " | ".join(row) + " |", flush=True)
    worst = max(ratios) if ratios else float("nan")
    print(
        f"worst ratio to fcfs: {worst:.2f} (target {TARGET_RATIO:g}: "
        f"{'met' if worst <= TARGET_RATIO else 'NOT met'}); load average {load()}\n"
    )
    return ratios


def run_one(name: str, args: argparse.Namespace, wl: object) -> dict[str, object]:
    """Run one scheduler on the ``day`` case; CPU and wall seconds, counters and the schedule
    digest (a child of ``--against``)."""
    from schedbench.simcore.locality import LocalityOptions, LocalityPlatform, simulate_locality

    t0 = time.perf_counter()
    c0 = time.process_time()
    r = simulate_locality(wl, name, LocalityPlatform(), LocalityOptions.for_mode(args.mode))  # type: ignore[arg-type]
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    runs = r.counters.get("scheduler_runs_full", 0) + r.counters.get("scheduler_runs_new", 0)
    return {
        "scheduler": name,
        "cpu": cpu,
        "wall": wall,
        "runs": runs,
        "placements": r.counters.get("placements", 0),
        "digest": digest(r),
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
    print(f"# load average {load()} (2 cores)")
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
    print(f"# load average {load()} (2 cores)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", nargs="+", choices=CASES, default=None, help="default: all")
    parser.add_argument("--mode", choices=("reference", "paper"), default="reference")
    parser.add_argument("--schedulers", nargs="+", default=None, help="default: all ten")
    parser.add_argument("--profile", default=None, help="a scheduler to profile (day case)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeat", type=int, default=2, help="runs per scheduler and case; the least CPU counts"
    )
    parser.add_argument("--jobs", type=int, default=20_000, help="jobs of the generated day")
    parser.add_argument(
        "--calibration",
        default=None,
        help="a folder with the calibration day's files (default: the shipped dataset locality-day)",
    )
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
    if args.json:
        wl = workload(args.seed, args.jobs)
        for name in args.schedulers:
            print(json.dumps(run_one(name, args, wl)), flush=True)
        return 0
    cases = args.case or [c for c in CASES if c != "calibration" or cal.present(_folder(args))]
    if "calibration" in cases and not cal.present(_folder(args)):
        raise SystemExit(f"no calibration day in {args.calibration}")
    from schedbench.simcore.locality import LocalityOptions

    opts = LocalityOptions.for_mode(args.mode)
    warm_up(sorted(set(args.schedulers) | {"fcfs"}), opts)
    worst: list[float] = []
    for case in cases:
        worst += run_case(case, args)
    if worst:
        print(f"worst ratio to fcfs over all cases: {max(worst):.2f}")
    if args.profile:
        from schedbench.simcore.locality import LocalityPlatform, simulate_locality

        wl = workload(args.seed, args.jobs)
        prof = cProfile.Profile()
        prof.enable()
        simulate_locality(wl, args.profile, LocalityPlatform(), opts)  # type: ignore[arg-type]
        prof.disable()
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(14)
            print(f"## {args.profile}: top by {key}")
            print("\n".join(buf.getvalue().splitlines()[6:26]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
