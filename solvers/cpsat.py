"""``cpsat``: OR-Tools CP-SAT on the selection problem.

Model (the same for every M; data made integral by ``solvers._integral``)::

    x[j] ∈ {0, 1}                      # x[j] = 1 if job j of the window starts now
    Σ_j d[j][k] · x[j] <= C[k]         # every resource k (BBSched §3.2.1; Cerberus eqs.)
    f_i = Σ_j o[i][j] · x[j]           # objective i

* **M = 1**: maximise f_0. ``optimal`` only when CP-SAT proves it (and the integer form is
  exact); if the deadline or ``time_limit_s`` comes first the best incumbent is returned with
  status ``timeout``. The anytime trace is every incumbent the solution callback sees.
* **M = 1 by slices** (the default for knapsacks of up to ``_SLICED_MAX_JOBS`` jobs whose
  objective does not follow a resource; ``slices=false`` for the one solve above;
  ``CPSATSolver._sliced``, bounds in ``solvers._slices``): the selections of exactly k items are
  searched slice by slice, under aspiration targets G that fall from the largest slice bound
  (G = upper − 16, − 32, − 64, ...; ``_ASPIRATION_FIRST``). Each slice whose exact LP bound
  (with the row Σ x = k) reaches max(G, incumbent + 1) is solved by CP-SAT for a value in that
  range, on the items reduced-cost fixing leaves free at that value, with the penalty row
  pen(x) <= z − T (``_penalty_row``) and lean settings plus presolve. A round that finds a
  value >= G proves it optimal; one that does not proves every value in [G, upper] infeasible.
  Fixing the item count tightens the LP bound of correlated multidimensional knapsacks, and the
  high targets fix most items: on Chu–Beasley-recipe stand-ins (n = 100, m = 5) the whole-model
  solve proved 0 of 2 at t = 0.25 within 15 s at load 20 (``bench/benchmarks/
  exact_backends.py --parts m``), and over six instances the slices take 2.3 deterministic s in
  all. ``bnb`` is still far faster on these (0.1-0.6 s).
  Three optional helpers move the incumbent and the targets, never the proofs (parameters
  ``dive``, ``probe``, ``snap``, off by default; ``CPSATSolver._dive``). Why they were tried: the
  greedy start is 700-2,000 below the optimum, and a round whose target falls far below the
  optimum maximises a slice with almost no fixing (one t = 0.25 instance: 3.1 deterministic s on
  one slice). A short whole-model CP-SAT dive (``dive=0.3``) starts within 0-110 of the optimum;
  ``probe`` looks briefly in every slice of a round for a better incumbent before the proofs;
  ``snap`` lowers a target that lies close above the incumbent to incumbent + 1, saving the round
  just above the optimum that only proves emptiness. Side by side (``bench/benchmarks/
  exact_backends.py --parts m``, three runs of 30 fresh instances, seeds 835330, 108736, 321822,
  load 2.1-4.1), ``dive=0.3,probe=0.05,snap=0.5`` against the default: proven 88/90 against
  89/90, worst cases 13.2 / 8.4 / timeout against 14.7 / 12.2 / timeout s, CPU 389 s against
  288 s in all (the dive costs about 1 s of wall time per instance and the probes double the
  number of solves). No CP-SAT setting tried helps the slice proofs either (presolve off,
  linearization 1, lb-tree search, any cut family: 2-5× slower, two workers, probing off): the
  proof, at the optimum + 1, of the one or two slices whose bound is highest dominates.
* **M = 2, the exact Pareto front by the ε-constraint method with a lexicographic objective**:
  maximise B · f_0 + f_1 (B = one more than the span of f_1; when that product could leave int64,
  two solves instead: max f_0, then max f_1 with f_0 fixed) subject to f_1 >= ε, which gives the
  front point with the largest f_0 among those with f_1 >= ε (and the largest f_1 for that f_0);
  then ε = f_1* + 1 (and, only where it helps, f_0 <= f_0* − 1; see below). The loop ends when the
  model is infeasible: |front| + 1 solves of one model, built once, whose bounds are rewritten in
  place between solves. With ``workers >= 2`` the front is walked from both ends at once
  (``_epsilon``), in about |front| + 2 solves.
* **M = 2, ``method="two-phase"``** (performance target 4; Visée et al. 1998's two-phase scheme
  with reduced-cost fixing; ``CPSATSolver._two_phase``): phase 1 finds the extreme supported
  points by weighted sums λ · f between adjacent supported points, phase 2 walks each triangle
  between adjacent supported points by ε-steps; every solve runs on a model without the items
  an exact LP bound (``solvers._two_phase``) fixes for every selection that could lie in the
  segment's or triangle's region. Supported points spread over the whole front come first, so
  the anytime front is far better early (IGD+ after 1 s on ZT 100.2: 0.012-0.013 against
  0.26-0.35 for the ε-walk from the ends, two runs under load, ``bench/benchmarks/
  exact_backends.py``). On ZT 100.2 both take about 3 CPU s; on the Zitzler–Thiele-recipe
  250-item stand-in (570 points) two-phase needs 641 solves and 152 CPU s, the ε-method (one
  worker) had spent 380 CPU s on 460 points. Still far from 30 s: the triangles are deep (about
  one item's profit), so the fixing leaves 138 of the 250 items free on average.
* **M >= 3, weighted sum with dominance cuts**: maximise f_0 + ... + f_{M-1} (strictly positive
  weights) over the region that excludes every point weakly dominated by a front point already
  found (for each found point p, the disjunction "f_i >= p_i + 1 for some i", one enforcement
  literal per objective, no big-M). Each optimum is Pareto-optimal — a point dominating it would be
  in the region with a larger sum — and every front point stays in the region until found, so the
  loop ends (model infeasible) with exactly the front. |front| + 1 solves.
* For either, only proven front points are reported: if a solve stops unproven at the deadline,
  its incumbent is dropped and the status is ``timeout`` with the points proven so far (every
  one of them on the exact front).

Fractional data: every resource and objective is scaled by the power of ten that makes it whole
(``solvers._integral``), which is exact for decimal input such as OR-Library's; when no power up
to 10^6 works the solve is still feasible in original units but never reported ``optimal``.

ε-steps, measured (OR-Tools 9.15 on this 2-core machine, which other jobs were sharing, so
CP-SAT's deterministic time is the steadier figure). Zitzler–Thiele ``knapsack.100.2`` (121
points, ``workers=2``): before these changes 28.4 s wall on a quieter machine (0.45 s a step on
each end) and 52–93 points in 30 s under load (median step 0.80 s wall, 0.091 deterministic);
now the whole front in 5.6–7.4 s wall (≈ the CPU time: the two ends had about one core between
them), median step 0.08 s wall, 0.0044 deterministic, 0.66 in all; one worker, 8 s. Per step,
from sampled steps and whole runs:

* Cuts off (``cut_level = 0``): 0.17 → 0.02 deterministic s a step. CP-SAT's cuts grow the LP of
  these 2-resource knapsacks from 4 to ~120 rows and cost far more than they prune.
* The bound f_0 <= f_0* − 1 (valid, the next point having a larger f_1) *slows* these solves
  2.5-fold: binding in the LP, it takes the whole objective's dual and leaves no reduced costs to
  fix variables with. So a lean step is bounded by ε alone, and the other end's last point is no
  constraint either: the walk stops when a step returns it.
* LP-guided branching (``LP_SEARCH``) −25 %; no presolve −15 %; no SAT inprocessing −15 %.
* No gain: hints from the previous point (even the exact next solution as a hint), two solves a
  step instead of the combined objective, item-dominance implications x_k <= x_j, two workers on
  one solve instead of one on each end, a fixed ratio-ordered search, symmetry or probing
  settings; lb-tree and objective-lb search are far slower.

These lean settings fail when an objective follows a resource (``_objective_follows_a_resource``:
BBSched windows, whose objectives are the node and burst-buffer demands, or profit = weight + c):
the LP bound is about the capacity, only cuts prove optimality, and lean steps run for seconds or
time out where CP-SAT's defaults take 0.02 s. Those problems keep the defaults and the bound
f_0 <= f_0* − 1, which there helps (4× less work over 20 Theta windows at w = 100; SAT
inprocessing too: without it one w = 200 window took 4.2 s instead of 0.5 s). Any other problem
whose lean step exceeds ``_LEAN_DTIME`` deterministic seconds (about twice the slowest lean step
measured: 0.26 on weakly correlated knapsacks of 60 items, 0.03 on Zitzler–Thiele) redoes that
step and the rest of that end with the defaults. Uncorrelated and weakly correlated 2-resource
knapsacks of 40–60 items now take 6–20× less time (and no longer time out at 60 items); Theta
windows (w = 20–200) take about what they took before.

Determinism: with ``workers = 1`` (default) and the seed from the budget, the same problem gives
the same answer when the solve finishes before the deadline; with more workers CP-SAT's parallel
portfolio may return a different one of several equal optima.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import _slices, _two_phase
from schedbench.solvers._integral import IntegralForm
from schedbench.solvers.base import Answer, BaseSolver, Clock, param, run_threads

#: Time kept back from each CP-SAT call for model building and returning.
_MARGIN_S = 0.05
#: Jobs whose variables are made between two looks at the clock while building a model.
_CHUNK = 4096
#: Time the rest of a model (constraints, objective, CP-SAT's loading) takes per second its
#: variables took (measured on a 10^6-job window: variables 27 s, objective 32 s, loading 17 s).
_REST_PER_VARIABLES = 2.0
#: Windows from this many jobs up are built under the clock (``_in_time``).
_GUARDED_JOBS = 20_000


class _OutOfTime(Exception):
    """Building the model used the budget up (``CPSATSolver._model``)."""


def _in_time(clock: Clock | None, deadline: float, w: int, what: str, needed_s: float) -> None:
    """Raise :class:`_OutOfTime` unless ``needed_s`` more seconds fit before ``deadline``;
    only for models of at least :data:`_GUARDED_JOBS` jobs (smaller ones are built in a blink,
    and whether they are solved must not depend on the machine's load)."""
    if clock is None or w < _GUARDED_JOBS:
        return
    elapsed = clock.elapsed()
    if elapsed + needed_s >= deadline:
        raise _OutOfTime(
            f"the CP-SAT model of {w} jobs could not be built and loaded within the budget "
            f"(stopped after {what}, at {elapsed:.3g} s of {deadline:.3g} s, with about "
            f"{needed_s:.3g} s more to go); a smaller window or a larger budget is needed"
        )


#: The first aspiration step of the sliced single-objective search, in objective units.
_ASPIRATION_FIRST = 16
#: Each round's step is this many times the last one's.
_ASPIRATION_GROWTH = 2
#: Work limit (deterministic s) of a lean slice solve before it is redone with CP-SAT's defaults.
_SLICE_LEAN_DTIME = 5.0
#: The reduced costs of a slice's penalty row are divided by this (floored).
_PENALTY_SHIFT = 1 << 10
#: Windows up to this many jobs are solved by slices when M = 1 (``_slices_apply``).
_SLICED_MAX_JOBS = 2000
#: Work limit (CP-SAT deterministic seconds) of a lean ε-step before it is redone with cuts.
_LEAN_DTIME = 0.5
#: The exact methods for M = 2 (the ``method`` parameter).
METHODS = ("epsilon", "two-phase")


def _cp_model() -> Any:
    # Imported on use: listing solvers must not pay for OR-Tools, and a process that never runs
    # CP-SAT never loads it (OR-Tools and highspy cannot share a process; see solvers/mip.py).
    from ortools.sat.python import cp_model

    return cp_model


@dataclass(frozen=True, kw_only=True, slots=True)
class CPSATSolver(BaseSolver):
    workers: int = param(1, "CP-SAT search workers (num_workers); 1 is deterministic")
    time_limit_s: float = param(0.0, "cap on the whole solve in seconds; 0 = the decision budget")
    linearization: int = param(2, "CP-SAT linearization_level (0-2); 2 helps these knapsacks")
    method: str = param(
        "epsilon",
        "M=2: 'epsilon' (ε-constraint from the ends) or 'two-phase' (supported points by weighted "
        "sums, then ε-walks between them on models cut down by reduced-cost fixing)",
    )

    slices: bool = param(
        True,
        "M=1: search slices of equal item count with reduced-cost fixing and aspiration targets "
        "(knapsacks up to 2,000 jobs); False: one CP-SAT solve of the whole model",
    )
    probe: float = param(
        0.0,
        "M=1 by slices: before each round's proofs, look in every slice of the round for a "
        "better incumbent for up to this many deterministic seconds each (0 = no look)",
    )
    snap: float = param(
        0.0,
        "M=1 by slices: a round whose aspiration target lies within this many of its steps "
        "above the incumbent aims at incumbent + 1 instead (0 = never)",
    )
    dive: float = param(
        0.0,
        "M=1 by slices: deterministic seconds of a whole-model CP-SAT solve that finds the starting "
        "incumbent (0 = the greedy one)",
    )

    name = "cpsat"
    summary = "OR-Tools CP-SAT; M=1 proven optimum; M>=2 exact front (ε-constraint; cuts for M>=3)"

    def __post_init__(self) -> None:
        self._require_int("workers", 1, "an integer >= 1")
        self._require_number(
            "time_limit_s", 0.0, float("inf"), "a number of seconds >= 0 (0 = the budget)"
        )
        self._require(self.linearization in (0, 1, 2), "linearization", "0, 1 or 2")
        self._require(self.method in METHODS, "method", " or ".join(map(repr, METHODS)))
        self._require(isinstance(self.slices, bool), "slices", "true or false")
        self._require_number("snap", 0.0, 1e9, "a number of aspiration steps >= 0")
        self._require_number("probe", 0.0, 60.0, "deterministic seconds in [0, 60] (0 = none)")
        self._require_number("dive", 0.0, 60.0, "deterministic seconds in [0, 60] (0 = no dive)")

    def _warm_up(self) -> None:
        _cp_model()

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        try:
            IntegralForm.of(problem)
        except OverflowError as exc:
            return False, str(exc)
        return True, ""

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        data = IntegralForm.of(problem)
        stop_at = clock.remaining()
        if self.time_limit_s > 0:
            stop_at = min(stop_at, self.time_limit_s)
        deadline = clock.elapsed() + stop_at
        notes = []
        if not data.exact:
            notes.append(
                "data not decimal to 6 places: solved on a rounded integer form (demands up, "
                "capacities down); feasible, not proven optimal"
            )
        if problem.w == 0:
            return Answer(Status.OPTIMAL if data.exact else Status.FEASIBLE, [[]], notes=notes)
        try:
            if problem.M == 1:
                answer = self._single(data, budget, clock, deadline)
            elif problem.M == 2 and self.method == "two-phase" and _two_phase_applies(data):
                answer = self._two_phase(data, budget, clock, deadline)
            elif problem.M == 2:
                answer = self._epsilon(data, budget, clock, deadline)
            else:
                answer = self._front(data, budget, clock, deadline)
        except _OutOfTime as exc:  # no incumbent: the base class answers with the forced jobs
            answer = Answer(Status.TIMEOUT, [], notes=[str(exc)])
        answer.notes[:0] = notes
        if not data.exact and answer.status == Status.OPTIMAL:
            answer.status = Status.FEASIBLE
        return answer

    # -- model --------------------------------------------------------------------------------
    def _model(self, data: IntegralForm, clock: Clock | None = None, deadline: float = 0.0) -> Any:
        """The model (module docstring). With ``clock``, building it stops (:class:`_OutOfTime`)
        when it cannot be done, and loaded by CP-SAT, by ``deadline``: on a window of 10^6 jobs
        the variables alone take seconds, the objective as long again and CP-SAT's loading about
        half that, all before CP-SAT's own time limit starts to count."""
        cp_model = _cp_model()
        model = cp_model.CpModel()
        w = data.demands.shape[0]
        x: list[Any] = []  # x[j] = 1 if job j starts now
        began = clock.elapsed() if clock is not None else 0.0
        for first in range(0, w, _CHUNK):
            x.extend(model.new_bool_var(f"x{j}") for j in range(first, min(w, first + _CHUNK)))
            if clock is not None:
                # The variables still to make, at the rate so far, then the rest of the model
                # (constraints, objective, CP-SAT's loading): about twice the variables' time.
                spent = clock.elapsed() - began
                var_time = spent * w / len(x)
                needed = var_time - spent + _REST_PER_VARIABLES * var_time
                _in_time(clock, deadline, w, f"{len(x)} of its variables", needed)

        def total(coeffs: np.ndarray) -> Any:
            # One weighted sum over the non-zero terms, in job order (the same expression as a
            # Python sum of c * x[j], built in C++: 100,000 jobs in ~0.1 s instead of ~0.7 s).
            nz = np.flatnonzero(coeffs)
            if nz.size == 0:
                return 0
            return cp_model.LinearExpr.weighted_sum(
                [x[j] for j in nz.tolist()], [int(c) for c in coeffs[nz].tolist()]
            )

        for k in _binding(data):  # constraints that cannot bind are left out
            model.add(total(data.demands[:, k]) <= int(data.capacities[k]))
        f = [total(row) for row in data.objectives]
        _in_time(clock, deadline, w, "its constraints", 0.0)
        return cp_model, model, x, f

    def _solver(
        self,
        cp_model: Any,
        budget: Budget,
        seconds: float,
        workers: int | None = None,
        jobs: int = 0,
    ) -> Any:
        solver = cp_model.CpSolver()
        if jobs >= _GUARDED_JOBS:
            # Presolve's dual reductions (DetectDominanceRelations) do not look at the time
            # limit: 14 s on 10^5 jobs under a 6 s limit. Without them the limit holds.
            solver.parameters.keep_all_feasible_solutions_in_presolve = True
        solver.parameters.num_workers = workers or self.workers
        solver.parameters.random_seed = budget.seed
        solver.parameters.max_time_in_seconds = max(seconds, 0.001)
        solver.parameters.linearization_level = self.linearization
        return solver

    def _single(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        if self.slices and _slices_apply(data):
            return self._sliced(data, budget, clock, deadline)
        cp_model, model, x, f = self._model(data, clock, deadline)
        model.maximize(f[0])
        _in_time(clock, deadline, len(x), "its objective", 0.0)
        trace: list[tuple[float, list[float]]] = []
        scale = data.objective_scale[0]

        class Incumbents(cp_model.CpSolverSolutionCallback):  # type: ignore[misc,name-defined]
            def on_solution_callback(self) -> None:
                trace.append((clock.elapsed(), [self.objective_value / scale]))

        left = deadline - clock.elapsed() - _MARGIN_S
        solver = self._solver(cp_model, budget, left, jobs=len(x))
        status = solver.solve(model, Incumbents())
        stats = {"conflicts": solver.num_conflicts, "branches": solver.num_branches, "solves": 1}
        if status == cp_model.OPTIMAL:
            return Answer(Status.OPTIMAL, [_selected(solver, x)], trace=trace, stats=stats)
        if status == cp_model.FEASIBLE:
            stats["bound"] = solver.best_objective_bound / scale
            return Answer(Status.TIMEOUT, [_selected(solver, x)], trace=trace, stats=stats)
        # UNKNOWN: no solution within the time; the base class answers with the forced jobs.
        return Answer(Status.TIMEOUT, [], trace=trace, stats=stats, notes=["no incumbent in time"])

    def _sliced(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        """M = 1 by slices of equal item count and aspiration targets (module docstring; the
        bounds are ``solvers._slices``). A round asks every slice whose bound reaches the target
        G for a selection of value in [max(G, best + 1), upper], on a model cut down by
        reduced-cost fixing at that value. After a round nothing lies in [G, upper] above the
        incumbent: if the incumbent reaches G it is optimal, otherwise upper = G − 1 and G drops
        by twice as much. Every value above the first upper is excluded by the bounds."""
        cp_model = _cp_model()
        demands, capacities = data.demands, data.capacities
        profits = data.objectives[0]
        rows = _binding(data)
        most = _slices.most_items(demands, capacities, rows)
        limits = _slices.cheap_limits(demands, capacities, profits, rows, most)
        lp = _slices.SliceLP(demands, capacities, profits, rows)
        exact: dict[int, _slices.SliceBound] = {}
        scale = data.objective_scale[0]
        best = _slices.greedy(demands, capacities, profits)
        work = [0.0]  # CP-SAT's deterministic time, all solves
        if self.dive > 0:
            best = self._dive(data, best, budget, clock, deadline, work)
        value = int(profits[best].sum()) if best else 0
        trace = [(clock.elapsed(), [value / scale])]
        counters = {"solves": 0, "rounds": 0}
        upper, delta = max(limits), _ASPIRATION_FIRST

        def limit(k: int) -> int:
            if k not in exact:
                exact[k] = lp.bound(k)
            return min(limits[k], exact[k].limit)

        while upper > value:
            counters["rounds"] += 1
            target = max(upper - delta, value + 1)
            if target - value <= self.snap * delta:
                target = value + 1  # the incumbent is close: one round proves or beats it
            # Slices by decreasing exact bound: the likeliest first, so that an incumbent found
            # there raises the bar (and the fixing) for the others.
            order = sorted(
                (k for k in range(most + 1) if limits[k] >= target), key=lambda k: -limit(k)
            )
            # With ``probe``, first a short look in every slice for a better incumbent: the
            # proofs' reduced-cost fixing is then done at a higher value.
            for probe in (self.probe, 0.0) if self.probe > 0 else (0.0,):
                for k in order:
                    if clock.elapsed() >= deadline - _MARGIN_S:
                        return self._sliced_answer(
                            Status.TIMEOUT, best, trace, counters, work, upper
                        )
                    low = max(target, value + 1)
                    if limit(k) < low:
                        continue
                    found = self._slice(
                        cp_model,
                        data,
                        k,
                        exact[k],
                        low,
                        min(upper, limit(k)),
                        budget,
                        clock,
                        deadline,
                        work,
                        probe,
                    )
                    counters["solves"] += 1
                    if found is None:  # out of time, unproven
                        return self._sliced_answer(
                            Status.TIMEOUT, best, trace, counters, work, upper
                        )
                    if found:
                        best, value = found, int(profits[found].sum())
                        trace.append((clock.elapsed(), [value / scale]))
            if value >= target:
                break
            upper, delta = target - 1, _ASPIRATION_GROWTH * delta
        return self._sliced_answer(Status.OPTIMAL, best, trace, counters, work, value)

    def _dive(
        self,
        data: IntegralForm,
        start: list[int],
        budget: Budget,
        clock: Clock,
        deadline: float,
        work: list[float],
    ) -> list[int]:
        """A starting incumbent for the sliced search: CP-SAT on the whole model for ``dive``
        deterministic seconds, hinted with ``start`` (a feasible selection); the better of the
        two. Only an incumbent: nothing it returns is taken as proven."""
        left = deadline - clock.elapsed() - _MARGIN_S
        if left <= 0:
            return start
        cp_model, model, x, f = self._model(data)
        model.maximize(f[0])
        chosen = set(start)
        for j, var in enumerate(x):
            model.add_hint(var, j in chosen)
        solver = self._solver(cp_model, budget, left)
        solver.parameters.max_deterministic_time = self.dive
        result = solver.solve(model)
        work[0] += solver.deterministic_time
        if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return start
        found = _selected(solver, x)
        profits = data.objectives[0]
        feasible = bool(np.all(data.demands[found].sum(axis=0) <= data.capacities))
        if feasible and int(profits[found].sum()) > int(profits[start].sum()):
            return found
        return start

    def _slice(
        self,
        cp_model: Any,
        data: IntegralForm,
        k: int,
        bound: _slices.SliceBound,
        low: int,
        high: int,
        budget: Budget,
        clock: Clock,
        deadline: float,
        work: list[float],
        probe: float = 0.0,
    ) -> list[int] | None:
        """The best selection of exactly ``k`` items with value in [low, high], on the model
        left after reduced-cost fixing at ``low``; [] when there is none, None when the time ran
        out first. Lean settings first, CP-SAT's defaults if a lean solve stops unproven. CP-SAT's
        deterministic time is added to ``work[0]``. With ``probe`` > 0 only a look for some
        selection in the range within ``probe`` deterministic seconds: the first one found, or
        [] when none was (which proves nothing)."""
        fix = bound.fixing(low)
        if fix.gap < 0 or len(fix.ones) > k:
            return []
        demands, profits = data.demands, data.objectives[0]
        ones = list(fix.ones)
        fixed = set(ones) | set(fix.zeros)
        free = [j for j in range(demands.shape[0]) if j not in fixed]
        used = demands[ones].sum(axis=0) if ones else np.zeros(demands.shape[1], dtype=np.int64)
        const = int(profits[ones].sum()) if ones else 0
        if np.any(used > data.capacities) or k - len(ones) > len(free):
            return []
        model = cp_model.CpModel()
        x = {j: model.new_bool_var(f"x{j}") for j in free}
        for r in _binding(data):
            terms = [int(demands[j, r]) * x[j] for j in free if demands[j, r]]
            if terms:
                model.add(sum(terms) <= int(data.capacities[r]) - int(used[r]))
        model.add(sum(x.values()) == k - len(ones))
        _penalty_row(model, x, bound, fix.gap)
        gain = sum(int(profits[j]) * x[j] for j in free)
        model.add_linear_constraint(gain, low - const, high - const)
        model.maximize(gain)
        lean = True
        while True:
            left = deadline - clock.elapsed() - _MARGIN_S
            if left <= 0:
                return None
            solver = self._solver(cp_model, budget, left)
            _tune_epsilon_step(cp_model, solver.parameters, lean)
            if lean:
                solver.parameters.max_deterministic_time = probe or _SLICE_LEAN_DTIME
                # Presolve pays here, with the penalty row (2.3 against 3.2 deterministic s
                # over six Chu-Beasley-recipe instances; the ε-steps are faster without it).
                solver.parameters.cp_model_presolve = True
            solver.parameters.stop_after_first_solution = probe > 0
            result = solver.solve(model)
            work[0] += solver.deterministic_time
            if result == cp_model.OPTIMAL or (probe > 0 and result == cp_model.FEASIBLE):
                return sorted(ones + [j for j in free if solver.boolean_value(x[j])])
            if result == cp_model.INFEASIBLE or probe > 0:
                return []
            if not lean:
                return None
            lean = False

    @staticmethod
    def _sliced_answer(
        status: Status,
        best: list[int],
        trace: list[Any],
        counters: dict[str, int],
        work: list[float],
        bound: int,
    ) -> Answer:
        stats: dict[str, Any] = {**counters, "dtime": round(work[0], 3), "method": "slices"}
        if status != Status.OPTIMAL:
            stats["bound"] = bound
        return Answer(status, [best], trace=trace, stats=stats)

    def _epsilon(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        """The ε-constraint loop for M = 2 (module docstring). With ``workers >= 2`` it runs from
        both ends at once in two threads (CP-SAT releases the GIL): one end walks the front by
        decreasing f_0, the other by decreasing f_1, until they meet — a step finds no further
        point, or returns the other end's last one, or passes it."""
        o = data.objectives
        low = [int(v) for v in np.minimum(o, 0).sum(axis=1)]  # the range each objective spans
        high = [int(v) for v in np.maximum(o, 0).sum(axis=1)]
        ends = [_End(0, 1), _End(1, 0)] if self.workers >= 2 else [_End(0, 1)]
        share = max(1, self.workers // len(ends))
        lock = threading.Lock()
        complete = threading.Event()
        resource_objective = _objective_follows_a_resource(data)
        out_of_time: list[str] = []  # why an end never got its model

        def run(end: _End, other: _End | None) -> None:
            a, b = end.primary, end.secondary
            try:
                cp_model, model, xs, f = self._model(data, clock, deadline)
            except _OutOfTime as exc:
                with lock:
                    out_of_time.append(str(exc))
                return
            # One two-sided constraint per non-constant objective, built once; only its bounds
            # change between solves.
            limits = {
                i: model.add_linear_constraint(f[i], low[i], high[i])
                for i in (0, 1)
                if np.any(o[i])
            }
            # Lexicographic (f_a, f_b) as one integer objective when it fits comfortably in
            # int64; otherwise two solves (max f_a, then f_b with f_a fixed).
            big = high[b] - low[b] + 1
            span = big * max(abs(low[a]), abs(high[a])) + max(abs(low[b]), abs(high[b]))
            combined = span < 2**62
            if combined:
                model.maximize(big * f[a] + f[b])

            # Lean solves (no cuts, LP-guided branching, no presolve) suit most of these
            # knapsacks; CP-SAT's cuts are needed when an objective is (near) a resource. A lean
            # solve over _LEAN_DTIME is redone with cuts, and so is the rest of this end.
            lean = not resource_objective

            def step() -> tuple[Any, Any]:
                """One solve under the current bounds: (CP-SAT status, solver), or (None, None)
                when no time is left."""
                nonlocal lean
                while True:
                    left = deadline - clock.elapsed() - _MARGIN_S
                    if left <= 0:
                        return None, None
                    solver = self._solver(cp_model, budget, left, workers=share, jobs=len(xs))
                    _tune_epsilon_step(cp_model, solver.parameters, lean)
                    end.solver = solver
                    result = solver.solve(model)
                    end.solves += 1
                    if not lean or result in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
                        return result, solver
                    if complete.is_set() or deadline - clock.elapsed() - _MARGIN_S <= 0:
                        return result, solver  # stopped, not over its work limit
                    lean = False  # over _LEAN_DTIME: redo this step with cuts

            while not complete.is_set():
                with lock:
                    last, seen = end.last, (None if other is None else other.last)
                if last is not None and seen is not None and last[b] >= seen[b]:
                    complete.set()  # the two ends have met: every front point is found
                    return
                # The next point has a larger f_b than the last one (hence a smaller f_a).
                floor_b = low[b] if last is None else int(last[b]) + 1
                cap_a = high[a] if last is None or lean else int(last[a]) - 1
                if floor_b > high[b] or cap_a < low[a]:
                    complete.set()  # no room for another point: the front is complete
                    return
                if b in limits:
                    _set_bounds(limits[b], floor_b, high[b])
                if a in limits:
                    _set_bounds(limits[a], low[a], cap_a)
                if combined:
                    result, solver = step()
                else:
                    model.maximize(f[a])
                    result, solver = step()
                    if result == cp_model.OPTIMAL:
                        best = int(o[a, _selected(solver, xs)].sum())  # exact, unlike a float
                        _set_bounds(limits[a], best, best)
                        for v in xs:
                            model.add_hint(v, solver.boolean_value(v))
                        model.maximize(f[b])
                        result, solver = step()
                        model.clear_hints()
                if result is None or complete.is_set():
                    return  # out of time, or the other end finished (this solve may be cut short)
                if result == cp_model.INFEASIBLE:
                    complete.set()  # no point with a larger f_b: the front is complete
                    return
                if result != cp_model.OPTIMAL:
                    return  # unproven at the deadline: maybe not on the front, so not reported
                chosen = _selected(solver, xs)
                point = o[:, chosen].sum(axis=1)
                if seen is not None and point[b] >= seen[b]:
                    # The other end's last point again (a front point with f_b >= it must be
                    # that point): nothing lay between the two ends.
                    complete.set()
                    return
                with lock:
                    end.found.append((clock.elapsed(), chosen, point))
                    end.last = point

        if len(ends) == 1:
            run(ends[0], None)
        else:
            threads = [
                threading.Thread(target=run, args=(ends[0], ends[1]), daemon=True),
                threading.Thread(target=run, args=(ends[1], ends[0]), daemon=True),
            ]
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                if complete.is_set():  # stop the other end's solve, now pointless
                    for end in ends:
                        if end.solver is not None:
                            end.solver.stop_search()
                for t in threads:
                    t.join(timeout=0.01)
        found = sorted((item for end in ends for item in end.found), key=lambda item: item[0])
        return Answer(
            Status.OPTIMAL if complete.is_set() else Status.TIMEOUT,
            [sel for _t, sel, _pt in found],
            trace=[(t, list(pt / data.objective_scale)) for t, _sel, pt in found],
            stats={
                "solves": sum(e.solves for e in ends),
                "front": len({tuple(pt) for _t, _sel, pt in found}),
                "ends": len(ends),
            },
            notes=out_of_time[:1],
        )

    def _two_phase(
        self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float
    ) -> Answer:
        """The two-phase exact method for M = 2 (``method="two-phase"``; module docstring).

        Phase 1 finds the extreme supported points: the two lexicographic optima, then for two
        adjacent supported points a, b (a_0 > b_0) the maximum of λ · f with λ = (b_1 − a_1,
        a_0 − b_0) among selections with λ · f >= λ · a + 1; a new point c splits (a, b) into
        (a, c) and (c, b), none means the segment ab is a face of the hull. Phase 2 walks each
        triangle between adjacent supported points by ε-steps (max f_0, then f_1, subject to
        f_1 >= ε and f_0 >= b_0 + 1), which finds every front point strictly between a and b.
        Every solve is on a model without the items reduced-cost fixing (``solvers._two_phase``)
        proves in or out of every selection it could return: λ · f >= λ · a + 1 in phase 1,
        λ · f >= λ · (b_0 + 1, a_1 + 1) in a triangle. Segments are solved before triangles, so
        the supported points, spread over the whole front, come first (anytime); ``workers``
        threads take tasks from one queue, one CP-SAT worker each."""
        cp_model = _cp_model()
        o = data.objectives
        demands, capacities = data.demands, data.capacities
        rows = _binding(data)
        w = demands.shape[0]
        high = [int(v) for v in np.maximum(o, 0).sum(axis=1)]
        low = [int(v) for v in np.minimum(o, 0).sum(axis=1)]
        lean_default = not _objective_follows_a_resource(data)
        found: list[tuple[float, list[int], np.ndarray]] = []
        lock = threading.Condition()
        stopped = threading.Event()  # out of time, or a solve without proof
        counters = {"solves": 0, "pending": 0, "free": 0, "models": 0}
        failures: list[BaseException] = []
        out_of_time: list[str] = []  # why building a model stopped at the deadline
        tasks: list[tuple[int, int, str, tuple[int, int], tuple[int, int], tuple[int, int]]] = []
        bounds: dict[tuple[int, int], _two_phase.Bound] = {}

        def bound(lam: tuple[int, int]) -> _two_phase.Bound:
            with lock:
                known = bounds.get(lam)
            if known is None:
                known = _two_phase.Bound.of(demands, capacities, lam, o, rows)
                with lock:
                    bounds[lam] = known
            return known

        def solve(model: Any) -> tuple[Any, Any]:
            lean = lean_default
            while True:
                left = deadline - clock.elapsed() - _MARGIN_S
                if left <= 0 or stopped.is_set():
                    return None, None
                solver = self._solver(cp_model, budget, left, workers=1)
                _tune_epsilon_step(cp_model, solver.parameters, lean)
                result = solver.solve(model)
                with lock:
                    counters["solves"] += 1
                if not lean or result in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
                    return result, solver
                if deadline - clock.elapsed() - _MARGIN_S <= 0:
                    return result, solver
                lean = False  # over _LEAN_DTIME: redo with CP-SAT's defaults

        def record(selection: list[int]) -> tuple[int, int]:
            point = o[:, selection].sum(axis=1)
            with lock:
                found.append((clock.elapsed(), selection, point))
            return int(point[0]), int(point[1])

        def in_time(what: str) -> None:
            """Stop building (:class:`_OutOfTime`) once the deadline is past: no solve would
            start then (``solve``), so stopping here changes no answer, only when it comes."""
            elapsed = clock.elapsed()
            if deadline - elapsed - _MARGIN_S <= 0:
                raise _OutOfTime(
                    f"two-phase: the deadline passed while building {what} "
                    f"(at {elapsed:.3g} s of {deadline:.3g} s, {w} jobs)"
                )

        def submodel(ones: tuple[int, ...], zeros: tuple[int, ...]) -> Any:
            """CP-SAT model over the items not fixed: (model, x, free-part expressions g_i,
            constants of f_i), or None when the fixed items alone overflow a capacity. Built
            under the clock (``in_time``): on a large window every piece takes seconds. The
            clock is looked at only where a solve follows (items left free), so that stopping
            changes no answer."""
            fixed = set(ones) | set(zeros)
            free = [j for j in range(w) if j not in fixed]
            used = demands[list(ones)].sum(axis=0) if ones else np.zeros(demands.shape[1])
            const = [int(v) for v in (o[:, list(ones)].sum(axis=1) if ones else np.zeros(2))]
            caps = {k: int(capacities[k]) - int(used[k]) for k in rows}
            if any(cap < 0 for cap in caps.values()):
                return None
            model = cp_model.CpModel()
            x: dict[int, Any] = {}
            for first in range(0, len(free), _CHUNK):
                x.update((j, model.new_bool_var(f"x{j}")) for j in free[first : first + _CHUNK])
                in_time(f"a model's variables ({len(x)} of {len(free)})")
            for k, cap in caps.items():
                terms = [int(demands[j, k]) * x[j] for j in free if demands[j, k]]
                if terms and int(demands[free, k].sum()) > cap:
                    model.add(sum(terms) <= cap)
                    in_time(f"a model's constraint on resource {k}")
            g = []
            for i in (0, 1):
                g.append(sum(int(o[i, j]) * x[j] for j in free if o[i, j]))
                if free:
                    in_time(f"a model's objective {i}")
            with lock:
                counters["free"] += len(free)
                counters["models"] += 1
            return model, x, g, const, list(ones)

        def chosen(solver: Any, x: dict[int, Any], ones: list[int]) -> list[int]:
            return sorted(ones + [j for j, v in x.items() if solver.boolean_value(v)])

        def lexicographic(a: int) -> tuple[int, int] | None:
            """The front point with the largest f_a (and the largest f_b for it)."""
            b = 1 - a
            try:
                built = submodel((), ())
            except _OutOfTime as exc:
                out_of_time.append(str(exc))
                stopped.set()
                return None
            assert built is not None  # nothing fixed, and every capacity is >= 0
            model, x, g, _const, ones = built
            model.maximize((high[b] - low[b] + 1) * g[a] + g[b])
            result, solver = solve(model)
            if result != cp_model.OPTIMAL:
                stopped.set()
                return None
            return record(chosen(solver, x, ones))

        def segment(a: tuple[int, int], b: tuple[int, int], lam: tuple[int, int]) -> list[Any]:
            threshold = lam[0] * a[0] + lam[1] * a[1] + 1
            fix = bound(lam).fixing(threshold)
            if fix.gap < 0:
                return [(1, "triangle", a, b, lam)]
            built = submodel(fix.ones, fix.zeros)
            if built is None:
                return [(1, "triangle", a, b, lam)]
            model, x, g, const, ones = built
            if not x:  # every item fixed: the fixed selection is the only candidate
                value = lam[0] * const[0] + lam[1] * const[1]
                if value < threshold:
                    return [(1, "triangle", a, b, lam)]
                c = record(sorted(ones))
                return [(0, "segment", a, c, _weights(a, c)), (0, "segment", c, b, _weights(c, b))]
            weighted = lam[0] * g[0] + lam[1] * g[1]
            model.add(weighted >= threshold - lam[0] * const[0] - lam[1] * const[1])
            model.maximize(weighted)
            result, solver = solve(model)
            if result == cp_model.INFEASIBLE:
                return [(1, "triangle", a, b, lam)]
            if result != cp_model.OPTIMAL:
                stopped.set()
                return []
            c = record(chosen(solver, x, ones))
            return [(0, "segment", a, c, _weights(a, c)), (0, "segment", c, b, _weights(c, b))]

        def triangle(a: tuple[int, int], b: tuple[int, int], lam: tuple[int, int]) -> list[Any]:
            """Front points strictly between a and b; ``lam``: the hull face's weights."""
            if a[0] - b[0] < 2 or b[1] - a[1] < 2:
                return []  # no whole point strictly between
            threshold = lam[0] * (b[0] + 1) + lam[1] * (a[1] + 1)
            fix = bound(lam).fixing(threshold)
            if fix.gap < 0:
                return []
            built = submodel(fix.ones, fix.zeros)
            if built is None:
                return []
            model, x, g, const, ones = built
            if not x:
                if const[0] > b[0] and const[1] > a[1]:
                    record(sorted(ones))
                return []
            model.add_linear_constraint(g[0], b[0] + 1 - const[0], high[0] - const[0])
            model.add_linear_constraint(g[1], a[1] + 1 - const[1], high[1] - const[1])
            model.maximize((high[1] - low[1] + 1) * g[0] + g[1])
            result, solver = solve(model)
            if result == cp_model.INFEASIBLE:
                return []
            if result != cp_model.OPTIMAL:
                stopped.set()
                return []
            # The lexicographic optimum p of the triangle: the front points left in it lie
            # strictly between p and b, a smaller triangle with its own (stronger) fixing.
            return [(1, "triangle", record(chosen(solver, x, ones)), b, lam)]

        def work() -> None:
            try:
                while True:
                    with lock:
                        while not tasks and counters["pending"] and not stopped.is_set():
                            lock.wait(0.05)
                        if stopped.is_set() or not tasks:
                            lock.notify_all()
                            return
                        _prio, _seq, kind, a, b, lam = heapq.heappop(tasks)
                        counters["pending"] += 1
                    try:  # a segment of phase 1 or a triangle of phase 2, built on the clock
                        new = segment(a, b, lam) if kind == "segment" else triangle(a, b, lam)
                    except _OutOfTime as exc:
                        with lock:
                            out_of_time.append(str(exc))
                        stopped.set()
                        new = []
                    with lock:
                        for prio, kind2, a2, b2, lam2 in new:
                            heapq.heappush(tasks, (prio, next(sequence), kind2, a2, b2, lam2))
                        counters["pending"] -= 1
                        lock.notify_all()
            except BaseException as exc:  # recorded, re-raised by the calling thread
                with lock:
                    failures.append(exc)
                    stopped.set()
                    lock.notify_all()

        sequence = itertools.count()
        a, b = lexicographic(0), lexicographic(1)
        if a is not None and b is not None and a != b:
            heapq.heappush(tasks, (0, next(sequence), "segment", a, b, _weights(a, b)))
            run_threads([work] * max(1, self.workers))
        if failures:
            raise failures[0]
        found.sort(key=lambda item: item[0])
        complete = a is not None and b is not None and not stopped.is_set()
        return Answer(
            Status.OPTIMAL if complete else Status.TIMEOUT,
            [sel for _t, sel, _pt in found],
            trace=[(t, list(pt / data.objective_scale)) for t, _sel, pt in found],
            stats={
                "solves": counters["solves"],
                "front": len({tuple(pt) for _t, _sel, pt in found}),
                "mean_free_items": round(counters["free"] / max(1, counters["models"]), 1),
                "method": "two-phase",
            },
            notes=out_of_time[:1],
        )

    def _front(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        cp_model, model, x, f = self._model(data, clock, deadline)
        model.maximize(sum(f))
        _in_time(clock, deadline, len(x), "its objective", 0.0)
        selections: list[list[int]] = []
        trace: list[tuple[float, list[float]]] = []
        status, solves = Status.OPTIMAL, 0
        while True:
            left = deadline - clock.elapsed() - _MARGIN_S
            if left <= 0:
                status = Status.TIMEOUT
                break
            solver = self._solver(cp_model, budget, left, jobs=len(x))
            result = solver.solve(model)
            solves += 1
            if result == cp_model.INFEASIBLE:
                break  # no point left outside the found points' dominance cones: front complete
            if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                status = Status.TIMEOUT
                break
            if result == cp_model.FEASIBLE:
                status = Status.TIMEOUT  # an unproven point may be dominated: not reported
                break
            chosen = _selected(solver, x)
            point = data.objectives[:, chosen].sum(axis=1)
            selections.append(chosen)
            trace.append((clock.elapsed(), list(point / data.objective_scale)))
            # Cut off everything weakly dominated by this point: some objective must improve.
            # (An objective with no job contributing is constant and can never improve.)
            varying = [i for i in range(len(f)) if np.any(data.objectives[i])]
            if not varying:
                break
            better = [model.new_bool_var(f"better{solves}_{i}") for i in varying]
            for i, lit in zip(varying, better, strict=True):
                model.add(f[i] >= int(point[i]) + 1).only_enforce_if(lit)
            model.add_bool_or(better)
        return Answer(
            status, selections, trace=trace, stats={"solves": solves, "front": len(selections)}
        )


@dataclass
class _End:
    """One end of the ε-constraint enumeration: maximise f_primary, then f_secondary."""

    primary: int
    secondary: int
    last: np.ndarray | None = None  # the last proven front point
    found: list[Any] = field(default_factory=list)  # (time, selection, point)
    solves: int = 0
    solver: Any = None


def _weights(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The whole, coprime weights λ > 0 normal to the segment from a to b (a_0 > b_0,
    a_1 < b_1): λ · a = λ · b."""
    lam0, lam1 = b[1] - a[1], a[0] - b[0]
    g = math.gcd(lam0, lam1)
    return lam0 // g, lam1 // g


def _two_phase_applies(data: IntegralForm) -> bool:
    """Whether the two-phase method can run: both objectives vary, and the lexicographic
    objective span · f_a + f_b fits comfortably in int64 (otherwise the ε-constraint method)."""
    o = data.objectives
    if not (np.any(o[0]) and np.any(o[1])):
        return False
    low = np.minimum(o, 0).sum(axis=1)
    high = np.maximum(o, 0).sum(axis=1)
    span = (high - low + 1).astype(object)
    extent = np.maximum(np.abs(low), np.abs(high)).astype(object)
    return bool(span[1] * extent[0] + extent[1] < 2**62 and span[0] * extent[1] + extent[0] < 2**62)


def _penalty_row(model: Any, x: dict[int, Any], bound: _slices.SliceBound, gap: int) -> None:
    """pen(x) <= gap (``solvers._slices``) as one linear row over the free items, coefficients
    divided by ``_PENALTY_SHIFT`` and floored (so the row stays valid): the LP implies it, but
    CP-SAT propagates a row at every node and its LP only now and then."""
    terms, rhs = [], gap // _PENALTY_SHIFT
    for j, var in x.items():
        a = abs(bound.r[j]) // _PENALTY_SHIFT
        if a and bound.r[j] > 0:
            terms.append(-a * var)  # a (1 - x_j): the constant a goes to the right-hand side
            rhs -= a
        elif a:
            terms.append(a * var)
    if terms:
        model.add(sum(terms) <= rhs)


def _slices_apply(data: IntegralForm) -> bool:
    """Whether M = 1 is solved by slices (``CPSATSolver._sliced``): windows of up to
    ``_SLICED_MAX_JOBS`` jobs, non-negative demands, and an objective that does not follow a
    resource (there the LP bound is weak and the proofs rest on CP-SAT's cuts)."""
    w = data.demands.shape[0]
    return (
        0 < w <= _SLICED_MAX_JOBS
        and bool(np.all(data.demands >= 0))
        and bool(_binding(data))
        and not _objective_follows_a_resource(data)
    )


def _binding(data: IntegralForm) -> list[int]:
    """The resources whose constraint can bind (all the window's demands exceed the capacity)."""
    return [k for k in range(data.capacities.size) if data.demands[:, k].sum() > data.capacities[k]]


def _objective_follows_a_resource(data: IntegralForm) -> bool:
    """Whether some objective is an increasing affine function of a binding resource's demands,
    o_j = α · d_j + β with α > 0: BBSched's objectives are the node and burst-buffer demands
    themselves, and "strongly correlated" knapsacks have profit = weight + constant. The LP bound
    of such an objective is then (about) the capacity, so the proofs rest on cuts."""

    def shape(values: np.ndarray) -> tuple[int, ...] | None:
        shifted = values - values.min()
        if not np.any(shifted):
            return None  # constant: follows nothing
        return tuple((shifted // np.gcd.reduce(shifted)).tolist())

    columns = {shape(data.demands[:, k]) for k in _binding(data)} - {None}
    return any(shape(row) in columns for row in data.objectives)


def _tune_epsilon_step(cp_model: Any, parameters: Any, lean: bool) -> None:
    """CP-SAT parameters for one ε-step (measurements in the module docstring). ``lean``: no cuts
    (they multiply the LP's size and cost more than they prune on these 2-resource knapsacks),
    branching guided by the LP, no presolve or inprocessing, and a work limit of ``_LEAN_DTIME``;
    otherwise CP-SAT's defaults."""
    if lean:
        parameters.use_sat_inprocessing = False
        parameters.cut_level = 0
        parameters.search_branching = cp_model.LP_SEARCH
        parameters.cp_model_presolve = False
        parameters.max_deterministic_time = _LEAN_DTIME


def _set_bounds(constraint: Any, lower: int, upper: int) -> None:
    """Rewrite the bounds of a one-interval linear constraint in place (the model is reused)."""
    domain = constraint.proto.linear.domain
    domain[0] = int(lower)
    domain[1] = int(upper)


def _selected(solver: Any, x: Any) -> list[int]:
    return [j for j, var in enumerate(x) if solver.boolean_value(var)]
