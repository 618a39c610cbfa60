"""The schedule pictures of docs/figures.md: one shipped simulation (the quick suite's scenario: 2,000
Lublin–Feitelson jobs with S4 burst-buffer requests on Theta, WFP, window 20) under the naive
baseline and under the window policy with the exact ``dp``, drawn side by side as a Gantt chart
and as resource use over time; also how long drawing a large run takes.

    python bench/benchmarks/schedule_pictures.py [--quick]

Writes PNGs to bench/benchmarks/figures/ and prints the Markdown that shows them (paths relative
to docs/figures.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from schedbench.bench.cli import main as schedbench
from schedbench.bench.report import schedule_plots as sp

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "schedule-pictures", "full": [], "quick": ["--quick"], "format": "markdown"}

HERE = Path(__file__).resolve().parent
OUT = HERE / "figures"
WORKLOAD = "lublin:jobs=2000,nodes=4392,seed=1+bbsched:S4,seed=1+arrivals:2"


def simulate(folder: Path, *policy: str) -> None:
    code = schedbench(
        [
            "simulate",
            "--workload",
            WORKLOAD,
            "--system",
            "theta",
            "--priority",
            "wfp",
            *policy,
            "--out",
            str(folder),
            "--no-progress",
            "--warmup",
            "86400",
            "--cooldown",
            "86400",
        ]
    )
    if code != 0:
        raise SystemExit(f"simulate {policy} failed ({code})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="no large-run timing")
    args = ap.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        naive, dp = Path(tmp) / "naive", Path(tmp) / "window-dp"
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):  # the summaries are not the figure
            simulate(naive)
            simulate(dp, "--solver", "dp", "--window", "20")
        runs = [sp.load_run(naive), sp.load_run(dp)]
        sp.gantt(runs, OUT / "gantt-naive-vs-dp.png")
        sp.usage(runs, OUT / "usage-naive-vs-dp.png")
        print(
            f"`{WORKLOAD}` on Theta, WFP order, EASY backfilling: left the naive baseline, right "
            "BBSched's window (w = 20) with the exact `dp`; `schedbench plot gantt|usage DIR DIR`."
        )
        print()
        print(
            "![Gantt: jobs on nodes, naive vs window:dp](../bench/benchmarks/figures/gantt-naive-vs-dp.png)"
        )
        print()
        print(
            "![Use of nodes and burst buffer and queue length, naive vs window:dp](../bench/benchmarks/figures/usage-naive-vs-dp.png)"
        )
        if not args.quick:
            big = Path(tmp) / "big"
            with contextlib.redirect_stdout(io.StringIO()):
                code = schedbench(
                    [
                        "simulate",
                        "--workload",
                        "lublin:jobs=1000000,nodes=4096,seed=5",
                        "--system",
                        "theta",
                        "--out",
                        str(big),
                        "--no-progress",
                    ]
                )
            if code == 0:
                t0 = time.perf_counter()
                run = sp.load_run(big)
                t1 = time.perf_counter()
                sp.gantt([run], big / "g.png")
                t2 = time.perf_counter()
                sp.usage([run], big / "u.png")
                t3 = time.perf_counter()
                print()
                print(
                    f"Drawing a 1,000,000-job run (Lublin, 4,096 nodes): reading {t1 - t0:.1f} s, "
                    f"Gantt {t2 - t1:.1f} s (placement of every job, 20,000 drawn), usage "
                    f"{t3 - t2:.1f} s."
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
