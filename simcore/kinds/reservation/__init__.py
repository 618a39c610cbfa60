"""The ``reservation`` kind: accept an advance-reservation request with a start time and a PE set
inside its deadline window, or reject it (see ``problem.py``).

The core's check (:meth:`ReservationKind.vet`): an acceptance starts inside the window, names
exactly n_pe distinct PEs, each free over the whole run; the objective (1 accepted, 0 rejected)
is recomputed. A rejection is always a valid answer (a scheduler may decline), but an
``infeasible`` claim is only believed when no candidate start has n_pe free PEs. Quality against
an exact reference: the objective gap and validity (``simcore/kinds/scalar.py``), and two
measures of where an accepted job went, recomputed from the answer: ``start_delay_s``
(t_s − max(t_r, now)) and ``stranded_idle_pe_s`` (idle PE-seconds left between the job and its
neighbours on its PEs; ``ReservationProblem.stranded_idle``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds import scalar
from schedbench.simcore.kinds.base import ProblemKind
from schedbench.simcore.kinds.reservation.problem import ReservationDecision, ReservationProblem
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.problem import Status

__all__ = ["ReservationDecision", "ReservationKind", "ReservationProblem", "feasible_start"]


def feasible_start(problem: ReservationProblem) -> tuple[int, tuple[int, ...]] | None:
    """The earliest candidate start with n_pe free PEs and the lowest such PEs (FirstFit), or
    None. Exact for acceptance: a feasible start can always be moved earlier to a candidate
    time (``problem.py``)."""
    found = problem.fit("ff")
    if found is None:
        return None
    return found.start, tuple(found.pe_ids)


def pe_ranges(pes: Any) -> str:
    """PE numbers as ranges: ``0-2,5``."""
    ids = sorted(int(p) for p in pes)
    out: list[str] = []
    for p in ids:
        if out and int(out[-1].rpartition("-")[2]) == p - 1:
            first = out[-1].partition("-")[0]
            out[-1] = f"{first}-{p}"
        else:
            out.append(str(p))
    return ",".join(out)


class ReservationKind(ProblemKind):
    name = "reservation"
    summary = "accept a request with a start time and PEs inside its deadline window, or reject"
    problem_type = ReservationProblem
    decision_type = ReservationDecision
    metrics: ClassVar[tuple[MetricSpec, ...]] = (
        *scalar.gap_metrics("reservation", "acceptance (1 accepted, 0 rejected)"),
        MetricSpec(
            "start_delay_s",
            "t_s - max(t_r, now) of an accepted request (s); None when rejected",
            unit="s",
            direction="lower",
            source="AR paper §6.1 (waiting from the ready time)",
            scope="decision",
            label="delay",
            kind="reservation",
        ),
        MetricSpec(
            "stranded_idle_pe_s",
            "idle PE-seconds an accepted job leaves between itself and the previous and next "
            "held jobs on its PEs (from now; none after counts 0); None when rejected",
            unit="",
            direction="lower",
            source="schedbench (packing measure)",
            scope="decision",
            label="stranded",
            kind="reservation",
        ),
    )

    def vet(self, problem: Any, decision: Any) -> Any:
        if decision.status == Status.ERROR:
            return decision
        if decision.status == Status.INFEASIBLE:
            if feasible_start(problem) is not None:
                return scalar.rejected(
                    decision,
                    "claimed infeasible, but a start with enough free PEs exists",
                    accepted=False,
                    pe_set=(),
                )
            return decision
        if not decision.accepted:
            if decision.status == Status.TIMEOUT and not decision.objectives:
                return decision
            return scalar.recomputed(decision, 0.0)
        try:
            problem.check(decision.start, decision.pe_set)
        except InvalidDecisionError as exc:
            return scalar.rejected(decision, str(exc), accepted=False, pe_set=())
        return scalar.recomputed(decision, 1.0)

    def quality(
        self, problem: Any, decision: Any, reference: Any | None, *, budget_s: float
    ) -> dict[str, Any]:
        record = scalar.gap_quality(decision, reference, self.answered(decision))
        accepted = record["feasible"] and decision.accepted and decision.objectives == (1.0,)
        record["start_delay_s"] = decision.start - problem.earliest_start if accepted else None
        record["stranded_idle_pe_s"] = (
            problem.stranded_idle(decision.start, decision.pe_set) if accepted else None
        )
        return record

    def describe(self, problem: Any) -> str:
        return f"{problem.n_pe}/{problem.pes} PEs"

    def describe_answer(self, problem: Any, decision: Any) -> str:
        """``start 10 on PEs 0-1``, or ``rejected``: the reservation the solver made."""
        if decision.accepted:
            return f"start {decision.start:g} on PEs {pe_ranges(decision.pe_set)}"
        return "rejected" if self.answered(decision) else ""

    def examples(self) -> list[tuple[str, Any]]:
        return [
            (
                "fits after a busy slot",
                ReservationProblem(
                    now=0,
                    ready=0,
                    duration=10,
                    deadline=40,
                    n_pe=2,
                    pes=3,
                    held=[(0, 20, (0,)), (5, 15, (1,))],
                ),
            ),
            (
                "cannot fit",
                ReservationProblem(
                    now=0, ready=0, duration=10, deadline=15, n_pe=2, pes=2, held=[(0, 20, (0,))]
                ),
            ),
            (
                "a choice between a snug and a wide rectangle",
                ReservationProblem(
                    now=0,
                    ready=0,
                    duration=10,
                    deadline=60,
                    n_pe=2,
                    pes=4,
                    held=[(0, 10, (0, 1)), (20, 30, (0, 1)), (0, 5, (2,))],
                ),
            ),
        ]
