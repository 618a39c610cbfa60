"""``schedbench table PROBLEM.json ... [--solver NAME ...]``: every solver on every problem,
side by side, with the quality against the first exact answer."""

from __future__ import annotations

import argparse
import math
import textwrap
from pathlib import Path
from typing import Any

from schedbench.bench.cli._common import add_budget_args
from schedbench.bench.report.terminal import WIDTH, listing
from schedbench.instances.problem_files import load_problem
from schedbench.simcore import fdcapture
from schedbench.simcore.kinds.base import ProblemKind, kind_of
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    t = sub.add_parser("table", help="run solvers on problems and print a comparison table")
    t.add_argument("problems", nargs="+", help="PROBLEM.json files")
    t.add_argument(
        "--solver",
        dest="solvers",
        action="append",
        default=[],
        help="solver name (repeatable; default: every registered solver of the problems' kinds)",
    )
    add_budget_args(t)
    t.add_argument("--wide", action="store_true", help=f"no wrapping to {WIDTH} columns")


def _quality(kind: ProblemKind, problem: Any, d: Any, reference: Any, budget_s: float) -> str:
    """The primal gap (one objective), the share of the exact front found (selection, M >= 2)
    or the objective gap (other kinds), against ``reference``."""
    if reference is None or not kind.answered(d) or d.status == Status.INFEASIBLE:
        return ""
    q = kind.quality(problem, d, reference, budget_s=budget_s)
    if q.get("front_found") is not None:
        exact = q.get("front_size") or 0
        return f"front {round(q['front_found'] * exact)}/{exact}"
    gap = q.get("primal_gap", q.get("objective_gap"))
    return "" if gap is None else f"gap {gap * 100:.3g}%"


def _answer(d: Any) -> str:
    objectives = ", ".join(f"{x:g}" for x in d.objectives)
    if hasattr(d, "selected"):
        return f"{len(d.selected)} jobs: ({objectives})"
    return f"({objectives})"


def run(args: argparse.Namespace) -> int:
    problems = [(path, load_problem(path)) for path in args.problems]
    kinds = {kind_of(p).name for _path, p in problems}
    names = args.solvers or sorted({n for k in kinds for n in registry.solvers_for(k)})
    solvers = [registry.make_solver(n) for n in names]
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    for solver in solvers:
        warm_up(solver)
    failed = False
    width = None if args.wide else WIDTH
    headers = ["solver", "status", "answer (objectives)", "front", "quality", "latency"]
    for n, (path, problem) in enumerate(problems):
        kind = kind_of(problem)
        results: list[tuple[Any, Any, str]] = []
        for solver in solvers:
            with fdcapture.captured_output(f"{solver.id} supports"):
                ok, reason = solver.supports(problem)
            if not ok:
                results.append((solver, None, reason))
                continue
            results.append((solver, timed_solve(solver, problem, budget), ""))
        reference = next(
            (d for _s, d, _r in results if d is not None and d.status == Status.OPTIMAL), None
        )
        rows: list[list[Any]] = []
        for solver, d, reason in results:
            if d is None:
                rows.append([solver.id, "declined", reason, "", "", ""])
                continue
            failed |= d.status == Status.ERROR
            rows.append(
                [
                    solver.id,
                    d.status.value,
                    _answer(d),
                    len(getattr(d, "pareto", ())) or "",
                    _quality(kind, problem, d, reference, args.budget),
                    "" if math.isnan(d.latency_s) else f"{d.latency_s * 1e3:.1f} ms",
                ]
            )
        print(
            ("\n" if n else "")
            + f"problem {Path(path).name} ({kind.name}, shape {kind.describe(problem)}):"
        )
        print(listing(rows, headers, wrap=(2,), width=width))
    legend = (
        "shape: w/K/M for selection problems. quality: primal gap to the optimum (one "
        "objective), exact front points found (selection, M >= 2) or objective gap, against the "
        "first solver with status 'optimal'."
    )
    print("\n" + (legend if args.wide else textwrap.fill(legend, WIDTH)))
    return 1 if failed else 0


COMMANDS = {"table": run}
