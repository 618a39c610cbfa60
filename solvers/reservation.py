"""Reservation solvers (the ``reservation`` kind, ``simcore/kinds/reservation/``): the paper's fit
policies (``papers/advance-reservation-with-deadlines.txt``, Section 5; semantics pinned where the
paper is vague, and implemented once, in ``simcore/reservations/``).

* ``fit`` with ``policy`` = ``ff``, ``pe-b``, ``pe-w``, ``du-b``, ``du-w``, ``pedu-b``, ``pedu-w``
  (registered under those names as aliases, e.g. ``pe-b`` = ``fit[policy=pe-b]``) — FirstFit,
  PE / Duration / PE×Duration Best and Worst Fit (``simcore/reservations/fit.py``) on the problem's slot
  structure: the chosen candidate start and the n_pe lowest-numbered PEs of its free set, or a
  rejection when no candidate start has n_pe free PEs. Acceptance is exact (a feasible start
  exists exactly when a candidate is feasible), so every answer is ``optimal`` for the kind's
  objective (accept when possible); where they differ is *which* start and PEs, which the
  kind's ``start_delay_s`` and ``stranded_idle_pe_s`` and, over a stream, the acceptance of the
  requests still to come measure.
  ``reading`` (default ``pinned``) sets the rules the paper leaves open
  (``simcore/reservations/reading.py``; ``merge`` and ``slowdown`` concern a whole stream, not
  one decision, and are the driver's).
* ``reservation-first-fit`` — the skeleton's name for ``ff`` (an alias too; the same answers).

The same names are the policies of ``schedbench reproduce ar --policy``, which serves streams
through the fast path (``simcore/reservations/driver.py: serve``); served as solvers
(``serve_with_solver``) they give identical decisions (``tests/simcore/test_ar_driver.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedbench.simcore.kinds.reservation import ReservationDecision, ReservationProblem
from schedbench.simcore.plugins import Alias
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.reservations.fit import FIT_POLICIES, get_fit_policy
from schedbench.simcore.reservations.reading import Reading, ReadingError
from schedbench.solvers.base import ParamSolver, param


@dataclass(frozen=True, kw_only=True, slots=True)
class FitSolver(ParamSolver):
    """A fit policy of ``simcore/reservations/fit.py`` as a solver: the chosen candidate start
    and the n_pe lowest-numbered PEs of its free set, or a rejection (module docstring)."""

    name = "fit"
    summary = "reservation: a fit policy of the advance-reservation paper (policy=ff, pe-b, ...)"
    kinds: ClassVar[tuple[str, ...]] = ("reservation",)
    policy: str = param("ff", "fit policy: ff, pe-b, pe-w, du-b, du-w, pedu-b, pedu-w (Section 5)")
    reading: str = param(
        "pinned",
        "the paper's open rules as key=value,... (unbounded_end, pedu, latest_start, tie, pe_ids, "
        "deadline; simcore/reservations/reading.py)",
    )

    def __post_init__(self) -> None:
        self._require(self.policy in FIT_POLICIES, "policy", f"one of {', '.join(FIT_POLICIES)}")
        try:
            Reading.parse(self.reading)
        except ReadingError as exc:
            self._require(False, "reading", f"key=value,... or pinned ({exc})")

    def solve(self, problem: ReservationProblem, budget: Budget) -> ReservationDecision:
        reading = None if self.reading == "pinned" else Reading.parse(self.reading)
        found = problem.fit(get_fit_policy(self.policy), reading)
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


def _fit(policy: str) -> Alias:
    """The paper's name for ``fit[policy=...]``: ``pe-b`` and its summary."""
    fit = get_fit_policy(policy)
    summary = f"reservation: {fit.label} ({fit.summary}); exact acceptance"
    return Alias(policy, FitSolver, {"policy": policy}, summary)


# The paper's seven by the names its replay uses (registered in pyproject.toml).
FF = _fit("ff")
PE_B = _fit("pe-b")
PE_W = _fit("pe-w")
DU_B = _fit("du-b")
DU_W = _fit("du-w")
PEDU_B = _fit("pedu-b")
PEDU_W = _fit("pedu-w")
#: The skeleton's name for ``ff`` (the same answers).
RESERVATION_FIRST_FIT = Alias(
    "reservation-first-fit",
    FitSolver,
    {"policy": "ff"},
    "reservation: earliest candidate start, lowest free PEs (FirstFit, = ff); exact acceptance",
)
