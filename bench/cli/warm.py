"""schedbench warm: compile every numba kernel once into the on-disk cache (``bench/warm.py``).

    schedbench warm [--solver NAME ...] [--no-cores] [--quiet]

Run once after an install (the Makefile's install step does), so that no later process — a
suite's workers, a test run, the first ``solve`` — pays the compilation. Prints one line per
step with its seconds, then the total. Exit status: 0 every step warmed; 1 a step failed
(named on stderr, the other steps still warmed); 2 an unknown solver name.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from schedbench.bench.warm import warm
from schedbench.solvers.registry import known_solvers


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "warm",
        help="compile every numba kernel once into the on-disk cache (run after an install)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--solver",
        action="append",
        default=None,
        metavar="NAME",
        help="warm only this solver (repeatable; default: every registered solver)",
    )
    p.add_argument(
        "--no-cores",
        action="store_true",
        help="skip the tiny simulations that compile the cores' own kernels",
    )
    p.add_argument("--quiet", action="store_true", help="print only the total and failures")


def run(args: argparse.Namespace) -> int:
    names = args.solver
    if names:
        unknown = sorted(set(names) - set(known_solvers()))
        if unknown:
            print(
                f"schedbench: error: --solver {unknown[0]}: unknown solver; "
                f"known: {', '.join(known_solvers())}",
                file=sys.stderr,
            )
            return 2
    t0 = time.perf_counter()
    failed = 0
    steps = 0
    for step in warm(names, cores=not args.no_cores):
        steps += 1
        if step.error:
            failed += 1
            print(f"warm: {step.what}: failed: {step.error}", file=sys.stderr)
        elif not args.quiet:
            print(f"warm: {step.what}: {step.seconds:.1f} s", file=sys.stderr)
    total = time.perf_counter() - t0
    print(f"warm: {steps - failed} of {steps} steps warmed in {total:.0f} s", file=sys.stderr)
    return 1 if failed else 0


COMMANDS = {"warm": run}
