"""``schedbench solvers`` (registered solvers: the kinds they answer, what they do, their
parameters), ``schedbench kinds`` (registered problem kinds and their solvers) and
``schedbench metrics`` (the metric catalogue)."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from schedbench.bench.report.terminal import WIDTH, listing
from schedbench.simcore.catalogue import catalogue, markdown_table
from schedbench.simcore.core import CORES, get_core, known_cores
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.kinds.base import get_kind, known_kinds
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    parsers = [
        sub.add_parser(
            "solvers",
            help="list registered solvers, the problem kinds they answer, their parameters",
        ),
        sub.add_parser("kinds", help="list registered problem kinds and the solvers of each"),
        sub.add_parser(
            "policies", help="list every simulation core's policies, their options and solvers"
        ),
        sub.add_parser("metrics", help="list every metric: unit, which way is better, definition"),
    ]
    for p in parsers:
        p.add_argument(
            "--wide",
            action="store_true",
            help=f"long texts on one line (default: wrapped to {WIDTH} columns)",
        )
    parsers[-1].add_argument(
        "--markdown", action="store_true", help="a Markdown table (the README's list)"
    )


def _width(args: argparse.Namespace) -> int | None:
    return None if getattr(args, "wide", False) else WIDTH


def run_solvers(args: argparse.Namespace) -> int:
    """Every solver with its parameters; an alias (a paper's name for a class with preset
    parameters) says what it stands for, ``alias of fit[policy=pe-b]``."""
    rows = []
    for name in registry.known_solvers():
        cls, problem = registry.try_solver_class(name)
        if cls is None:  # a broken plug-in is listed with its reason, not hidden
            rows.append([name, "?", f"(cannot load: {problem})", ""])
            continue
        kinds = ", ".join(registry.solver_kinds(cls))
        alias = registry.solver_alias(name)
        if alias is not None:
            rows.append([name, kinds, alias.summary, f"alias of {alias.label}"])
            continue
        params = getattr(cls, "parameters", None)
        listed = "\n".join(f"{n}={d!r}  {h}" for n, _t, d, h in params()) if params else ""
        rows.append([name, kinds, getattr(cls, "summary", ""), listed])
    headers = ["solver", "kinds", "what it does", "parameters (default)"]
    print(listing(rows, headers, wrap=(2, 3), width=_width(args)))
    return 0


def run_kinds(args: argparse.Namespace) -> int:
    rows = []
    for name in known_kinds():
        kind = get_kind(name)
        rows.append([name, kind.summary, ", ".join(registry.solvers_for(name))])
    print(listing(rows, ["kind", "decision", "solvers"], wrap=(1, 2), width=_width(args)))
    return 0


def run_policies(args: argparse.Namespace) -> int:
    """Every simulation core's policies, grouped by core: what each does, its options, and
    whether it decides with a solver of the core's kind (``simulate --policy NAME``; suites:
    ``policies = ["NAME"]`` or ``"NAME:SOLVER"``)."""
    width = _width(args)
    for k, name in enumerate(known_cores()):
        loaded, why = CORES.try_load(name)
        if loaded is None:  # a broken plug-in is listed with its reason, not hidden
            print(f"{'' if k == 0 else chr(10)}core {name}: (cannot load: {why})")
            continue
        core = get_core(name)
        rows = []
        for policy in core.policies():
            try:
                info = core.policy(policy)
            except SchedbenchError as exc:
                rows.append([policy, f"(cannot load: {exc})", "", ""])
                continue
            solver = {"required": "required", "optional": "optional", "none": ""}[info.solver]
            rows.append([policy, info.summary, ", ".join(info.options), solver])
        head = f"core {core.name} ({core.kind} problems; {core.summary})"
        keys = [k.name for k in core.keys] + [f"policy_options.{o}" for o in core.shared_options]
        head += f"; its keys: {', '.join(keys)}:" if keys else ":"
        print(("" if k == 0 else "\n") + (head if width is None else textwrap.fill(head, width)))
        headers = ["policy", "what it does", "options", "solver"]
        print(listing(rows, headers, wrap=(1, 2), width=width))
    return 0


def run_metrics(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown_table())
        return 0
    rows = [
        [m.name, m.scope + (f" ({m.kind})" if m.kind else ""), m.unit, m.direction, m.definition]
        for m in catalogue().values()
    ]
    headers = ["metric", "scope", "unit", "better", "definition"]
    print(listing(rows, headers, wrap=(1, 4), width=_width(args)))
    return 0


COMMANDS = {
    "solvers": run_solvers,
    "kinds": run_kinds,
    "policies": run_policies,
    "metrics": run_metrics,
}
