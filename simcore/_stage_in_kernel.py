"""The three-phase lifecycle's stage-in pass (``simcore/engine.py``, ``Simulation._stage_in_pass``)
in O(Q + (S + F) log(S + F)) for S staged jobs, Q jobs waiting for stage-in and F <= Q of them
that fit the free burst buffer and are not known to be unsafe (below), compiled.

The pass serves the stage queue first-come first-fit: a job is staged when its stage-in data fit
the free burst buffer and the buffer stays in a *safe state* (banker's algorithm): with it staged,
the staged jobs sorted by (run-phase buffer ``need``, stage-in buffer ``held``) can each obtain
their ``need`` in turn from ``avail = capacity - sum(held)`` plus the ``held`` of those before
them. Checked from scratch, that is a sort per candidate, O(Q S log S) per pass.

Here every job that may be staged in the pass (the staged ones and the waiting ones that fit the
free buffer: it only shrinks during a pass) gets its place in one sorted order up front, a sort
of their precomputed ranks in that order (:func:`need_order`); the waiting jobs that do not fit
cost one comparison each (a long stage queue is mostly jobs too large for what is free). For an
element i of the staged set, ``g_i = need_i - prefix_i`` (``prefix_i``: the ``held`` of the
staged elements before it); the set is safe when every ``g_i <= avail + eps``. A candidate c at place p (h = its ``held``, H the staged ``held``):
the elements before p keep their prefix, so ``max g[:p] <= capacity - H - h + eps``; c itself
needs ``need_c - prefix_p <= capacity - H - h + eps``; the elements after p gain h in their
prefix, so ``max g[p:] <= capacity - H + eps``. Staging c sets ``g_p`` and subtracts h from
``g[p+1:]``: a segment tree with range add and range max (no push on update: Al.Cash's
"efficient and easy segment trees", increments with max queries) and a Fenwick tree of the
``held`` prefix sums answer each candidate in O(log).

Most waiting jobs of a long queue fit the free buffer but are unsafe, pass after pass, and
most passes come after an arrival, a start or a release that changed neither. The check is
monotone in the staged set: a subset of a safe set is safe (without element r, those before it
keep their prefix and ``avail`` grows by ``held_r``; those after lose ``held_r`` of prefix and
gain it in ``avail``), so a job unsafe beside a staged set is unsafe beside any larger one. A job
found unsafe is therefore marked with the current *era* (the engine counts the jobs that left
the staged set) and, while the era lasts, only counted, never checked or sorted again: a pass
sorts and checks the jobs that are new, or newly fit, since the last job left the staged set.

The comparisons are the plain pass's up to the rounding of the sums (the sums are formed in
another order), which the ``eps`` tolerance absorbs; with whole GB they are exact.
``tests/simcore/test_stage_in.py`` keeps the plain pass and checks both give the same schedules.
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.jit import njit


@njit(cache=True)
def _apply(t: np.ndarray, d: np.ndarray, p: int, value: float, n: int) -> None:
    t[p] += value
    if p < n:
        d[p] += value


@njit(cache=True)
def _build(t: np.ndarray, d: np.ndarray, p: int) -> None:
    while p > 1:
        p >>= 1
        t[p] = max(t[2 * p], t[2 * p + 1]) + d[p]


@njit(cache=True)
def _push(t: np.ndarray, d: np.ndarray, p: int, h: int, n: int) -> None:
    for s in range(h, 0, -1):
        i = p >> s
        if d[i] != 0.0:
            _apply(t, d, 2 * i, d[i], n)
            _apply(t, d, 2 * i + 1, d[i], n)
            d[i] = 0.0


@njit(cache=True)
def _range_add(t: np.ndarray, d: np.ndarray, lo: int, hi: int, value: float, n: int) -> None:
    """Add ``value`` to the leaves ``[lo, hi)``."""
    if lo >= hi:
        return
    lo += n
    hi += n
    l0, r0 = lo, hi
    while lo < hi:
        if lo & 1:
            _apply(t, d, lo, value, n)
            lo += 1
        if hi & 1:
            hi -= 1
            _apply(t, d, hi, value, n)
        lo >>= 1
        hi >>= 1
    _build(t, d, l0)
    _build(t, d, r0 - 1)


@njit(cache=True)
def _range_max(t: np.ndarray, d: np.ndarray, lo: int, hi: int, n: int, h: int) -> float:
    """The largest leaf in ``[lo, hi)`` (``-inf`` when empty)."""
    res = -np.inf
    if lo >= hi:
        return res
    lo += n
    hi += n
    _push(t, d, lo, h, n)
    _push(t, d, hi - 1, h, n)
    while lo < hi:
        if lo & 1:
            res = max(res, t[lo])
            lo += 1
        if hi & 1:
            hi -= 1
            res = max(res, t[hi])
        lo >>= 1
        hi >>= 1
    return res


@njit(cache=True)
def _set_leaf(t: np.ndarray, d: np.ndarray, p: int, value: float, n: int, h: int) -> None:
    p += n
    _push(t, d, p, h, n)
    t[p] = value
    _build(t, d, p)


@njit(cache=True)
def _fen_add(f: np.ndarray, i: int, value: float) -> None:
    i += 1
    while i < f.shape[0]:
        f[i] += value
        i += i & -i


@njit(cache=True)
def _fen_prefix(f: np.ndarray, i: int) -> float:
    """The sum of the first ``i`` entries."""
    s = 0.0
    while i > 0:
        s += f[i]
        i -= i & -i
    return s


@njit(cache=True)
def _candidates(
    staged: np.ndarray,
    queue: np.ndarray,
    data_in: np.ndarray,
    mark: np.ndarray,
    era: int,
    free_b: float,
    eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The jobs that take a place in the pass's order: the staged ones, then the waiting ones
    that fit the free buffer now (it only shrinks as the pass stages jobs: the others are
    skipped in O(1) each) and are not known to be unsafe (``mark[j] == era``). Returns the
    ``jobs`` (first ``N``), the queue index of each of the ``F`` fitting waiting jobs in queue
    order and, for each, its index into ``jobs`` (-1: known to be unsafe)."""
    S = staged.shape[0]
    Q = queue.shape[0]
    jobs = np.empty(S + Q, np.int64)
    jobs[:S] = staged
    fit_q = np.empty(Q, np.int64)
    cand = np.empty(Q, np.int64)
    N = S
    F = 0
    for q in range(Q):
        j = queue[q]
        if data_in[j] <= free_b + eps:
            fit_q[F] = q
            if mark[j] == era:
                cand[F] = -1
            else:
                cand[F] = N
                jobs[N] = j
                N += 1
            F += 1
    return jobs[:N], fit_q, cand, F, N


@njit(cache=True)
def stage_in_pass(
    staged: np.ndarray,
    queue: np.ndarray,
    data_in: np.ndarray,
    need: np.ndarray,
    rank: np.ndarray,
    mark: np.ndarray,
    era: int,
    free_b: float,
    capacity: float,
    eps: float,
    out: np.ndarray,
) -> tuple[int, int]:
    """Which jobs of ``queue`` (in order) to stage now, given the ``staged`` ones, the free
    buffer ``free_b`` and its ``capacity``: their indices into ``queue`` in ``out[:k]``;
    returns ``k`` and the number of jobs that fit the free buffer but were deferred as unsafe
    (the ``stage_in_deferred_unsafe`` counter). ``rank``: every job's place in the order of
    (``need``, ``held``) (:func:`need_order`). ``mark``/``era``: a job found unsafe is marked
    ``mark[j] = era``; while the caller keeps ``era`` (no staged job has left the set since),
    it is still unsafe (module docstring) and is only counted, not checked again."""
    S = staged.shape[0]
    jobs, fit_q, cand, F, N = _candidates(staged, queue, data_in, mark, era, free_b, eps)
    if N == S:  # every fitting job is known to be unsafe: nothing is staged
        return 0, F
    keys_need = need[jobs]
    keys_held = data_in[jobs]
    # the order of (need, held); ties in both are interchangeable (module docstring), so the
    # precomputed ranks (unique) order them: one sort of integers
    order = np.argsort(rank[jobs])
    place = np.empty(N, np.int64)
    for r in range(N):
        place[order[r]] = r
    n = 1
    h = 0
    while n < N:
        n *= 2
        h += 1
    t = np.full(2 * n, -np.inf)
    d = np.zeros(2 * n)
    fen = np.zeros(n + 1)
    held_total = 0.0
    # the staged set: prefix sums in order, then g
    for r in range(N):
        i = order[r]
        if i < S:
            _fen_add(fen, r, keys_held[i])
            held_total += keys_held[i]
    for i in range(S):
        r = place[i]
        t[n + r] = keys_need[i] - _fen_prefix(fen, r)
    for p in range(n - 1, 0, -1):
        t[p] = max(t[2 * p], t[2 * p + 1])
    k = 0
    unsafe = 0
    for f in range(F):
        i = cand[f]
        amount = data_in[queue[fit_q[f]]]
        if amount > free_b + eps:
            continue
        if i < 0:  # known to be unsafe
            unsafe += 1
            continue
        p = place[i]
        prefix = _fen_prefix(fen, p)
        avail = capacity - held_total - amount
        safe = (
            keys_need[i] - prefix <= avail + eps
            and _range_max(t, d, 0, p, n, h) <= avail + eps
            and _range_max(t, d, p + 1, N, n, h) <= capacity - held_total + eps
        )
        if not safe:
            unsafe += 1
            mark[jobs[i]] = era
            continue
        out[k] = fit_q[f]
        k += 1
        free_b = free_b - amount
        held_total += amount
        _set_leaf(t, d, p, keys_need[i] - prefix, n, h)
        _range_add(t, d, p + 1, N, -amount, n)
        _fen_add(fen, p, amount)
    return k, unsafe


def need_order(need: np.ndarray, held: np.ndarray) -> np.ndarray:
    """Every job's place (0..n-1, unique) in the order of (``need``, ``held``), made once per run:
    the pass then orders its jobs by one sort of these integers instead of two stable sorts of
    the keys."""
    order = np.lexsort((held, need))
    rank = np.empty(order.shape[0], np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank
