"""``reservation-cpsat``: one advance-reservation decision (the ``reservation`` kind) optimised with
OR-Tools CP-SAT — an optimising backend to set beside the paper's fit heuristics (issue 14, item
6b) on identical requests.

Where the fit policies look only at the candidate start times and score whole availability
rectangles, this backend may start the job at *any* second of the window and choose its PEs one
PE-group at a time, minimising the idle time it strands: for each chosen PE, the idle time
between the job and the previous job on that PE (or the current time) plus the idle time up to
the next job on that PE (none: 0) — ``ReservationProblem.stranded_idle``. A job that fills a gap
exactly strands nothing; a job dropped in the middle of a long gap strands the gap's length.
Ties go to the earliest start, then to the lowest-numbered PEs.

Model (PEs whose held intervals are identical form one group G of |G| PEs; each group's free
gaps g = [gs, ge) long enough for the job are listed, ge = ∞ for the last one)::

    s ∈ [max(t_r, now), t_dl − t_du]          # s = the start time
    y[G,g] ∈ {0, 1}                           # y = 1 if the job uses PEs of G inside gap g
    k[G,g] ∈ [0, |G|],  k ≤ |G| · y           # k = how many PEs of G it uses there
    y ⇒ gs ≤ s,  y ⇒ s + t_du ≤ ge            # inside the gap
    Σ k = n_pe
    cost = Σ_finite k · (ge − gs − t_du) + Σ_open k · (s − gs)   # stranded PE-seconds
    minimise cost, then s (a second solve with cost fixed)

The product k · (s − gs) of an open gap is a CP-SAT multiplication constraint. The group
reduction keeps the model small (a machine of 1,024 idle PEs is one group, not 1,024 booleans).

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
                notes=("CP-SAT found no placement in time; FirstFit's placement",),
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

        # -- model -----------------------------------------------------------------------------
        model = cp_model.CpModel()
        start = model.new_int_var(lo, hi, "s")  # s = the start time
        counts = []
        cost_terms: list[Any] = []
        placements: list[tuple[list[int], Any]] = []
        for n, (intervals, pes) in enumerate(groups.items()):
            for m, (gs, ge) in enumerate(_gaps(list(intervals), now, lo, hi, du)):
                y = model.new_bool_var(f"y{n}_{m}")  # y = 1 if the job uses this group's gap
                k = model.new_int_var(0, len(pes), f"k{n}_{m}")  # k = PEs of the group used
                model.add(k <= len(pes) * y)
                model.add(start >= gs).only_enforce_if(y)
                if ge is not None:
                    model.add(start + du <= ge).only_enforce_if(y)
                    cost_terms.append((ge - gs - du) * k)
                else:
                    d = model.new_int_var(0, max(0, hi - gs), f"d{n}_{m}")  # d = s − gs if used
                    model.add(d == start - gs).only_enforce_if(y)
                    model.add(d == 0).only_enforce_if(~y)
                    p = model.new_int_var(0, len(pes) * max(0, hi - gs), f"p{n}_{m}")
                    model.add_multiplication_equality(p, [k, d])  # p = k · (s − gs)
                    cost_terms.append(p)
                counts.append(k)
                placements.append((pes, k))
        model.add(sum(counts) == problem.n_pe)
        cost = sum(cost_terms)

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
            status = solver.solve(model)
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return None
            return solver, status

        first = run(cost)
        if first is None:
            return None
        solver, status1 = first
        best_cost = int(solver.objective_value)
        proven = status1 == cp_model.OPTIMAL
        chosen = (solver.value(start), [solver.value(k) for _pes, k in placements])
        if proven:
            model.add(cost <= best_cost)
            model.add_hint(start, chosen[0])
            second = run(start)
            if second is not None:
                solver, status2 = second
                chosen = (solver.value(start), [solver.value(k) for _pes, k in placements])
                proven = status2 == cp_model.OPTIMAL
            else:
                proven = False
        s_value, used = chosen
        pe_set: list[int] = []
        for (pes, _k), k_value in zip(placements, used, strict=True):
            pe_set.extend(pes[:k_value])  # the lowest-numbered PEs of each group
        stats = {
            "stranded_idle_pe_s": best_cost,
            "groups": len(groups),
            "gaps": len(placements),
        }
        deadline_hit = time.perf_counter() >= stop_at
        status = Status.OPTIMAL if proven else (Status.TIMEOUT if deadline_hit else Status.FEASIBLE)
        return status, int(s_value), tuple(sorted(pe_set)), stats
