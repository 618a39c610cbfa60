"""The offline bound of an advance-reservation stream (beyond the paper,
docs/design.md#beyond-the-papers): with every request known in advance, the largest number (or
PE-seconds) of requests any schedule can accept — so an online policy's acceptance can be shown as a
share of the best possible on the same requests.

Model (OR-Tools CP-SAT; one model per group of requests whose windows overlap)::

    x[j] ∈ {0, 1}                          # x[j] = 1 if request j is accepted
    s[j] ∈ [t_r(j), t_dl(j) − t_du(j)]     # s[j] = its start time
    I[j] = optional interval [s[j], s[j] + t_du(j)) present iff x[j]
    cumulative(I, n_pe, PEs)                # at no instant more PEs than the machine has
    maximise Σ x[j]   (or Σ n_pe(j) · t_du(j) · x[j] with objective="pe_seconds")

The cumulative model is exact here, not only a relaxation: the machine's PEs are identical and
nothing is held before the first request, so any schedule that respects the PE count at every
instant gets concrete PE ids by handing out, in order of start time, the lowest free PEs
(:func:`assign_pes`; at a job's start the jobs still running hold exactly their PE counts, so at
least n_pe PEs are free, and a PE handed out stays the job's until it ends). Per-PE no-overlap
constraints would add nothing but symmetry. (Where ids matter — a single decision against
existing holdings — ``solvers/reservation_cpsat.py`` models the PEs.)

Requests whose windows [t_r, t_dl) do not overlap those of any earlier request start a new
group; groups are independent, a group of one request is accepted without a solve, and each
group gets a share of the time budget proportional to its size (time a group leaves unused goes
to the next). Demands and capacity are divided by their greatest common divisor, and energetic
constraints over intervals between ready times and deadlines tighten the linear relaxation
(:func:`_energy_cuts`). A group CP-SAT
does not prove within its share contributes its best schedule to ``best`` and CP-SAT's proven
bound to ``bound``; ``proven`` says whether every group was proven. An online policy's schedule
can be given as a hint (``hint``: request id → start); where it is a feasible schedule the best
is never below it, even when CP-SAT ends its budget with a worse incumbent or none.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from ortools.sat.python import cp_model

from schedbench.simcore.reservations.requests import Request, invalid_reason

Objective = Literal["count", "pe_seconds"]


@dataclass(frozen=True, slots=True)
class OfflineBound:
    """The offline optimum (or bounds on it) of a request stream; see the module docstring."""

    objective: str
    requests: int
    #: the value of the best schedule found (achievable: a lower bound on the optimum)
    best: int
    #: a proven upper bound on the optimum (``best`` when proven)
    bound: int
    proven: bool
    groups: int
    unproven_groups: int
    wall_s: float
    #: the best schedule found: request id -> start time
    schedule: Mapping[int, int] = field(default_factory=dict)

    @property
    def best_share(self) -> float:
        """best / requests (the acceptance of the best schedule found, for ``count``)."""
        return self.best / self.requests if self.requests else math.nan

    @property
    def bound_share(self) -> float:
        """bound / requests: an upper bound on the acceptance any schedule reaches (``count``)."""
        return self.bound / self.requests if self.requests else math.nan


def _groups(requests: list[Request]) -> list[list[Request]]:
    """Requests split where no window overlaps an earlier one (sorted by ready time)."""
    out: list[list[Request]] = []
    reach = -math.inf
    for r in sorted(requests, key=lambda r: (r.ready, r.id)):
        if r.ready >= reach:
            out.append([])
        out[-1].append(r)
        reach = max(reach, r.deadline)
    return out


def _weight(r: Request, objective: Objective) -> int:
    return 1 if objective == "count" else r.area


def _energy_cuts(
    model: cp_model.CpModel,
    group: list[Request],
    chosen: list[cp_model.IntVar],
    demands: list[int],
    capacity: int,
) -> int:
    """Add the energetic constraints of every interval [a, b) from a ready time to a deadline:
    Σ_j x[j] · n_pe(j) · min_overlap(j, [a, b)) ≤ capacity · (b − a), where min_overlap is the
    least time job j must spend inside [a, b) wherever it starts in its window. Valid for every
    schedule; they give CP-SAT's linear relaxation a bound the cumulative constraint alone does
    not (on 100 requests at UMed 7 its root bound stayed at the trivial "all accepted"). Only
    the constraints that all jobs together could violate are added. Returns how many."""
    ready = np.array([r.ready for r in group], dtype=np.int64)
    dur = np.array([r.duration for r in group], dtype=np.int64)
    latest = np.array([r.latest_start for r in group], dtype=np.int64)
    dem = np.array(demands, dtype=np.int64)
    ends = np.unique([r.deadline for r in group])
    added = 0
    for a in np.unique(ready):
        b = ends[ends > a]
        if b.size == 0:
            continue
        # least overlap of each job (columns) with [a, b) for every b (rows)
        over = np.minimum.reduce(
            [
                (b - a)[:, None] + 0 * dur[None, :],
                np.broadcast_to(dur[None, :], (b.size, dur.size)),
                np.broadcast_to((ready + dur - a)[None, :], (b.size, dur.size)),
                b[:, None] - latest[None, :],
            ]
        )
        energy = np.maximum(over, 0) * dem[None, :]
        tight = np.flatnonzero(energy.sum(axis=1) > capacity * (b - a))
        for row in tight:
            cols = np.flatnonzero(energy[row])
            model.add(
                sum(int(energy[row, j]) * chosen[j] for j in cols) <= int(capacity * (b[row] - a))
            )
            added += 1
    return added


def _hint_schedule(
    group: list[Request], pes: int, objective: Objective, hint: Mapping[int, int]
) -> tuple[int, dict[int, int]] | None:
    """The value and schedule of the hint's requests of ``group``, or None when the hint is not
    a feasible schedule (a start outside its window, or more PEs than ``pes`` at some instant)."""
    schedule = {r.id: hint[r.id] for r in group if r.id in hint}
    events: list[tuple[int, int]] = []
    for r in group:
        if r.id in schedule:
            start = schedule[r.id]
            if not r.ready <= start <= r.latest_start:
                return None
            events += [(start, r.pes), (start + r.duration, -r.pes)]
    used = 0
    for _t, delta in sorted(events, key=lambda e: (e[0], e[1])):  # ends before starts
        used += delta
        if used > pes:
            return None
    value = sum(_weight(r, objective) for r in group if r.id in schedule)
    return value, schedule


def _solve_group(
    group: list[Request],
    pes: int,
    objective: Objective,
    seconds: float,
    workers: int,
    seed: int,
    hint: Mapping[int, int],
) -> tuple[int, int, bool, dict[int, int]]:
    """(best, bound, proven, schedule) of one group."""
    # -- data ------------------------------------------------------------------------------------
    unit = math.gcd(pes, *(r.pes for r in group))
    capacity = pes // unit
    # -- model -----------------------------------------------------------------------------------
    model = cp_model.CpModel()
    chosen, starts, intervals, demands = [], [], [], []
    for r in group:
        x = model.new_bool_var(f"x{r.id}")  # x = 1 if request r is accepted
        s = model.new_int_var(r.ready, r.latest_start, f"s{r.id}")  # s = its start time
        iv = model.new_optional_fixed_size_interval_var(s, r.duration, x, f"i{r.id}")
        chosen.append(x)
        starts.append(s)
        intervals.append(iv)
        demands.append(r.pes // unit)
        if r.id in hint:
            model.add_hint(x, 1)
            model.add_hint(s, hint[r.id])
        elif hint:
            model.add_hint(x, 0)
    model.add_cumulative(intervals, demands, capacity)  # never more PEs than the machine's
    _energy_cuts(model, group, chosen, demands, capacity)
    model.maximize(sum(_weight(r, objective) * x for r, x in zip(group, chosen, strict=True)))
    # -- solve -----------------------------------------------------------------------------------
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = max(seconds, 0.01)
    status = solver.solve(model)
    # A hint is only a hint: within a short budget CP-SAT may end with no incumbent, or a worse
    # one (seen on 100 requests at UMed 9 on a loaded machine: best 0 or 1 against a hint of 52).
    # A feasible hint is a schedule, so the best is never below it.
    from_hint = _hint_schedule(group, pes, objective, hint) if hint else None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # no incumbent in time: the hint's schedule (or the empty one), trivial bound
        total = sum(_weight(r, objective) for r in group)
        if from_hint is None:
            return 0, total, False, {}
        return from_hint[0], total, False, from_hint[1]
    best = round(solver.objective_value)
    bound = math.floor(solver.best_objective_bound + 1e-6)
    schedule = {
        r.id: solver.value(s)
        for r, x, s in zip(group, chosen, starts, strict=True)
        if solver.boolean_value(x)
    }
    proven = status == cp_model.OPTIMAL
    if from_hint is not None and from_hint[0] > best:
        best, schedule = from_hint
    return best, (best if proven else max(best, bound)), proven, schedule


def offline_bound(
    requests: Iterable[Request],
    pes: int,
    *,
    objective: Objective = "count",
    time_limit_s: float = 10.0,
    workers: int = 1,
    seed: int = 0,
    hint: Mapping[int, int] | None = None,
) -> OfflineBound:
    """The offline optimum of ``requests`` on ``pes`` PEs, or bounds on it (module docstring).
    Invalid requests (``requests.invalid_reason``) can never be accepted and count only in
    ``requests``."""
    if objective not in ("count", "pe_seconds"):
        raise ValueError(f"objective: expected 'count' or 'pe_seconds', got {objective!r}")
    began = time.perf_counter()
    every = list(requests)
    valid = [r for r in every if invalid_reason(r, pes) is None]
    groups = _groups(valid)
    remaining_jobs = len(valid)
    best = bound = unproven = 0
    schedule: dict[int, int] = {}
    for group in groups:
        if len(group) == 1:  # a request alone fits (valid: n_pe <= pes, window not empty)
            r = group[0]
            best += _weight(r, objective)
            bound += _weight(r, objective)
            schedule[r.id] = hint.get(r.id, r.ready) if hint else r.ready
            remaining_jobs -= 1
            continue
        left = time_limit_s - (time.perf_counter() - began)
        share = left * len(group) / max(remaining_jobs, 1)
        g_best, g_bound, proven, g_schedule = _solve_group(
            group, pes, objective, share, workers, seed, hint or {}
        )
        best += g_best
        bound += g_bound
        unproven += not proven
        schedule.update(g_schedule)
        remaining_jobs -= len(group)
    return OfflineBound(
        objective=objective,
        requests=len(every),
        best=best,
        bound=bound,
        proven=unproven == 0,
        groups=len(groups),
        unproven_groups=unproven,
        wall_s=time.perf_counter() - began,
        schedule=schedule,
    )


def assign_pes(
    requests: Iterable[Request], schedule: Mapping[int, int], pes: int
) -> dict[int, list[int]]:
    """Concrete PE ids for a schedule that respects the PE count at every instant (module
    docstring): in order of start time, each job gets the lowest PEs free at its start.
    Raises ``ValueError`` if the schedule over-commits the machine."""
    by_id = {r.id: r for r in requests}
    free = list(range(pes))  # a heap of free PE ids
    running: list[tuple[int, int, list[int]]] = []  # (end, id, PEs)
    out: dict[int, list[int]] = {}
    for rid in sorted(schedule, key=lambda i: (schedule[i], i)):
        start, r = schedule[rid], by_id[rid]
        while running and running[0][0] <= start:
            _end, _id, ids = heapq.heappop(running)
            for pe in ids:
                heapq.heappush(free, pe)
        if len(free) < r.pes:
            raise ValueError(f"request {rid}: {r.pes} PEs at {start}, only {len(free)} free")
        ids = [heapq.heappop(free) for _ in range(r.pes)]
        heapq.heappush(running, (start + r.duration, rid, ids))
        out[rid] = sorted(ids)
    return out
