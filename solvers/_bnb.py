"""Compiled kernels of ``bnb`` (performance target 4): a depth-first branch and bound for

    max Σ_j obj[j] x[j]   s.t.   Σ_j W[j, k] x[j] <= cap[k]  (every k),
                                 Σ_j con[j] x[j] >= eps,     x ∈ {0, 1}^n

with integer data, W >= 0. ``bnb`` (``solvers/bnb.py``) builds every ε-step of its front walk
(and the single-objective case, ``con = 0``, ``eps = 0``) as one such problem.

The bound (surrogate + Lagrangian relaxation, Glover 1968 / Geoffrion 1974): for multipliers
u >= 0 (one per capacity row) and mu >= 0 (the ε row), any x feasible in the problem satisfies

    Σ obj x  <=  Σ (obj + mu·con) x − mu·eps,      Σ s x <= S   (s = W u, S = cap · u),

so the LP optimum of the one-row knapsack on the right — Dantzig's bound: items by decreasing
ratio (obj + mu·con) / s, the critical one fractional — bounds it from above. With the LP dual
multipliers this is exactly the LP bound; ``multipliers`` searches (u, mu) for the smallest root
bound (golden sections, coordinate-wise: the Lagrangian dual is convex in mu, the surrogate dual
quasi-convex in u). Whatever (u, mu) it returns, the bound is valid, so the search is exact; a
poor choice only costs nodes.

The search visits items in the order of that ratio, so at depth d (items 0..d-1 decided) the
bound of a node is its value so far plus Dantzig's bound of items d.. on the node's residual
surrogate capacity: a binary search on prefix sums, O(log n) per node. A node also dies when the
ε row cannot be reached (its con so far plus every positive con left < eps). Every node is a
feasible selection (the rest left out) and becomes the incumbent when it meets the ε row and beats
it. The state of the search (depth, choice per depth, usage, incumbent) lives in arrays the caller
owns, so ``search`` runs ``node_limit`` nodes and returns: the caller checks its clock between
calls (numba cannot read one) and calls again.

Exactness in floating point: the data are integers and the bound is a float; a node is pruned
only when its bound is below incumbent + 1 by more than ``_tol`` (1e-9 relative + 1e-6), which is
far above the round-off of these sums while values stay below 2^50 (``bnb`` checks).
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.jit import njit

#: ``search`` return codes.
DONE = 0
RUNNING = 1

#: state slots of ``search``
S_DEPTH, S_VALUE, S_CON, S_BEST, S_NODES, S_HAS_BEST = 0, 1, 2, 3, 4, 5
STATE_SIZE = 6


@njit(cache=True, nogil=True)
def _ratios(v: np.ndarray, s: np.ndarray) -> np.ndarray:  # pragma: no cover
    n = v.size
    r = np.empty(n)
    for j in range(n):
        if v[j] <= 0.0:
            r[j] = -np.inf
        elif s[j] <= 0.0:
            r[j] = np.inf
        else:
            r[j] = v[j] / s[j]
    return r


@njit(cache=True, nogil=True)
def root_bound(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    u: np.ndarray,
    mu: float,
) -> float:  # pragma: no cover
    """The bound of the whole problem for multipliers (u, mu) (module docstring)."""
    n, K = W.shape
    v = np.empty(n)
    s = np.zeros(n)
    for j in range(n):
        v[j] = obj[j] + mu * con[j]
        for k in range(K):
            s[j] += u[k] * W[j, k]
    left = 0.0
    for k in range(K):
        left += u[k] * cap[k]
    r = _ratios(v, s)
    order = np.argsort(-r)
    total = -mu * eps
    for idx in range(n):
        j = order[idx]
        if r[j] == -np.inf:
            break
        if s[j] <= left:
            total += v[j]
            left -= s[j]
        else:
            total += v[j] * left / s[j]
            break
    return total


@njit(cache=True, nogil=True, inline="always")
def _bound_at(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    u: np.ndarray,
    mu: float,
    k: int,
    x: float,
) -> float:  # pragma: no cover
    """The root bound at the point ``x`` of a line search: u[k] = x (set in place) when
    k >= 0, else mu = mu · x / (1 − x) (``mu`` is then the scale mu_max)."""
    if k >= 0:
        u[k] = x
        return root_bound(W, cap, obj, con, eps, u, mu)
    return root_bound(W, cap, obj, con, eps, u, mu * x / (1.0 - x))


@njit(cache=True, nogil=True)
def _golden(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    u: np.ndarray,
    mu: float,
    k: int,
    lo: float,
    hi: float,
    iters: int,
) -> tuple[float, float]:  # pragma: no cover
    """Golden-section search of the root bound over x in [lo, hi] (``_bound_at``: u[k], or mu
    through t / (1 − t) when k < 0); returns (x, bound) of the better of the last two points."""
    g = 0.6180339887498949
    a = hi - g * (hi - lo)
    b = lo + g * (hi - lo)
    fa = _bound_at(W, cap, obj, con, eps, u, mu, k, a)
    fb = _bound_at(W, cap, obj, con, eps, u, mu, k, b)
    for _ in range(iters):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = _bound_at(W, cap, obj, con, eps, u, mu, k, a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = _bound_at(W, cap, obj, con, eps, u, mu, k, b)
    return (a, fa) if fa <= fb else (b, fb)


@njit(cache=True, nogil=True)
def _golden_u(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    u: np.ndarray,
    mu: float,
    k: int,
    iters: int,
) -> float:  # pragma: no cover
    """Golden section on u[k] in [0, 2 / cap[k]] (others fixed); sets u[k], returns the bound."""
    x, f = _golden(W, cap, obj, con, eps, u, mu, k, 0.0, 2.0 / max(cap[k], 1), iters)
    u[k] = x
    return f


@njit(cache=True, nogil=True)
def _golden_mu(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    u: np.ndarray,
    mu_max: float,
    iters: int,
) -> tuple[float, float]:  # pragma: no cover
    """Golden section on mu = mu_max · t / (1 − t), t in [0, 1) (the dual is convex in mu and
    the map is monotone, so unimodal in t); returns (mu, bound)."""
    t, f = _golden(W, cap, obj, con, eps, u, mu_max, -1, 0.0, 0.999, iters)
    f0 = root_bound(W, cap, obj, con, eps, u, 0.0)
    if f0 <= f:
        return 0.0, f0
    return mu_max * t / (1.0 - t), f


@njit(cache=True, nogil=True)
def multipliers(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: float,
    use_mu: bool,
    rounds: int,
    iters: int,
) -> tuple[np.ndarray, float, float]:  # pragma: no cover
    """(u, mu, root bound): coordinate-wise golden sections (module docstring)."""
    n, K = W.shape
    u = np.empty(K)
    for k in range(K):
        u[k] = 1.0 / max(cap[k], 1)
    # mu's scale: obj per unit of con, from the largest ratio of the items.
    mu_max = 1.0
    for j in range(n):
        if con[j] > 0:
            mu_max = max(mu_max, 4.0 * abs(obj[j]) / con[j])
    mu = 0.0
    best = root_bound(W, cap, obj, con, eps, u, mu)
    for _ in range(rounds):
        if use_mu:
            mu, best = _golden_mu(W, cap, obj, con, eps, u, mu_max, iters)
        if K >= 2:
            for k in range(K):
                keep = u[k]
                f = _golden_u(W, cap, obj, con, eps, u, mu, k, iters)
                if f <= best:
                    best = f
                else:
                    u[k] = keep
    return u, mu, best


@njit(cache=True, nogil=True)
def order_items(
    W: np.ndarray, obj: np.ndarray, con: np.ndarray, u: np.ndarray, mu: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:  # pragma: no cover
    """Search order (decreasing ratio) and, in that order: v, s, their prefix sums, and the number
    of items with v > 0 (the rest come last and never enter a bound)."""
    n, K = W.shape
    v = np.empty(n)
    s = np.zeros(n)
    for j in range(n):
        v[j] = obj[j] + mu * con[j]
        for k in range(K):
            s[j] += u[k] * W[j, k]
    r = _ratios(v, s)
    order = np.argsort(-r, kind="mergesort")
    vo = v[order]
    so = s[order]
    vp = np.zeros(n + 1)
    sp = np.zeros(n + 1)
    npos = 0
    for i in range(n):
        vp[i + 1] = vp[i] + (vo[i] if r[order[i]] != -np.inf else 0.0)
        sp[i + 1] = sp[i] + so[i]
        if r[order[i]] != -np.inf:
            npos = i + 1
    return order, vo, so, vp, sp, npos


@njit(cache=True, nogil=True, inline="always")
def _dantzig(
    d: int, rem: float, vo: np.ndarray, so: np.ndarray, vp: np.ndarray, sp: np.ndarray, npos: int
) -> float:  # pragma: no cover
    if d >= npos:
        return 0.0
    target = sp[d] + rem
    c = np.searchsorted(sp, target, side="right") - 1
    if c >= npos:
        return vp[npos] - vp[d]
    return vp[c] - vp[d] + (target - sp[c]) * vo[c] / so[c]


@njit(cache=True, nogil=True)
def search(
    W: np.ndarray,
    cap: np.ndarray,
    obj: np.ndarray,
    con: np.ndarray,
    eps: int,
    u: np.ndarray,
    mu: float,
    vo: np.ndarray,
    so: np.ndarray,
    vp: np.ndarray,
    sp: np.ndarray,
    npos: int,
    sufcon: np.ndarray,
    incl: np.ndarray,
    choice: np.ndarray,
    used: np.ndarray,
    best: np.ndarray,
    state: np.ndarray,
    node_limit: int,
) -> int:  # pragma: no cover
    """Run the depth-first search for at most ``node_limit`` nodes from ``state``; ``DONE`` when
    the tree is exhausted (the incumbent in ``best``/``state`` is then optimal), else
    ``RUNNING``. ``W``, ``obj``, ``con`` are in search order; ``sufcon[d]`` = Σ_{j>=d} max(con, 0).
    """
    n, K = W.shape
    d = state[S_DEPTH]
    g = state[S_VALUE]
    fc = state[S_CON]
    bestg = state[S_BEST]
    has_best = state[S_HAS_BEST]
    nodes = 0
    while True:
        if d < 0:
            break
        if nodes >= node_limit:
            break
        c = choice[d]
        if c == 0:
            nodes += 1
            if fc >= eps and (has_best == 0 or g > bestg):
                bestg = g
                has_best = 1
                for j in range(d):
                    best[j] = incl[j]
                for j in range(d, n):
                    best[j] = 0
            if d == n:
                d -= 1
                continue
            if fc + sufcon[d] < eps:
                d -= 1
                continue
            rem = 0.0
            for k in range(K):
                rem += u[k] * (cap[k] - used[k])
            ub = g + mu * (fc - eps) + _dantzig(d, rem, vo, so, vp, sp, npos)
            if has_best != 0 and ub < bestg + 1.0 - (1e-9 * abs(ub) + 1e-6):
                d -= 1
                continue
            fits = True
            for k in range(K):
                if used[k] + W[d, k] > cap[k]:
                    fits = False
                    break
            if fits:
                for k in range(K):
                    used[k] += W[d, k]
                g += obj[d]
                fc += con[d]
                incl[d] = 1
                choice[d] = 1
            else:
                incl[d] = 0
                choice[d] = 2
            d += 1
            choice[d] = 0
        elif c == 1:
            for k in range(K):
                used[k] -= W[d, k]
            g -= obj[d]
            fc -= con[d]
            incl[d] = 0
            choice[d] = 2
            d += 1
            choice[d] = 0
        else:
            d -= 1
    state[S_DEPTH] = d
    state[S_VALUE] = g
    state[S_CON] = fc
    state[S_BEST] = bestg
    state[S_HAS_BEST] = has_best
    state[S_NODES] += nodes
    return DONE if d < 0 else RUNNING
