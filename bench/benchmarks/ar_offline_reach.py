"""How far the offline optimum of an advance-reservation stream reaches (beyond the paper,
docs/design.md#beyond-the-papers): for streams of n requests (the paper's generator, UMed 7, af 1,
{3,3}), how often CP-SAT proves the optimum within the time limit, the gap between its best schedule
and its bound where it does not, and how far the best online policy is from it.

    .venv/bin/python bench/benchmarks/ar_offline_reach.py             # n = 40 ... 200, 5 seeds, 10 s
    .venv/bin/python bench/benchmarks/ar_offline_reach.py --quick     # n = 40 ... 100, 3 seeds, 5 s
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line  # noqa: E402

from schedbench.bench.analysis.ar_offline import offline_bound  # noqa: E402
from schedbench.instances.ar_workload import generate_ar_requests  # noqa: E402
from schedbench.simcore.reservations.driver import serve  # noqa: E402
from schedbench.simcore.reservations.fit import PAPER_POLICIES  # noqa: E402

FIGURE = {"name": "ar-offline-reach", "full": [], "quick": ["--quick"], "format": "text"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--time", type=float, default=None, help="CP-SAT seconds per stream")
    args = parser.parse_args(argv)
    sizes = [40, 60, 80, 100] if args.quick else [40, 60, 80, 100, 150, 200]
    seeds = range(1, 4 if args.quick else 6)
    limit = args.time or (5.0 if args.quick else 10.0)
    print(machine_line("ortools"))
    rows = []
    for n in sizes:
        proven, gaps, wall, best_policy, share = 0, [], [], [], []
        for seed in seeds:
            requests = generate_ar_requests(n, seed=seed)
            runs = {p: serve(requests, 1024, p) for p in PAPER_POLICIES}
            top = max(runs, key=lambda p: len(runs[p].accepted))
            hint = {o.request.id: o.start for o in runs[top].accepted if o.start is not None}
            b = offline_bound(requests, 1024, time_limit_s=limit, hint=hint, seed=seed)
            proven += b.proven
            gaps.append((b.bound - b.best) / n)
            wall.append(b.wall_s)
            best_policy.append(top)
            share.append(len(runs[top].accepted) / b.bound)
        rows.append(
            [
                n,
                f"{proven}/{len(seeds)}",
                f"{statistics.mean(gaps):.3f}",
                f"{max(gaps):.3f}",
                f"{statistics.median(wall):.1f}",
                f"{statistics.mean(share):.3f}",
                ",".join(sorted(set(best_policy))),
            ]
        )
    print(
        tabulate(
            rows,
            headers=[
                "requests",
                f"proven in {limit:g} s",
                "mean (bound-best)/n",
                "max",
                "median s",
                "best policy / bound",
                "best policy",
            ],
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
