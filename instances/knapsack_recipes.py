"""Knapsack instances drawn by the published recipes: labelled *stand-ins*, never the real files.

The OR-Library ``mknapcb`` files and the Zitzler–Thiele ``knapsack.250.2`` instance do not ship
with the project (only ``mknap1`` and ``knapsack.100.2`` do: ``schedbench data``). To measure what
performance target 4 (docs/figures.md#performance-frontier) asks of the exact backends anyway, these
functions draw instances *of the same construction*, with our seeds. Their optima and fronts are not
the published ones (nobody published ours): a benchmark computes them at run time with an exact
method and says so.

* :func:`chu_beasley` — Chu & Beasley (1998), "A genetic algorithm for the multidimensional
  knapsack problem", J. Heuristics 4, §5.1 (the ``mknapcb*`` files of OR-Library): weights
  ``r_ij`` uniform integers in [0, 1000]; capacity ``b_i = α · Σ_j r_ij`` with tightness
  α ∈ {0.25, 0.5, 0.75}; profits correlated with the weights,
  ``p_j = Σ_i r_ij / m + 500 · q_j`` with ``q_j`` uniform in (0, 1). ``mknapcb1`` is n = 100,
  m = 5, ten instances at each tightness (30). Choices where the paper is silent: the profit is
  rounded to the nearest integer (the files hold integers), the capacity is floored to an
  integer, and numpy's PCG64 generator draws weights row by row, then the q_j.
* :func:`zitzler_thiele` — Zitzler & Thiele (1999), "Multiobjective evolutionary algorithms: a
  comparative case study and the strength Pareto approach", IEEE TEC 3(4), §IV-A: for each
  knapsack k, weights and profits uniform random integers in [10, 100], capacity half the sum of
  that knapsack's weights. Objective k = the profits of knapsack k. Choices: the capacity is
  floored when the sum is odd (the paper writes c_i = 0.5 Σ_j w_ij), and per knapsack the
  weights are drawn before the profits.

Both are deterministic functions of their arguments (same seed, same instance, on every
platform numpy supports).
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem

#: The tightness ratios of Chu and Beasley's instances (mknapcb1: 10 instances each).
CHU_BEASLEY_TIGHTNESS = (0.25, 0.5, 0.75)


def chu_beasley(
    seed: int, *, n: int = 100, m: int = 5, tightness: float = 0.25
) -> SelectionProblem:
    """A Chu–Beasley-recipe multidimensional knapsack (module docstring): a stand-in for an
    instance of OR-Library's ``mknapcb`` files, not one of them."""
    if n < 1 or m < 1:
        raise ValueError(f"chu_beasley: n and m must be >= 1, got n={n}, m={m}")
    if not 0 < tightness < 1:
        raise ValueError(f"chu_beasley: tightness must lie in (0, 1), got {tightness}")
    rng = np.random.default_rng([seed, n, m, round(tightness * 1000)])
    weights = rng.integers(0, 1000, size=(m, n), endpoint=True)  # r_ij, row i = constraint
    q = rng.random(n)
    profits = np.rint(weights.sum(axis=0) / m + 500.0 * q).astype(np.int64)
    capacities = np.floor(tightness * weights.sum(axis=1)).astype(np.int64)
    return SelectionProblem(
        capacities=capacities.astype(float).tolist(),
        demands=weights.T.astype(float),
        objectives=[profits.astype(float).tolist()],
        resources=tuple(f"c{i + 1}" for i in range(m)),
        objective_names=("profit",),
    )


def zitzler_thiele(seed: int, *, n: int = 250, knapsacks: int = 2) -> SelectionProblem:
    """A Zitzler–Thiele-recipe multi-objective knapsack (module docstring): a stand-in for
    ``knapsack.<n>.<knapsacks>``, not that file."""
    if n < 1 or knapsacks < 1:
        raise ValueError(f"zitzler_thiele: n and knapsacks must be >= 1, got {n}, {knapsacks}")
    rng = np.random.default_rng([seed, n, knapsacks, 1999])
    weights, profits = [], []
    for _k in range(knapsacks):
        weights.append(rng.integers(10, 100, size=n, endpoint=True))
        profits.append(rng.integers(10, 100, size=n, endpoint=True))
    w = np.array(weights)
    return SelectionProblem(
        capacities=(w.sum(axis=1) // 2).astype(float).tolist(),
        demands=w.T.astype(float),
        objectives=np.array(profits, dtype=float).tolist(),
        resources=tuple(f"knapsack{k + 1}" for k in range(knapsacks)),
        objective_names=tuple(f"profit{k + 1}" for k in range(knapsacks)),
    )
