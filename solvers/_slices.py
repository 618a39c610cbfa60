"""Exact bounds for ``cpsat``'s single-objective knapsacks, one *slice* at a time: the selections
with exactly k items (the search itself is ``CPSATSolver._sliced`` in ``solvers.cpsat``).

Every selection has some number of items k, so the slices k = 0 .. ``most_items`` cover them all;
a slice whose bound is below the value sought holds nothing worth searching. Fixing the number of
items tightens the LP bound of a correlated multidimensional knapsack (Chu–Beasley's recipe) a
great deal, and with it reduced-cost fixing: Vimont, Boussier and Vasquez (2008), "Reduced costs
propagation in an efficient implicit enumeration for the 01 multidimensional knapsack problem",
J. Comb. Optim. 15, solve OR-Library's instances by this decomposition.

The bounds (exact in integers, whatever the LP's floating-point error, as in
``solvers._two_phase``): for profits c, multipliers u >= 0 on the capacity rows and any μ on the
row Σ_j x_j = k, every selection x of k items with D x <= C satisfies

    c · x <= u · C + μ k + Σ_j r_j x_j = z − pen(x),   r_j = c_j − u · D_j − μ,
    z = u · C + μ k + Σ_j max(r_j, 0),   pen(x) = Σ_{r_j > 0} r_j (1 − x_j) + Σ_{r_j < 0} −r_j x_j,

so a selection of k items with c · x >= T has every item with r_j > z − T in it and every item
with −r_j > z − T out of it. u and μ come from GLOP's duals of the slice's LP (or, for the cheap
bound of every slice, u from the LP without the row and the best μ for that u, which makes z the
u · C plus the k largest c_j − u · D_j); they are scaled by ``SCALE`` and rounded to integers, so
rounding costs strength, never validity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.solvers._two_phase import SCALE, Fixing, lp_row_duals


def most_items(demands: np.ndarray, capacities: np.ndarray, rows: list[int]) -> int:
    """The largest number of items any feasible selection can hold: for each binding row, how
    many of its smallest demands fit in its capacity (exact, in integers)."""
    w = demands.shape[0]
    most = w
    for k in rows:
        cumulative = np.cumsum(np.sort(demands[:, k].astype(np.int64)))
        most = min(most, int(np.searchsorted(cumulative, int(capacities[k]), side="right")))
    return most


def greedy(demands: np.ndarray, capacities: np.ndarray, profits: np.ndarray) -> list[int]:
    """A feasible selection: items by decreasing profit per unit of relative demand, each taken
    when it still fits (a starting incumbent, nothing more)."""
    caps = np.maximum(capacities.astype(np.float64), 1.0)
    load = (demands / caps).sum(axis=1)
    order = np.argsort(-(profits / np.maximum(load, 1e-12)), kind="stable")
    left = capacities.astype(np.int64).copy()
    chosen = []
    for j in order.tolist():
        if profits[j] > 0 and np.all(demands[j] <= left):
            left -= demands[j]
            chosen.append(j)
    return sorted(chosen)


@dataclass(frozen=True, slots=True)
class SliceBound:
    """The bound of one slice: the r_j (scaled by ``SCALE``, Python integers) and z."""

    r: tuple[int, ...]
    z: int

    def fixing(self, threshold: int) -> Fixing:
        """The items fixed in every selection of this slice with c · x >= ``threshold``."""
        gap = self.z - SCALE * int(threshold)
        if gap < 0:
            return Fixing((), (), gap)
        ones = tuple(j for j, v in enumerate(self.r) if v > gap)
        zeros = tuple(j for j, v in enumerate(self.r) if -v > gap)
        return Fixing(ones, zeros, gap)

    @property
    def limit(self) -> int:
        """The largest whole value a selection of the slice can have."""
        return self.z // SCALE


def _bound(
    demands: np.ndarray,
    capacities: np.ndarray,
    profits: list[int],
    rows: list[int],
    u: list[int],
    mu: int,
    k: int,
) -> SliceBound:
    cols = [[int(v) for v in demands[:, i].tolist()] for i in rows]
    r = tuple(
        SCALE * c - sum(u[a] * cols[a][j] for a in range(len(rows))) - mu
        for j, c in enumerate(profits)
    )
    z = sum(u[a] * int(capacities[i]) for a, i in enumerate(rows)) + mu * k
    return SliceBound(r, z + sum(v for v in r if v > 0))


def cheap_limits(
    demands: np.ndarray, capacities: np.ndarray, profits: np.ndarray, rows: list[int], most: int
) -> list[int]:
    """For k = 0 .. ``most``: a bound on the profit of any selection of k items (one LP solve for
    all: u from the LP without the cardinality row, μ chosen per k)."""
    c = [int(v) for v in profits.tolist()]
    duals = lp_row_duals(demands, capacities, profits.astype(np.float64), rows)
    u = [round(max(0.0, d) * SCALE) for d in duals]
    base = _bound(demands, capacities, c, rows, u, 0, 0)
    top = sorted(base.r, reverse=True)
    constant = sum(u[a] * int(capacities[i]) for a, i in enumerate(rows))
    limits, total = [], constant
    for k in range(most + 1):
        limits.append(total // SCALE)
        if k < len(top):
            total += top[k]
    return limits


class SliceLP:
    """The LP max c · x, D x <= C, Σ x = k, 0 <= x <= 1, built once (GLOP) and re-solved for each
    k with only the cardinality row's bounds changed."""

    def __init__(
        self, demands: np.ndarray, capacities: np.ndarray, profits: np.ndarray, rows: list[int]
    ):
        from ortools.linear_solver import pywraplp

        self.demands, self.capacities, self.rows = demands, capacities, rows
        self.profits = [int(v) for v in profits.tolist()]
        self.solver: Any = pywraplp.Solver.CreateSolver("GLOP")
        self.optimal = pywraplp.Solver.OPTIMAL
        s, w = self.solver, demands.shape[0]
        x = [s.NumVar(0.0, 1.0, f"x{j}") for j in range(w)]
        self.cons = []
        for k in rows:
            ct = s.Constraint(-s.infinity(), float(capacities[k]))
            for j in np.flatnonzero(demands[:, k]).tolist():
                ct.SetCoefficient(x[j], float(demands[j, k]))
            self.cons.append(ct)
        self.card = s.Constraint(0.0, 0.0)
        objective = s.Objective()
        for j in range(w):
            self.card.SetCoefficient(x[j], 1.0)
            objective.SetCoefficient(x[j], float(self.profits[j]))
        objective.SetMaximization()

    def bound(self, k: int) -> SliceBound:
        """The slice's bound from the LP's duals; with u = 0 and μ = 0 (valid, weak) if GLOP
        does not end optimal."""
        self.card.SetBounds(float(k), float(k))
        if self.solver.Solve() == self.optimal:
            u = [round(max(0.0, ct.dual_value()) * SCALE) for ct in self.cons]
            mu = round(self.card.dual_value() * SCALE)
        else:
            u, mu = [0] * len(self.rows), 0
        return _bound(self.demands, self.capacities, self.profits, self.rows, u, mu, k)
