"""Reservation solvers (the ``reservation`` kind, ``simcore/kinds/reservation/``): the paper's fit
policies (``papers/advance-reservation-with-deadlines.txt``, Section 5; semantics pinned where the
paper is vague, and implemented once, in ``simcore/reservations/``).

* ``ff``, ``pe-b``, ``pe-w``, ``du-b``, ``du-w``, ``pedu-b``, ``pedu-w`` — FirstFit, PE / Duration
  / PE×Duration Best and Worst Fit (``simcore/reservations/fit.py``) on the problem's slot
  structure: the chosen candidate start and the n_pe lowest-numbered PEs of its free set, or a
  rejection when no candidate start has n_pe free PEs. Acceptance is exact (a feasible start
  exists exactly when a candidate is feasible), so every answer is ``optimal`` for the kind's
  objective (accept when possible); where they differ is *which* start and PEs, which the
  kind's ``start_delay_s`` and ``stranded_idle_pe_s`` and, over a stream, the acceptance of the
  requests still to come measure.
* ``reservation-first-fit`` — the skeleton's name for ``ff`` (the same answers).

The same names are the policies of ``schedbench reproduce ar --policy``, which serves streams
through the fast path (``simcore/reservations/driver.py: serve``); served as solvers
(``serve_with_solver``) they give identical decisions (``tests/test_ar_driver.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedbench.simcore.kinds.reservation import ReservationDecision, ReservationProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.reservations.fit import get_fit_policy
from schedbench.solvers.base import ParamSolver


@dataclass(frozen=True, kw_only=True, slots=True)
class FitPolicySolver(ParamSolver):
    """A fit policy of ``simcore/reservations/fit.py`` as a solver; ``policy`` is the class's
    fit-policy name (a subclass per registered name)."""

    kinds: ClassVar[tuple[str, ...]] = ("reservation",)
    policy: ClassVar[str] = "ff"

    def solve(self, problem: ReservationProblem, budget: Budget) -> ReservationDecision:
        found = problem.fit(get_fit_policy(self.policy))
        if found is None:
            return ReservationDecision(
                Status.OPTIMAL, accepted=False, objectives=(0.0,), solver=self.id
            )
        return ReservationDecision(
            Status.OPTIMAL,
            accepted=True,
            start=found.start,
            pe_set=tuple(found.pe_ids),
            objectives=(1.0,),
            solver=self.id,
        )


def _fit(policy: str, label: str) -> str:
    return f"reservation: {label} ({get_fit_policy(policy).summary}); exact acceptance"


@dataclass(frozen=True, kw_only=True, slots=True)
class FirstFitReservationSolver(FitPolicySolver):
    name = "reservation-first-fit"
    summary = (
        "reservation: earliest candidate start, lowest free PEs (FirstFit, = ff); exact acceptance"
    )
    policy = "ff"


@dataclass(frozen=True, kw_only=True, slots=True)
class FFSolver(FitPolicySolver):
    name = "ff"
    summary = _fit("ff", "FF")
    policy = "ff"


@dataclass(frozen=True, kw_only=True, slots=True)
class PEBestSolver(FitPolicySolver):
    name = "pe-b"
    summary = _fit("pe-b", "PE_B")
    policy = "pe-b"


@dataclass(frozen=True, kw_only=True, slots=True)
class PEWorstSolver(FitPolicySolver):
    name = "pe-w"
    summary = _fit("pe-w", "PE_W")
    policy = "pe-w"


@dataclass(frozen=True, kw_only=True, slots=True)
class DuBestSolver(FitPolicySolver):
    name = "du-b"
    summary = _fit("du-b", "Du_B")
    policy = "du-b"


@dataclass(frozen=True, kw_only=True, slots=True)
class DuWorstSolver(FitPolicySolver):
    name = "du-w"
    summary = _fit("du-w", "Du_W")
    policy = "du-w"


@dataclass(frozen=True, kw_only=True, slots=True)
class PEDuBestSolver(FitPolicySolver):
    name = "pedu-b"
    summary = _fit("pedu-b", "PEDu_B")
    policy = "pedu-b"


@dataclass(frozen=True, kw_only=True, slots=True)
class PEDuWorstSolver(FitPolicySolver):
    name = "pedu-w"
    summary = _fit("pedu-w", "PEDu_W")
    policy = "pedu-w"
