"""Reduced-cost fixing for the two-phase exact bi-objective method of ``cpsat`` (performance
target 4, docs/figures.md#performance-frontier); the search itself is in ``solvers.cpsat``
(``CPSATSolver._two_phase``).

The bound (exact in integers, whatever the LP's floating-point error): for a weight vector
λ >= 0 on the objectives, c_j = λ · o_j, and *any* multipliers u >= 0 on the capacity rows,
every selection x with D x <= C satisfies

    λ · f(x) <= u · C + Σ_j c_j x_j − u · D x = u · C + Σ_j r_j x_j,   r_j = c_j − u · D_j
             = z(u) − pen(x),   z(u) = u · C + Σ_j max(r_j, 0),
    pen(x) = Σ_{r_j > 0} r_j (1 − x_j) + Σ_{r_j < 0} (−r_j) x_j >= 0.

So a selection with λ · f(x) >= T has pen(x) <= G = z(u) − T: an item with r_j > G is in it and
an item with −r_j > G is not (each term of pen is >= 0). u comes from the LP relaxation (GLOP's
row duals, which make z(u) the LP optimum); it is scaled by ``SCALE`` and rounded to integers,
and the bound is evaluated in Python integers, so rounding costs strength, never validity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: u and c are multiplied by this before u is rounded to integers.
SCALE = 1 << 20


@dataclass(frozen=True, slots=True)
class Fixing:
    """Items forced in (``ones``) and out (``zeros``) of every selection with λ·f >= T, and the
    slack ``gap`` = z(u) − T of the bound (negative: no selection reaches T)."""

    ones: tuple[int, ...]
    zeros: tuple[int, ...]
    gap: int


def lp_row_duals(
    demands: np.ndarray, capacities: np.ndarray, c: np.ndarray, rows: list[int]
) -> list[float]:
    """Row duals of max c·x s.t. Σ_j demands[j, k] x_j <= capacities[k] (k in ``rows``),
    0 <= x <= 1, by GLOP (OR-Tools; loads in the same process as CP-SAT). Zeros if GLOP fails:
    any u >= 0 gives a valid (weaker) bound."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("GLOP")
    if solver is None or not rows:
        return [0.0] * len(rows)
    w = demands.shape[0]
    x = [solver.NumVar(0.0, 1.0, f"x{j}") for j in range(w)]
    cons = []
    for k in rows:
        ct = solver.Constraint(-solver.infinity(), float(capacities[k]))
        for j in range(w):
            if demands[j, k]:
                ct.SetCoefficient(x[j], float(demands[j, k]))
        cons.append(ct)
    objective = solver.Objective()
    for j in range(w):
        objective.SetCoefficient(x[j], float(c[j]))
    objective.SetMaximization()
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return [0.0] * len(rows)
    return [max(0.0, ct.dual_value()) for ct in cons]


@dataclass(frozen=True, slots=True)
class Bound:
    """The bound for one λ: ``r`` (the r_j scaled by ``SCALE``, Python integers) and ``z``."""

    r: tuple[int, ...]
    z: int

    @classmethod
    def of(
        cls,
        demands: np.ndarray,
        capacities: np.ndarray,
        weights: tuple[int, int],
        objectives: np.ndarray,
        rows: list[int],
    ) -> Bound:
        """λ = ``weights`` (whole numbers >= 0), f = ``objectives`` (M × w whole numbers)."""
        c = [
            int(weights[0]) * int(a) + int(weights[1]) * int(b)
            for a, b in objectives[:2].T.tolist()
        ]
        duals = lp_row_duals(demands, capacities, np.array(c, dtype=np.float64), rows)
        u = [round(max(0.0, d) * SCALE) for d in duals]
        cols = [[int(v) for v in demands[:, k].tolist()] for k in rows]
        r = tuple(
            SCALE * c[j] - sum(u[i] * cols[i][j] for i in range(len(rows))) for j in range(len(c))
        )
        z = sum(u[i] * int(capacities[k]) for i, k in enumerate(rows)) + sum(v for v in r if v > 0)
        return cls(r, z)

    def fixing(self, threshold: int) -> Fixing:
        """The items fixed in every selection x with λ · f(x) >= ``threshold``."""
        gap = self.z - SCALE * int(threshold)
        if gap < 0:
            return Fixing((), (), gap)
        ones = tuple(j for j, v in enumerate(self.r) if v > gap)
        zeros = tuple(j for j, v in enumerate(self.r) if -v > gap)
        return Fixing(ones, zeros, gap)
