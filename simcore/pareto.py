"""Pareto dominance on objective vectors (all objectives maximised).

Small helpers shared by solvers (to filter candidate sets) and, later, by the quality indicators.
"""

from __future__ import annotations

import numpy as np


def nondominated_mask(values: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows of ``values`` (n × M) that no other row dominates.

    Row a dominates row b when a >= b in every objective and a > b in one. Of several identical
    rows only the first is kept, so the mask selects one representative per front point.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    if values.ndim != 2:
        raise ValueError(f"values: expected an n x M array, got shape {values.shape}")
    # Lexicographic sort, best first; a row can only be dominated by a row before it.
    order = np.lexsort(tuple(-values[:, j] for j in reversed(range(values.shape[1]))))
    sorted_vals = values[order]
    keep_sorted = np.ones(n, dtype=bool)
    if values.shape[1] == 2:
        # Staircase: after sorting by f1 desc (f2 desc on ties), a row survives iff its f2 is
        # strictly above every f2 seen before it.
        prev_best = np.maximum.accumulate(sorted_vals[:, 1])
        keep_sorted[1:] = sorted_vals[1:, 1] > prev_best[:-1]
    else:
        for i in range(1, n):
            earlier = sorted_vals[:i][keep_sorted[:i]]
            if np.any(np.all(earlier >= sorted_vals[i], axis=1)):
                keep_sorted[i] = False
    mask = np.zeros(n, dtype=bool)
    mask[order[keep_sorted]] = True
    return mask


def dominates(a: np.ndarray, b: np.ndarray) -> bool:
    """True when objective vector ``a`` Pareto-dominates ``b`` (maximisation)."""
    a = np.asarray(a)
    b = np.asarray(b)
    return bool(np.all(a >= b) and np.any(a > b))
