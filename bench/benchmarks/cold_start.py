"""What a user waits for in a fresh process, once the install has compiled the kernels.

    .venv/bin/python bench/benchmarks/cold_start.py            # 5 fresh processes per row
    .venv/bin/python bench/benchmarks/cold_start.py --quick    # 3, and no suite row

Performance target 12 (docs/figures.md#performance-frontier):

* **12.1 — the first ``dp`` / ``moo`` / ``ga`` solve of a fresh process <= 2 s**: ``schedbench
  solve --solver S instances/examples/theta_w100.json`` run as a new process, timed from before
  the process starts to its exit (so interpreter start, imports, loading the kernels from the
  on-disk cache and the solve all count), once as users run it (the solver in an isolated child
  process, the default) and once with ``--no-isolate``. Median and worst of ``--rounds`` fresh
  processes; the wall time and the CPU time of the process tree side by side (on a shared
  machine the wall time includes waiting for a core, the CPU time does not; on a quiet machine
  with 2 cores the two are close).
* **12.2 — only one process after install compiles**: in a fresh process, after the untimed
  ``warm_up`` of each of these solvers, numba's own counters must say every kernel it used was
  loaded from the disk cache (cache misses 0): ``schedbench warm`` (run by the Makefile's
  install step, and once here before anything is timed) compiled them.
* **12.3 — the suite part of ``make run`` <= 20 s** (``schedbench run bench/suites/quick.toml
  --force``, install excluded), in a fresh process, with its results in a temporary folder.
* **Where the cold time goes**: one fresh process reports the CPU seconds spent in each phase
  (interpreter start, numpy, numba, schedbench's command line, building the solver, loading its
  kernels from the cache, the solve itself).

The script reports; it does not gate (exit status 0 whatever the numbers).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bench" / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench" / "benchmarks"))

from _machine import machine_line  # noqa: E402
from _verdicts import record  # noqa: E402

FIGURE = {"name": "cold-start", "full": [], "quick": ["--quick"], "format": "text"}
BIN = Path(sys.executable).parent
WINDOW = ROOT / "instances" / "examples" / "theta_w100.json"
SOLVERS = ("dp", "moo", "ga")
TARGET_S = 2.0
SUITE_TARGET_S = 20.0

#: Run in a fresh interpreter: CPU seconds (user + system) at the end of each phase of a first
#: solve, then numba's cache counters over every kernel the process holds.
PHASES = r"""
import resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
marks = [("interpreter start", cpu())]
import numpy
marks.append(("import numpy", cpu()))
import numba
marks.append(("import numba", cpu()))
import schedbench.bench.cli, schedbench.bench.api
marks.append(("schedbench's command line and api", cpu()))
from schedbench.solvers.registry import make_solver
from schedbench.simcore.solver import warm_up, timed_solve
import json
from schedbench.simcore.kinds.base import get_kind
data = json.loads(open(sys.argv[2]).read())
problem = get_kind(data["kind"]).problem_from_dict(data)
solver = make_solver(sys.argv[1])
marks.append(("build the solver (imports its module)", cpu()))
warm_up(solver)
marks.append(("load its kernels from the disk cache (warm_up)", cpu()))
from schedbench.simcore.problem import Budget
timed_solve(solver, problem, Budget(deadline_s=5))
marks.append(("the solve", cpu()))
from numba.core.registry import CPUDispatcher
seen = {}
for name, mod in list(sys.modules.items()):
    if name.startswith("schedbench"):
        for v in vars(mod).values():
            if isinstance(v, CPUDispatcher):
                seen[id(v)] = v
hits = sum(sum(d.stats.cache_hits.values()) for d in seen.values())
misses = sum(sum(d.stats.cache_misses.values()) for d in seen.values())
prev = 0.0
for what, t in marks:
    print(f"phase\t{what}\t{t - prev:.3f}")
    prev = t
print(f"cache\t{hits}\t{misses}")
"""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def fresh(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (process tree) of one fresh process, and its stdout."""
    c0, t0 = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=900)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-400:]}")
    return wall, cpu, done.stdout


def load_now() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def first_solves(rounds: int) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """(solver, mode) -> (wall times, CPU times) of ``rounds`` fresh ``schedbench solve``."""
    out: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    modes = {"isolated (default)": [], "--no-isolate": ["--no-isolate"]}
    for _ in range(rounds):  # rounds outermost: a burst of load spreads over every row
        for solver in SOLVERS:
            for mode, flags in modes.items():
                cmd = [str(BIN / "schedbench"), "solve", "--solver", solver, "--budget", "5"]
                wall, cpu, _ = fresh([*cmd, *flags, str(WINDOW)])
                walls, cpus = out.setdefault((solver, mode), ([], []))
                walls.append(wall)
                cpus.append(cpu)
    return out


def report_first_solves(rounds: int) -> None:
    print(
        f"\n## 12.1 first solve of a fresh process ({rounds} processes per row; load {load_now()})"
    )
    rows = first_solves(rounds)
    worst_wall = max(max(w) for w, _ in rows.values())
    worst_cpu = max(max(c) for _, c in rows.values())
    for (solver, mode), (walls, cpus) in rows.items():
        print(
            f"{solver:4s} {mode:20s} wall median {statistics.median(walls):5.2f} s, worst "
            f"{max(walls):5.2f} s | CPU median {statistics.median(cpus):5.2f} s, worst "
            f"{max(cpus):5.2f} s"
        )
    medians = {k: statistics.median(w) for k, (w, _) in rows.items()}
    cpu_medians = {k: statistics.median(c) for k, (_, c) in rows.items()}
    print(f"load after: {load_now()}")
    record(
        "12.1",
        f"12. first dp / moo / ga solve of a fresh process (after install) <= {TARGET_S:g} s",
        f"wall median {min(medians.values()):.2f}-{max(medians.values()):.2f} s, worst "
        f"{worst_wall:.2f} s; CPU (process tree) median {min(cpu_medians.values()):.2f}-"
        f"{max(cpu_medians.values()):.2f} s, worst {worst_cpu:.2f} s ({rounds} fresh processes "
        "per solver, isolated and --no-isolate)",
        "the CPU time beside the wall time, same processes",
        f"wall: {'yes' if max(medians.values()) <= TARGET_S else 'no'} (median), "
        f"{'yes' if worst_wall <= TARGET_S else 'no'} (worst); CPU: "
        f"{'yes' if max(cpu_medians.values()) <= TARGET_S else 'no'} (median)",
    )


def report_phases() -> None:
    print(
        f"\n## where the cold time goes (CPU seconds per phase, one fresh process; load {load_now()})"
    )
    misses_total = 0
    table: dict[str, dict[str, float]] = {}
    for solver in SOLVERS:
        _, _, out = fresh([sys.executable, "-c", PHASES, solver, str(WINDOW)])
        for line in out.splitlines():
            parts = line.split("\t")
            if parts[0] == "phase":
                table.setdefault(parts[1], {})[solver] = float(parts[2])
            elif parts[0] == "cache":
                hits, misses = int(parts[1]), int(parts[2])
                misses_total += misses
                print(f"{solver}: kernels loaded from the disk cache {hits}, compiled {misses}")
    print(f"{'phase':50s}" + "".join(f"{s:>8s}" for s in SOLVERS))
    for phase, by in table.items():
        print(f"{phase:50s}" + "".join(f"{by.get(s, float('nan')):8.2f}" for s in SOLVERS))
    record(
        "12.2",
        "12. only one process after install compiles (a fresh process's dp / moo / ga kernels "
        "all load from the disk cache)",
        f"kernels compiled in a fresh process: {misses_total}",
        "numba's cache counters (hits / misses) over every schedbench kernel",
        misses_total == 0,
    )


def report_suite() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [str(BIN / "schedbench"), "run", str(ROOT / "bench" / "suites" / "quick.toml")]
        wall, cpu, _ = fresh([*cmd, "--force"], cwd=Path(tmp))
    print(
        f"\n## 12.3 suite part of `make run`: wall {wall:.1f} s, CPU {cpu:.1f} s (load {load_now()})"
    )
    record(
        "12.3",
        f"12. the suite part of `make run` in a fresh process <= {SUITE_TARGET_S:g} s",
        f"wall {wall:.1f} s, CPU {cpu:.1f} s",
        "install and `schedbench warm` excluded",
        wall <= SUITE_TARGET_S,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 processes per row, no suite row")
    ap.add_argument("--rounds", type=int, default=None, help="fresh processes per row")
    args = ap.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    print(machine_line("numpy", "numba", "ortools"))
    t0 = time.perf_counter()
    subprocess.run([str(BIN / "schedbench"), "warm", "--quiet"], check=False)
    print(
        f"schedbench warm (untimed set-up, as after an install): {time.perf_counter() - t0:.1f} s"
    )
    for section in (report_phases, lambda: report_first_solves(rounds)):
        section()
    if not args.quick:
        report_suite()
    return 0


if __name__ == "__main__":
    sys.exit(main())
