"""The ``schedbench`` command line (DESIGN.md "The command line" is the contract).

Sub-commands in this version:

* ``schedbench solvers`` — registered solvers, what each supports, its parameters.
* ``schedbench solve PROBLEM.json --solver NAME [--budget S] [--seed N] [--set k=v ...]`` — the
  decision as JSON on stdout: ``status``, ``selected``, ``objectives``, ``pareto`` (list of
  ``{selected, objectives}``), ``latency_s``, ``solver``; plus ``notes``, ``stats``, ``trace``.
* ``schedbench table PROBLEM.json ... [--solver NAME ...]`` — every solver on every problem,
  side by side, with the quality against the exact answer when an exact solver ran.
* ``schedbench simulate --workload SPEC [--system S] [--policy P] [--solver NAME] ...`` — one
  trace-driven simulation; see ``bench/simulate_cmd.py``.
* ``schedbench run SUITE.toml ...``, ``schedbench report STORE ...``, ``schedbench compare BASE
  HEAD --fail METRIC:THRESHOLD ...`` — suites; see ``bench/suite_cmds.py``.
* ``schedbench check-solver module:Class [--set k=v ...]`` — the conformance suite.

Exit codes: 0 success; 1 a solver answered ``error`` or a conformance check failed; 2 bad input
(file, JSON, shapes, values, unknown solver or parameter), with one line on stderr saying what
and where.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

from schedbench.bench import simulate_cmd, suite_cmds
from schedbench.bench._cli_common import add_budget_args
from schedbench.instances.problem_files import load_problem
from schedbench.simcore import fdcapture
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.problem import Budget, Decision, SelectionProblem, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers import registry


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="schedbench",
        description="Compare solver backends for multi-resource HPC batch scheduling decisions.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser(
        "solvers", help="list registered solvers, what they support and their parameters"
    )

    s = sub.add_parser("solve", help="solve one PROBLEM.json and print the decision as JSON")
    s.add_argument("problem", help="PROBLEM.json")
    s.add_argument(
        "--solver",
        required=True,
        help="registered solver name (see 'schedbench solvers'), or module:Class of a plug-in",
    )
    add_budget_args(s)
    s.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="solver parameter (repeatable)",
    )
    s.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")

    t = sub.add_parser("table", help="run solvers on problems and print a comparison table")
    t.add_argument("problems", nargs="+", help="PROBLEM.json files")
    t.add_argument(
        "--solver",
        dest="solvers",
        action="append",
        default=[],
        help="solver name (repeatable; default: every registered solver)",
    )
    add_budget_args(t)

    simulate_cmd.add_parser(sub)
    suite_cmds.add_parsers(sub)

    c = sub.add_parser("check-solver", help="run the conformance suite against module:Class")
    c.add_argument("target", help="module:Class of the solver (instantiated with --set parameters)")
    c.add_argument("--set", dest="params", action="append", default=[], metavar="KEY=VALUE")
    for command in sub.choices.values():
        command.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            help="show what solver libraries print (banners, logs) on stderr",
        )
    return p


#: Exit status when the reader of our stdout went away (``schedbench report | head``): what a
#: shell reports for a program ended by SIGPIPE (128 + 13), without a traceback.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if getattr(args, "verbose", False):
        # Solver output is captured around every solve (simcore/fdcapture.py); --verbose shows
        # it on stderr, here and in worker processes (they read the variable when they start).
        os.environ[fdcapture.VERBOSE_ENV] = "1"
        fdcapture.show_solver_output()
    try:
        return _COMMANDS[args.command](args)
    except SchedbenchError as exc:
        print(f"schedbench: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


# -- solvers -------------------------------------------------------------------------------------
def cmd_solvers(args: argparse.Namespace) -> int:
    rows = []
    for name in registry.known_solvers():
        try:
            cls = registry.solver_class(name)
        except Exception as exc:  # a broken plug-in must not hide the others
            rows.append([name, f"(cannot load: {type(exc).__name__}: {exc})", ""])
            continue
        params = getattr(cls, "parameters", None)
        listed = "\n".join(f"{n}={d!r}  {h}" for n, _t, d, h in params()) if params else ""
        rows.append([name, getattr(cls, "summary", ""), listed])
    print(tabulate(rows, headers=["solver", "supports", "parameters (default)"], tablefmt="simple"))
    return 0


# -- solve ---------------------------------------------------------------------------------------
def cmd_solve(args: argparse.Namespace) -> int:
    problem = load_problem(args.problem)
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    solver = registry.make_solver(args.solver, registry.parse_assignments(args.params))
    warm_up(solver)
    decision = timed_solve(solver, problem, budget)
    print(json.dumps(decision.to_dict(), indent=args.indent, allow_nan=False))
    return 1 if decision.status == Status.ERROR else 0


# -- table ---------------------------------------------------------------------------------------
def _quality(problem: SelectionProblem, d: Decision, reference: Decision | None) -> str:
    """Primal gap (M = 1) or the share of the exact front found (M >= 2), against ``reference``."""
    if reference is None or d.status in (Status.ERROR, Status.INFEASIBLE):
        return ""
    if problem.M == 1:
        z_star, z = reference.objectives[0], d.objectives[0]
        denom = max(abs(z_star), abs(z))
        gap = 0.0 if denom == 0 else abs(z_star - z) / denom
        return f"gap {gap * 100:.3g}%"
    exact = {tuple(p.objectives) for p in reference.pareto}
    found = {tuple(p.objectives) for p in d.pareto} & exact
    return f"front {len(found)}/{len(exact)}"


def cmd_table(args: argparse.Namespace) -> int:
    problems = [(path, load_problem(path)) for path in args.problems]
    names = args.solvers or registry.known_solvers()
    solvers = [registry.make_solver(n) for n in names]
    budget = Budget(deadline_s=args.budget, seed=args.seed)
    for solver in solvers:
        warm_up(solver)
    rows = []
    failed = False
    for path, problem in problems:
        results: list[tuple[Any, Decision | None, str]] = []
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
        for solver, d, reason in results:
            label = [Path(path).name, f"{problem.w}/{problem.K}/{problem.M}"]
            if d is None:
                rows.append([*label, solver.id, "declined", reason[:48], "", "", ""])
                continue
            failed |= d.status == Status.ERROR
            objectives = ", ".join(f"{x:g}" for x in d.objectives)
            rows.append(
                [
                    *label,
                    solver.id,
                    d.status.value,
                    f"{len(d.selected)} jobs: ({objectives})",
                    len(d.pareto) if problem.M >= 2 else "",
                    _quality(problem, d, reference),
                    _ms(d.latency_s),
                ]
            )
    print(
        tabulate(
            rows,
            headers=[
                "problem",
                "w/K/M",
                "solver",
                "status",
                "chosen (objectives)",
                "front",
                "quality",
                "latency",
            ],
            tablefmt="simple",
        )
    )
    print(
        "\nquality: primal gap to the optimum (M = 1) or exact front points found (M >= 2), "
        "against the first solver with status 'optimal'."
    )
    return 1 if failed else 0


def _ms(seconds: float) -> str:
    return "" if math.isnan(seconds) else f"{seconds * 1e3:.1f} ms"


# -- check-solver --------------------------------------------------------------------------------
def cmd_check_solver(args: argparse.Namespace) -> int:
    from schedbench.solvers.testing import run_conformance

    target = registry.load_object(args.target)
    params = registry.parse_assignments(args.params)
    solver = (
        registry.instantiate(target, params, label=args.target)
        if isinstance(target, type)
        else target
    )
    results = run_conformance(solver)
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


_COMMANDS = {
    "solvers": cmd_solvers,
    "simulate": lambda args: simulate_cmd.run(args),
    **suite_cmds.COMMANDS,
    "solve": cmd_solve,
    "table": cmd_table,
    "check-solver": cmd_check_solver,
}

if __name__ == "__main__":  # pragma: no cover
    np.set_printoptions(suppress=True)
    sys.exit(main())
