"""``cpsat``: OR-Tools CP-SAT on the selection problem (issue 4, item 1).

Model (the same for every M; data made integral by ``solvers._integral``)::

    x[j] ∈ {0, 1}                      # x[j] = 1 if job j of the window starts now
    Σ_j d[j][k] · x[j] <= C[k]         # every resource k (BBSched §3.2.1; Cerberus eqs.)
    f_i = Σ_j o[i][j] · x[j]           # objective i

* **M = 1**: maximise f_0. ``optimal`` only when CP-SAT proves it (and the integer form is
  exact); if the deadline or ``time_limit_s`` comes first the best incumbent is returned with
  status ``timeout``. The anytime trace is every incumbent the solution callback sees.
* **M = 2, the exact Pareto front by the ε-constraint method with a lexicographic objective**:
  maximise (Σ f_1 + 1) · f_0 + f_1 subject to f_1 >= ε, which gives the front point with the
  largest f_0 among those with f_1 >= ε (and the largest f_1 for that f_0); then ε = f_1* + 1 and,
  as the next point must have a larger f_1, f_0 <= f_0* − 1. The loop ends when the model is
  infeasible: |front| + 1 solves of a model that does not grow.
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

Determinism: with ``workers = 1`` (default) and the seed from the budget, the same problem gives
the same answer when the solve finishes before the deadline; with more workers CP-SAT's parallel
portfolio may return a different one of several equal optima.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from simcore.problem import Budget, SelectionProblem, Status
from solvers._integral import IntegralForm
from solvers.base import Answer, BaseSolver, Clock, param

#: Time kept back from each CP-SAT call for model building and returning.
_MARGIN_S = 0.05


def _cp_model():
    # Imported on use: listing solvers must not pay for OR-Tools, and a process that never runs
    # CP-SAT never loads it (OR-Tools and highspy cannot share a process; see solvers/mip.py).
    from ortools.sat.python import cp_model

    return cp_model


@dataclass(frozen=True, kw_only=True, slots=True)
class CPSATSolver(BaseSolver):
    workers: int = param(1, "CP-SAT search workers (num_workers); 1 is deterministic")
    time_limit_s: float = param(0.0, "cap on the whole solve in seconds; 0 = the decision budget")
    linearization: int = param(2, "CP-SAT linearization_level (0-2); 2 helps these knapsacks")

    name = "cpsat"
    summary = "OR-Tools CP-SAT; M=1 proven optimum; M>=2 exact front (ε-constraint; cuts for M>=3)"

    def __post_init__(self) -> None:
        self._require_int("workers", 1, "an integer >= 1")
        self._require_number(
            "time_limit_s", 0.0, float("inf"), "a number of seconds >= 0 (0 = the budget)"
        )
        self._require(self.linearization in (0, 1, 2), "linearization", "0, 1 or 2")

    def warm_up(self) -> None:
        _cp_model()

    def supports(self, problem: SelectionProblem) -> tuple[bool, str]:
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
        if problem.M == 1:
            answer = self._single(data, budget, clock, deadline)
        elif problem.M == 2:
            answer = self._epsilon(data, budget, clock, deadline)
        else:
            answer = self._front(data, budget, clock, deadline)
        answer.notes[:0] = notes
        if not data.exact and answer.status == Status.OPTIMAL:
            answer.status = Status.FEASIBLE
        return answer

    # -- model --------------------------------------------------------------------------------
    def _model(self, data: IntegralForm):
        cp_model = _cp_model()
        model = cp_model.CpModel()
        w = data.demands.shape[0]
        x = [model.new_bool_var(f"x{j}") for j in range(w)]  # x[j] = 1 if job j starts now
        for k in _binding(data):  # constraints that cannot bind are left out
            coeffs = data.demands[:, k]
            model.add(
                sum(int(c) * x[j] for j, c in enumerate(coeffs) if c) <= int(data.capacities[k])
            )
        f = [sum(int(c) * x[j] for j, c in enumerate(row) if c) for row in data.objectives]
        return cp_model, model, x, f

    def _solver(self, cp_model, budget: Budget, seconds: float, workers: int | None = None):
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers or self.workers
        solver.parameters.random_seed = budget.seed
        solver.parameters.max_time_in_seconds = max(seconds, 0.001)
        solver.parameters.linearization_level = self.linearization
        return solver

    def _single(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        cp_model, model, x, f = self._model(data)
        model.maximize(f[0])
        trace: list[tuple[float, list[float]]] = []
        scale = data.objective_scale[0]

        class Incumbents(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                trace.append((clock.elapsed(), [self.objective_value / scale]))

        solver = self._solver(cp_model, budget, deadline - clock.elapsed() - _MARGIN_S)
        status = solver.solve(model, Incumbents())
        stats = {"conflicts": solver.num_conflicts, "branches": solver.num_branches, "solves": 1}
        if status == cp_model.OPTIMAL:
            return Answer(Status.OPTIMAL, [_selected(solver, x)], trace=trace, stats=stats)
        if status == cp_model.FEASIBLE:
            stats["bound"] = solver.best_objective_bound / scale
            return Answer(Status.TIMEOUT, [_selected(solver, x)], trace=trace, stats=stats)
        # UNKNOWN: no solution within the time; the base class answers with the forced jobs.
        return Answer(Status.TIMEOUT, [], trace=trace, stats=stats, notes=["no incumbent in time"])

    def _epsilon(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        """The ε-constraint loop for M = 2 (module docstring). With ``workers >= 2`` it runs from
        both ends at once in two threads (CP-SAT releases the GIL): one end walks the front by
        decreasing f_0, the other by decreasing f_1, each confined to the box strictly between its
        own last point and the other's, until either proves that box empty."""
        o = data.objectives
        low = [int(v) for v in np.minimum(o, 0).sum(axis=1)]  # the range each objective spans
        high = [int(v) for v in np.maximum(o, 0).sum(axis=1)]
        ends = [_End(0, 1), _End(1, 0)] if self.workers >= 2 else [_End(0, 1)]
        share = max(1, self.workers // len(ends))
        lock = threading.Lock()
        complete = threading.Event()
        rounding_cuts = _objective_is_a_resource(data)

        def run(end: _End, other: _End | None) -> None:
            a, b = end.primary, end.secondary
            cp_model, model, xs, f = self._model(data)
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

            def step():
                """One solve in the current box: (CP-SAT status, solver), or (None, None) when no
                time is left."""
                left = deadline - clock.elapsed() - _MARGIN_S
                if left <= 0:
                    return None, None
                solver = self._solver(cp_model, budget, left, workers=share)
                _tune_epsilon_step(solver.parameters, rounding_cuts)
                end.solver = solver
                result = solver.solve(model)
                end.solves += 1
                return result, solver

            while not complete.is_set():
                with lock:
                    last, seen = end.last, (None if other is None else other.last)
                if last is not None and seen is not None and last[b] >= seen[b]:
                    complete.set()  # the two ends have met: every front point is found
                    return
                # The next point has a larger f_b than the last one (hence a smaller f_a).
                floor_b = low[b] if last is None else int(last[b]) + 1
                cap_a = high[a] if last is None or not rounding_cuts else int(last[a]) - 1
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
            stats={"solves": sum(e.solves for e in ends), "front": len(found), "ends": len(ends)},
        )

    def _front(self, data: IntegralForm, budget: Budget, clock: Clock, deadline: float) -> Answer:
        cp_model, model, x, f = self._model(data)
        model.maximize(sum(f))
        selections: list[list[int]] = []
        trace: list[tuple[float, list[float]]] = []
        status, solves = Status.OPTIMAL, 0
        while True:
            left = deadline - clock.elapsed() - _MARGIN_S
            if left <= 0:
                status = Status.TIMEOUT
                break
            solver = self._solver(cp_model, budget, left)
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
    found: list = field(default_factory=list)  # (time, selection, point)
    solves: int = 0
    solver: object = None


def _binding(data: IntegralForm) -> list[int]:
    """The resources whose constraint can bind (all the window's demands exceed the capacity)."""
    return [k for k in range(data.capacities.size) if data.demands[:, k].sum() > data.capacities[k]]


def _objective_is_a_resource(data: IntegralForm) -> bool:
    """Whether some objective is a positive multiple of a binding resource's demands (BBSched's
    objectives are the node and burst-buffer demands). Maximising it then has the capacity as its
    LP bound, so the LP says little and the proofs rest on rounding (MIR) cuts."""

    def direction(values: np.ndarray) -> tuple[int, ...] | None:
        if not np.any(values) or np.any(values < 0):
            return None
        return tuple((values // np.gcd.reduce(values)).tolist())

    columns = {direction(data.demands[:, k]) for k in _binding(data)} - {None}
    return any(direction(row) in columns for row in data.objectives)


def _tune_epsilon_step(parameters, rounding_cuts: bool) -> None:
    """CP-SAT parameters for one ε-step (measurements in the module docstring). Cuts make the LP of
    these 2-resource knapsacks many times larger and cost more than they prune, except when an
    objective is a resource (``_objective_is_a_resource``): then MIR cuts, and only they, pay."""
    parameters.use_sat_inprocessing = False
    if rounding_cuts:
        parameters.add_cg_cuts = False
        parameters.add_zero_half_cuts = False
        parameters.add_clique_cuts = False
    else:
        parameters.cut_level = 0


def _set_bounds(constraint, lower: int, upper: int) -> None:
    """Rewrite the bounds of a one-interval linear constraint in place (the model is reused)."""
    domain = constraint.proto.linear.domain
    domain[0] = int(lower)
    domain[1] = int(upper)


def _selected(solver, x) -> list[int]:
    return [j for j, var in enumerate(x) if solver.boolean_value(var)]
