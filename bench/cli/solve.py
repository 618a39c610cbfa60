"""``schedbench solve PROBLEM.json --solver NAME [--budget S] [--seed N] [--set k=v ...]``: the
decision as JSON on stdout (the contract of docs/reference/cli.md: ``status``, ``selected``,
``objectives``, ``pareto``, ``latency_s``, ``solver`` for selection problems; each kind's own answer
fields otherwise, e.g. ``node`` and ``start`` for placement). Exit 1 when the solver answered
``error``.

The solver runs in a child process (``bench/run/isolate.py``): killed, with everything it
started, at budget + grace (then ``timeout``), under a memory cap (``--memory-limit``), its
answer checked here against the problem read from the file; a crash or an exit is an ``error``
with the reason. ``--no-isolate`` solves in this process, under a soft deadline only."""

from __future__ import annotations

import argparse
import json
from typing import Any

from schedbench.bench import api
from schedbench.bench.cli._common import (
    add_budget_args,
    add_memory_arg,
    add_set_args,
    file_name,
)
from schedbench.simcore.problem import Status
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    s = sub.add_parser("solve", help="solve one PROBLEM.json and print the decision as JSON")
    s.add_argument("problem", type=file_name, help="PROBLEM.json (any problem kind)")
    s.add_argument(
        "--solver",
        required=True,
        help="registered solver name (see 'schedbench solvers'), or module:Class of a plug-in",
    )
    add_budget_args(s)
    add_set_args(s)
    s.add_argument(
        "--no-isolate",
        dest="isolate",
        action="store_false",
        help="solve in this process (soft deadline, no memory cap) instead of in a child process "
        "killed at budget + grace",
    )
    add_memory_arg(s)
    s.add_argument("--indent", type=_indent, default=None, help="pretty-print the JSON")


def _indent(text: str) -> int:
    """An ``--indent`` value: 0..16 spaces (a huge indent would exhaust the memory)."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from exc
    if not 0 <= value <= 16:
        raise argparse.ArgumentTypeError(f"expected 0..16 spaces, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    decision = api.solve(
        args.problem,
        args.solver,
        params=registry.parse_assignments(args.params),
        budget=args.budget,
        seed=args.seed,
        isolate=args.isolate,
        memory_limit=args.memory_limit,
    )
    print(json.dumps(decision.to_dict(), indent=args.indent, allow_nan=False))
    return 1 if decision.status == Status.ERROR else 0


COMMANDS = {"solve": run}
