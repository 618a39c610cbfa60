"""Suites of very unequal cells: Dask speed-up with 2 workers, plan order against longest-first
(performance target 6: >= 1.7x; 1.4x before cells were ordered;
docs/figures.md#performance-frontier).

    .venv/bin/python bench/benchmarks/suite_order.py [--quick]

The suite mixes a few long cells with many short ones, listed after them in the plan as a suite
file would naturally list them (short family first): ``exhaustive`` on Theta windows of 24 jobs
(2^24 subsets, the long cells) and of 20 jobs (1/16 of the work, the short ones); the cells are
CPU-bound and deterministic, so the wall time measures the hand-out order, not the solvers.

Runs, side by side: Dask with 1 worker (this fills the store with the cells' latencies), Dask
with 2 workers in plan order (``run_suite(order="plan")``), and Dask with 2 workers
longest-expected first (the default: ``bench/run/ordering.py`` reads the latencies the 1-worker
run stored), the two 2-worker runs alternating three times each (medians: the machine is
shared). Speed-up = the 1-worker span of the cells / the 2-worker span (first start to last
finish, so the cluster start-up is out of it); the whole-run wall times are printed too.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line  # noqa: E402
from _verdicts import record  # noqa: E402

from schedbench.bench.run.runner import run_suite  # noqa: E402
from schedbench.bench.store import ResultStore  # noqa: E402
from schedbench.bench.suite import suite_from_dict  # noqa: E402

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "suite-order", "full": [], "quick": ["--quick"], "format": "text"}
TARGET = 1.7
REPEATS = 3


def mixed_suite(long_cells: int, short_cells: int) -> dict:
    return {
        "suite": {"name": "mixed", "budget_s": 30, "reference": "none"},
        "instances": [
            {"family": "short20", "source": "theta-window", "w": 20, "seeds": short_cells},
            {"family": "long24", "source": "theta-window", "w": 24, "seeds": long_cells},
        ],
        "solvers": [{"name": "exhaustive"}],
    }


def run(data: dict, store: Path, tmp: Path, **kw) -> tuple[float, float]:
    suite = suite_from_dict(data, source="<mixed>", base_dir=tmp)
    start = time.perf_counter()
    run_suite(suite, store_path=store, show_progress=False, **kw)
    wall = time.perf_counter() - start
    with ResultStore(store, readonly=True) as st:
        rows = [r for r in st.rows("mixed") if r["run_id"] == max(x["run_id"] for x in st.rows())]
    starts = min(datetime.fromisoformat(r["started_at"]) for r in rows)
    ends = max(datetime.fromisoformat(r["finished_at"]) for r in rows)
    return wall, (ends - starts).total_seconds()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 long and 24 short cells (else 5/40)")
    args = ap.parse_args(argv)
    long_cells, short_cells = (3, 24) if args.quick else (5, 40)
    data = mixed_suite(long_cells, short_cells)
    print(machine_line("numpy", "distributed"))
    rows: list[list[str]] = []
    spans: dict = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        store = tmp / "one.sqlite"
        # Warm-up run (imports, numba caches) in a throwaway store.
        run(mixed_suite(1, 1), tmp / "warm.sqlite", tmp, executor="dask", workers=1)
        label1 = "1 worker (fills the store)"
        wall, span = run(data, store, tmp, executor="dask", workers=1, order="plan", force=True)
        spans[label1], walls = [span], {label1: [wall]}
        # The two orders alternate, REPEATS times each, on copies of the same store.
        for rep in range(REPEATS):
            for label, order in (
                ("2 workers, plan order", "plan"),
                ("2 workers, longest-first", "longest-first"),
            ):
                path = tmp / f"{order}-{rep}.sqlite"
                shutil.copy(store, path)  # the same stored latencies for both orders
                wall, span = run(
                    data, path, tmp, executor="dask", workers=2, order=order, force=True
                )
                spans.setdefault(label, []).append(span)
                walls.setdefault(label, []).append(wall)
        for label in spans:
            rows.append(
                [
                    label,
                    f"{statistics.median(walls[label]):.1f}",
                    " / ".join(f"{x:.1f}" for x in spans[label]),
                ]
            )
        spans = {k: statistics.median(v) for k, v in spans.items()}
    base = spans["1 worker (fills the store)"]
    for row in rows:
        row.append(f"{base / spans[row[0]]:.2f}x")
    print(f"suite: exhaustive, {long_cells} cells at w=24 and {short_cells} at w=20 (listed first)")
    print(
        tabulate(
            rows,
            headers=[
                "run",
                "median wall s (with cluster start)",
                "cells span s (each run)",
                "speed-up (median span)",
            ],
            tablefmt="github",
            disable_numparse=True,
        )
    )
    lpt = base / spans["2 workers, longest-first"]
    plan = base / spans["2 workers, plan order"]
    print(
        f"\nlongest-first {lpt:.2f}x vs plan order {plan:.2f}x with 2 workers "
        f"({lpt / plan:.2f}x); target >= {TARGET}x: {'met' if lpt >= TARGET else 'MISSED'}"
    )
    lpt_spans = next(r[2] for r in rows if r[0] == "2 workers, longest-first")
    record(
        "6.2",
        f"6. suite of unequal cells >= {TARGET}x with 2 workers (Dask)",
        f"longest-first **{lpt:.2f}x** ({long_cells} cells of w=24, {short_cells} of w=20; "
        f"spans {lpt_spans} s against {base:.1f} s on 1 worker)",
        f"plan order same run {plan:.2f}x; prior value 1.4x",
        lpt >= TARGET,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
