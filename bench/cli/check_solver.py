"""``schedbench check-solver module:Class [--set k=v ...] [--memory-limit SIZE]``: the
conformance suite (``solvers/testing.py``) against a plug-in, for every problem kind it
declares, each check in a supervised process (``bench/run/conformance.py``: a hard deadline per
solver call, a memory cap, killed with what it started). Exit 1 when a check fails."""

from __future__ import annotations

import argparse
from typing import Any

from tabulate import tabulate

from schedbench.bench.cli._common import add_memory_arg, add_set_args
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    c = sub.add_parser("check-solver", help="run the conformance suite against module:Class")
    c.add_argument("target", help="module:Class of the solver (instantiated with --set parameters)")
    add_set_args(c)
    add_memory_arg(c)


def run(args: argparse.Namespace) -> int:
    from schedbench.bench.run.conformance import run_conformance_contained
    from schedbench.bench.run.supervisor import memory_limit

    memory_limit(args.memory_limit)  # a bad value is the user's error, before anything runs
    target = registry.load_object(args.target)
    params = registry.parse_assignments(args.params)
    solver = registry.instantiate(target, params, label=args.target)
    results = run_conformance_contained(
        args.target, params, solver=solver, memory=args.memory_limit
    )
    print(
        tabulate(
            [[r.check, r.outcome, r.detail] for r in results],
            headers=["check", "outcome", "detail"],
            tablefmt="simple",
        )
    )
    failed = sum(r.outcome == "failed" for r in results)
    passed = sum(r.outcome == "passed" for r in results)
    skipped = sum(r.outcome == "skipped" for r in results)
    print(
        f"\n{getattr(solver, 'id', args.target)}: {passed} passed, {failed} failed, {skipped} skipped"
    )
    return 1 if failed else 0


COMMANDS = {"check-solver": run}
