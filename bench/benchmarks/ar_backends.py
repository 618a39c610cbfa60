"""The seven fit policies and the optimising backend ``reservation-cpsat`` serving the identical
request streams: acceptance, mean slowdown and utilisation of the stream, and
the latency of one decision, every solver asked through ``simcore.solver.timed_solve`` (the
``reservation`` kind's problems and check; ``driver.serve_with_solver``) so that the latencies
compare like with like. (The suite ``ar-decisions`` compares them on identical single decisions;
here each backend's placements shape the machine its later requests meet.)

    .venv/bin/python bench/benchmarks/ar_backends.py            # 3 seeds x 1,000 requests
    .venv/bin/python bench/benchmarks/ar_backends.py --quick    # 2 seeds x 300 requests
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _machine import machine_line  # noqa: E402

from schedbench.instances.ar_workload import PAPER_PES, generate_ar_requests  # noqa: E402
from schedbench.simcore.problem import Budget  # noqa: E402
from schedbench.simcore.reservations.driver import serve, serve_with_solver  # noqa: E402
from schedbench.simcore.reservations.fit import PAPER_POLICIES  # noqa: E402
from schedbench.simcore.reservations.metrics import summary  # noqa: E402
from schedbench.solvers.registry import make_solver  # noqa: E402

BACKENDS = (*PAPER_POLICIES, "reservation-cpsat")


FIGURE = {"name": "ar-backends", "full": [], "quick": ["--quick"], "format": "text"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=None, help="requests per stream")
    parser.add_argument("--seeds", type=int, default=None, help="independent streams")
    parser.add_argument("--umed", type=float, default=7.0)
    parser.add_argument("--budget", type=float, default=15.0, help="seconds per decision")
    args = parser.parse_args(argv)
    jobs = args.jobs or (300 if args.quick else 1000)
    seeds = range(1, 1 + (args.seeds or (2 if args.quick else 3)))
    print(machine_line("ortools"))
    print(f"{len(seeds)} streams x {jobs} requests, UMed {args.umed:g}, af 1, {{3,3}}, 1,024 PEs")
    numbers: dict[str, dict[str, list[float]]] = {b: {} for b in BACKENDS}
    for seed in seeds:
        requests = generate_ar_requests(jobs, seed=seed, umed=args.umed)
        for name in BACKENDS:
            run = serve_with_solver(requests, PAPER_PES, make_solver(name), Budget(args.budget))
            if run.faults:
                raise SystemExit(f"{name}: {run.faults} answers refused by the core")
            if name in PAPER_POLICIES:  # the solver form decides as the fast path does
                fast = serve(requests, PAPER_PES, name)
                same = [(o.accepted, o.start, o.mask) for o in fast.outcomes] == [
                    (o.accepted, o.start, o.mask) for o in run.outcomes
                ]
                if not same:
                    raise SystemExit(f"{name}: the solver and the fast path decide differently")
            s = summary(run)
            lat = np.array([o.latency_s for o in run.outcomes], dtype=float) * 1e3
            for key, value in (
                ("acceptance", s["acceptance"]),
                ("slowdown", s["mean_slowdown"]),
                ("utilisation", s["utilisation"]),
                ("p50", float(np.median(lat))),
                ("p95", float(np.percentile(lat, 95))),
                ("max", float(lat.max())),
            ):
                numbers[name].setdefault(key, []).append(value)
    rows = []
    for name in BACKENDS:
        n = numbers[name]
        rows.append(
            [
                name,
                f"{statistics.mean(n['acceptance']):.3f}",
                f"{statistics.mean(n['slowdown']):.3f}",
                f"{statistics.mean(n['utilisation']):.3f}",
                f"{statistics.median(n['p50']):.2f}",
                f"{statistics.median(n['p95']):.2f}",
                f"{max(n['max']):.1f}",
            ]
        )
    print(
        tabulate(
            rows,
            headers=[
                "backend",
                "acceptance",
                "slowdown",
                "utilisation",
                "latency p50 ms",
                "p95 ms",
                "max ms",
            ],
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
