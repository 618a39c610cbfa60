"""``reservation-cpsat``: one advance-reservation decision (the ``reservation`` kind) optimised with
OR-Tools CP-SAT — an optimising backend to set beside the paper's fit heuristics on
identical requests.

Where the fit policies look only at the candidate start times and score whole availability
rectangles, this backend chooses the start and the PEs together, minimising the idle time the job
strands: for each chosen PE, the idle time between the job and the previous job on that PE (or
the current time) plus the idle time up to the next job on that PE (none: 0) —
``ReservationProblem.stranded_idle``. A job that fills a gap exactly strands nothing; a job
dropped in the middle of a long gap strands the gap's length. Ties go to the earliest start.

PEs whose held intervals are identical form one group; each group's free gaps [gs, ge) long
enough for the job are its *slots* n (|G_n| PEs, ge = ∞ for the last gap). A PE of slot n used
by a job starting at t strands c[n, t] = ge − gs − t_du (finite gap) or t − gs (open gap). For a
fixed choice of slots the cost never decreases with the start and the earliest feasible start is
max(t_r, the latest gs used), so the start ranges over T = {max(t_r, now)} ∪ {gs inside the
window} without losing an optimum. Model::

    z[t] ∈ {0, 1},  Σ_t z[t] = 1                 # z[t] = 1 if the job starts at t ∈ T
    k[n, t] ∈ [0, |G_n|],  k[n, t] ≤ |G_n| z[t]  # PEs of slot n used with start t
                                                 # (only where slot n holds [t, t + t_du))
    Σ k = n_pe
    minimise Σ c[n, t] k[n, t];  then, with that cost fixed, minimise Σ t z[t]

(Modelled instead with one start variable, gap literals and k · (s − gs) as a multiplication
constraint, single-worker CP-SAT needed 11 s for one decision of the ``ar-decisions`` suite and
could not prove others within the budget; this disaggregated form solves them all in
milliseconds.) The PEs are the lowest-numbered of each slot's group.

The solve is warm-started with :func:`_greedy` — for every start the cheapest PEs — which is
itself exact here (each PE's cost depends only on the start), so this decision is polynomial and
CP-SAT's part is the proof; the backend stands for a generic optimising model that a richer
objective could extend, and ``stats`` carries both costs.

Acceptance is decided exactly first (``feasible_start``: a feasible start exists exactly when a
candidate start is feasible); a rejection is ``optimal``. An acceptance is ``optimal`` when CP-SAT
proves both solves, else ``feasible`` (or ``timeout`` when the deadline came first) with the best
placement found — at worst FirstFit's, which is always a valid answer.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar

from ortools.sat.python import cp_model

from schedbench.simcore.kinds.reservation import (
    ReservationDecision,
    ReservationProblem,
    feasible_start,
)
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.base import ParamSolver, param

#: Variables from which CP-SAT runs without presolve's dual reductions (see ``_place``).
_LARGE_MODEL = 20_000


def _gaps(
    intervals: list[tuple[int, int]], now: int, lo: int, hi: int, duration: int
) -> list[tuple[int, int | None]]:
    """The free gaps [gs, ge) of one PE (ge None: open) that can hold the job with a start in
    [lo, hi]; gs is at least ``now``."""
    out: list[tuple[int, int | None]] = []
    t = now
    for s, e in intervals:
        if e <= now:
            continue
        if s > t:
            out.append((t, s))
        t = max(t, e)
    out.append((t, None))
    usable = []
    for gs, ge in out:
        first = max(gs, lo)
        last = hi if ge is None else min(hi, ge - duration)
        if first <= last:
            usable.append((gs, ge))
    return usable


def _greedy(
    slots: list[tuple[list[int], int, int | None]], starts: list[int], n_pe: int, duration: int
) -> tuple[int, int, list[int]] | None:
    """The warm start: for each possible start t, the n_pe PEs that strand the least (each
    PE's cost is independent of the others': its gap's leftover, or t − gs in an open gap),
    cheapest first, ties to the lowest PE ids; the best (cost, t). Returns (cost, start, PEs
    used per slot) or None. For a fixed start this choice is optimal, so over all starts it is
    an optimum the CP-SAT solve then proves (module docstring)."""
    best: tuple[int, int, list[int]] | None = None
    for t in starts:
        usable = []
        for n, (pes, gs, ge) in enumerate(slots):
            if gs <= t and (ge is None or t + duration <= ge):
                unit = (ge - gs - duration) if ge is not None else t - gs
                usable.append((unit, pes[0], n))
        usable.sort()
        need, cost, used = n_pe, 0, [0] * len(slots)
        for unit, _first, n in usable:
            take = min(need, len(slots[n][0]))
            used[n] = take
            cost += unit * take
            need -= take
            if need == 0:
                break
        if need == 0 and (best is None or cost < best[0]):
            best = (cost, t, used)
    return best


@dataclass(frozen=True, kw_only=True, slots=True)
class ReservationCPSATSolver(ParamSolver):
    name = "reservation-cpsat"
    summary = (
        "reservation: CP-SAT placement at any start, minimising stranded idle PE-seconds, then "
        "the start; exact acceptance"
    )
    kinds: ClassVar[tuple[str, ...]] = ("reservation",)

    workers: int = param(1, "CP-SAT search workers (num_workers); 1 is deterministic")
    time_limit_s: float = param(0.0, "cap on the whole solve in seconds; 0 = the decision budget")

    def __post_init__(self) -> None:
        self._require_int("workers", 1, "an integer >= 1")
        self._require_number(
            "time_limit_s", 0.0, float("inf"), "a number of seconds >= 0 (0 = the budget)"
        )

    def solve(self, problem: ReservationProblem, budget: Budget) -> ReservationDecision:
        started = time.perf_counter()
        first = feasible_start(problem)
        if first is None:
            return ReservationDecision(
                Status.OPTIMAL, accepted=False, objectives=(0.0,), solver=self.id
            )
        limit = budget.deadline_s * 0.9
        if self.time_limit_s > 0:
            limit = min(limit, self.time_limit_s)
        answer = self._place(problem, budget, started + limit)
        if answer is None:
            start, pes = first
            return ReservationDecision(
                Status.TIMEOUT,
                accepted=True,
                start=start,
                pe_set=pes,
                objectives=(1.0,),
                notes=(
                    "CP-SAT found no placement in time (or its model could not be built in "
                    "time); FirstFit's placement",
                ),
                solver=self.id,
            )
        status, start, pes, stats = answer
        return ReservationDecision(
            status,
            accepted=True,
            start=start,
            pe_set=pes,
            objectives=(1.0,),
            stats=stats,
            solver=self.id,
        )

    def _place(
        self, problem: ReservationProblem, budget: Budget, stop_at: float
    ) -> tuple[Status, int, tuple[int, ...], dict[str, Any]] | None:
        # -- data ------------------------------------------------------------------------------
        now, du = problem.now, problem.duration
        lo, hi = problem.earliest_start, problem.latest_start
        per_pe: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for s, e, ids in problem.held:
            for pe in ids:
                per_pe[pe].append((s, e))
        groups: dict[tuple[tuple[int, int], ...], list[int]] = defaultdict(list)
        for pe in range(problem.pes):
            key = tuple(sorted((s, e) for s, e in per_pe.get(pe, []) if e > now))
            groups[key].append(pe)

        gaps = {key: _gaps(list(key), now, lo, hi, du) for key in groups}
        # An optimal start is lo or the start of a used gap (module docstring).
        starts = sorted({lo} | {gs for g in gaps.values() for gs, _ge in g if lo <= gs <= hi})

        slots = [(pes, gs, ge) for key, pes in groups.items() for gs, ge in gaps[key]]
        hint = _greedy(slots, starts, problem.n_pe, du)

        # -- model -----------------------------------------------------------------------------
        model = cp_model.CpModel()
        at = {t: model.new_bool_var(f"z{t}") for t in starts}  # z[t] = 1 if the job starts at t
        model.add_exactly_one(at.values())
        use: dict[tuple[int, int], Any] = {}
        unit: dict[tuple[int, int], int] = {}
        for n, (pes, gs, ge) in enumerate(slots):
            if time.perf_counter() >= stop_at:  # |slots| x |starts| pairs: bounded by the clock
                return None
            for t, z in at.items():
                if gs <= t and (ge is None or t + du <= ge):
                    k = model.new_int_var(0, len(pes), f"k{n}_{t}")  # PEs of slot n, start t
                    model.add(k <= len(pes) * z)
                    use[n, t] = k
                    unit[n, t] = (ge - gs - du) if ge is not None else t - gs
        keys = list(use)
        model.add(cp_model.LinearExpr.sum([use[key] for key in keys]) == problem.n_pe)
        cost = cp_model.LinearExpr.weighted_sum(
            [use[key] for key in keys], [unit[key] for key in keys]
        )
        start = cp_model.LinearExpr.weighted_sum(list(at.values()), list(at))
        if time.perf_counter() >= stop_at:
            return None
        if hint is not None:
            for t, z in at.items():
                model.add_hint(z, t == hint[1])
            for (n, t), k in use.items():
                model.add_hint(k, hint[2][n] if t == hint[1] else 0)

        # -- solve: minimise the stranded idle time, then the start ---------------------------
        def run(objective: Any) -> tuple[Any, Any] | None:
            remaining = stop_at - time.perf_counter()
            if remaining <= 0.001:
                return None
            model.minimize(objective)
            solver = cp_model.CpSolver()
            solver.parameters.num_workers = self.workers
            solver.parameters.random_seed = budget.seed
            solver.parameters.max_time_in_seconds = remaining
            if len(use) >= _LARGE_MODEL:
                # Presolve's dual reductions do not look at the time limit on large models.
                solver.parameters.keep_all_feasible_solutions_in_presolve = True
            status = solver.solve(model)
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return None
            return solver, status

        def read(solver: Any) -> tuple[int, list[int]]:
            per_slot = [0] * len(slots)
            for (n, _t), k in use.items():
                per_slot[n] += solver.value(k)
            return round(solver.value(start)), per_slot

        first = run(cost)
        if first is None:
            return None
        solver, status1 = first
        best_cost = round(solver.objective_value)
        proven = status1 == cp_model.OPTIMAL
        chosen = read(solver)
        if proven:
            model.add(cost <= best_cost)
            second = run(start)
            if second is not None:
                solver, status2 = second
                chosen = read(solver)
                proven = status2 == cp_model.OPTIMAL
            else:
                proven = False
        s_value, used = chosen
        pe_set: list[int] = []
        for (pes, _gs, _ge), k_value in zip(slots, used, strict=True):
            pe_set.extend(pes[:k_value])  # the lowest-numbered PEs of each slot's group
        stats = {
            "stranded_idle_pe_s": best_cost,
            "groups": len(groups),
            "slots": len(slots),
            "greedy_stranded_idle_pe_s": None if hint is None else hint[0],
        }
        deadline_hit = time.perf_counter() >= stop_at
        status = Status.OPTIMAL if proven else (Status.TIMEOUT if deadline_hit else Status.FEASIBLE)
        return status, int(s_value), tuple(sorted(pe_set)), stats
