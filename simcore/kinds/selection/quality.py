"""The selection kind's quality record of one decision against an exact reference
(docs/design.md#quality-and-latency-of-a-decision), built from the indicators of
``simcore/indicators.py``.

:func:`decision_quality` assembles the record (flat, JSON-safe); a metric whose exact reference
is missing is reported as ``None`` with ``reference: "missing"``, never guessed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from schedbench.simcore.errors import InvalidDecisionError, MetricsError
from schedbench.simcore.indicators import (
    as_points,
    front_fraction,
    gd,
    hypervolume_ratio,
    igd_plus,
    primal_gap,
    primal_integral,
)
from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.problem import Status


def _n_objectives(
    decision: Decision, reference: Decision | None, problem: SelectionProblem | None
) -> int:
    if problem is not None:
        return problem.M
    for d in (reference, decision):
        if d is None:
            continue
        if d.objectives:
            return len(d.objectives)
        if d.pareto:
            return len(d.pareto[0].objectives)
    raise MetricsError(
        "cannot tell the number of objectives from the decision or the reference; pass problem="
    )


def _answer(decision: Decision, m: int, problem: SelectionProblem | None) -> tuple[bool, str]:
    """(feasible, reason if not): the decision holds an answer that, given the problem, fits."""
    if decision.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT):
        return False, f"status {decision.status.value}: no answer"
    if not decision.objectives and not decision.pareto:
        return False, f"status {decision.status.value} without an answer"
    if decision.objectives and len(decision.objectives) != m:
        return False, f"answer has {len(decision.objectives)} objectives, expected {m}"
    if problem is not None:
        for sel in [decision.selected, *(p.selected for p in decision.pareto)]:
            try:
                problem.check_selection(sel)
            except InvalidDecisionError as exc:
                return False, f"infeasible answer: {exc}"
    return True, ""


def decision_quality(
    decision: Decision,
    reference: Decision | None,
    *,
    budget_s: float | None = None,
    problem: SelectionProblem | None = None,
) -> dict[str, Any]:
    """The quality record of one decision against an exact reference, flat and JSON-safe.

    ``reference`` is the exact answer to the same problem (status ``optimal``), or ``None``. Keys:

    * always: ``n_objectives``, ``status``, ``feasible`` (the decision holds an answer — status
      optimal/feasible/timeout with objectives or a Pareto set — and, when ``problem`` is given,
      every selection in it fits), ``reference`` (``"exact"`` or ``"missing"``), ``note``;
    * M = 1: ``primal_gap`` and ``primal_integral`` (needs ``budget_s``, the decision's budget;
      the integral uses the trace and the returned value from ``decision.latency_s`` on);
    * M >= 2: ``igd_plus``, ``gd``, ``hv_ratio``, ``front_found`` (share of Z found) of the
      answer's Pareto set (its single objective vector if it has none), and ``front_size`` |Z|.

    With no usable reference (``None``, or a status other than optimal — an infeasible problem
    has no front to compare with) the metrics are ``None`` and ``reference`` is ``"missing"``: a
    metric is never guessed. A decision without a (feasible) answer scores γ = 1 and a primal
    integral of 1 (nothing delivered), or, for M >= 2, hv_ratio = front_found = 0 and
    IGD+ = GD = infinite, reported as ``None`` with a note since JSON has no infinity. The
    primal integral is ``None`` when the latency was not measured. The recorded objective values
    are used as they stand; ``problem`` only adds the feasibility check.
    """
    m = _n_objectives(decision, reference, problem)
    feasible, why = _answer(decision, m, problem)
    notes = [why] if why else []
    record: dict[str, Any] = {
        "n_objectives": m,
        "status": decision.status.value,
        "feasible": feasible,
        "reference": "exact",
    }
    keys = ("primal_gap", "primal_integral") if m == 1 else ("igd_plus", "gd", "hv_ratio")
    keys = keys if m == 1 else (*keys, "front_found", "front_size")

    usable = reference is not None and reference.status == Status.OPTIMAL
    if (
        reference is None
        or (usable and m >= 2 and not (reference.pareto or reference.objectives))
        or (usable and m == 1 and len(reference.objectives) != 1)
    ):
        usable = False
    if not usable or reference is None:
        record["reference"] = "missing"
        if reference is not None:
            notes.append(f"reference status {reference.status.value} is not an exact answer")
        record.update(dict.fromkeys(keys))
        record["note"] = "; ".join(notes) or None
        return record

    if m == 1:
        if budget_s is None:
            raise MetricsError("budget_s: the primal integral needs the decision's budget")
        z_star = reference.objectives[0]
        if not feasible:
            record["primal_gap"] = 1.0
            record["primal_integral"] = 1.0
        else:
            z = decision.objectives[0] if decision.objectives else None
            record["primal_gap"] = primal_gap(z, z_star)
            if math.isnan(decision.latency_s):
                record["primal_integral"] = None
                notes.append("latency_s not measured: no primal integral")
            else:
                record["primal_integral"] = primal_integral(
                    decision.trace,
                    z_star,
                    budget_s,
                    latency_s=decision.latency_s,
                    final=z,
                )
    else:
        exact = as_points(reference.pareto or [reference.objectives], m, name="reference front")
        if not feasible:
            found = np.zeros((0, m))
        elif decision.pareto:
            found = as_points(decision.pareto, m, name="decision pareto")
        else:
            found = as_points([decision.objectives], m, name="decision objectives")
        igd = igd_plus(found, exact)
        dist = gd(found, exact)
        if math.isinf(igd) or math.isinf(dist):
            notes.append("empty answer: IGD+ and GD are infinite, reported as null")
        record["igd_plus"] = None if math.isinf(igd) else igd
        record["gd"] = None if math.isinf(dist) else dist
        record["hv_ratio"] = hypervolume_ratio(found, exact)
        record["front_found"] = front_fraction(found, exact)
        record["front_size"] = int(exact.shape[0])
    record["note"] = "; ".join(notes) or None
    return record
