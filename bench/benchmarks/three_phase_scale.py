"""The three-phase lifecycle at scale, and the time of a scheduling pass against the queue length
on every simulation core.

    .venv/bin/python bench/benchmarks/three_phase_scale.py            # 100,000-job run
    .venv/bin/python bench/benchmarks/three_phase_scale.py --quick    # 20,000-job run

Target 7 (docs/figures.md#three-phase-at-scale): the stage-in pass of the three-phase lifecycle
in O(Q + (S + F) log(S + F)) for Q jobs waiting for stage-in, S staged and F waiting ones that fit
the free buffer and are not known to be unsafe (``simcore/_stage_in_kernel.py``) instead of a
sort of the staged jobs per waiting job; a 100,000-job three-phase burst-buffer run
(FCFS + EASY, Theta with its burst buffer, BBSched workload S1 with staged inputs and outputs,
arrivals slowed to a tenth) in under 60 s, by wall and by CPU time,
the load beside it; and a plot of the time per scheduling pass against the queue length for
every core (``figures/pass-time-all-cores.png``).

Where the buffer cannot keep up (S4 at the Lublin rate: every job stages 0.6 of a large request
through the file system's bandwidth) the stage queue grows with the run, to thousands of jobs;
each pass still scans the waiting jobs (one comparison each for those that do not fit or are
known to be unsafe). The side-by-side run is in that regime, where the passes are long enough
to measure.

The stage-in pass is timed side by side with the plain pass (``plain_stage_in.py``, the same
schedule: checked on every run) on the same workload cut to ``--side-jobs`` jobs (the plain
pass is quadratic: 100,000 jobs would take it hours), and the growth of each pass's time with
the stage-queue length is fitted on a log-log scale (slope: 1 is linear, 2 quadratic).

What a pass is on each core (its own loop, ``instances/cores/``):

* ``bbsched`` — the engine's pass at an instant: the stage-in pass (three-phase) and the
  policy's pass (naive start rule + EASY), against the stage-queue and run-queue length;
* ``cerberus`` — one queue's turn in the Cerberus/BBSim pass (``serve``), against that queue;
* ``locality`` — one run of the node-level scheduler over the queue (``plan``);
* ``reservations`` — no queue: every request is answered on arrival; the time to find its
  slot against the number of records of the slot structure (what a request's search walks).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tabulate import tabulate

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _machine import machine_line  # noqa: E402
from _verdicts import record  # noqa: E402
from plain_stage_in import PlainStageIn  # noqa: E402

from schedbench.instances.systems import resolve_system  # noqa: E402
from schedbench.instances.units import fit_units  # noqa: E402
from schedbench.instances.workloads import load_workload  # noqa: E402
from schedbench.simcore.engine import SimOptions, Simulation  # noqa: E402
from schedbench.simcore.policies import NaivePolicy  # noqa: E402

TARGET_S = 60.0
PLOT = HERE / "figures" / "pass-time-all-cores.png"
#: BBSched's S1 requests, arrivals slowed to a tenth: the 100,000-job run. On its first 5,000
#: jobs the stage queue stays under 5; over the whole trace it does not (about 4,000 at its
#: longest; the run's counter of stage-ins deferred as unsafe says how many waiting jobs that
#: fit the free buffer the passes met).
SUSTAINED = "lublin:jobs={n},nodes=4392,seed=3+bbsched:S1,seed=3+arrivals:0.1"
#: One it cannot: S4 requests at the Lublin rate; the stage queue grows with the run (thousands
#: of jobs). The side-by-side run with the plain pass.
OVERLOADED = "lublin:jobs={n},nodes=4392,seed=3+bbsched:S4,seed=3"

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "three-phase-scale", "full": [], "quick": ["--quick"], "format": "text"}


def three_phase_workload(n: int, spec: str):
    """``n`` jobs of a BBSched workload on Theta, staging 0.6 of their burst-buffer request in and
    0.3 out (the three-phase scenario of ``tests/simcore/test_policy.py``)."""
    w = load_workload(spec.format(n=n))
    system = resolve_system("theta", workload=w)
    w, _ = fit_units(w, system)
    w = w.replace(data_in_gb=np.round(w.bb_gb * 0.6), data_out_gb=np.round(w.bb_gb * 0.3))
    return w, system


def _load() -> str:
    try:
        return "load {:.1f} / {:.1f} / {:.1f} (1/5/15 min)".format(*os.getloadavg())
    except OSError:
        return "load unknown"


class _Timed:
    """Records (queue length, seconds) of the passes of a core into ``rows[label]``."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[int, float]]] = {}

    def add(self, label: str, q: int, seconds: float) -> None:
        self.rows.setdefault(label, []).append((q, seconds))


def _timed_sim(cls: type[Simulation], timed: _Timed, prefix: str) -> type[Simulation]:
    """A subclass of ``cls`` whose stage-in passes are timed against the stage-queue length."""

    class Sim(cls):  # type: ignore[valid-type, misc]
        def _stage_in_pass(self) -> None:
            q = len(self.stage_queue)
            t = time.perf_counter()
            super()._stage_in_pass()
            timed.add(f"{prefix} stage-in pass", q, time.perf_counter() - t)

    return Sim


def _timed_policy(timed: _Timed, label: str) -> NaivePolicy:
    policy = NaivePolicy(backfill="easy")
    inner = policy.schedule

    def schedule(view, now):
        q = view.queue_length
        t = time.perf_counter()
        yield from inner(view, now)
        timed.add(label, q, time.perf_counter() - t)

    policy.schedule = schedule  # type: ignore[method-assign]
    return policy


def big_run(n: int) -> tuple[float, float, str, dict]:
    """The ``n``-job three-phase run: wall and CPU seconds (workload built outside the timing),
    the load when it ended, and its counters."""
    w, system = three_phase_workload(n, SUSTAINED)
    options = SimOptions(lifecycle="three-phase", priority="fcfs")
    t, c = time.perf_counter(), time.process_time()
    r = Simulation(w, system, NaivePolicy(backfill="easy"), options).run()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return wall, cpu, _load(), r.counters


def side_by_side(n: int, timed: _Timed) -> tuple[float, float, bool]:
    """The ``n``-job workload with the compiled and the plain stage-in pass, their passes timed:
    (compiled s, plain s, same schedule)."""
    w, system = three_phase_workload(n, OVERLOADED)
    options = SimOptions(lifecycle="three-phase", priority="fcfs")
    out = {}
    for label, cls in (("bbsched", Simulation), ("bbsched plain", PlainStageIn)):
        sim_cls = _timed_sim(cls, timed, label)
        policy = _timed_policy(timed, f"{label} policy pass") if label == "bbsched" else None
        t = time.perf_counter()
        r = sim_cls(w, system, policy or NaivePolicy(backfill="easy"), options).run()
        out[label] = (time.perf_counter() - t, r)
    new, old = out["bbsched"][1], out["bbsched plain"][1]
    same = (
        np.array_equal(new.start, old.start, equal_nan=True)
        and np.array_equal(new.first_alloc, old.first_alloc, equal_nan=True)
        and new.counters == old.counters
    )
    return out["bbsched"][0], out["bbsched plain"][0], same


def other_cores(timed: _Timed, quick: bool) -> None:
    """Pass times of the Cerberus, locality and advance-reservation cores (module docstring)."""
    from schedbench.bench import api
    from schedbench.instances.ar_workload import generate_ar_requests
    from schedbench.simcore.cerberus import policy as cpol
    from schedbench.simcore.locality.engine import LocalitySimulator
    from schedbench.simcore.reservations.driver import serve
    from schedbench.simcore.reservations.slots import SlotStructure

    def wrap(owner: type, name: str, label: str, length: Callable[..., int]) -> Callable[[], None]:
        inner = getattr(owner, name)

        def timed_call(self, *args, **kwargs):
            q = length(self, *args)
            t = time.perf_counter()
            result = inner(self, *args, **kwargs)
            timed.add(label, q, time.perf_counter() - t)
            return result

        setattr(owner, name, timed_call)
        return lambda: setattr(owner, name, inner)

    undo = wrap(cpol.CerberusFCFS, "serve", "cerberus (fcfs)", lambda self, view: len(view.jobs))
    try:
        api.simulate(f"cerberus:jobs={1_000 if quick else 5_000},seed=1", policy="cerberus-fcfs")
    finally:
        undo()
    undo = wrap(
        LocalitySimulator, "_run_scheduler", "locality (fcfs)", lambda self, queue, full: len(queue)
    )
    try:
        api.simulate(
            f"locality:jobs={300 if quick else 1_500},nodes=4,days=2,users=8,seed=1",
            policy="fcfs",
            options={"gate_s": 0},
        )
    finally:
        undo()
    undo = wrap(SlotStructure, "find", "reservations (ff)", lambda self, *a: len(self))
    try:
        serve(generate_ar_requests(1_000 if quick else 5_000, seed=1), 64, "ff")
    finally:
        undo()


_BINS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 1 << 30)


def _binned(rows: list[tuple[int, float]]) -> list[tuple[float, float, int]]:
    """(median queue length, median seconds, passes) per power-of-two bin of the length."""
    out = []
    for lo, hi in itertools.pairwise(_BINS):
        xs = [(q, t) for q, t in rows if lo <= q < hi]
        if xs:
            out.append(
                (statistics.median(q for q, _ in xs), statistics.median(t for _, t in xs), len(xs))
            )
    return out


def slope(rows: list[tuple[int, float]]) -> float:
    """The log-log slope of the binned median pass time against the queue length, over bins of
    at least 8 jobs and 5 passes (1: linear, 2: quadratic)."""
    pts = [(q, t) for q, t, k in _binned(rows) if q >= 8 and k >= 5 and t > 0]
    if len(pts) < 2:
        return float("nan")
    x = np.log([q for q, _ in pts])
    y = np.log([t for _, t in pts])
    return float(np.polyfit(x, y, 1)[0])


def plot(timed: _Timed) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # report, do not gate
        return f"(no plot: {exc})"
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    for label, rows in sorted(timed.rows.items()):
        pts = [(max(q, 1.0), 1e6 * t) for q, t, _ in _binned(rows)]
        style = "s--" if "plain" in label else "o-"
        ax.plot([q for q, _ in pts], [t for _, t in pts], style, label=label, markersize=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("queue length at the pass (jobs; reservations: slot records)")
    ax.set_ylabel("time per pass (us, median per bin)")
    ax.set_title("Time per scheduling pass against queue length, every core")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    PLOT.parent.mkdir(exist_ok=True)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=100)
    plt.close(fig)
    return f"plot: {PLOT.relative_to(HERE.parent.parent)}"


def pass_table(timed: _Timed) -> list[list[str]]:
    rows = []
    for label, data in sorted(timed.rows.items()):
        for q, t, k in _binned(data):
            rows.append([label, f"{q:,.0f}", str(k), f"{1e6 * t:,.1f}"])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a 20,000-job run, smaller runs")
    ap.add_argument("--jobs", type=int, default=0, help="jobs of the big run (default 100,000)")
    ap.add_argument("--side-jobs", type=int, default=0, help="jobs of the side-by-side run")
    args = ap.parse_args(argv)
    n = args.jobs or (20_000 if args.quick else 100_000)
    side = args.side_jobs or (800 if args.quick else 1_500)
    print(machine_line("numpy"))
    # warm: the kernels load from the cache (or compile) outside the timings
    side_by_side(200, _Timed())
    wall, cpu, load, counters = big_run(n)
    print(
        f"\nthree-phase, fcfs+easy, {n:,} jobs (BBSched S1 on Theta, arrivals x0.1, staged "
        "in/out): "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU, {n / wall:,.0f} jobs/s; {load}; "
        f"passes {counters['passes']:,}, stage-ins deferred as unsafe "
        f"{counters['stage_in_deferred_unsafe']:,}"
    )
    timed = _Timed()
    new_s, old_s, same = side_by_side(side, timed)
    s_new = slope(timed.rows["bbsched stage-in pass"])
    s_old = slope(timed.rows["bbsched plain stage-in pass"])
    print(
        f"side by side, {side:,} jobs of S4 at the Lublin rate (the buffer cannot keep up: "
        f"the stage queue reaches {max(q for q, _ in timed.rows['bbsched stage-in pass']):,}): "
        f"compiled stage-in pass run {new_s:.2f} s, plain "
        f"{old_s:.2f} s ({old_s / new_s:.1f}x); same schedule: {'yes' if same else 'NO'}; "
        f"growth of the pass time with the stage queue (log-log slope): compiled {s_new:.2f}, "
        f"plain {s_old:.2f}; {_load()}"
    )
    other_cores(timed, args.quick)
    print("\ntime per pass against queue length (median per bin, us)")
    print(tabulate(pass_table(timed), headers=["pass", "queue (median)", "passes", "us"]))
    print(plot(timed))
    met = wall < TARGET_S
    record(
        "7.1",
        f"7. three-phase burst-buffer run, {n:,} jobs, fcfs+easy, < {TARGET_S:.0f} s",
        f"**{wall:.1f} s** wall, {cpu:.1f} s CPU ({n / wall:,.0f} jobs/s); {load}",
        "-",
        f"{'yes' if met else 'no'} (by CPU time: {'yes' if cpu < TARGET_S else 'no'})",
    )
    record(
        "7.2",
        "7. stage-in pass n log n in the queue length (not quadratic)",
        f"log-log slope of the pass time against the stage queue: **{s_new:.2f}** "
        f"({side:,}-job run; {new_s:.2f} s)",
        f"plain pass same run: slope {s_old:.2f}, {old_s:.2f} s ({old_s / new_s:.1f}x); same "
        f"schedule: {'yes' if same else 'NO'}",
        "yes" if s_new < 1.5 and same else "no",
    )
    record(
        "7.3",
        "7. time per pass against queue length, every core (plot)",
        f"{', '.join(sorted(timed.rows))}: figures/{PLOT.name}",
        "-",
        "reported",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
