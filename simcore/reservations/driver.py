"""Serving a stream of advance-reservation requests (``papers/advance-reservation-with-deadlines.txt``,
Sections 3–5).

An advance-reservation stream is not a queue simulation: every request is answered once, on
arrival, and an accepted job never moves. So the driver is a loop, not an event engine:
requests are served one at a time in arrival order (ties by id), each at its arrival time
(``now = t_a``); the answer is checked by the core (:func:`check_allocation`: start inside
[t_r, t_dl − t_du], exactly n_pe PEs of the machine, each free over [t_s, t_s + t_du)) and, if
valid, added to the slot structure (``slots.py``). An invalid answer is never applied: the
request counts as rejected and the fault is counted (``ReservationRun.faults``). A request that
is not valid on the machine (``requests.invalid_reason``) is rejected without asking anyone.

Two ways to decide:

* :func:`serve` with a fit policy (``fit.py``: ``ff``, ``pe-b``, ...) — the policy reads the
  live slot structure (``SlotStructure.find``); the fast path, ~10^4 requests a second;
* :func:`serve_with_solver` with any solver of the ``reservation`` kind (a CP-SAT backend, a
  third-party plug-in, or the fit policies as solvers): each request becomes a
  ``ReservationProblem`` holding the accepted jobs that have not ended, the solver answers it
  through ``simcore.solver.timed_solve`` (latency measured, answer vetted by the kind), so
  heuristics and optimising backends meet identical requests.

Jobs that ended before the current time are forgotten (``SlotStructure.discard_before``); that
changes no answer, since nothing starts in the past and T_begin is at least the current time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds.reservation.problem import ReservationProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.reservations.fit import FitPolicy, get_fit_policy
from schedbench.simcore.reservations.reading import Reading
from schedbench.simcore.reservations.requests import Request, RequestError, invalid_reason
from schedbench.simcore.reservations.slots import UNBOUNDED_END, SlotStructure, ids_of, mask_of
from schedbench.simcore.solver import timed_solve


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one request: accepted at ``start`` on the PEs of ``mask``, or rejected
    (``start`` None, ``mask`` 0); ``note`` says why a request was rejected without a policy
    (invalid request, invalid answer); ``latency_s`` is the solver's wall time (solver path)."""

    request: Request
    accepted: bool
    start: int | None = None
    mask: int = 0
    note: str = ""
    latency_s: float = math.nan

    @property
    def pe_ids(self) -> list[int]:
        return ids_of(self.mask)

    @property
    def slowdown(self) -> float | None:
        """(t_s − t_r + t_du) / t_du of an accepted job (Section 6.1: waiting counted from the
        ready time), None when rejected."""
        if not self.accepted or self.start is None:
            return None
        r = self.request
        return (self.start - r.ready + r.duration) / r.duration


@dataclass(frozen=True, slots=True)
class ReservationRun:
    """A served stream: the outcomes in service order (arrival, id)."""

    pes: int
    policy: str
    outcomes: tuple[Outcome, ...]
    #: Answers the core refused (never applied; the request counts as rejected).
    faults: int = 0
    #: Requests rejected at load because they are not valid on the machine.
    invalid: int = 0

    @property
    def accepted(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.accepted]


def check_allocation(structure: SlotStructure, request: Request, start: int, mask: int) -> None:
    """The core's check of an acceptance (docs/design.md#the-core-checks-every-answer): start in
    [t_r, t_dl − t_du], exactly n_pe PEs of the machine, each free over [t_s, t_s + t_du). Raises
    ``InvalidDecisionError`` saying what is wrong."""
    r = request
    if not r.ready <= start <= r.latest_start:
        raise InvalidDecisionError(
            f"request {r.id}: start {start} outside the window [{r.ready}, {r.latest_start}]"
        )
    if mask <= 0 or mask.bit_length() > structure.pes:
        raise InvalidDecisionError(f"request {r.id}: PEs outside 0..{structure.pes - 1}")
    if mask.bit_count() != r.pes:
        raise InvalidDecisionError(
            f"request {r.id}: expected {r.pes} distinct PEs, got {mask.bit_count()}"
        )
    clash = structure.busy_over(start, start + r.duration) & mask
    if clash:
        raise InvalidDecisionError(
            f"request {r.id}: PE {ids_of(clash)[0]} is not free over "
            f"[{start}, {start + r.duration})"
        )


def _ordered(requests: Iterable[Request]) -> list[Request]:
    out = sorted(requests)
    seen: set[int] = set()
    for r in out:
        if r.id in seen:
            raise RequestError(f"request {r.id}: the id appears twice in the stream")
        seen.add(r.id)
    return out


def _admitted(
    requests: Iterable[Request],
    pes: int,
    structure: SlotStructure,
    outcomes: list[Outcome],
    invalid: list[int],
) -> Iterator[Request]:
    """The valid requests in arrival order, each once the slot structure has dropped what ended
    before its arrival; an invalid one is rejected on the spot (its outcome appended, counted
    in ``invalid[0]``) and not yielded. Shared by both serving paths."""
    for r in _ordered(requests):
        reason = invalid_reason(r, pes)
        if reason is not None:
            invalid[0] += 1
            outcomes.append(Outcome(r, False, note=f"invalid request: {reason}"))
            continue
        structure.discard_before(r.arrival)
        yield r


def serve(
    requests: Iterable[Request],
    pes: int,
    policy: FitPolicy | str,
    *,
    latest_start: bool = False,
    unbounded_end: int = UNBOUNDED_END,
    reading: Reading | None = None,
) -> ReservationRun:
    """Serve ``requests`` on a machine of ``pes`` PEs with a fit policy (module docstring).
    ``latest_start`` and ``unbounded_end`` leave the pinned semantics (``SlotStructure.find``):
    defaults are the pinned rule. ``reading`` (``reading.py``) sets every open rule at once and
    overrides them; under ``merge=keep`` a rejected request leaves records at t_r and t_dl."""
    keep = reading is not None and reading.merge == "keep"
    fit = get_fit_policy(policy) if isinstance(policy, str) else policy
    structure = SlotStructure(pes)
    outcomes: list[Outcome] = []
    faults = 0
    invalid = [0]
    for r in _admitted(requests, pes, structure, outcomes, invalid):
        found = structure.find(
            r.ready,
            r.duration,
            r.deadline,
            r.pes,
            r.arrival,
            fit,
            latest_start=latest_start,
            unbounded_end=unbounded_end,
            reading=reading,
        )
        if found is None:
            if keep:
                structure.split(r.ready)
                structure.split(r.deadline)
            outcomes.append(Outcome(r, False))
            continue
        try:
            check_allocation(structure, r, found.start, found.mask)
        except InvalidDecisionError as exc:
            faults += 1
            outcomes.append(Outcome(r, False, note=f"invalid answer rejected by the core: {exc}"))
            continue
        structure.add(found.start, found.start + r.duration, found.mask)
        outcomes.append(Outcome(r, True, found.start, found.mask))
    return ReservationRun(pes, fit.name, tuple(outcomes), faults, invalid[0])


def problem_for(
    request: Request, pes: int, held: Iterable[tuple[int, int, int]]
) -> ReservationProblem:
    """The ``reservation`` decision problem of ``request`` at its arrival: the accepted jobs
    (start, end, PE bitset) that have not ended by then."""
    now = request.arrival
    return ReservationProblem(
        now=now,
        ready=request.ready,
        duration=request.duration,
        deadline=request.deadline,
        n_pe=request.pes,
        pes=pes,
        held=tuple((s, e, tuple(ids_of(m))) for s, e, m in held if e > now),
    )


def serve_with_solver(
    requests: Iterable[Request], pes: int, solver: Any, budget: Budget
) -> ReservationRun:
    """Serve ``requests`` by asking ``solver`` (any solver of the ``reservation`` kind) one
    ``ReservationProblem`` per request (module docstring). An answer the kind's check refuses
    (status ``error``) rejects the request and counts as a fault."""
    structure = SlotStructure(pes)
    held: list[tuple[int, int, int]] = []
    outcomes: list[Outcome] = []
    faults = 0
    invalid = [0]
    for r in _admitted(requests, pes, structure, outcomes, invalid):
        held = [h for h in held if h[1] > r.arrival]
        decision = timed_solve(solver, problem_for(r, pes, held), budget)
        latency = float(decision.latency_s)
        if decision.status == Status.ERROR:
            faults += 1
            note = decision.notes[-1] if decision.notes else "solver error"
            outcomes.append(Outcome(r, False, note=note, latency_s=latency))
            continue
        if not decision.accepted:
            outcomes.append(Outcome(r, False, latency_s=latency))
            continue
        mask = mask_of(decision.pe_set)
        try:
            check_allocation(structure, r, decision.start, mask)
        except InvalidDecisionError as exc:
            faults += 1
            note = f"invalid answer rejected by the core: {exc}"
            outcomes.append(Outcome(r, False, note=note, latency_s=latency))
            continue
        structure.add(decision.start, decision.start + r.duration, mask)
        held.append((decision.start, decision.start + r.duration, mask))
        outcomes.append(Outcome(r, True, decision.start, mask, latency_s=latency))
    return ReservationRun(
        pes, str(getattr(solver, "id", solver)), tuple(outcomes), faults, invalid[0]
    )
