"""Suite runner overhead and parallel speed-up against their targets, side by side in one run.

    .venv/bin/python bench/benchmarks/suite_speed.py [--quick]

1. **Overhead per decision cell** — everything but the solve: building the payload, shipping it
   to a worker, the quality metrics, shipping the row back, committing it to the SQLite store.
   Measured on a suite of tiny problems solved by ``naive`` (microseconds), as
   (wall − Σ solver latency) / cells, and as the median per-cell figure the runner records
   (worker overhead + store commit). Target: under 5 ms.
2. **Dask speed-up** — a CPU-bound suite (``exhaustive`` on 23-job Theta windows, ~0.5 s each)
   with ``--executor dask --workers 1`` and ``--workers 2`` on a local cluster; wall time of the
   whole run (cluster start-up included) and of the cells alone. Target: >= 1.8x with 2 workers on
   this 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from schedbench.bench.run.runner import run_suite  # noqa: E402
from schedbench.bench.store import ResultStore  # noqa: E402
from schedbench.bench.suite import suite_from_dict  # noqa: E402

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "suite-speed", "full": [], "quick": ["--quick"], "format": "text"}


def overhead_suite(seeds: int) -> dict:
    return {
        "suite": {"name": "overhead", "budget_s": 15, "reference": "none"},
        "instances": [{"family": "tiny", "source": "theta-window", "w": 5, "seeds": seeds}],
        "solvers": [{"name": "naive"}],
    }


def cpu_suite(seeds: int) -> dict:
    # exhaustive enumeration of 2^23 selections: ~0.5 s of single-threaded numpy per cell, the
    # same for every seed, so the speed-up measures the executor, not load imbalance
    return {
        "suite": {"name": "cpu", "budget_s": 30, "reference": "none"},
        "instances": [{"family": "theta23", "source": "theta-window", "w": 23, "seeds": seeds}],
        "solvers": [{"name": "exhaustive"}],
    }


def run(data: dict, tmp: Path, tag: str, **kw) -> tuple[float, float, float | None, int, float]:
    suite = suite_from_dict(data, source=f"<{data['suite']['name']}>", base_dir=tmp)
    store = tmp / f"{tag}.sqlite"
    t = time.perf_counter()
    summary = run_suite(suite, store_path=store, show_progress=False, **kw)
    wall = time.perf_counter() - t
    with ResultStore(store, readonly=True) as st:
        rows = st.rows()
    solve = sum(r["latency_s"] or 0.0 for r in rows)
    starts = sorted(r["started_at"] for r in rows if r["started_at"])
    ends = sorted(r["finished_at"] for r in rows if r["finished_at"])
    from datetime import datetime

    cells_span = (
        datetime.fromisoformat(ends[-1]) - datetime.fromisoformat(starts[0])
    ).total_seconds()
    return wall, solve, summary.overhead_ms_per_cell, len(rows), cells_span


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        n = 100 if args.quick else 400
        # warm the worker's imports once so the figure is the steady state
        run(overhead_suite(5), tmp, "warm", workers=1)
        wall, solve, med, cells, span = run(overhead_suite(n), tmp, "overhead", workers=1)
        rows = [
            [
                "decision cells (naive on w=5)",
                cells,
                f"{wall:.2f}",
                f"{solve * 1000:.1f}",
                f"{(wall - solve) / cells * 1000:.2f}",
                f"{med:.2f}",
                "met" if med is not None and med < 5 else "MISSED",
            ]
        ]
        print(
            tabulate(
                rows,
                headers=[
                    "suite",
                    "cells",
                    "wall s",
                    "Σ solve ms",
                    "(wall−solve)/cell ms",
                    "median per-cell ms",
                    "< 5 ms",
                ],
            )
        )
        print()
        seeds = 12 if args.quick else 24
        out = []
        res = {}
        for workers in (1, 2):
            wall, solve, _, cells, span = run(
                cpu_suite(seeds), tmp, f"dask{workers}", executor="dask", workers=workers
            )
            res[workers] = (wall, span)
            out.append(
                [f"dask, {workers} worker(s)", cells, f"{wall:.1f}", f"{span:.1f}", f"{solve:.1f}"]
            )
        speed_wall = res[1][0] / res[2][0]
        speed_cells = res[1][1] / res[2][1]
        print(
            tabulate(
                out,
                headers=[
                    "executor",
                    "cells",
                    "wall s (with cluster start)",
                    "cells span s",
                    "Σ solve s",
                ],
            )
        )
        print(
            f"\nspeed-up with 2 workers: {speed_wall:.2f}x (whole run), {speed_cells:.2f}x "
            f"(cells alone); target >= 1.8x: {'met' if speed_cells >= 1.8 else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
