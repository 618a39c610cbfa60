"""Exact integer forms of a problem, for backends that need integer data (CP-SAT) or are exact
only with it (MIP optimality at gap 0, dominance cuts of one unit).

Each *column family* — every resource (its demands and capacity) and every objective — is
multiplied by the smallest power of ten that makes all its numbers whole, up to ``MAX_DECIMALS``
decimals. Numbers read from text (OR-Library's 8706.1, PROBLEM.json's 0.25) are decimal, so this
is exact for them: a float like 0.1 is recognised as one decimal by rounding ``x · 10^d`` to the
nearest integer and accepting it when the relative error is below 1e-9. Capacities are rounded
*down* after scaling and demands are exact, so a selection feasible in integers is feasible in the
original numbers. When no power of ten up to ``MAX_DECIMALS`` works (e.g. 1/3), ``IntegralForm``
reports ``exact = False``: demands are then rounded up and capacities down (still feasible), and
objectives rounded to nearest, so the backend must not claim optimality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem

MAX_DECIMALS = 6
#: Largest magnitude allowed after scaling (CP-SAT works in 64-bit integers; sums must fit).
MAX_SCALED = 2**52


def decimals_needed(values: np.ndarray) -> int | None:
    """Smallest d <= MAX_DECIMALS with values · 10^d all whole (within 1e-9 relative), or None."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size == 0:
        return 0
    for d in range(MAX_DECIMALS + 1):
        scaled = values * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, np.abs(scaled))):
            return d
    return None


@dataclass(frozen=True, slots=True)
class IntegralForm:
    """Integer data equivalent to (or, when ``exact`` is False, safely approximating) a problem.

    ``demands`` (w × K), ``capacities`` (K) and ``objectives`` (M × w) are int64 numpy arrays;
    ``resource_scale[k]`` and ``objective_scale[m]`` are the powers of ten applied.
    """

    demands: np.ndarray
    capacities: np.ndarray
    objectives: np.ndarray
    resource_scale: np.ndarray
    objective_scale: np.ndarray
    exact: bool

    @classmethod
    def of(cls, problem: SelectionProblem) -> IntegralForm:
        exact = True
        r_scale = np.ones(problem.K)
        demands = np.zeros((problem.w, problem.K), dtype=np.int64)
        capacities = np.zeros(problem.K, dtype=np.int64)
        for k in range(problem.K):
            column = problem.demands[:, k]
            d = decimals_needed(column)
            if d is None:
                exact, d = False, MAX_DECIMALS
            r_scale[k] = 10.0**d
            demands[:, k] = np.ceil(np.round(column * r_scale[k], 9)).astype(np.int64)
            capacities[k] = int(np.floor(np.round(problem.capacities[k] * r_scale[k], 9)))
        o_scale = np.ones(problem.M)
        objectives = np.zeros((problem.M, problem.w), dtype=np.int64)
        for m in range(problem.M):
            d = decimals_needed(problem.objectives[m])
            if d is None:
                exact, d = False, MAX_DECIMALS
            o_scale[m] = 10.0**d
            objectives[m] = np.round(problem.objectives[m] * o_scale[m]).astype(np.int64)
        too_big = (
            np.abs(demands).sum(axis=0).max(initial=0) > MAX_SCALED
            or np.abs(objectives).sum(axis=1).max(initial=0) > MAX_SCALED
        )
        if too_big:
            raise OverflowError(
                "scaled integer data exceed 2^52; the problem cannot be solved exactly in integers"
            )
        return cls(demands, capacities, objectives, r_scale, o_scale, exact)
