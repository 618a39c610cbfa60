"""Compiled kernels of the locality planner (docs/design.md#compiled-kernels): the per-node eviction
rows and the reference node selection of the score family.

Eviction rows (model note §5, §6). For every node the engine keeps, in padded ``node × slot``
arrays, one row per file entry that has intervals in the current scheduler run, in the node's
list (rank) order: the file, the end of its latest interval, its size and its rank; ``counts``
holds how many slots of each row are used (the rest is padding, never read).

* :func:`row_set` gives an entry's row a new latest-interval end, inserting the row at its rank
  position if the entry had none; :func:`row_drop` removes it. The caller makes sure a row has
  room for one more slot.
* :func:`evict_term` is E on one node (§6): the sizes of the other files whose latest interval
  ends by ``at``, summed one by one in list order (as the reference's loop; in float32 in single
  precision, so ``zero`` is ``np.float32(0)`` there), × cores / cores_per_node / bandwidth.
* :func:`select_reference` is the reference rule over all nodes: the first node of smallest
  (truncated) score EAT + W_load·TL + W_evict·E, computing E only where the node can still win.

No ``fastmath``: every float32 operation rounds to single precision as in the reference (and
in the numpy code these kernels replaced; ``tests/test_locality.py`` pins the schedules).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def row_set(
    files: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    ranks: np.ndarray,
    counts: np.ndarray,
    node: int,
    file: int,
    end: int,
    size: float,
    rank: int,
) -> None:  # pragma: no cover
    """Set the latest-interval end of ``file``'s row on ``node`` (inserted by rank if absent)."""
    n = counts[node]
    for k in range(n):
        if files[node, k] == file:
            ends[node, k] = end
            return
    k = n
    while k > 0 and ranks[node, k - 1] > rank:
        files[node, k] = files[node, k - 1]
        ends[node, k] = ends[node, k - 1]
        sizes[node, k] = sizes[node, k - 1]
        ranks[node, k] = ranks[node, k - 1]
        k -= 1
    files[node, k] = file
    ends[node, k] = end
    sizes[node, k] = size
    ranks[node, k] = rank
    counts[node] = n + 1


@njit(cache=True)
def row_drop(
    files: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    ranks: np.ndarray,
    counts: np.ndarray,
    node: int,
    file: int,
) -> None:  # pragma: no cover
    """Remove ``file``'s row from ``node`` (nothing if it has none)."""
    n = counts[node]
    for k in range(n):
        if files[node, k] == file:
            for m in range(k, n - 1):
                files[node, m] = files[node, m + 1]
                ends[node, m] = ends[node, m + 1]
                sizes[node, m] = sizes[node, m + 1]
                ranks[node, m] = ranks[node, m + 1]
            counts[node] = n - 1
            return


@njit(cache=True)
def evict_term(
    files: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    counts: np.ndarray,
    node: int,
    file: int,
    at: int,
    single: bool,
    zero: Any,
    share32: Any,
    bw32: Any,
    cores: float,
    cpn: float,
    bw: float,
) -> float:  # pragma: no cover
    """E of a job with ``file`` on ``node`` at ``at`` (§6). Single precision: the float32 sum
    × ``share32`` (float32 cores / cores_per_node) / ``bw32``, each step rounded to float32;
    else the float64 sum × cores / cpn / bw."""
    acc = zero
    for k in range(counts[node]):
        if files[node, k] != file and ends[node, k] <= at:
            acc = acc + sizes[node, k]
    if single:
        return float(np.float32(np.float32(acc * share32) / bw32))
    return float(acc * cores / cpn / bw)


@njit(cache=True)
def _lower(partial: np.ndarray, i: int, single: bool) -> float:  # pragma: no cover
    """The score's lower bound EAT + W_load·TL (truncated in single precision)."""
    if single:
        return float(int(partial[i]))  # int() truncates toward zero, as np.trunc
    return float(partial[i])


@njit(cache=True)
def full_score(partial_i: Any, w2: int, e: float, single: bool) -> float:  # pragma: no cover
    """EAT + W_load·TL + W_evict·E from the partial sum (float32 and truncated in single
    precision: ``float32(partial + float32(float32(W_evict) · float32(E)))``)."""
    if single:
        term = np.float32(np.float32(w2) * np.float32(e))
        return float(int(np.float32(partial_i + term)))
    return float(partial_i + float(w2) * e)


@njit(cache=True)
def select_reference(
    partial: np.ndarray,
    w2: np.ndarray,
    at: np.ndarray,
    files: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    counts: np.ndarray,
    file: int,
    single: bool,
    zero: Any,
    share32: Any,
    bw32: Any,
    cores: float,
    cpn: float,
    bw: float,
) -> tuple[int, float]:  # pragma: no cover
    """(node, full score) of the first node of smallest full score, ``partial[i]`` =
    EAT + W_load·TL (float32 in single precision), ``w2[i]`` = W_evict, ``at[i]`` = EAT.

    The full score never undercuts its lower bound (W_evict·E ≥ 0), so starting from the
    node of smallest lower bound, a node whose lower bound cannot beat the best so far (in
    value, then index) skips E; the answer is the same as scoring every node."""
    n = partial.size
    i0 = 0
    b0 = _lower(partial, 0, single)
    any_w = w2[0] != 0
    for i in range(1, n):
        lo = _lower(partial, i, single)
        if lo < b0:
            i0, b0 = i, lo
        if w2[i] != 0:
            any_w = True
    if not any_w:
        return i0, b0
    best_i = i0
    best_v = b0
    if w2[i0] != 0:
        e = evict_term(
            files,
            ends,
            sizes,
            counts,
            i0,
            file,
            at[i0],
            single,
            zero,
            share32,
            bw32,
            cores,
            cpn,
            bw,
        )
        best_v = full_score(partial[i0], w2[i0], e, single)
    for i in range(n):
        if i == i0:
            continue
        lo = _lower(partial, i, single)
        if lo > best_v or (lo == best_v and i > best_i):
            continue
        v = lo
        if w2[i] != 0:
            e = evict_term(
                files,
                ends,
                sizes,
                counts,
                i,
                file,
                at[i],
                single,
                zero,
                share32,
                bw32,
                cores,
                cpn,
                bw,
            )
            v = full_score(partial[i], w2[i], e, single)
        if v < best_v or (v == best_v and i < best_i):
            best_v, best_i = v, i
    return best_i, best_v


@njit(cache=True)
def backfill_prefilter(
    hole_count: np.ndarray,
    hole_last_end: np.ndarray,
    avail: np.ndarray,
    cores: int,
    now: int,
    end_by: int,
    need_lasting_hole: bool,
) -> np.ndarray:  # pragma: no cover
    """Hole nodes, in scan order, that pass two necessary conditions of backfilling a job of
    ``cores`` cores now (§7): enough cores free now besides the hole (``avail`` is each node's
    sorted core free times), and, unless the hole quirk is on, a hole lasting until ``end_by``
    (a node's holes are sorted by end: its last one lasts longest)."""
    out = np.empty(hole_count.size, dtype=np.int64)
    m = 0
    width = avail.shape[1]
    for node in range(hole_count.size):
        h = hole_count[node]
        if h == 0:
            continue
        if cores > h:
            col = min(cores - 1 - h, width - 1)
            if avail[node, col] > now:
                continue
        if need_lasting_hole and hole_last_end[node] < end_by:
            continue
        out[m] = node
        m += 1
    return out[:m]


@njit(cache=True)
def take_cores(
    avail: np.ndarray,
    cid: np.ndarray,
    node: int,
    cores: int,
    start: int,
    end: int,
    now: int,
    lowest_numbered: bool,
    used: np.ndarray,
    free_now: np.ndarray,
) -> int:  # pragma: no cover
    """Plan ``cores`` cores of ``node`` from ``start`` to ``end``; ``avail[node]`` holds the
    core free times sorted by (time, core id), ``cid[node]`` the core id at each position.
    The cores are the first ``cores`` of that order (the earliest free), or, with
    ``lowest_numbered`` (backfilling's ``fill_cores_minimize_holes``, §7), the lowest-numbered
    cores free by ``start``. Writes the cores taken to ``used`` (in the order taken) and whether
    each was free by ``now`` to ``free_now``, re-sorts the node's row, and returns ``cores`` —
    or −1, changing nothing, if the node cannot hold them."""
    width = avail.shape[1]
    times = np.empty(width, dtype=np.int64)  # free time by core id
    for k in range(width):
        times[cid[node, k]] = avail[node, k]
    m = 0
    if lowest_numbered:
        for core in range(width):
            if times[core] <= start:
                used[m] = core
                free_now[m] = 1 if times[core] <= now else 0
                times[core] = end
                m += 1
                if m == cores:
                    break
        if m != cores:
            return -1
    else:
        for k in range(cores):
            core = cid[node, k]
            used[k] = core
            free_now[k] = 1 if avail[node, k] <= now else 0
            times[core] = end
        m = cores
    # stable insertion sort of the core ids by free time: the order (time, core id)
    ids = np.arange(width)
    for i in range(1, width):
        x = ids[i]
        tx = times[x]
        j = i - 1
        while j >= 0 and times[ids[j]] > tx:
            ids[j + 1] = ids[j]
            j -= 1
        ids[j + 1] = x
    for k in range(width):
        cid[node, k] = ids[k]
        avail[node, k] = times[ids[k]]
    return m


@njit(cache=True)
def partial_scores(
    eat: np.ndarray, tl: np.ndarray, w1: np.ndarray, out: np.ndarray, single: bool
) -> None:  # pragma: no cover
    """``out[i]`` = EAT + W_load·TL (§6): ``float32(eat) + float32(float32(w1) · tl)`` with a
    float32 ``tl`` in single precision, else in float64."""
    for i in range(eat.size):
        if single:
            out[i] = np.float32(eat[i]) + np.float32(np.float32(w1[i]) * tl[i])
        else:
            out[i] = float(eat[i]) + float(w1[i]) * tl[i]


@njit(cache=True)
def leo_weights(
    eat: np.ndarray,
    now: int,
    w1: int,
    w2: int,
    sticky: bool,
    v1: np.ndarray,
    v2: np.ndarray,
) -> None:  # pragma: no cover
    """LEO's weights per node (§6): (``w1``, ``w2``), but (1, 0) on the nodes that can start the
    job now — with ``sticky`` (reference) from the first such node on, for the rest of the
    scan; else (paper) on those nodes only."""
    switched = False
    for i in range(eat.size):
        if eat[i] == now:
            switched = True
        if eat[i] == now or (sticky and switched):
            v1[i] = 1
            v2[i] = 0
        else:
            v1[i] = w1
            v2[i] = w2
