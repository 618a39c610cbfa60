"""The two-resource DP of ``dp`` in one compiled kernel (performance target 1,
docs/figures.md#performance-frontier).

``dp``'s two-resource recursion (two integral resources whose demands are the two objectives,
BBSched's front; or one objective c0 · demand0 + c1 · demand1 with c > 0) runs here layer after
layer inside numba, with no numpy call per layer:

* ``pair_tables``: per suffix of the job order, along the dense axis (x = 0 .. cap_a), the largest
  other-resource sum of a subset with dense sum exactly x (``exact``) and the smallest
  (``least``); int32 tables of (w + 1) x (cap_a + 1) cells. What the bounds also need per layer
  (the prefix maximum ``most`` of ``exact``, the suffix minimum of ``least``, the largest
  reachable dense sum <= x) is computed from these rows inside ``pair_run``, in cache.
* ``greedy_seeds``: 11 first-fit-decreasing fills (the incumbent front before the first layer).
* ``pair_run``: the layers ``pos .. stop`` of the recursion on sorted integer keys
  ``(dense << shift) + other``: merge (taking the job adds a constant to every key, so the new
  layer is the merge of two sorted runs), then the exact prunings of ``dp`` (see
  ``dp._pair_kernel_note``), then, in the beam pass only, the heuristic cut. Each state's parent
  index and whether the job was taken are written into one flat int32 memo (``2 * parent +
  taken``; 4 bytes per kept state), so the traceback needs no per-layer arrays. The kernel
  returns after ``work_limit`` merged states so that the caller can check the clock.
* ``trace_back``: the selections of given final states, from the memo.

All are ``@njit(cache=True)``: compiled once per machine (``DPSolver.warm_up``).
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.jit import njit
from schedbench.solvers._reach import front_of

#: "No subset has this dense sum" in ``least`` (larger than any other-resource capacity used).
_NONE = np.int32(2**31 - 1)
#: The sentinel of the table recursion (``pair_tables``); demand sums must stay below half.
_FAR = 2**30

#: Layers of at least TABLE_FROM states answer window queries from tables built for the layer
#: (O(cap log cap) once); smaller layers scan windows up to _SCAN wide and relax wider ones.
_SCAN = 48
TABLE_FROM = 4096

#: The reachability bound (its bitsets cost about a millisecond to build) is used on layers of
#: at least this many states (read by the caller, passed to ``pair_run``).
REACH_FROM = 2048

#: The reachability test scans at most this many words of a bitset (then keeps the state).
_REACH_SCAN = 256

#: The coupled bound (its lists cost about a millisecond to build) is used on layers of at
#: least this many states (read by the caller, passed to ``pair_run``).
COUPLE_FROM = 1024

#: The coupled test scans at most this many list entries per state (then keeps the state).
_COUPLE_SCAN = 96

#: ``pair_run`` return codes.
RUN_OK = 0
RUN_MAX_STATES = 1
RUN_NEED_REACH = 2
RUN_NEED_COUPLE = 3


@njit(cache=True)
def pair_tables(
    dense: np.ndarray, other: np.ndarray, cap_a: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """The per-suffix tables (module docstring). Cells no subset reaches hold -_FAR (``exact``)
    or +_FAR (``least``, ``least_suffix``), so that no loop needs a test; the caller ensures
    that the demands sum to less than _FAR / 2. ``most`` is never negative (the empty subset)."""
    w = dense.size
    far = np.int32(_FAR)
    exact = np.empty((w + 1, cap_a + 1), dtype=np.int32)
    least = np.empty((w + 1, cap_a + 1), dtype=np.int32)
    exact[w, :] = -far
    least[w, :] = far
    exact[w, 0] = 0
    least[w, 0] = 0
    for i in range(w - 1, -1, -1):
        n = dense[i]
        b = np.int32(other[i])
        e_next = exact[i + 1]
        l_next = least[i + 1]
        e_row = exact[i]
        l_row = least[i]
        top = min(n, cap_a + 1)
        for x in range(top):
            e_row[x] = e_next[x]
            l_row[x] = l_next[x]
        # One fused pass over 1-D views (so that the loop vectorises): x >= top may take job i.
        m = cap_a + 1 - top
        e_src = e_next[:m]
        l_src = l_next[:m]
        e_old = e_next[top:]
        l_old = l_next[top:]
        e_out = e_row[top:]
        l_out = l_row[top:]
        for x in range(m):
            e = e_src[x] + b
            f = e_old[x]
            e_out[x] = e if e > f else f
            h = l_src[x] + b
            g = l_old[x]
            l_out[x] = h if h < g else g
    return exact, least


@njit(cache=True)
def greedy_seeds(
    dense: np.ndarray, other: np.ndarray, cap_a: int, cap_o: int, count: int
) -> np.ndarray:  # pragma: no cover
    """``count`` first-fit-decreasing fills by lam · n/cap_a + (1 - lam) · b/cap_o, lam evenly
    spaced in [0, 1] (ties: earlier job first); one row of chosen flags per fill."""
    w = dense.size
    out = np.zeros((count, w), dtype=np.bool_)
    sa = max(cap_a, 1)
    so = max(cap_o, 1)
    score = np.empty(w, dtype=np.float64)
    for r in range(count):
        lam = r / (count - 1) if count > 1 else 0.5
        for j in range(w):
            score[j] = -(lam * dense[j] / sa + (1.0 - lam) * other[j] / so)
        idx = np.argsort(score, kind="mergesort")
        ua = 0
        uo = 0
        for t in range(w):
            j = idx[t]
            if ua + dense[j] <= cap_a and uo + other[j] <= cap_o:
                ua += dense[j]
                uo += other[j]
                out[r, j] = True
    return out


@njit(cache=True)
def _window_min(values: np.ndarray, width: int, out: np.ndarray) -> None:  # pragma: no cover
    """out[i] = min(values[i : i + width]) (shorter windows at the end), by a monotone deque."""
    n = values.size
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for i in range(n - 1, -1, -1):
        while tail > head and values[dq[tail - 1]] >= values[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        while dq[head] >= i + width:
            head += 1
        out[i] = values[dq[head]]


@njit(cache=True)
def _build_sparse_max(values: np.ndarray, table: np.ndarray) -> None:  # pragma: no cover
    """``table[j, i]`` = max(values[i : i + 2^j]) (windows inside the array)."""
    n = values.size
    table[0, :n] = values
    for j in range(1, table.shape[0]):
        half = 1 << (j - 1)
        prev = table[j - 1]
        cur = table[j]
        for i in range(n - (1 << j) + 1):
            a = prev[i]
            b = prev[i + half]
            cur[i] = a if a > b else b


@njit(cache=True)
def _reach_hit(row: np.ndarray, lo: int, hi: int) -> bool:  # pragma: no cover
    """Is a bit set in [lo, hi] of the bitset ``row``? Scans at most ``_REACH_SCAN`` words down
    from ``hi`` and answers True (the safe answer: the state is kept) beyond that."""
    if lo > hi:
        return False
    full = ~np.uint64(0)
    wa = lo // 64
    wb = hi // 64
    last = row[wb]
    if hi % 64 != 63:
        last &= (np.uint64(1) << np.uint64(hi % 64 + 1)) - np.uint64(1)
    if wa == wb:
        return (last & (full << np.uint64(lo % 64))) != 0
    if last != 0:
        return True
    if wb - wa > _REACH_SCAN:
        return True
    for k in range(wb - 1, wa, -1):
        if row[k] != 0:
            return True
    return (row[wa] & (full << np.uint64(lo % 64))) != 0


@njit(cache=True)
def _merge_sums(
    cur: np.ndarray, n: int, s: int, room: int, cap_o: int, sb: int
) -> np.ndarray:  # pragma: no cover
    """The sorted distinct keys ``(other << sb) + dense`` of ``cur`` and of ``cur`` plus a job
    (n, s), the latter only where the dense sum stays <= room and the other sum <= cap_o."""
    nmask = (1 << sb) - 1
    add = (s << sb) + n
    m = cur.size
    fit = np.empty(m, dtype=np.int64)
    c = 0
    for i in range(m):
        if (cur[i] & nmask) + n <= room and (cur[i] >> sb) + s <= cap_o:
            fit[c] = cur[i] + add
            c += 1
    out = np.empty(m + c, dtype=np.int64)
    i = 0
    j = 0
    k = 0
    while i < m or j < c:
        if j >= c or (i < m and cur[i] <= fit[j]):
            if j < c and cur[i] == fit[j]:
                j += 1
            out[k] = cur[i]
            i += 1
        else:
            out[k] = fit[j]
            j += 1
        k += 1
    return out[:k]


@njit(cache=True)
def couple_lists(
    dense: np.ndarray, other: np.ndarray, cap_a: int, cap_o: int, first: int, budget: int, sb: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """The coupled bound's tables for every suffix i >= ``first`` of the job order (row
    i - first), built backward from the last job.

    * ``keys[start[r] : start[r + 1]]``: the distinct sums (dense n, other s) of the subsets of
      the suffix's jobs with other > 0 whose dense sum is <= ``room[r]``, as sorted keys
      ``(s << sb) + n``. ``room[r]`` is the largest dense room for which the list stays within
      ``budget`` entries; it never grows towards earlier suffixes (a list is extended from the
      next suffix's), and -1 disables the row.
    * ``counts[r, x + 1]``: how many dense sums <= x the subsets of the suffix's jobs with
      other = 0 reach (prefix counts, so a range test is two reads).

    A completion of a state with dense room <= ``room[r]`` is then one list entry plus one
    such dense sum, exactly (``dp._coupled_bound_note``).
    """
    w = dense.size
    rows = w + 1 - first
    nmask = (1 << sb) - 1
    start = np.zeros(rows + 1, dtype=np.int64)
    room = np.empty(rows, dtype=np.int64)
    counts = np.zeros((rows, cap_a + 2), dtype=np.int32)
    parts = []
    cur = np.zeros(1, dtype=np.int64)
    ra = cap_a
    reach = np.zeros(cap_a + 1, dtype=np.bool_)
    reach[0] = True
    hist = np.zeros(cap_a + 2, dtype=np.int64)
    changed = True  # the other-free jobs' reachable sums changed since the last counts row
    for i in range(w, first - 1, -1):
        if i < w:
            n = dense[i]
            s = other[i]
            if s > 0:
                if ra >= 0 and n <= ra and s <= cap_o:
                    cur = _merge_sums(cur, n, s, ra, cap_o, sb)
                    if cur.size > budget:
                        # Lower the room until at most ``budget`` entries are left.
                        hist[:] = 0
                        for t in range(cur.size):
                            hist[cur[t] & nmask] += 1
                        total = 0
                        new_ra = -1
                        for x in range(ra + 1):
                            total += hist[x]
                            if total > budget:
                                break
                            new_ra = x
                        ra = new_ra
                        c = 0
                        for t in range(cur.size):
                            if (cur[t] & nmask) <= ra:
                                cur[c] = cur[t]
                                c += 1
                        cur = cur[:c].copy()
            elif 0 < n <= cap_a:
                for x in range(cap_a, n - 1, -1):
                    if reach[x - n] and not reach[x]:
                        reach[x] = True
                        changed = True
        r = i - first
        room[r] = ra
        parts.append(cur)
        row = counts[r]
        if changed:
            acc = 0
            for x in range(cap_a + 1):
                if reach[x]:
                    acc += 1
                row[x + 1] = acc
            changed = False
        else:  # the same sums as the next suffix's row (built just before this one)
            row[:] = counts[r + 1]
    total = 0
    for p in parts:
        total += p.size
    keys = np.empty(total, dtype=np.int64)
    # ``parts`` holds rows w - first, ..., 0 (built backward): lay them out by row.
    pos = 0
    for r in range(rows):
        p = parts[rows - 1 - r]
        start[r] = pos
        keys[pos : pos + p.size] = p
        pos += p.size
    start[rows] = pos
    return keys, start, room, counts


@njit(cache=True)
def _couple_hit(
    keys: np.ndarray,
    lo_k: int,
    hi_k: int,
    counts: np.ndarray,
    sb: int,
    a: int,
    b: int,
    fz: np.ndarray,
    fy: np.ndarray,
    qmax: int,
    cap_a: int,
    cap_o: int,
) -> tuple[int, int, int, int]:  # pragma: no cover
    """Can the state (a, b) end at a new point of a front window q <= qmax? One list entry
    (n, s) of the suffix plus a dense sum u of its other-free jobs ends at (a + n + u, b + s):
    new in window q iff b + s > y_q and a + n + u in (z_{q-1}, z_q]. Entries are scanned from
    the largest s <= cap_o - b down to s > y_qmax - b. Returns (0, ...) when there is none,
    (1, n, s, u) for the first found (u the largest that fits), and (2, ...) after
    ``_COUPLE_SCAN`` entries (keep the state: the safe answer)."""
    nmask = (1 << sb) - 1
    hi_s = cap_o - b
    lo_s = fy[qmax] - b + 1
    if lo_s < 0:
        lo_s = 0
    if lo_s > hi_s:
        return 0, 0, 0, 0
    # The last entry with s <= hi_s (binary search on keys[lo_k:hi_k]).
    target = (hi_s + 1) << sb
    lo = lo_k
    hi = hi_k
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    idx = lo - 1
    z_top = fz[qmax] - a
    q = 0
    scanned = 0
    while idx >= lo_k:
        key = keys[idx]
        s = key >> sb
        if s < lo_s:
            return 0, 0, 0, 0
        n = key & nmask
        y = b + s
        while q < qmax and fy[q] >= y:
            q += 1
        xhi = z_top - n
        if xhi >= 0:
            xlo = (fz[q - 1] + 1 if q > 0 else 0) - a - n
            if xlo < 0:
                xlo = 0
            if xhi > cap_a:
                xhi = cap_a
            if xlo <= xhi and counts[xhi + 1] > counts[xlo]:
                u = xhi
                while counts[u + 1] == counts[u]:
                    u -= 1
                return 1, n, s, u
        scanned += 1
        if scanned >= _COUPLE_SCAN:
            return 2, 0, 0, 0
        idx -= 1
    return 0, 0, 0, 0


@njit(cache=True)
def pair_run(
    keys: np.ndarray,
    memo: np.ndarray,
    memo_len: int,
    offsets: np.ndarray,
    pos: int,
    stop: int,
    work_limit: int,
    max_states: int,
    dense: np.ndarray,
    other: np.ndarray,
    shift: int,
    cap_a: int,
    cap_o: int,
    exact: np.ndarray,
    least: np.ndarray,
    seed_z: np.ndarray,
    seed_y: np.ndarray,
    reach_rows: np.ndarray,
    reach_first: int,
    reach_last: int,
    reach_on: bool,
    have_reach: bool,
    prune_from: int,
    beam: int,
    weighted: bool,
    c0: float,
    c1: float,
    incumbent: float,
    table_from: int,
    reach_from: int,
    c_keys: np.ndarray,
    c_start: np.ndarray,
    c_room: np.ndarray,
    c_counts: np.ndarray,
    c_first: int,
    c_sb: int,
    couple_on: bool,
    have_couple: bool,
    couple_from: int,
    wit: np.ndarray,
    wit_n: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, int, int, int, int, float]:  # pragma: no cover
    """Layers ``pos`` .. ``stop`` - 1 of the recursion (see the module docstring).

    Returns (keys, memo, memo_len, pos reached, code, peak merged size, incumbent value).
    """
    mask = (1 << shift) - 1
    levels = 1
    while (1 << levels) <= cap_a + 1:
        levels += 1
    table = np.empty((levels, cap_a + 1), dtype=np.int32)
    lmin = np.empty(cap_a + 1, dtype=np.int32)
    mrow = np.empty(cap_a + 1, dtype=np.int32)
    lsuf = np.empty(cap_a + 1, dtype=np.int32)
    rrow = np.empty(cap_a + 1, dtype=np.int64)
    peak = 0
    work = 0
    nseed = seed_z.size
    while pos < stop:
        n = keys.size
        if n > max_states:
            return keys, memo, memo_len, pos, RUN_MAX_STATES, peak, incumbent
        job_a = dense[pos]
        job_o = other[pos]
        add = (job_a << shift) + job_o
        # -- merge: the states, and those that can take the job, as two sorted runs ----------
        fit = np.empty(n, dtype=np.int32)
        m = 0
        for i in range(n):
            if (keys[i] >> shift) + job_a <= cap_a and (keys[i] & mask) + job_o <= cap_o:
                fit[m] = i
                m += 1
        merged = np.empty(n + m, dtype=np.int64)
        parent = np.empty(n + m, dtype=np.int32)
        i = 0
        j = 0
        k = 0
        while i < n or j < m:
            if j >= m or (i < n and keys[i] <= keys[fit[j]] + add):
                if j < m and keys[i] == keys[fit[j]] + add:
                    j += 1  # the same state reached by taking the job: keep the first
                merged[k] = keys[i]
                parent[k] = 2 * i
                i += 1
            else:
                merged[k] = keys[fit[j]] + add
                parent[k] = 2 * fit[j] + 1
                j += 1
            k += 1
        if n + m > peak:
            peak = n + m
        work += n + m
        suffix = pos + 1
        keep = np.ones(k, dtype=np.bool_)
        if k >= prune_from:
            # A state's usage is read from its key ((dense << shift) + other) where needed: no
            # per-state usage arrays (at w = 200 a layer can hold a million states).
            # The suffix's prefix maximum of ``exact`` (``most``: the largest other sum of a
            # subset with dense sum <= x), computed per layer (cheaper than a stored table).
            erow = exact[suffix]
            top_e = np.int32(-1)
            for x in range(cap_a + 1):
                v = erow[x]
                top_e = v if v > top_e else top_e
                mrow[x] = top_e
            # Same dense usage, other usage b < b' (next key): (n, b') dominates (n, b) when b'
            # plus the most the remaining jobs can add within the dense room still fits.
            for t in range(k - 1):
                if (merged[t + 1] >> shift) == (merged[t] >> shift) and (
                    merged[t + 1] & mask
                ) + mrow[cap_a - (merged[t + 1] >> shift)] <= cap_o:
                    keep[t] = False
            if weighted:
                best_t = -1
                best_v = -np.inf
                for t in range(k):
                    if keep[t]:
                        v = c0 * (merged[t] >> shift) + c1 * (merged[t] & mask)
                        if v > best_v:
                            best_v = v
                            best_t = t
                if best_v > incumbent:
                    incumbent = best_v
                # The largest reachable dense sum <= x, from the suffix's ``exact`` row.
                last = 0
                for x in range(cap_a + 1):
                    if erow[x] >= 0:
                        last = x
                    rrow[x] = last
                lrow = least[suffix]
                bar = incumbent + 1e-12 * max(1.0, abs(incumbent))
                for t in range(k):
                    if not keep[t] or t == best_t:
                        continue
                    # The largest reachable dense increment x whose least other sum fits (a
                    # few steps down from the largest reachable: an upper bound of it).
                    x = rrow[cap_a - (merged[t] >> shift)]
                    room = cap_o - (merged[t] & mask)
                    for _ in range(_SCAN):
                        if x == 0 or lrow[x] <= room:
                            break
                        x = rrow[x - 1]
                    top = (merged[t] & mask) + mrow[x]
                    if top > cap_o:
                        top = cap_o
                    if c0 * ((merged[t] >> shift) + x) + c1 * top <= bar:
                        keep[t] = False
            else:
                # Front of the kept states (sorted by key: maximal iff its other usage exceeds
                # every later kept state's), and of the states with the seeds.
                on_front = np.zeros(k, dtype=np.bool_)
                best = -1
                count = 0
                for t in range(k - 1, -1, -1):
                    if keep[t] and (merged[t] & mask) > best:
                        on_front[t] = True
                        best = merged[t] & mask
                        count += 1
                nwit = wit_n[0]
                cz = np.empty(count + nseed + nwit, dtype=np.int64)
                cy = np.empty(count + nseed + nwit, dtype=np.int64)
                c = 0
                for t in range(k):
                    if on_front[t]:
                        cz[c] = merged[t] >> shift
                        cy[c] = merged[t] & mask
                        c += 1
                for s in range(nseed):
                    cz[c] = seed_z[s]
                    cy[c] = seed_y[s]
                    c += 1
                for s in range(nwit):
                    cz[c] = wit[s, 0]
                    cy[c] = wit[s, 1]
                    c += 1
                layer_wit = wit_n[0]
                fz, fy = front_of(cz, cy, c, cap_o)  # z ascending, y descending
                f = fz.size
                z_l = fz[f - 1]
                width = cap_a - z_l
                lrow = least[suffix]
                low_l = np.int32(_FAR)
                for x in range(cap_a, -1, -1):
                    v = lrow[x]
                    low_l = v if v < low_l else low_l
                    lsuf[x] = low_l
                use_reach = reach_on and suffix >= reach_first and k >= reach_from
                if use_reach and not have_reach:
                    # The caller builds the bitsets and calls again for this layer.
                    return keys, memo, memo_len, pos, RUN_NEED_REACH, peak, incumbent
                use_couple = couple_on and k >= couple_from
                if use_couple and (not have_couple or suffix < c_first):
                    # The caller builds the lists from this suffix on and calls again.
                    return keys, memo, memo_len, pos, RUN_NEED_COUPLE, peak, incumbent
                c_row = suffix - c_first if use_couple else 0
                c_ra = c_room[c_row] if use_couple else -1
                c_lo = c_start[c_row] if use_couple else 0
                c_hi = c_start[c_row + 1] if use_couple else 0
                r_at = min(suffix, reach_last) - reach_first if use_reach else 0
                row = reach_rows[r_at]
                nbits = reach_rows.shape[1] * 64 - 1
                cq = np.empty(f, dtype=np.int64)
                # Many states: O(1) window queries from tables built for the layer; few: scans.
                tabled = k >= table_from
                if tabled:
                    _build_sparse_max(erow, table)
                    if width > 0:
                        _window_min(lrow, width, lmin)
                t = 0
                while t < k:
                    # States of equal dense usage a are adjacent (sorted keys) and share every
                    # window below: per group, the other-usage thresholds; per state, compares.
                    a = merged[t] >> shift
                    g_end = t
                    while g_end < k and (merged[g_end] >> shift) == a:
                        g_end += 1
                    # Some completion ends beyond z_L (dense value) and fits iff b <= beyond.
                    beyond = -1
                    if width > 0:
                        lo = min(max(z_l - a + 1, 0), cap_a)
                        if tabled:
                            low = lmin[lo]
                        elif width <= _SCAN:
                            low = np.int32(_FAR)
                            for x in range(lo, min(lo + width, cap_a + 1)):
                                if lrow[x] < low:
                                    low = lrow[x]
                        else:
                            # Relaxed to the suffix minimum over [lo, cap_a] (completions that
                            # do not fit only add candidates: the test stays necessary).
                            low = lsuf[lo]
                        beyond = cap_o - low
                    # Completions ending in (z_{q-1}, z_q] reach at most y_q iff b <= cover.
                    cover = cap_o + 1
                    for q in range(f):
                        cq[q] = _FAR  # window below a: no completion ends there
                        hi = fz[q] - a
                        if hi < 0 or (couple_on and fy[q] >= cap_o):
                            continue  # (no completion's other usage exceeds cap_o either)
                        if hi > cap_a:
                            hi = cap_a
                        lo = 0 if q == 0 else fz[q - 1] - a + 1
                        if lo <= 0:
                            tm = mrow[hi]
                        elif tabled:
                            lev = 0
                            while (2 << lev) <= hi - lo + 1:
                                lev += 1
                            tm = table[lev, lo]
                            tm2 = table[lev, hi - (1 << lev) + 1]
                            if tm2 > tm:
                                tm = tm2
                        elif hi - lo >= _SCAN:
                            tm = mrow[hi]  # prefix maximum: a relaxation
                        else:
                            tm = -_FAR  # no completion ends in the window: no constraint
                            for x in range(lo, hi + 1):
                                if erow[x] > tm:
                                    tm = erow[x]
                        cq[q] = fy[q] - tm
                        if fy[q] - tm < cover:
                            cover = fy[q] - tm
                    for u in range(t, g_end):
                        if not keep[u] or on_front[u]:
                            continue
                        b = merged[u] & mask
                        if b <= beyond:
                            continue
                        if b <= cover:
                            keep[u] = False  # every window's completions covered
                            continue
                        if cap_a - a <= c_ra:
                            # Coupled test (dense room within the lists'): exact for the
                            # windows up to the last one the bounds above leave open.
                            qmax = f - 1
                            while b <= cq[qmax]:
                                qmax -= 1
                            hit, hn, hs, hu = _couple_hit(
                                c_keys, c_lo, c_hi, c_counts[c_row], c_sb, a, b, fz, fy,
                                qmax, cap_a, cap_o,
                            )  # fmt: skip
                            if hit == 0:
                                keep[u] = False
                            elif hit == 1 and wit_n[0] < wit.shape[0]:
                                # A new front point and how to reach it (the state's parent,
                                # the list entry, the dense sum u): the caller rebuilds its
                                # selection, and the bounds use the point from the next layer.
                                z = a + hn + hu
                                y = b + hs
                                new = True
                                for v in range(layer_wit, wit_n[0]):
                                    if wit[v, 0] >= z and wit[v, 1] >= y:
                                        new = False
                                        break
                                if new:
                                    r = wit_n[0]
                                    wit[r, 0] = z
                                    wit[r, 1] = y
                                    wit[r, 2] = pos
                                    wit[r, 3] = parent[u]
                                    wit[r, 4] = hn
                                    wit[r, 5] = hs
                                    wit[r, 6] = hu
                                    wit_n[0] = r + 1
                        elif use_reach:
                            # A completion ending in window q is new only if its other sum s
                            # has b + s in (y_q, cap_o]: s must be a remaining subset sum
                            # (the bitset) — unless that window's bound already covers it.
                            new_point = False
                            for q in range(f):
                                if b <= cq[q]:
                                    continue
                                if _reach_hit(row, max(fy[q] - b + 1, 0), min(cap_o - b, nbits)):
                                    new_point = True
                                    break
                            if not new_point:
                                keep[u] = False
                    t = g_end
        kept = 0
        for t in range(k):
            if keep[t]:
                kept += 1
        if beam > 0 and kept > beam:
            # Heuristic pass only: keep the ``beam`` states that use the most (normalised), by
            # a linear-time selection of the threshold score (ties: earlier keys first).
            score = np.empty(k, dtype=np.float64)
            live = np.empty(kept, dtype=np.float64)
            c = 0
            for t in range(k):
                if weighted:  # the objective itself
                    score[t] = c0 * (merged[t] >> shift) + c1 * (merged[t] & mask)
                else:
                    score[t] = (merged[t] >> shift) / max(cap_a, 1) + (merged[t] & mask) / max(
                        cap_o, 1
                    )
                if keep[t]:
                    live[c] = score[t]
                    c += 1
            thr = np.partition(live, kept - beam)[kept - beam]
            above = 0
            for t in range(k):
                if keep[t] and score[t] > thr:
                    above += 1
            ties = beam - above
            for t in range(k):
                if keep[t] and score[t] <= thr:
                    if score[t] == thr and ties > 0:
                        ties -= 1
                    else:
                        keep[t] = False
            kept = beam
        if memo_len + kept > memo.size:
            grown = np.empty(max(2 * memo.size, memo_len + kept), dtype=np.int32)
            grown[:memo_len] = memo[:memo_len]
            memo = grown
        out = np.empty(kept, dtype=np.int64)
        c = 0
        for t in range(k):
            if keep[t]:
                out[c] = merged[t]
                memo[memo_len + c] = parent[t]
                c += 1
        memo_len += kept
        offsets[pos + 1] = memo_len
        keys = out
        pos += 1
        if work >= work_limit:
            break
    return keys, memo, memo_len, pos, RUN_OK, peak, incumbent


@njit(cache=True)
def trace_back(
    memo: np.ndarray, offsets: np.ndarray, layers: int, final: np.ndarray
) -> np.ndarray:  # pragma: no cover
    """Chosen flags (one row per final state index, one column per processed layer)."""
    out = np.zeros((final.size, layers), dtype=np.bool_)
    for r in range(final.size):
        idx = final[r]
        for p in range(layers - 1, -1, -1):
            entry = memo[offsets[p] + idx]
            out[r, p] = (entry & 1) == 1
            idx = entry >> 1
    return out


@njit(cache=True)
def witness_rest(
    out: np.ndarray,
    pos: int,
    n: int,
    s: int,
    u: int,
    dense: np.ndarray,
    other: np.ndarray,
    keys: np.ndarray,
    start: np.ndarray,
    first: int,
    sb: int,
) -> tuple[int, int, int]:  # pragma: no cover
    """The jobs after ``pos`` of a front point the coupled bound found (``dp._witness_selection``):
    the list entry (n, s) traced back through the suffix lists (an entry present in the next
    suffix's list is reached without the job), then a subset of the other-free jobs summing to
    the dense sum u (a subset-sum table, then back). Sets ``out``; returns what is left of
    (n, s, u): all zero when the witness rebuilds."""
    w = dense.size
    for j in range(pos + 1, w):
        if other[j] == 0 or (n == 0 and s == 0):
            continue
        r = j + 1 - first
        key = (s << sb) + n
        lo = start[r]
        hi = start[r + 1]
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < start[r + 1] and keys[lo] == key:
            continue  # reached without job j
        out[j] = True
        n -= dense[j]
        s -= other[j]
    free = np.empty(w, dtype=np.int64)
    nf = 0
    for j in range(pos + 1, w):
        if other[j] == 0 and 0 < dense[j] <= u:
            free[nf] = j
            nf += 1
    if u < 0:
        return n, s, u
    reach = np.zeros((nf + 1, u + 1), dtype=np.bool_)
    reach[0, 0] = True
    for k in range(nf):
        d = dense[free[k]]
        for x in range(u + 1):
            reach[k + 1, x] = reach[k, x] or (x >= d and reach[k, x - d])
    for k in range(nf, 0, -1):
        if not reach[k - 1, u]:
            out[free[k - 1]] = True
            u -= dense[free[k - 1]]
    return n, s, u


@njit(cache=True)
def front_of_keys(keys: np.ndarray, shift: int) -> np.ndarray:  # pragma: no cover
    """Indices of the maximal states of a sorted key array."""
    mask = (1 << shift) - 1
    n = keys.size
    flag = np.zeros(n, dtype=np.bool_)
    best = -1
    count = 0
    for t in range(n - 1, -1, -1):
        y = keys[t] & mask
        if y > best:
            flag[t] = True
            best = y
            count += 1
    out = np.empty(count, dtype=np.int64)
    c = 0
    for t in range(n):
        if flag[t]:
            out[c] = t
            c += 1
    return out


@njit(cache=True)
def _lp_bound(
    order: np.ndarray, demand: np.ndarray, values: np.ndarray, depth: int, room: float
) -> float:  # pragma: no cover
    """Fractional knapsack over the undecided jobs (search position >= depth) of one resource:
    ``order`` lists jobs by value per unit of that resource, descending (free jobs first)."""
    total = 0.0
    for t in range(order.size):
        j = order[t]
        if j < depth:
            continue
        d = demand[j]
        if d <= room:
            total += values[j]
            room -= d
        else:
            if d > 0:
                total += values[j] * room / d
            break
    return total


@njit(cache=True)
def _next_branch(
    stack: np.ndarray, used: np.ndarray, demands: np.ndarray, values: np.ndarray, depth: int
) -> int:  # pragma: no cover
    """Backtrack ``single_bnb`` from ``depth`` to the deepest job whose leave-branch is still
    open, undo its take and enter that branch; the new depth, or -1 when the search is done."""
    k = demands.shape[1]
    depth -= 1
    while depth >= 0 and stack[depth] == 2:
        stack[depth] = 0
        depth -= 1
    if depth < 0:
        return -1
    for r in range(k):
        used[r] -= demands[depth, r]
    used[k] -= values[depth]
    stack[depth] = 2
    return depth + 1


@njit(cache=True)
def single_bnb(
    demands: np.ndarray,
    limit: np.ndarray,
    values: np.ndarray,
    orders: np.ndarray,
    stack: np.ndarray,
    used: np.ndarray,
    best: np.ndarray,
    best_rows: np.ndarray,
    node_limit: int,
) -> tuple[int, int, int]:  # pragma: no cover
    """Depth-first branch and bound for one objective (values > 0, jobs in search order), the
    search resumable between calls.

    ``stack[d]`` is 0 (job d not branched yet), 1 (taken, exploring) or 2 (left, exploring);
    ``stack[w]`` holds the depth, ``used[K]`` the value so far (``used[:K]`` the usage). A node
    is cut when its value plus, for every resource, the fractional knapsack bound of the
    undecided jobs (``orders[r]``) is below the best value found (ties are kept: every
    selection of the best value is recorded in ``best_rows``, up to its size; ``best[1]``
    counts them). Returns (nodes visited, 1 if the search is complete, number of rows).
    """
    w, k = demands.shape
    depth = int(stack[w])
    nodes = 0
    tol = 1e-12
    while True:
        if nodes >= node_limit:
            stack[w] = depth
            return nodes, 0, int(best[1])
        if depth == w:
            # A leaf: the selection of the taken jobs.
            v = used[k]
            if v > best[0] * (1 + tol) + 1e-300:
                best[0] = v
                best[1] = 0
            if v >= best[0] * (1 - tol) and best[1] < best_rows.shape[0]:
                r = int(best[1])
                for j in range(w):
                    best_rows[r, j] = stack[j] == 1
                best[1] += 1
            depth = _next_branch(stack, used, demands, values, depth)
            if depth < 0:
                stack[w] = 0
                return nodes, 1, int(best[1])
            continue
        nodes += 1
        # Bound of the subtree at ``depth`` (jobs depth.. undecided).
        bound = np.inf
        for r in range(k):
            lp = _lp_bound(orders[r], demands[:, r], values, depth, limit[r] - used[r])
            if lp < bound:
                bound = lp
        if used[k] + bound < best[0] * (1 - tol):
            # Cut: back to the last job whose other branch is open.
            depth = _next_branch(stack, used, demands, values, depth)
            if depth < 0:
                stack[w] = 0
                return nodes, 1, int(best[1])
            continue
        fits = True
        for r in range(k):
            if used[r] + demands[depth, r] > limit[r]:
                fits = False
                break
        if fits:
            for r in range(k):
                used[r] += demands[depth, r]
            used[k] += values[depth]
            stack[depth] = 1
        else:
            stack[depth] = 2
        depth += 1


@njit(cache=True)
def bnb_order(
    demands: np.ndarray, limit: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """The search order of ``single_bnb`` (value per normalised size, descending; ties: earlier
    job first), the demands and values in it, and per resource the jobs (search positions) by
    value per unit of that resource, descending (jobs not using it first)."""
    w, k = demands.shape
    key = np.empty(w, dtype=np.float64)
    for j in range(w):
        size = 0.0
        for r in range(k):
            size += demands[j, r] / (limit[r] if limit[r] > 0 else 1.0)
        key[j] = -values[j] / max(size, 1e-300)
    search = np.argsort(key, kind="mergesort")
    d = np.empty((w, k), dtype=np.float64)
    v = np.empty(w, dtype=np.float64)
    for t in range(w):
        d[t] = demands[search[t]]
        v[t] = values[search[t]]
    orders = np.empty((k, w), dtype=np.int64)
    for r in range(k):
        for t in range(w):
            key[t] = -v[t] / d[t, r] if d[t, r] > 0 else -np.inf
        orders[r] = np.argsort(key, kind="mergesort")
    return search, d, v, orders
