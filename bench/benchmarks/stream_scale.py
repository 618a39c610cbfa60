"""Streamed runs of 10^5, 10^6 and 10^7 generated jobs: time per job and peak memory.

    .venv/bin/python bench/benchmarks/stream_scale.py            # 10^5, 10^6, 10^7 jobs
    .venv/bin/python bench/benchmarks/stream_scale.py --quick    # 10^4, 10^5, 10^6 jobs

Target (ten million jobs): a streamed run of 10^7 generated jobs under FCFS + EASY, per-job
records streamed to disk and metrics computed online (``simcore/stream.py``), with peak RSS
under 2 GB and time linear in the number of jobs.

Each size runs in a child process of its own (a fresh interpreter: imports and numpy count in
its memory): Lublin–Feitelson jobs generated in chunks (``instances/lublin_stream.py``, 4,096
nodes as the 1,000,000-job memory run of ``sim_speed.py``, seed 1), simulated by the streamed
engine, ``jobs.csv`` written to a temporary folder (deleted after). Measured per run: wall
time and CPU time (generation, simulation and records together, after a 2,000-job warm-up
run in the same child so that imports and first calls do not flatter the smaller sizes'
time per job), and the peak resident set
size (the child's ``ru_maxrss``; the parent's ``RUSAGE_CHILDREN`` maximum is printed beside
it). The two smaller sizes run ``--repeat`` times (median and worst case), the largest once
(minutes). Linearity is the time per job at the largest size over the time per job at the
smallest: median over median, and worst case (the slowest run at the largest size over the
fastest at the smallest); the verdict asks for at most :data:`LINEAR_RATIO` by CPU time (wall
time on a shared machine includes waiting for a core). The in-memory engine on the middle size,
run once in a child beside them, anchors the memory figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _machine import machine_line  # noqa: E402
from _verdicts import record  # noqa: E402

NODES = 4096
SEED = 1
CHUNK = 1 << 16
TARGET_PEAK_MB = 2048
#: Time per job at the largest size over the smallest, by CPU time, at most this: "linear".
LINEAR_RATIO = 1.5
PLOT = HERE / "figures" / "stream-scale.png"

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md.
FIGURE = {"name": "stream-scale", "full": [], "quick": ["--quick"], "format": "text"}

_STREAM_CHILD = """
import json, os, resource, sys, tempfile, time
from pathlib import Path
from schedbench.instances.lublin_stream import iter_lublin
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.stream import simulate_stream
from schedbench.simcore.system import System
# warm-up (imports, first calls) outside the timed run: the time per job compares sizes
simulate_stream(iter_lublin(2000, nodes={nodes}, seed={seed} + 1), System.simple("w", {nodes}),
    NaivePolicy(backfill="easy"))
folder = Path(tempfile.mkdtemp(prefix="stream-scale-"))
path = folder / "jobs.csv"
t, c = time.perf_counter(), time.process_time()
r = simulate_stream(
    iter_lublin({n}, nodes={nodes}, seed={seed}, chunk={chunk}),
    System.simple("lublin", {nodes}), NaivePolicy(backfill="easy"), records=path,
)
wall, cpu = time.perf_counter() - t, time.process_time() - c
size = path.stat().st_size
lines = sum(1 for _ in path.open("rb")) - 1
path.unlink(); folder.rmdir()
print(json.dumps({{"wall": wall, "cpu": cpu,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "window": r.max_window, "measured": r.metrics["jobs_measured"], "lines": lines,
    "records_mb": size / 2**20, "wait_mean_s": r.metrics["wait_mean_s"],
    "node_usage": r.metrics["node_usage"]}}))
"""

_MEMORY_CHILD = """
import json, resource, time
from schedbench.instances.lublin_stream import lublin_stream_workload
from schedbench.simcore.engine import simulate
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.system import System
t, c = time.perf_counter(), time.process_time()
w = lublin_stream_workload({n}, nodes={nodes}, seed={seed})
r = simulate(w, System.simple("lublin", {nodes}), NaivePolicy(backfill="easy"))
print(json.dumps({{"wall": time.perf_counter() - t, "cpu": time.process_time() - c,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def _child(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["children_maxrss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return out


def stream_run(n: int) -> dict:
    return _child(_STREAM_CHILD.format(n=n, nodes=NODES, seed=SEED, chunk=CHUNK))


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cpus"


def _us(seconds: float, n: int) -> float:
    return 1e6 * seconds / n


def plot(sizes: list[int], runs: dict[int, list[dict]]) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # report, do not gate
        return f"(no plot: {exc})"
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9.6, 3.8))
    for key, label, style in (("cpu", "CPU time", "o-"), ("wall", "wall time", "s--")):
        meds = [statistics.median(_us(r[key], n) for r in runs[n]) for n in sizes]
        worst = [max(_us(r[key], n) for r in runs[n]) for n in sizes]
        ax1.plot(sizes, meds, style, label=f"{label} (median)")
        ax1.plot(sizes, worst, style, alpha=0.4, label=f"{label} (worst)")
    ax1.set_xscale("log")
    ax1.set_ylim(bottom=0)
    ax1.set_xlabel("jobs")
    ax1.set_ylabel("time per job (us)")
    ax1.set_title("streamed FCFS + EASY: time per job")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    peaks = [max(r["peak_mb"] for r in runs[n]) for n in sizes]
    ax2.plot(sizes, peaks, "o-", label="peak RSS (worst run)")
    ax2.axhline(TARGET_PEAK_MB, color="tab:red", linestyle=":", label="target 2 GB")
    ax2.set_xscale("log")
    ax2.set_ylim(bottom=0)
    ax2.set_xlabel("jobs")
    ax2.set_ylabel("MB")
    ax2.set_title("peak resident set size")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8)
    PLOT.parent.mkdir(exist_ok=True)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=100)
    plt.close(fig)
    return f"plot: {PLOT.relative_to(HERE.parent.parent)}"


def _ratio(runs: dict[int, list[dict]], small: int, large: int, key: str) -> tuple[float, float]:
    """(median ratio, worst ratio) of the time per job at ``large`` over ``small``."""
    med = statistics.median(_us(r[key], large) for r in runs[large]) / statistics.median(
        _us(r[key], small) for r in runs[small]
    )
    worst = max(_us(r[key], large) for r in runs[large]) / min(
        _us(r[key], small) for r in runs[small]
    )
    return med, worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="10^4, 10^5, 10^6 jobs")
    ap.add_argument("--repeat", type=int, default=2, help="runs of the two smaller sizes")
    args = ap.parse_args()
    sizes = [10**4, 10**5, 10**6] if args.quick else [10**5, 10**6, 10**7]
    print(machine_line("numpy"))
    print(load_line() + " (before)")
    runs: dict[int, list[dict]] = {}
    for n in sizes:
        repeat = 1 if n == sizes[-1] else args.repeat
        runs[n] = [stream_run(n) for _ in range(repeat)]
    anchor = _child(_MEMORY_CHILD.format(n=sizes[1], nodes=NODES, seed=SEED))
    rows = []
    for n in sizes:
        rs = runs[n]
        rows.append(
            [
                f"{n:,}",
                len(rs),
                f"{statistics.median(r['wall'] for r in rs):.1f} / {max(r['wall'] for r in rs):.1f}",
                f"{statistics.median(r['cpu'] for r in rs):.1f} / {max(r['cpu'] for r in rs):.1f}",
                f"{statistics.median(_us(r['cpu'], n) for r in rs):.2f} / "
                f"{max(_us(r['cpu'], n) for r in rs):.2f}",
                f"{max(r['peak_mb'] for r in rs):.0f}",
                f"{max(r['children_maxrss_mb'] for r in rs):.0f}",
                f"{max(r['window'] for r in rs):,}",
                f"{rs[0]['records_mb']:.0f}",
                "yes" if all(r["lines"] == n == r["measured"] for r in rs) else "NO",
            ]
        )
    print(
        f"\nstreamed lublin ({NODES} nodes, seed {SEED}, chunks of {CHUNK:,}), fcfs+easy, "
        "records to disk; median / worst of the runs"
    )
    headers = [
        "jobs",
        "runs",
        "wall s",
        "CPU s",
        "CPU us/job",
        "peak RSS MB",
        "children maxrss MB",
        "most jobs held",
        "jobs.csv MB",
        "every job recorded",
    ]
    print(tabulate(rows, headers=headers, disable_numparse=True))
    print(
        f"anchor: in-memory engine, same generator, {sizes[1]:,} jobs: wall {anchor['wall']:.1f} s, "
        f"CPU {anchor['cpu']:.1f} s, peak RSS {anchor['peak_mb']:.0f} MB"
    )
    verdicts(sizes, runs, anchor, args.quick)
    print(plot(sizes, runs))
    print(load_line() + " (after)")


def verdicts(sizes: list[int], runs: dict[int, list[dict]], anchor: dict, quick: bool) -> None:
    small, mid, large = sizes
    cpu_med, cpu_worst = _ratio(runs, small, large, "cpu")
    wall_med, wall_worst = _ratio(runs, small, large, "wall")
    peak = max(r["peak_mb"] for r in runs[large])
    linear = cpu_med <= LINEAR_RATIO
    linear_worst = cpu_worst <= LINEAR_RATIO
    print(
        f"\nlinearity: time per job at {large:,} / at {small:,} jobs: CPU {cpu_med:.2f}x median, "
        f"{cpu_worst:.2f}x worst; wall {wall_med:.2f}x median, {wall_worst:.2f}x worst "
        f"(<= {LINEAR_RATIO}x by CPU time: {'yes' if linear else 'no'}; worst "
        f"{'yes' if linear_worst else 'no'})"
    )
    print(
        f"memory: peak RSS at {large:,} jobs {peak:.0f} MB (< {TARGET_PEAK_MB} MB: "
        f"{'yes' if peak < TARGET_PEAK_MB else 'no'})"
    )
    if quick:
        print("(--quick: sizes below the target's 10^7; no ledger rows)")
        return
    mid_peak = max(r["peak_mb"] for r in runs[mid])
    record(
        "10.1",
        f"10. streamed fcfs+easy, {large:,} generated jobs: peak RSS < 2 GB",
        f"peak RSS {peak:.0f} MB; {statistics.median(r['wall'] for r in runs[large]):.0f} s wall, "
        f"{statistics.median(r['cpu'] for r in runs[large]):.0f} s CPU (one run)",
        f"{mid:,} jobs streamed {mid_peak:.0f} MB, in memory {anchor['peak_mb']:.0f} MB",
        peak < TARGET_PEAK_MB,
    )
    record(
        "10.2",
        f"10. streamed fcfs+easy: time per job at {large:,} / at {small:,} jobs",
        f"CPU {cpu_med:.2f}x median, {cpu_worst:.2f}x worst; wall {wall_med:.2f}x, "
        f"{wall_worst:.2f}x worst",
        f"{statistics.median(_us(r['cpu'], small) for r in runs[small]):.1f} us/job CPU at "
        f"{small:,}",
        f"<= {LINEAR_RATIO}x by CPU: median {'yes' if linear else 'no'}; worst "
        f"{'yes' if linear_worst else 'no'}",
    )


if __name__ == "__main__":
    main()
