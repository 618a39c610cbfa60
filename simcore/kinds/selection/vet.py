"""The core's check of a solver's answer, before anything scores, stores or applies it.

The core validates every decision it receives and rejects an invalid one loudly; the fault is
counted, never silently applied (docs/design.md#the-core-checks-every-answer). A solver is untrusted
code (a plug-in may be wrong, or written to look good), so nothing downstream may take its word for
anything that can be recomputed:

* every selection it returns (``selected`` and each Pareto point) must be feasible: indices in
  the window, no job twice, ``must_include`` present, no resource over capacity;
* the objective vectors are recomputed from the selections; a claimed vector that differs (NaN
  included) is replaced and counted as ``objective_mismatch`` in the decision's stats — the
  answer itself stays usable, the claim is simply not believed, and neither is a claim of
  optimality that came with it (``optimal`` becomes ``feasible``);
* a selection returned without its objective vector gets it filled in (not a fault);
* ``infeasible`` is only believed when the ``must_include`` jobs alone do not fit (otherwise the
  empty selection, or the forced jobs, would be an answer);
* an answer that breaks the problem becomes status ``error`` with a note saying why, and
  ``stats["invalid_answer"] = 1`` and ``stats["claimed_status"]`` keep what was claimed. So an
  over-capacity answer is never reported (or scored) as ``optimal``.

``vet`` is called by ``simcore.solver.timed_solve``, the one place every decision passes through
(simulation policies, ``schedbench solve``, suites, benchmarks).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.problem import Status

#: Relative tolerance when comparing a claimed objective value with the recomputed one (MIP
#: solvers report values through floating-point LP arithmetic).
OBJECTIVE_RTOL = 1e-6

_ANSWERS = (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT)


def _mismatch(claimed: Sequence[float], actual: Sequence[float]) -> bool:
    if len(claimed) != len(actual):
        return True
    for c, a in zip(claimed, actual, strict=True):
        if not math.isfinite(c) or abs(c - a) > OBJECTIVE_RTOL * max(1.0, abs(a)):
            return True
    return False


def _rejected(decision: Decision, reason: str) -> Decision:
    stats = {**decision.stats, "invalid_answer": 1, "claimed_status": decision.status.value}
    return dataclasses.replace(
        decision,
        status=Status.ERROR,
        selected=(),
        objectives=(),
        pareto=(),
        stats=stats,
        notes=(*decision.notes, f"invalid answer rejected by the core: {reason}"),
    )


def vet(problem: SelectionProblem, decision: Decision) -> Decision:
    """``decision`` checked against ``problem`` (see the module docstring)."""
    if decision.status == Status.ERROR:
        return decision
    if decision.status == Status.INFEASIBLE:
        if problem.fits(problem.usage(list(problem.must_include))):
            return _rejected(
                decision,
                "claimed infeasible, but the must_include jobs fit (an answer exists)",
            )
        return decision
    no_claim = not decision.objectives and not decision.pareto
    if no_claim and decision.status == Status.TIMEOUT and not decision.selected:
        return decision  # the deadline came before any answer: nothing to check
    # Otherwise the selection (possibly empty) is the answer; missing objectives are filled in.
    try:
        problem.check_selection(decision.selected)
        for point in decision.pareto:
            problem.check_selection(point.selected)
    except InvalidDecisionError as exc:
        return _rejected(decision, str(exc))
    mismatches = 0
    objectives = problem.evaluate(decision.selected)
    if decision.objectives and _mismatch(decision.objectives, objectives):
        mismatches += 1
    pareto = []
    for point in decision.pareto:
        actual = problem.evaluate(point.selected)
        if _mismatch(point.objectives, actual):
            mismatches += 1
        pareto.append(ParetoPoint(point.selected, actual))
    if not mismatches:
        if decision.objectives == objectives:
            return decision
        return dataclasses.replace(decision, objectives=objectives, pareto=tuple(pareto))
    stats = {**decision.stats, "objective_mismatch": mismatches}
    notes = [
        f"{mismatches} claimed objective vector(s) differed from the selection's and were "
        "recomputed by the core"
    ]
    status = decision.status
    if status == Status.OPTIMAL:
        # A solver wrong about its own answer's value has proved nothing about it.
        status, stats["claimed_status"] = Status.FEASIBLE, Status.OPTIMAL.value
        notes.append("the claim of optimality is not believed: status feasible")
    return dataclasses.replace(
        decision,
        status=status,
        objectives=objectives,
        pareto=tuple(pareto),
        stats=stats,
        notes=(*decision.notes, *notes),
    )
