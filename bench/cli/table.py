"""``schedbench table PROBLEM.json ... [--solver NAME ...]``: every solver on every problem,
side by side, with the quality against the first exact answer.

Each problem lists the solvers of its kind only (``solvers`` says which kinds a solver
answers); a solver of the kind that declines this problem is listed with its reason. The answer
column is the kind's own description of an answer (``ProblemKind.describe_answer``): the jobs
started and the objectives of a selection, the node and start of a placement, the start and
PE set of a reservation."""

from __future__ import annotations

import argparse
import math
import textwrap
from pathlib import Path
from typing import Any

from schedbench.bench.cli._common import add_budget_args, file_name
from schedbench.bench.report.terminal import WIDTH, listing
from schedbench.bench.run.isolate import ContainedSolvers
from schedbench.instances.problem_files import load_problem
from schedbench.simcore import fdcapture
from schedbench.simcore.kinds.base import ProblemKind, kind_of
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers import registry


def add_parser(sub: Any) -> None:
    t = sub.add_parser("table", help="run solvers on problems and print a comparison table")
    t.add_argument("problems", nargs="+", type=file_name, help="PROBLEM.json files")
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


def run(args: argparse.Namespace) -> int:
    problems = [(path, load_problem(path)) for path in args.problems]
    kinds = {kind_of(p).name for _path, p in problems}
    names = args.solvers or sorted({n for k in kinds for n in registry.solvers_for(k)})
    # Each solver asked as every command asks one (bench/run/isolate.py): a plug-in in an
    # isolated child (a hard deadline, a memory cap), the project's own here under a soft
    # deadline (a solver looping past budget + grace is stopped, one that raises is that row's
    # error).
    with ContainedSolvers() as contained:
        solvers = [contained.named(n) for n in names]
        return _table(args, problems, solvers)


def _table(args: argparse.Namespace, problems: list[tuple[str, Any]], solvers: list[Any]) -> int:
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    failed = False
    width = None if args.wide else WIDTH
    for n, (path, problem) in enumerate(problems):
        kind = kind_of(problem)
        results: list[tuple[Any, Any, str]] = []
        mine = [s for s in solvers if kind.name in registry.solver_kinds(s)]
        others = [s.id for s in solvers if s not in mine]
        for solver in mine:
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
                    kind.describe_answer(problem, d),
                    len(getattr(d, "pareto", ())) or "",
                    _quality(kind, problem, d, reference, args.budget),
                    "" if math.isnan(d.latency_s) else f"{d.latency_s * 1e3:.1f} ms",
                ]
            )
        headers = ["solver", "status", "answer", "front", "quality", "latency"]
        if not any(row[3] != "" for row in rows):  # only a multi-objective answer has a front
            headers.pop(3)
            rows = [row[:3] + row[4:] for row in rows]
        print(
            ("\n" if n else "")
            + f"problem {Path(path).name} ({kind.name}, shape {kind.describe(problem)}):"
        )
        if rows:
            print(listing(rows, headers, wrap=(2,), width=width))
        else:
            print(f"  no solver of the {kind.name} kind among those asked for")
        if others and args.solvers:  # named on the command line, yet of another kind
            print(f"  not of the {kind.name} kind, not run: {', '.join(others)}")
    legend = (
        "shape: w/K/M for selection problems. quality: primal gap to the optimum (one "
        "objective), exact front points found (selection, M >= 2) or objective gap, against the "
        "first solver with status 'optimal'."
    )
    print("\n" + (legend if args.wide else textwrap.fill(legend, WIDTH)))
    return 1 if failed else 0


COMMANDS = {"table": run}
