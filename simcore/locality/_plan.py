"""One whole scheduler run of the ten locality schedulers, compiled
(docs/design.md#compiled-kernels).

The schedulers of ``simcore/locality/schedulers.py`` place one job at a time through the
:class:`~simcore.locality.engine.Planner`; a full replan places several hundred queued jobs, and
a day several hundred thousand, so the Python per job (a dozen calls into compiled kernels and
numpy per job) was most of the run time. When no solver decides and no problem is recorded, the
schedulers hand the whole run to :func:`plan_run`, which applies the same rules to the same
state (model note §4, §6, §7; the Python code is the readable statement of each rule and is
still what runs when problems are posed): ``tests/simcore/test_locality.py`` checks that both give the
same schedule for the ten schedulers in both modes, and ``tests/simcore/test_locality_calibration.py``
that the result equals the authors' simulator.

State passed in (all owned by the engine, updated in place):

* the cores: ``avail``/``cid`` (per node, the core free times sorted by (time, core id) and the
  core at each position), ``n_free`` (cores not running a job, for LEM's count);
* the holes: ``hole_core``/``hole_end``/``hole_count`` (``_kernels.hole_insert``);
* the file view (score family only): intervals ``iv``/``ht``, the entry table ``ent`` with the
  per-file lists of entries ``ent_head`` (next entry in column ``ENT_NEXT``), the run's eviction
  rows;
* ``st``, the run's counters (the ``ST_*`` positions below);
* the plans: ``plan_start``/``plan_node``/``plan_transfer``/``plan_cores``, and ``placed``,
  the jobs placed in this call in order (the engine then files their planned starts).

A run stops early, before touching a job, when an array would overflow (more intervals,
entries or eviction-row slots than allocated): :func:`plan_run` returns the position of that
job in the queue and a status; the engine grows the array and calls again from there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedbench.simcore.jit import njit
from schedbench.simcore.locality._kernels import (
    ENT_END,
    ENT_FILE,
    ENT_LOAD,
    ENT_NEXT,
    ENT_NODE,
    ENT_USERS,
    can_backfill,
    ent_find,
    evict_scale,
    evict_sum,
    fits_hole_only,
    full_score,
    hole_insert,
    ival_append,
    load_term_one,
    load_terms_walk,
    row_set,
    take_cores,
    take_hole_cores,
)

# rules
FCFS, EFT, LEA, LEO, LEM = range(5)
RULES = {"fcfs": FCFS, "eft": EFT, "lea": LEA, "leo": LEO, "lem": LEM}
# st: the run's counters (claimed and running_nodes are the Planner's, the rest the engine's)
(
    ST_CLAIMED,
    ST_AT_T,
    ST_RUNNING_NODES,
    ST_BIGGEST_HOLE,
    ST_BIGGEST_HOLE_ID,
    ST_HOLE_NODES,
    ST_N_IV,
    ST_N_ENT,
    ST_PLACEMENTS,
    ST_BACKFILLED,
    ST_N_PLACED,
    ST_STAMP,
    ST_EPOCH,
) = range(13)
ST_SIZE = 13
# statuses
DONE, GROW_IV, GROW_ENT, GROW_ROWS = range(4)
# cfg: the run's settings
(
    CFG_RULE,
    CFG_BACKFILL,
    CFG_USES_FILES,
    CFG_NOW,
    CFG_SINGLE,
    CFG_FROM_NOW,
    CFG_W_LOAD,
    CFG_W_EVICT,
    CFG_LEM_PCT,
    CFG_LEO_STICKY,
    CFG_QUIRK,
    CFG_ALL_CLAIMED,
) = range(12)
CFG_SIZE = 12


@njit(cache=True)
def _new_biggest_hole(hole_count: np.ndarray, st: np.ndarray) -> None:  # pragma: no cover
    best = 0
    for n in range(hole_count.size):
        if hole_count[n] > hole_count[best]:
            best = n
    st[ST_BIGGEST_HOLE] = hole_count[best]
    st[ST_BIGGEST_HOLE_ID] = best


@njit(cache=True)
def _evict(
    ec_tag: np.ndarray,
    ec_acc: np.ndarray,
    epoch: int,
    r_files: np.ndarray,
    r_ends: np.ndarray,
    r_sizes: np.ndarray,
    r_counts: np.ndarray,
    node: int,
    file: int,
    at: int,
    zero: Any,
    single: bool,
    share32: Any,
    bw32: Any,
    cores: float,
    cpn: float,
    bw: float,
) -> float:  # pragma: no cover
    """E (``_kernels.evict_term``), its sum kept per node: consecutive jobs of a session read
    the same file at the same time on the same idle nodes, whose rows did not change in
    between. ``ec_tag[node]`` = (run epoch, file, at) of the kept sum; a placement on the node
    clears it (``_place``), and a new run (new epoch, rows copied afresh) ignores it."""
    if ec_tag[node, 0] == epoch and ec_tag[node, 1] == file and ec_tag[node, 2] == at:
        acc = ec_acc[node]
    else:
        acc = evict_sum(r_files, r_ends, r_sizes, r_counts, node, file, at, zero)
        ec_tag[node, 0] = epoch
        ec_tag[node, 1] = file
        ec_tag[node, 2] = at
        ec_acc[node] = acc
    return evict_scale(acc, single, share32, bw32, cores, cpn, bw)


@njit(cache=True)
def _select(
    i0: int,
    b0: float,
    partial: np.ndarray,
    w2: np.ndarray,
    at: np.ndarray,
    ec_tag: np.ndarray,
    ec_acc: np.ndarray,
    epoch: int,
    r_files: np.ndarray,
    r_ends: np.ndarray,
    r_sizes: np.ndarray,
    r_counts: np.ndarray,
    file: int,
    zero: Any,
    single: bool,
    share32: Any,
    bw32: Any,
    cores: float,
    cpn: float,
    bw: float,
) -> tuple[int, float]:  # pragma: no cover
    """``_kernels.select_from`` with the kept eviction sums of :func:`_evict`: (node, full
    score) of the first node of smallest truncated score, ``i0`` the first node of smallest
    lower bound ``b0``."""
    best_i = i0
    best_v = b0
    if w2[i0] != 0:
        e = _evict(
            ec_tag, ec_acc, epoch, r_files, r_ends, r_sizes, r_counts, i0, file, at[i0], zero,
            single, share32, bw32, cores, cpn, bw,
        )  # fmt: skip
        best_v = full_score(partial[i0], w2[i0], e, single)
    for i in range(partial.size):
        if i == i0:
            continue
        lo = float(int(partial[i])) if single else float(partial[i])
        if lo > best_v or (lo == best_v and i > best_i):
            continue
        v = lo
        if w2[i] != 0:
            e = _evict(
                ec_tag, ec_acc, epoch, r_files, r_ends, r_sizes, r_counts, i, file, at[i], zero,
                single, share32, bw32, cores, cpn, bw,
            )  # fmt: skip
            v = full_score(partial[i], w2[i], e, single)
        if v < best_v or (v == best_v and i < best_i):
            best_v, best_i = v, i
    return best_i, best_v


@njit(cache=True)
def _base_weights(
    cfg: np.ndarray, st: np.ndarray, nodes: int
) -> tuple[int, int]:  # pragma: no cover
    """(W_load, W_evict) of the run's rule (§6): EFT (1, 0); LEM EFT's while the integer share
    of nodes running a job is below the threshold, else LEA's; LEA and LEO LEA's."""
    rule = cfg[CFG_RULE]
    if rule == EFT or (rule == LEM and (st[ST_RUNNING_NODES] * 100) // nodes < cfg[CFG_LEM_PCT]):
        return 1, 0
    return cfg[CFG_W_LOAD], cfg[CFG_W_EVICT]


@njit(cache=True)
def _place(
    cfg: np.ndarray,
    st: np.ndarray,
    job: int,
    node: int,
    start: int,
    transfer: int,
    from_hole: int,
    outside: int,
    backfilled: bool,
    add_interval: bool,
    cores: np.ndarray,
    walltime: np.ndarray,
    file: np.ndarray,
    size_of_file: np.ndarray,
    avail: np.ndarray,
    cid: np.ndarray,
    n_free: np.ndarray,
    hole_core: np.ndarray,
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    iv: np.ndarray,
    ht: np.ndarray,
    ent: np.ndarray,
    ent_head: np.ndarray,
    r_files: np.ndarray,
    r_ends: np.ndarray,
    r_sizes: np.ndarray,
    r_ranks: np.ndarray,
    r_counts: np.ndarray,
    plan_start: np.ndarray,
    plan_node: np.ndarray,
    plan_transfer: np.ndarray,
    plan_cores: np.ndarray,
    placed: np.ndarray,
    used: np.ndarray,
    free_now: np.ndarray,
    ec_tag: np.ndarray,
) -> int:  # pragma: no cover
    """``LocalitySimulator.place`` (and ``place_backfilled``): the status, DONE once placed;
    any other status returns before anything changed."""
    t = cfg[CFG_NOW]
    C = avail.shape[1]
    c = cores[job]
    wall = walltime[job]
    f = file[job]
    interval = add_interval and cfg[CFG_USES_FILES] != 0
    eid = -1
    if interval:
        # room first: a status other than DONE must leave everything as it was
        if st[ST_N_IV] >= iv.shape[0]:
            return GROW_IV
        eid = ent_find(ent, ent_head, f, node)
        if eid < 0 and st[ST_N_ENT] >= ent.shape[0]:
            return GROW_ENT
        if r_counts[node] == r_files.shape[1]:
            return GROW_ROWS
    # LEM: an idle node that this run starts a job on now counts as running (§6)
    if start == t and n_free[node] == C and avail[node, C - 1] <= t:
        st[ST_RUNNING_NODES] += 1
    if backfilled:
        times = np.empty(C, dtype=np.int64)
        for k in range(C):
            times[cid[node, k]] = avail[node, k]
        taken = 0
        if from_hole > 0:
            taken = take_hole_cores(
                hole_core, hole_end, hole_count, node, from_hole, t + wall, used
            )
            if hole_count[node] == 0:
                st[ST_HOLE_NODES] -= 1
        for k in range(outside):
            core = cid[node, k]
            used[taken + k] = core
            times[core] = t + wall
        st[ST_AT_T] += c
        st[ST_CLAIMED] += outside
        st[ST_BACKFILLED] += 1
        if node == st[ST_BIGGEST_HOLE_ID]:
            _new_biggest_hole(hole_count, st)
        # the node's row sorted again by (free time, core id)
        ids = np.arange(C)
        for i in range(1, C):
            x = ids[i]
            tx = times[x]
            j = i - 1
            while j >= 0 and times[ids[j]] > tx:
                ids[j + 1] = ids[j]
                j -= 1
            ids[j + 1] = x
        for k in range(C):
            cid[node, k] = ids[k]
            avail[node, k] = times[ids[k]]
    else:
        lowest = cfg[CFG_BACKFILL] != 0
        if lowest and start == t:
            st[ST_AT_T] += c
        take_cores(avail, cid, node, c, start, start + wall, t, lowest, used, free_now)
        for k in range(c):
            st[ST_CLAIMED] += free_now[k]
        if lowest:
            if start > t:
                for k in range(c):
                    if free_now[k]:
                        if hole_count[node] == 0:
                            st[ST_HOLE_NODES] += 1
                        hole_insert(hole_core, hole_end, hole_count, node, used[k], start)
            if node == st[ST_BIGGEST_HOLE_ID]:
                _new_biggest_hole(hole_count, st)
    plan_start[job] = start
    plan_node[job] = node
    plan_transfer[job] = transfer
    for k in range(c):
        plan_cores[job, k] = used[k]
    st[ST_PLACEMENTS] += 1
    placed[st[ST_N_PLACED]] = job
    st[ST_N_PLACED] += 1
    if interval:
        if eid < 0:
            eid = st[ST_N_ENT]
            ent[eid, ENT_NODE] = node
            ent[eid, ENT_FILE] = f
            ent[eid, ENT_LOAD] = -1
            ent[eid, ENT_END] = -1
            ent[eid, ENT_USERS] = 0
            ent[eid, ENT_NEXT] = ent_head[f]
            ent_head[f] = eid
            st[ST_N_ENT] += 1
        m = st[ST_N_IV]
        ival_append(iv, ht, m, f, node, start, start + transfer, start + wall)
        st[ST_N_IV] = m + 1
        ec_tag[node, 0] = -1  # the node's rows change: its kept eviction sum is stale
        # the entry's rank is its row in the entry table (both count entries as created)
        row_set(
            r_files, r_ends, r_sizes, r_ranks, r_counts, node, f, start + wall,
            size_of_file[f], eid,
        )  # fmt: skip
    return DONE


@njit(cache=True)
def plan_run(
    cfg: np.ndarray,
    st: np.ndarray,
    queue: np.ndarray,
    k0: int,
    cores: np.ndarray,
    walltime: np.ndarray,
    file: np.ndarray,
    full_tl: np.ndarray,
    size_of_file: np.ndarray,
    zero: Any,
    bw32: Any,
    bw: float,
    avail: np.ndarray,
    cid: np.ndarray,
    n_free: np.ndarray,
    hole_core: np.ndarray,
    hole_end: np.ndarray,
    hole_count: np.ndarray,
    iv: np.ndarray,
    ht: np.ndarray,
    ent: np.ndarray,
    ent_head: np.ndarray,
    mark: np.ndarray,
    r_files: np.ndarray,
    r_ends: np.ndarray,
    r_sizes: np.ndarray,
    r_ranks: np.ndarray,
    r_counts: np.ndarray,
    plan_start: np.ndarray,
    plan_node: np.ndarray,
    plan_transfer: np.ndarray,
    plan_cores: np.ndarray,
    placed: np.ndarray,
    tl: np.ndarray,
    partial: np.ndarray,
    ec_tag: np.ndarray,
    ec_acc: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover
    """Plan ``queue[k0:]`` as the scheduler ``cfg[CFG_RULE]`` (with backfilling if
    ``cfg[CFG_BACKFILL]``) does (``schedulers.FCFS.plan``, ``schedulers.ScoreScheduler.plan``):
    returns (queue position reached, status); DONE when the whole queue is done."""
    N, C = avail.shape
    total = N * C
    t = cfg[CFG_NOW]
    rule = cfg[CFG_RULE]
    bf = cfg[CFG_BACKFILL] != 0
    single = cfg[CFG_SINGLE] != 0
    from_now = cfg[CFG_FROM_NOW] != 0
    quirk = cfg[CFG_QUIRK] != 0
    epoch = st[ST_EPOCH]
    used = np.zeros(C, dtype=np.int64)
    free_now = np.zeros(C, dtype=np.int64)
    eat = np.empty(N, dtype=np.int64)
    w1 = np.empty(N, dtype=np.int64)
    w2 = np.empty(N, dtype=np.int64)
    bf_rows = np.empty((N, 3), dtype=np.int64)
    bf_tl = np.empty(N, dtype=tl.dtype)
    bf_part = np.empty(N, dtype=partial.dtype)
    cpn = float(C)
    for k in range(k0, queue.size):
        j = queue[k]
        c = cores[j]
        end_by = t + walltime[j]
        f = file[j]
        # -- the planning horizon (§4) and the pool-exhausted pass (§7) --------------------------
        if rule == FCFS or cfg[CFG_ALL_CLAIMED] != 0:
            in_pool = st[ST_CLAIMED] < total
        else:
            in_pool = c <= total - st[ST_CLAIMED]
        if not in_pool:
            if bf and st[ST_AT_T] < total:
                if c > st[ST_BIGGEST_HOLE]:
                    plan_start[j] = -1
                    continue
                if rule == FCFS:
                    node = -1
                    for n in range(N):
                        if hole_count[n] > 0 and fits_hole_only(hole_end, hole_count, n, c, end_by):
                            node = n
                            break
                    if node < 0:
                        plan_start[j] = -1
                        continue
                    status = _place(
                        cfg, st, j, node, t, 0, c, 0, True, False, cores, walltime, file,
                        size_of_file, avail, cid, n_free, hole_core, hole_end, hole_count,
                        iv, ht, ent, ent_head, r_files, r_ends, r_sizes, r_ranks, r_counts,
                        plan_start, plan_node, plan_transfer, plan_cores, placed, used,
                        free_now, ec_tag,
                    )  # fmt: skip
                    if status != DONE:
                        return k, status
                    continue
                # the score family's hole-only pass: LEO scores with (1, 0); no EAT term; the
                # file interval is not recorded
                hw1, hw2 = (1, 0) if rule == LEO else _base_weights(cfg, st, N)
                best_v = 0.0
                best_tl = 0.0
                best_n = -1
                share32 = np.float32(np.float32(c) / np.float32(C))
                for n in range(N):
                    if hole_count[n] == 0 or not fits_hole_only(hole_end, hole_count, n, c, end_by):
                        continue
                    tl_n = 0.0
                    if f != 0:
                        found, v_tl = load_term_one(iv, ht, f, n, t, t, from_now)
                        tl_n = float(v_tl) if found else float(full_tl[j])
                    e_n = 0.0
                    if hw2 != 0:
                        e_n = _evict(
                            ec_tag, ec_acc, epoch, r_files, r_ends, r_sizes, r_counts, n, f, t, zero,
                            single, share32, bw32, float(c), cpn, bw,
                        )  # fmt: skip
                    if single:
                        part = np.float32(np.float32(hw1) * np.float32(tl_n))
                        v = float(
                            int(np.float32(part + np.float32(np.float32(hw2) * np.float32(e_n))))
                        )
                    else:
                        v = hw1 * tl_n + hw2 * e_n
                    if best_n < 0 or v < best_v:
                        best_v, best_n, best_tl = v, n, tl_n
                if best_n < 0:
                    plan_start[j] = -1
                    continue
                status = _place(
                    cfg, st, j, best_n, t, int(best_tl), c, 0, True, False, cores, walltime,
                    file, size_of_file, avail, cid, n_free, hole_core, hole_end, hole_count,
                    iv, ht, ent, ent_head, r_files, r_ends, r_sizes, r_ranks, r_counts,
                    plan_start, plan_node, plan_transfer, plan_cores, placed, used, free_now, ec_tag,
                )  # fmt: skip
                if status != DONE:
                    return k, status
                continue
            for kk in range(k, queue.size):
                plan_start[queue[kk]] = -1
            return queue.size, DONE
        # -- EAT (§6), and TL's default: the full load time ----------------------------------
        k_eat = N
        score = rule != FCFS
        full = full_tl[j] if f != 0 else 0.0
        for n in range(N):
            a = avail[n, c - 1]
            eat[n] = a if a > t else t
            if eat[n] == t and k_eat == N:
                k_eat = n
            if score:
                tl[n] = full
        if rule == FCFS:
            if bf:
                m = 0
                if st[ST_HOLE_NODES] > 0:
                    for n in range(min(k_eat, N)):
                        if hole_count[n] == 0:
                            continue
                        ok, fh, out = can_backfill(
                            hole_end, hole_count, avail, n, c, t, end_by, quirk
                        )
                        if ok:
                            bf_rows[0, 0] = n
                            bf_rows[0, 1] = fh
                            bf_rows[0, 2] = out
                            m = 1
                            break
                if m:
                    status = _place(
                        cfg, st, j, bf_rows[0, 0], t, 0, bf_rows[0, 1], bf_rows[0, 2], True,
                        True, cores, walltime, file, size_of_file, avail, cid, n_free,
                        hole_core, hole_end, hole_count, iv, ht, ent, ent_head, r_files,
                        r_ends, r_sizes, r_ranks, r_counts, plan_start, plan_node,
                        plan_transfer, plan_cores, placed, used, free_now, ec_tag,
                    )  # fmt: skip
                    if status != DONE:
                        return k, status
                    continue
            node = k_eat
            if node == N:
                node = 0
                for n in range(1, N):
                    if eat[n] < eat[node]:
                        node = n
            status = _place(
                cfg, st, j, node, eat[node], 0, 0, 0, False, True, cores, walltime, file,
                size_of_file, avail, cid, n_free, hole_core, hole_end, hole_count, iv, ht, ent,
                ent_head, r_files, r_ends, r_sizes, r_ranks, r_counts, plan_start, plan_node,
                plan_transfer, plan_cores, placed, used, free_now, ec_tag,
            )  # fmt: skip
            if status != DONE:
                return k, status
            continue
        # -- the score family (§6) ------------------------------------------------------------
        if f != 0:
            st[ST_STAMP] += 1
            load_terms_walk(iv, ht, f, eat, t, from_now, mark, st[ST_STAMP], tl)
        bw1, bw2 = _base_weights(cfg, st, N)
        switched = False
        # weights, EAT + W_load·TL, and the first pass of select_reference: the first node of
        # smallest lower bound (the partial score, truncated in single precision)
        i0 = -1
        b0 = 0.0
        any_w = False
        for n in range(N):
            if rule == LEO and (eat[n] == t or (cfg[CFG_LEO_STICKY] != 0 and switched)):
                switched = True
                w1[n] = 1
                w2[n] = 0
            else:
                w1[n] = bw1
                w2[n] = bw2
            if single:
                partial[n] = np.float32(eat[n]) + np.float32(np.float32(w1[n]) * tl[n])
                lo = float(int(partial[n]))
            else:
                partial[n] = float(eat[n]) + float(w1[n]) * tl[n]
                lo = float(partial[n])
            if i0 < 0 or lo < b0:
                i0, b0 = n, lo
            if w2[n] != 0:
                any_w = True
        share32 = np.float32(np.float32(c) / np.float32(C))
        normal, best_v = i0, b0
        if any_w:
            normal, best_v = _select(
                i0, b0, partial, w2, eat, ec_tag, ec_acc, epoch, r_files, r_ends, r_sizes,
                r_counts, f, zero, single, share32, bw32, float(c), cpn, bw,
            )  # fmt: skip
        choice = -1
        if bf and st[ST_HOLE_NODES] > 0:
            m = 0
            for n in range(N):
                if hole_count[n] == 0:
                    continue
                ok, fh, out = can_backfill(hole_end, hole_count, avail, n, c, t, end_by, quirk)
                if not ok:
                    continue
                if eat[n] == t:
                    tl_n = float(tl[n])
                elif f == 0:
                    tl_n = 0.0
                else:
                    found, v_tl = load_term_one(iv, ht, f, n, t, t, from_now)
                    tl_n = float(v_tl) if found else float(full_tl[j])
                bf_rows[m, 0] = n
                bf_rows[m, 1] = fh
                bf_rows[m, 2] = out
                bf_tl[m] = tl_n
                if single:
                    bf_part[m] = np.float32(np.float32(t) + np.float32(w1[n]) * np.float32(tl_n))
                else:
                    bf_part[m] = t + float(w1[n]) * tl_n
                m += 1
            # scan order: node n's normal candidate, then its backfilled one: (node, kind)
            best_node, best_kind = normal, 0
            for i in range(m):
                n = bf_rows[i, 0]
                # the candidate (n, backfilled) comes after (best_node, best_kind) in the scan
                # when n > best_node, or n == best_node and the best is n's normal candidate
                after = n > best_node or (n == best_node and best_kind == 0)
                low = float(int(bf_part[i])) if single else float(bf_part[i])
                if low > best_v or (low == best_v and after):
                    continue
                e_n = 0.0
                if w2[n] != 0:
                    e_n = _evict(
                        ec_tag, ec_acc, epoch, r_files, r_ends, r_sizes, r_counts, n, f, t, zero,
                        single, share32, bw32, float(c), cpn, bw,
                    )  # fmt: skip
                v = full_score(bf_part[i], w2[n], e_n, single)
                if v < best_v or (v == best_v and not after):
                    best_v, best_node, best_kind = v, n, 1
                    choice = i
            if best_kind != 1:
                choice = -1
        if choice >= 0:
            status = _place(
                cfg, st, j, bf_rows[choice, 0], t, int(bf_tl[choice]), bf_rows[choice, 1],
                bf_rows[choice, 2], True, True, cores, walltime, file, size_of_file, avail, cid,
                n_free, hole_core, hole_end, hole_count, iv, ht, ent, ent_head, r_files,
                r_ends, r_sizes, r_ranks, r_counts, plan_start, plan_node, plan_transfer,
                plan_cores, placed, used, free_now, ec_tag,
            )  # fmt: skip
        else:
            status = _place(
                cfg, st, j, normal, eat[normal], int(tl[normal]), 0, 0, False, True, cores,
                walltime, file, size_of_file, avail, cid, n_free, hole_core, hole_end,
                hole_count, iv, ht, ent, ent_head, r_files, r_ends, r_sizes, r_ranks, r_counts,
                plan_start, plan_node, plan_transfer, plan_cores, placed, used, free_now, ec_tag,
            )  # fmt: skip
        if status != DONE:
            return k, status
    return queue.size, DONE
