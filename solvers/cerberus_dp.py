"""``cerberus-dp``: the knapsack DP exactly as the Cerberus evaluation ran it (model note §5,
"Choosing among equal optima"; Cerberus §"Solving the Optimization Problems").

What the authors' code does
---------------------------
It fills the usual dense table ``dp(i, c)`` over the window's items *in queue order* —
``dp(i, c) = max(dp(i-1, c), dp(i-1, c - d_i) + v_i)`` with ``c`` a vector of free integer units
(one axis per resource) and the values added in IEEE double — then walks back from the last item
to the first and takes item ``i`` whenever it fits the remaining capacity and "take"
(``dp(i-1, c - d_i) + v_i``) scores *at least as high* as "skip" (``dp(i-1, c)``). Equal optima
are common (many jobs share sizes and requested times), so this tie rule decides which jobs start:
among the optimal selections it prefers the one holding the *later* items (lexicographically on
``x_w, x_{w-1}, ..., x_1``).

How this solver reproduces it without the table
-----------------------------------------------
Floating-point addition is monotone, so by induction ``dp(i, c)`` equals the largest *left-to-right
sum in window order* over the subsets of items ``1..i`` whose usage is at most ``c``. This solver
keeps, for every prefix, those subsets' usage vectors and their sums (computed item by item in
window order, exactly the additions the table performs; subsets that exceed the capacity are
dropped, and subsets with identical usage collapse to the largest sum). The walk-back then asks
``dp(i-1, c)`` as "the largest sum among the prefix's subsets that fit ``c``" — the same number
the dense table holds, bit for bit — and applies the same comparison. So the selection equals the
authors' for any capacities, with no table of free-units size (their 3-D memo of nested Python lists
takes 1.3 GB at a window of 10).

Scope: one objective (M = 1), any number of resources, integral or fractional data (the table
semantics "usage at most c" carry over). ``prefer_later=False`` flips the tie rule (take only when
strictly better: ties go to the earlier items). The prefix sets hold at most ``2^i`` subsets; for
windows beyond ~20 jobs they are bounded by the number of distinct usage vectors, and
``max_states`` (subsets held over all prefixes: memory and the walk-back's work) stops a
blow-up (status ``feasible``, with a note); the deadline is kept by forecasting each layer and
the walk-back from the time per subset so far (status ``timeout``, the jobs not reached are not
selected). Exact otherwise: status ``optimal``. For windows of 10 (the evaluation's), a decision is a few hundred microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status, capacity_slack
from schedbench.solvers.base import Answer, BaseSolver, Clock, param


@dataclass(frozen=True, kw_only=True, slots=True)
class CerberusDPSolver(BaseSolver):
    prefer_later: bool = param(
        True, "walk-back tie rule: take an item when take >= skip (True, as run) or > (False)"
    )
    max_states: int = param(
        1_000_000, "stop (status feasible) before the prefixes hold more subsets in all"
    )

    name = "cerberus-dp"
    summary = (
        "the Cerberus authors' knapsack DP: window order, IEEE sums, walk-back tie rule "
        "(ties to later jobs); M = 1, any K; exact"
    )

    def __post_init__(self) -> None:
        self._require(isinstance(self.prefer_later, bool), "prefer_later", "true or false")
        self._require_int("max_states", 1, "an integer >= 1")

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if problem.M != 1:
            return False, "one objective only (the Cerberus knapsacks have one value per job)"
        return True, ""

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        demands = problem.demands
        values = problem.objectives[0]
        w, k = demands.shape
        slack = capacity_slack(problem.capacities)
        limit = problem.capacities + slack
        # prefix[i] = (usage, sums) of the kept subsets of items 0..i-1
        usage = np.zeros((1, k))
        sums = np.zeros(1)
        prefix: list[tuple[np.ndarray, np.ndarray]] = [(usage, sums)]
        status, notes = Status.OPTIMAL, []
        held = 1  # subsets held over all prefixes (memory, and the walk-back's work)
        per_subset = 0.0  # seconds per subset of the last layer
        for i in range(w):
            # a layer at most doubles the subsets, and the walk-back reads every prefix once:
            # stop before a layer that could not finish with its walk-back by the deadline
            forecast = per_subset * (2 * usage.shape[0] + held)
            if clock.remaining() <= forecast:
                status = Status.TIMEOUT
                notes.append(f"deadline reached after {i} of {w} jobs; later jobs not selected")
                break
            if held + 2 * usage.shape[0] > self.max_states:
                status = Status.FEASIBLE
                notes.append(
                    f"state limit max_states={self.max_states} reached after {i} of {w} jobs; "
                    "later jobs not selected"
                )
                break
            t_layer = clock.elapsed()
            n_before = usage.shape[0]
            grown = usage + demands[i]
            fit = np.all(grown <= limit, axis=1)
            usage = np.concatenate([usage, grown[fit]])
            sums = np.concatenate([sums, sums[fit] + values[i]])  # the table's addition
            if i >= 12:  # before that, 2^i subsets are cheaper than the sort
                usage, sums = _collapse(usage, sums)
            prefix.append((usage, sums))
            held += usage.shape[0]
            per_subset = max(per_subset * 0.5, (clock.elapsed() - t_layer) / max(n_before, 1))
        n = len(prefix) - 1  # items the prefixes cover
        chosen: list[int] = []
        remaining = problem.capacities.astype(np.float64).copy()
        for i in range(n - 1, -1, -1):
            d = demands[i]
            if not np.all(d <= remaining + slack):
                continue
            take = _best(prefix[i], remaining - d, slack) + values[i]
            skip = _best(prefix[i], remaining, slack)
            if take > skip or (self.prefer_later and take == skip):
                chosen.append(i)
                remaining = remaining - d
        stats = {"subsets_final": int(prefix[-1][1].size), "jobs_processed": n}
        return Answer(status, [sorted(chosen)], stats=stats, notes=notes)


def _best(state: tuple[np.ndarray, np.ndarray], capacity: np.ndarray, slack: np.ndarray) -> float:
    """dp(i, capacity): the largest window-order sum among the prefix's subsets that fit."""
    usage, sums = state
    fit = np.all(usage <= capacity + slack, axis=1)
    return float(sums[fit].max()) if fit.any() else -np.inf


def _collapse(usage: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Subsets with identical usage vectors answer every dp(i, c) query alike: keep the one
    with the largest sum (the query takes a maximum)."""
    order = np.lexsort((-sums, *usage.T[::-1]))
    usage, sums = usage[order], sums[order]
    first = np.ones(usage.shape[0], dtype=bool)
    first[1:] = np.any(usage[1:] != usage[:-1], axis=1)
    return usage[first], sums[first]
