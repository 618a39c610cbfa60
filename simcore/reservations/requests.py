"""Advance-reservation requests (``papers/advance-reservation-with-deadlines.txt``, Section 3).

A request is the paper's five-tuple (t_a, t_r, t_du, t_dl, n_pe) plus an id: arrival time, ready
time (earliest start), duration, deadline (latest end) and PE count, all integers (seconds,
PEs). The scheduler answers on arrival: accept with a start t_s ∈ [t_r, t_dl − t_du] and n_pe
concrete PEs free over [t_s, t_s + t_du), or reject.

Validity (Section 3, and what we pin for bad input): t_du ≥ 1, t_dl ≥ t_r + t_du, 1 ≤ n_pe ≤ the
machine's PEs, and t_r ≥ t_a (the paper's model: "t_r (≥ t_a)"; a request ready before it
arrives would ask for a start in the past). :func:`invalid_reason` says what is wrong with a
request on a given machine; the loaders (``instances/ar_workload.py``) reject such requests
with a message naming them, and the driver answers them "rejected" without consulting a policy,
so a bad request never crashes a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.errors import SchedbenchError


class RequestError(SchedbenchError, ValueError):
    """A request that cannot be read or is not a valid request; the message names it."""


#: Largest magnitude of a time, id or PE count in a request (the reservation kind's bound:
#: about 31,700 years of seconds); larger values are typos that overflow int64 arithmetic.
MAX_VALUE = 10**12


def _integer(name: str, value: Any, request_id: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RequestError(f"request {request_id}: {name}: expected an integer, got {value!r}")
    if abs(int(value)) > MAX_VALUE:
        raise RequestError(
            f"request {request_id}: {name}: expected an integer of magnitude at most "
            f"{MAX_VALUE:,}, got {f'{value:.3g}' if abs(int(value)) < 1e308 else 'more'}"
        )
    return int(value)


@dataclass(frozen=True, slots=True, order=True)
class Request:
    """One request; ordered by (arrival, id), the order requests are served in."""

    arrival: int
    id: int
    ready: int
    duration: int
    deadline: int
    pes: int

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "id", _integer("id", self.id, self.id))
        for name in ("arrival", "ready", "duration", "deadline", "pes"):
            set_(self, name, _integer(name, getattr(self, name), self.id))

    @property
    def latest_start(self) -> int:
        """t_dl − t_du."""
        return self.deadline - self.duration

    @property
    def area(self) -> int:
        """PE-seconds: n_pe × t_du."""
        return self.pes * self.duration


def invalid_reason(request: Request, machine_pes: int) -> str | None:
    """Why ``request`` is not a valid request on a machine of ``machine_pes`` PEs, or None."""
    r = request
    if r.duration < 1:
        return f"duration {r.duration} s: expected a positive duration"
    if r.pes < 1:
        return f"pes {r.pes}: expected at least 1 PE"
    if r.pes > machine_pes:
        return f"pes {r.pes}: more than the machine's {machine_pes} PEs"
    if r.ready < r.arrival:
        return f"ready {r.ready} before arrival {r.arrival}: expected ready >= arrival"
    if r.deadline < r.ready + r.duration:
        return (
            f"deadline {r.deadline} < ready {r.ready} + duration {r.duration}: the job cannot "
            "finish in time"
        )
    return None
