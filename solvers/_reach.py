"""Subset-sum reachability bitsets for ``dp``'s completion bound (issue 17).

``suffix_reach(values, cap, first)`` returns, for every suffix i >= ``first`` of a job order, the
set of sums <= ``cap`` that a subset of ``values[i:]`` can make, as a bitset (one row of uint64
words per suffix, bit s of a row set iff s is reachable). ``any_in_range(row, counts, lo, hi)`` answers,
for each state, whether some reachable sum lies in [lo_j, hi_j]. Both are numba kernels
(``cache=True``): a row is one shift-or per job; a query reads the two end words and one difference of
running counts of nonzero words (``nonzero_words``).
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
def nonzero_words(rows: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Per row, the running count of nonzero words (``out[r, k]`` = nonzero words before k)."""
    out = np.zeros((rows.shape[0], rows.shape[1] + 1), dtype=np.int32)
    for r in range(rows.shape[0]):
        for k in range(rows.shape[1]):
            out[r, k + 1] = out[r, k] + (1 if rows[r, k] else 0)
    return out


@njit(cache=True)
def any_in_range(
    row: np.ndarray, counts: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:  # pragma: no cover
    """For each j, whether a bit of ``row`` in [lo_j, hi_j] is set; ``counts`` is the row's
    ``nonzero_words``, so the words strictly inside a range cost one subtraction."""
    n = lo.size
    out = np.zeros(n, dtype=np.bool_)
    top = row.size * 64 - 1
    full = ~np.uint64(0)
    for j in range(n):
        a = max(lo[j], 0)
        b = min(hi[j], top)
        if a > b:
            continue
        wa, wb = a // 64, b // 64
        first = row[wa] & (full << np.uint64(a % 64))
        if wa == wb:
            if b % 64 != 63:
                first &= (np.uint64(1) << np.uint64(b % 64 + 1)) - np.uint64(1)
            out[j] = first != 0
            continue
        if first:
            out[j] = True
            continue
        if counts[wb] - counts[wa + 1] > 0:
            out[j] = True
            continue
        last = row[wb]
        if b % 64 != 63:
            last &= (np.uint64(1) << np.uint64(b % 64 + 1)) - np.uint64(1)
        out[j] = last != 0
    return out
