"""Subset-sum reachability bitsets for ``dp``'s completion bound (issue 17).

``suffix_reach(values, cap, first)`` returns, for every suffix i >= ``first`` of a job order, the
set of sums <= ``cap`` that a subset of ``values[i:]`` can make, as a bitset (one row of uint64
words per suffix, bit s of a row set iff s is reachable). ``any_in_range(row, lo, hi)`` answers,
for each state, whether some reachable sum lies in [lo_j, hi_j]. Both are numba kernels
(``cache=True``): a row is one shift-or per job; a query reads at most the words the range spans
and stops at the first set bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def suffix_reach(values: np.ndarray, cap: int, first: int) -> np.ndarray:  # pragma: no cover
    w = values.size
    words = cap // 64 + 1
    rows = np.zeros((w + 1 - first, words), dtype=np.uint64)
    cur = np.zeros(words, dtype=np.uint64)
    cur[0] = np.uint64(1)
    rows[w - first] = cur
    for i in range(w - 1, first - 1, -1):
        v = values[i]
        if 0 < v <= cap:
            shift_w = v // 64
            shift_b = v % 64
            for k in range(words - 1, shift_w - 1, -1):
                src = k - shift_w
                acc = cur[src] << np.uint64(shift_b)
                if shift_b and src > 0:
                    acc |= cur[src - 1] >> np.uint64(64 - shift_b)
                cur[k] |= acc
        rows[i - first] = cur
    # Clear bits above cap in the last word.
    extra = (cap + 1) % 64
    if extra:
        mask = (np.uint64(1) << np.uint64(extra)) - np.uint64(1)
        for r in range(rows.shape[0]):
            rows[r, words - 1] &= mask
    return rows


@njit(cache=True)
def any_in_range(row: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:  # pragma: no cover
    n = lo.size
    out = np.zeros(n, dtype=np.bool_)
    top = row.size * 64 - 1
    for j in range(n):
        a = max(lo[j], 0)
        b = min(hi[j], top)
        if a > b:
            continue
        wa, wb = a // 64, b // 64
        for k in range(wa, wb + 1):
            word = row[k]
            if k == wa:
                word &= ~np.uint64(0) << np.uint64(a % 64)
            if k == wb and b % 64 != 63:
                word &= (np.uint64(1) << np.uint64(b % 64 + 1)) - np.uint64(1)
            if word:
                out[j] = True
                break
    return out
