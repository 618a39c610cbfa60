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
in the numpy code these kernels replaced; ``tests/simcore/test_locality.py`` pins the schedules).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedbench.simcore.jit import njit


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
    acc = evict_sum(files, ends, sizes, counts, node, file, at, zero)
    return evict_scale(acc, single, share32, bw32, cores, cpn, bw)


@njit(cache=True)
def evict_sum(
    files: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    counts: np.ndarray,
    node: int,
    file: int,
    at: int,
    zero: Any,
) -> Any:  # pragma: no cover
    """The sizes in :func:`evict_term`, summed one by one in list order, from ``zero`` (a
    float32 zero in single precision: each step rounds to float32)."""
    acc = zero
    for k in range(counts[node]):
        if files[node, k] != file and ends[node, k] <= at:
            acc = acc + sizes[node, k]
    return acc


@njit(cache=True)
def evict_scale(
    acc: Any, single: bool, share32: Any, bw32: Any, cores: float, cpn: float, bw: float
) -> float:  # pragma: no cover
    """E from the summed sizes (:func:`evict_term`)."""
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
    return select_from(
        i0, b0, partial, w2, at, files, ends, sizes, counts, file, single, zero, share32, bw32,
        cores, cpn, bw,
    )  # fmt: skip


@njit(cache=True)
def select_from(
    i0: int,
    b0: float,
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
    """:func:`select_reference` once its first pass is done: ``i0`` is the first node of
    smallest lower bound ``b0`` (and some node has W_evict > 0)."""
    n = partial.size
    best_i = i0
    best_v = b0
    if w2[i0] != 0:
        e = evict_term(
            files, ends, sizes, counts, i0, file, at[i0], single, zero, share32, bw32, cores,
            cpn, bw,
        )  # fmt: skip
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
                files, ends, sizes, counts, i, file, at[i], single, zero, share32, bw32, cores,
                cpn, bw,
            )  # fmt: skip
            v = full_score(partial[i], w2[i], e, single)
        if v < best_v or (v == best_v and i < best_i):
            best_v, best_i = v, i
    return best_i, best_v


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


# -- the planner's file intervals (model note §5) ---------------------------------------------------
# One scheduler run's intervals (start, load complete, planned end) of every (node, file), kept as
# one linked list per file in flat arrays: ``iv[i]`` = (node, start, load complete, end, next
# interval of the same file or −1, file), ``ht[f]`` = (first, last) interval of file ``f`` or
# −1. A node's intervals of a file appear in the list in the order they were added, which is the
# order the reference keeps in its per-node lists.
IV_NODE, IV_START, IV_LOAD, IV_END, IV_NEXT, IV_FILE = range(6)
IV_COLUMNS = 6
ENT_NODE, ENT_FILE, ENT_LOAD, ENT_END, ENT_USERS, ENT_NEXT = range(6)
ENT_COLUMNS = 6


@njit(cache=True)
def ival_append(
    iv: np.ndarray, ht: np.ndarray, m: int, file: int, node: int, start: int, load: int, end: int
) -> None:  # pragma: no cover
    """Add interval ``m`` (the next free row of ``iv``) to ``file``'s list."""
    iv[m, IV_NODE] = node
    iv[m, IV_START] = start
    iv[m, IV_LOAD] = load
    iv[m, IV_END] = end
    iv[m, IV_NEXT] = -1
    iv[m, IV_FILE] = file
    if ht[file, 0] < 0:
        ht[file, 0] = m
    else:
        iv[ht[file, 1], IV_NEXT] = m
    ht[file, 1] = m


@njit(cache=True)
def ivals_rebuild(
    iv: np.ndarray, ht: np.ndarray, n_old: int, ent: np.ndarray, eids: np.ndarray, now: int
) -> int:  # pragma: no cover
    """``get_current_intervals`` (§5): drop every interval (the ``n_old`` of the last run) and
    give each file entry of ``eids`` (rows of ``ent``: (node, file, load complete, end, running
    users, ...)) one interval from the jobs running now — (now, max(load complete, now), end) —
    or, if its last user ended this very second, (now, now, now); returns the number of
    intervals. ``eids`` need only hold the entries that can have one (running users, or an end
    now): the others get none. Their order does not matter: an entry has one interval, and a
    file's list is only ever read node by node."""
    for i in range(n_old):
        f = iv[i, IV_FILE]
        ht[f, 0] = -1
        ht[f, 1] = -1
    m = 0
    for k in range(eids.size):
        e = eids[k]
        if ent[e, ENT_USERS] > 0:
            ival_append(
                iv, ht, m, ent[e, ENT_FILE], ent[e, ENT_NODE], now,
                max(ent[e, ENT_LOAD], now), ent[e, ENT_END],
            )  # fmt: skip
            m += 1
        elif ent[e, ENT_END] == now:
            ival_append(iv, ht, m, ent[e, ENT_FILE], ent[e, ENT_NODE], now, now, now)
            m += 1
    return m


@njit(cache=True)
def ent_find(
    ent: np.ndarray, ent_head: np.ndarray, file: int, node: int
) -> int:  # pragma: no cover
    """The row of the (node, file) entry, through the file's list of entries; −1 if none."""
    e = ent_head[file]
    while e >= 0:
        if ent[e, ENT_NODE] == node:
            return e
        e = ent[e, ENT_NEXT]
    return -1


@njit(cache=True)
def load_terms(
    iv: np.ndarray,
    ht: np.ndarray,
    file: int,
    at: np.ndarray,
    now: int,
    from_now: bool,
    full: Any,
    mark: np.ndarray,
    stamp: int,
    out: np.ndarray,
) -> None:  # pragma: no cover
    """TL of a job reading ``file`` on every node at ``at[n]`` (§6) into ``out``: on a node,
    the first of its intervals of the file that contains ``at[n]`` (ends included) decides — 0
    if the load is complete by then, else the rest of the load from now (``from_now``,
    reference) or from ``at[n]`` (paper); ``full`` (size / bandwidth) where none does.
    ``mark``/``stamp`` record the nodes already decided (``mark[n] == stamp``) without
    clearing an array per call."""
    for n in range(out.size):
        out[n] = full
    load_terms_walk(iv, ht, file, at, now, from_now, mark, stamp, out)


@njit(cache=True)
def load_terms_walk(
    iv: np.ndarray,
    ht: np.ndarray,
    file: int,
    at: np.ndarray,
    now: int,
    from_now: bool,
    mark: np.ndarray,
    stamp: int,
    out: np.ndarray,
) -> None:  # pragma: no cover
    """:func:`load_terms` on an ``out`` that already holds the full load time everywhere: the
    nodes where an interval of ``file`` decides."""
    i = ht[file, 0]
    while i >= 0:
        n = iv[i, IV_NODE]
        if mark[n] != stamp:
            a = at[n]
            if iv[i, IV_START] <= a and a <= iv[i, IV_END]:
                mark[n] = stamp
                if iv[i, IV_LOAD] <= a:
                    out[n] = 0
                else:
                    out[n] = iv[i, IV_LOAD] - (now if from_now else a)
        i = iv[i, IV_NEXT]


@njit(cache=True)
def load_term_one(
    iv: np.ndarray, ht: np.ndarray, file: int, node: int, at: int, now: int, from_now: bool
) -> tuple[bool, int]:  # pragma: no cover
    """:func:`load_terms` on one node: (whether an interval decides, its TL)."""
    i = ht[file, 0]
    while i >= 0:
        if iv[i, IV_NODE] == node and iv[i, IV_START] <= at and at <= iv[i, IV_END]:
            if iv[i, IV_LOAD] <= at:
                return True, 0
            return True, iv[i, IV_LOAD] - (now if from_now else at)
        i = iv[i, IV_NEXT]
    return False, 0


# -- backfilling holes (model note §7) ---------------------------------------------------------------
# A node's hole cores, in the reference's order (``insert_cores_in_a_hole_list_sorted_increasing_
# order``, backfill mode 2): ``hole_core[n, :hole_count[n]]`` and the end of each core's hole in
# ``hole_end`` (the start of the job that claimed the idle core), sorted by end.


@njit(cache=True)
def hole_insert(
    hole_core: np.ndarray,
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    node: int,
    core: int,
    end: int,
) -> None:  # pragma: no cover
    """Insert ``core`` with a hole ending at ``end``: at the head if the list is empty or the
    head ends later (or at the same time on a higher core), else after the last hole ending by
    ``end``."""
    h = hole_count[node]
    if (
        h == 0
        or hole_end[node, 0] > end
        or (hole_end[node, 0] == end and hole_core[node, 0] > core)
    ):
        pos = 0
    else:
        pos = 0
        while pos + 1 < h and hole_end[node, pos + 1] <= end:
            pos += 1
        pos += 1
    for k in range(h, pos, -1):
        hole_core[node, k] = hole_core[node, k - 1]
        hole_end[node, k] = hole_end[node, k - 1]
    hole_core[node, pos] = core
    hole_end[node, pos] = end
    hole_count[node] = h + 1


@njit(cache=True)
def can_backfill(
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    avail: np.ndarray,
    node: int,
    cores: int,
    now: int,
    end_by: int,
    quirk: bool,
) -> tuple[bool, int, int]:  # pragma: no cover
    """Whether a job of ``cores`` cores ending by ``end_by`` can start now on ``node`` in its
    hole (§7): (ok, cores from the hole, cores from fully free cores). The reference first
    asks for ``cores`` hole cores, or enough cores free now besides the hole; then takes the
    hole cores whose hole lasts until ``end_by`` (in list order, at most ``cores``) and the rest
    from the earliest free cores, which must be free now. Its test that a usable hole core
    exists is ineffective (``quirk``): then none is required."""
    h = hole_count[node]
    if h == 0:
        return False, 0, 0
    if not (cores <= h or avail[node, cores - 1 - h] <= now):
        return False, 0, 0
    from_hole = 0
    for k in range(h):
        if end_by <= hole_end[node, k]:
            from_hole += 1
            if from_hole == cores:
                break
    if from_hole == 0 and not quirk:
        return False, 0, 0
    outside = cores - from_hole
    for k in range(outside):
        if avail[node, k] > now:
            return False, 0, 0
    return True, from_hole, outside


@njit(cache=True)
def backfill_options(
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    avail: np.ndarray,
    cores: int,
    now: int,
    end_by: int,
    quirk: bool,
    before: int,
    first_only: bool,
    out: np.ndarray,
) -> int:  # pragma: no cover
    """:func:`can_backfill` on the nodes before ``before``, in scan order: the rows (node, from
    hole, outside) of the nodes where it succeeds go to ``out`` (only the first with
    ``first_only``, FCFS-BF's rule); returns their number."""
    m = 0
    for node in range(min(before, hole_count.size)):
        if hole_count[node] == 0:
            continue
        ok, from_hole, outside = can_backfill(
            hole_end, hole_count, avail, node, cores, now, end_by, quirk
        )
        if ok:
            out[m, 0] = node
            out[m, 1] = from_hole
            out[m, 2] = outside
            m += 1
            if first_only:
                break
    return m


@njit(cache=True)
def fits_hole_only(
    hole_end: np.ndarray, hole_count: np.ndarray, node: int, cores: int, end_by: int
) -> bool:  # pragma: no cover
    """The pool-exhausted test (§7): ``cores`` hole cores of ``node`` whose holes last until
    ``end_by``."""
    h = hole_count[node]
    if h == 0 or cores > h:
        return False
    got = 0
    for k in range(h):
        if end_by <= hole_end[node, k]:
            got += 1
            if got == cores:
                return True
    return False


@njit(cache=True)
def take_hole_cores(
    hole_core: np.ndarray,
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    node: int,
    take: int,
    end_by: int,
    used: np.ndarray,
) -> int:  # pragma: no cover
    """Remove from ``node``'s holes the first ``take`` cores (in list order) whose hole lasts
    until ``end_by``, writing them to ``used``; returns how many were found."""
    h = hole_count[node]
    got = 0
    keep = 0
    for k in range(h):
        if got < take and end_by <= hole_end[node, k]:
            used[got] = hole_core[node, k]
            got += 1
        else:
            hole_core[node, keep] = hole_core[node, k]
            hole_end[node, keep] = hole_end[node, k]
            keep += 1
    hole_count[node] = keep
    return got


@njit(cache=True)
def reset_cores(
    run_end: np.ndarray, now: int, avail: np.ndarray, cid: np.ndarray
) -> None:  # pragma: no cover
    """``reset_cores``: every core is free now, or at the walltime end of the job running on it
    (``run_end`` by core id, −1 when idle); each node's row sorted by (free time, core id)."""
    nodes, width = run_end.shape
    times = np.empty(width, dtype=np.int64)
    for node in range(nodes):
        for core in range(width):
            e = run_end[node, core]
            times[core] = e if e >= 0 else now
        for k in range(width):
            cid[node, k] = k
        for i in range(1, width):
            x = cid[node, i]
            tx = times[x]
            j = i - 1
            while j >= 0 and times[cid[node, j]] > tx:
                cid[node, j + 1] = cid[node, j]
                j -= 1
            cid[node, j + 1] = x
        for k in range(width):
            avail[node, k] = times[cid[node, k]]
