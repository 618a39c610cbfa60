"""Reservation solvers (the ``reservation`` kind, ``simcore/kinds/reservation/``).

``reservation-first-fit``: the earliest of the paper's candidate start times with n_pe free PEs,
on the lowest-numbered free PEs (FirstFit, Section 5, in its simplest form); rejects when none
exists. Exact for acceptance, hence ``optimal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedbench.simcore.kinds.reservation import (
    ReservationDecision,
    ReservationProblem,
    feasible_start,
)
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.base import ParamSolver


@dataclass(frozen=True, kw_only=True, slots=True)
class FirstFitReservationSolver(ParamSolver):
    name = "reservation-first-fit"
    summary = "reservation: earliest candidate start, lowest free PEs (FirstFit); exact acceptance"
    kinds: ClassVar[tuple[str, ...]] = ("reservation",)

    def solve(self, problem: ReservationProblem, budget: Budget) -> ReservationDecision:
        found = feasible_start(problem)
        if found is None:
            return ReservationDecision(
                Status.OPTIMAL, accepted=False, objectives=(0.0,), solver=self.id
            )
        start, pes = found
        return ReservationDecision(
            Status.OPTIMAL,
            accepted=True,
            start=start,
            pe_set=pes,
            objectives=(1.0,),
            solver=self.id,
        )
