"""Compiled kernels of ``dp``'s two-resource DP.

* ``suffix_reach(values, cap, first)``: for every suffix i >= ``first`` of a job order, the set
  of sums <= ``cap`` that a subset of ``values[i:]`` can make, as a bitset (one row of uint64
  words per suffix, bit s set iff s is reachable); one shift-or per job.
* ``nonzero_words(rows)``: running counts of nonzero words, so that "is a bit set in [lo, hi]"
  reads the two end words and one difference.
* ``merge_layer``: one layer of the recursion on sorted integer state keys.
* ``prune_layer``: the pruning of a layer (dominance, completion bound, reachability bound).

All are ``@njit(cache=True)``; ``dp._pair_dp`` calls them (``reach_bound=True``).
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.jit import njit


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
def _sparse_max(values: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Sparse table: ``out[j, i]`` = max(values[i : i + 2^j]) (windows inside the array)."""
    n = values.size
    levels = 1
    while (1 << levels) <= n:
        levels += 1
    out = np.empty((levels, n), dtype=np.float64)
    out[0] = values
    for j in range(1, levels):
        half = 1 << (j - 1)
        for i in range(n - (1 << j) + 1):
            out[j, i] = max(out[j - 1, i], out[j - 1, i + half])
    return out


@njit(cache=True)
def merge_layer(
    keys: np.ndarray, add: int, dense: int, other: int, base: int, cap_a: int, cap_o: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:  # pragma: no cover
    """One DP layer of ``dp``'s two-resource recursion on sorted integer keys
    ``dense * base + other``: the states, and the states that can take the job (``add`` =
    its key), merged in one linear pass; of equal keys the one not taking the job is kept (the
    stable order). Returns (keys, parent index, taken?, states before removing duplicates)."""
    n = keys.size
    fit = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if keys[i] // base + dense <= cap_a and keys[i] % base + other <= cap_o:
            fit[m] = i
            m += 1
    out = np.empty(n + m, dtype=np.int64)
    parent = np.empty(n + m, dtype=np.int64)
    taken = np.empty(n + m, dtype=np.bool_)
    i = j = k = 0
    while i < n or j < m:
        if j >= m or (i < n and keys[i] <= keys[fit[j]] + add):
            key, par, tak = keys[i], i, False
            if j < m and keys[i] == keys[fit[j]] + add:
                j += 1  # the same state reached by taking the job: keep the first
            i += 1
        else:
            key, par, tak = keys[fit[j]] + add, fit[j], True
            j += 1
        out[k] = key
        parent[k] = par
        taken[k] = tak
        k += 1
    return out[:k], parent[:k], taken[:k], n + m


@njit(cache=True)
def front_of(
    cz: np.ndarray, cy: np.ndarray, c: int, cap_o: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """The two-objective front of the first ``c`` points (z, y) (y <= ``cap_o``), both
    maximised: z ascending, y descending."""
    srt = np.argsort(cz[:c] * (cap_o + 2) + cy[:c])  # z ascending, then y ascending
    fz = np.empty(c, dtype=np.int64)
    fy = np.empty(c, dtype=np.int64)
    f = 0
    top = -1
    for t in range(c - 1, -1, -1):  # z descending: keep a point if its y beats every larger z
        p = srt[t]
        if cy[p] > top:
            fz[f] = cz[p]
            fy[f] = cy[p]
            top = cy[p]
            f += 1
    return fz[:f][::-1].copy(), fy[:f][::-1].copy()


@njit(cache=True)
def prune_layer(
    keys: np.ndarray,
    base: int,
    cap_a: int,
    cap_o: int,
    most: np.ndarray,
    exact: np.ndarray,
    least_min: np.ndarray,
    width: int,
    seed_z: np.ndarray,
    seed_y: np.ndarray,
    use_reach: bool,
    row: np.ndarray,
    counts: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """Which states of a layer (sorted keys) ``dp`` keeps: the pruning of ``_pair_dp`` in one
    pass — same-dense dominance, the front of the states and seeds, the completion bound
    (``_PairBound.covered``) and the reachability bound (``dp._reach_bound_note``); see there for why
    each is exact. ``most`` / ``exact`` are the suffix's prefix-maximum and exact tables,
    ``least_min[x]`` the minimum of the suffix's ``least`` over [x, x + width) (``width`` =
    cap_a − z_L, the front's largest dense value z_L known to the caller only through it: the
    caller passes width <= 0 when z_L = cap_a)."""
    n = keys.size
    ua = keys // base
    uo = keys % base
    keep = np.ones(n, dtype=np.bool_)
    # Same dense usage, other usage b < b' (next key): (n, b') dominates (n, b) when b' plus the
    # most the remaining jobs can add within the dense room still fits.
    safe_next = uo[n - 1] <= cap_o - most[cap_a - ua[n - 1]] if n else False
    for i in range(n - 2, -1, -1):
        safe = uo[i] <= cap_o - most[cap_a - ua[i]]
        if safe and safe_next and ua[i + 1] == ua[i]:
            keep[i] = False
        safe_next = safe
    # Front of the kept states (sorted by key: a state is maximal iff its other usage exceeds
    # every later kept state's), plus the seeds.
    on_front = np.zeros(n, dtype=np.bool_)
    best = -1
    count = 0
    for i in range(n - 1, -1, -1):
        if keep[i] and uo[i] > best:
            on_front[i] = True
            best = uo[i]
            count += 1
    cz = np.empty(count + seed_z.size, dtype=np.int64)
    cy = np.empty(count + seed_z.size, dtype=np.int64)
    c = 0
    for i in range(n):
        if on_front[i]:
            cz[c] = ua[i]
            cy[c] = uo[i]
            c += 1
    for s in range(seed_z.size):
        cz[c] = seed_z[s]
        cy[c] = seed_y[s]
        c += 1
    fz, fy = front_of(cz, cy, c, cap_o)
    f = fz.size
    z_l = fz[f - 1]
    y_min = fy[f - 1]
    full = ~np.uint64(0)
    nbits = row.size * 64 - 1
    built = False
    table = np.empty((1, 1), dtype=np.float64)
    for i in range(n):
        if not keep[i] or on_front[i]:
            continue
        a, b = ua[i], uo[i]
        # A completion ending beyond z_L (dense value) that still fits: not covered.
        if width > 0:
            lo = z_l - a + 1
            lo = min(max(lo, 0), cap_a)
            if least_min[lo] <= cap_o - b:
                continue
        if use_reach:
            # Some remaining subset sum of the other resource lands in (y_min, cap_o]?
            lo2 = max(y_min - b + 1, 0)
            hi2 = min(cap_o - b, nbits)
            hit = False
            if lo2 <= hi2:
                wa, wb = lo2 // 64, hi2 // 64
                first = row[wa] & (full << np.uint64(lo2 % 64))
                if wa == wb:
                    if hi2 % 64 != 63:
                        first &= (np.uint64(1) << np.uint64(hi2 % 64 + 1)) - np.uint64(1)
                    hit = first != 0
                elif first != 0 or counts[wb] - counts[wa + 1] > 0:
                    hit = True
                else:
                    last = row[wb]
                    if hi2 % 64 != 63:
                        last &= (np.uint64(1) << np.uint64(hi2 % 64 + 1)) - np.uint64(1)
                    hit = last != 0
            if not hit:
                keep[i] = False
                continue
        # Completions ending in (z_{k-1}, z_k] must reach at most y_k.
        covered = True
        for k in range(f):
            hi = fz[k] - a
            if hi < 0:
                continue
            hi = min(hi, cap_a)
            lo = 0 if k == 0 else fz[k - 1] - a + 1
            if lo <= 0:
                if b + most[hi] > fy[k]:
                    covered = False
                    break
            else:
                if not built:
                    table = _sparse_max(exact)
                    built = True
                lev = 0
                while (2 << lev) <= hi - lo + 1:
                    lev += 1
                span = 1 << lev
                top_max = max(table[lev, lo], table[lev, hi - span + 1])
                if b + top_max > fy[k]:
                    covered = False
                    break
        if covered:
            keep[i] = False
    return keep
