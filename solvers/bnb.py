"""``bnb``: a compiled branch and bound for selection problems with one or two objectives
(performance target 4: the whole exact front of a Zitzler–Thiele 250-item, two-knapsack instance
within the 30 s budget).

What it solves: any K resources, M = 1 (the proven optimum) or M = 2 (the exact Pareto front, one
selection per point); data made integral by ``solvers._integral`` (declined when no power of ten
up to 10^6 makes them whole, or when the lexicographic objective below would pass 2^50).

M = 2 by the ε-constraint method, lexicographic steps. Step: maximise g = B · f_a + f_b
(B = one more than the span of f_b) subject to f_b >= ε — the front point with the smallest
f_b >= ε — then ε = f_b* + 1. First the two extreme points (each a lexicographic optimum); then
the walk from the f_a end, or with ``workers=2`` from both ends in two threads (the kernels release
the GIL), until the walks meet: a step returns the other walk's last point, or its ε passes it.
Every reported point is proven; on the deadline the answer is ``timeout`` with the points proven
so far, each a true front point (a step cut short reports nothing).

Each step (and the M = 1 problem) is one depth-first branch and bound (``solvers/_bnb.py``):
Dantzig's bound of a surrogate (capacity rows) + Lagrangian (ε row) relaxation, multipliers
searched at the root, items visited by decreasing combined ratio, O(log n) per node. Measured:
a plain depth-first search spends nearly all its nodes before it has a good incumbent (one step
of the n = 100 stand-in: 43.7 million nodes, against 48 thousand when told the optimum − 1). So
every solve is run with an *aspiration target*: "find g > T" with T a value we guess the optimum
exceeds; a node is pruned when its bound is at most T, exactly as if T were an incumbent. If the
search ends with a solution, it is optimal (every pruned node was bounded by T < its value); if
not, the optimum is at most T, and T is lowered (f_a >= top − δ, δ = 0, 4, 8, 16, ...:
``_FIRST``, ``_GROWTH``; top = the last point's f_a − 1, which bounds the next point's f_a: a point with the same f_a and larger
f_b would have been the last step's answer). The walk's targets never fall below the other end's
point (known feasible for every ε up to its f_b), so no search runs without a bound. A failed
search under a target just above the optimum is cheap; the doubling keeps the number of tries
logarithmic in the distance.

Measured (``bench/benchmarks/exact_backends.py --parts c``, one run, shared 2-core machine at load
about 2): the Zitzler–Thiele-recipe 250-item stand-in (570 points; equal to
``cpsat[method=two-phase]``'s front, which took 158 s wall / 169 CPU s) in 6.6 s wall / 6.6 CPU s
with one walk, 3.9 s wall / 6.3 CPU s with ``workers=2``; fresh seeds 1 and 2 (546 and 671
points, equal to two-phase's fronts computed offline) worst 10.0 s one walk, 5.9 s two; the
published ZT 100.2 front (121 points) in 0.2 s. M = 1, Chu–Beasley-recipe stand-ins (n = 100,
m = 5): all 16 proven, worst 262 ms (``cpsat`` 15/16 within 15 s, ``mip-highs`` 15/16).
Its weak spot is the bound: a fixed-multiplier surrogate, not the node LP, and no cuts, so data
where the LP bound is itself weak need far more nodes: BBSched windows whose objectives are the
node and burst-buffer demands (``instances.windows.theta_window``) take 2-150 ms at w = 20-50,
but two of three w = 100 windows hit a 10 s budget (``timeout``, one proven point) where ``dp``
takes 2-3 ms. Use ``dp`` (or ``cpsat``) for those. With ``workers=2``
the front is deterministic, but a middle point proven by both walks keeps the selection of the
first to prove it.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import _bnb
from schedbench.solvers._integral import IntegralForm
from schedbench.solvers.base import Answer, BaseSolver, Clock, param, run_threads

#: Values (scaled, lexicographic) must stay below this for the float bounds to be safe.
_MAX_VALUE = 2**50
#: Nodes per kernel call between two looks at the clock (a few ms).
_CHUNK = 1 << 18
#: Multiplier search at each solve's root (``_bnb.multipliers``): rounds, golden-section steps.
_MULT_ROUNDS, _MULT_ITERS = 2, 20
#: Aspiration targets: f_a >= top − delta, delta = 0, then delta ← max(_FIRST, _GROWTH · delta).
_FIRST, _GROWTH = 4, 2


class _Stopped(Exception):
    """Out of time, or another walk completed the front; ``incumbent`` is the best selection the
    cut-short search had found (a mask over the items, unproven), or None."""

    def __init__(self, incumbent: np.ndarray | None = None):
        super().__init__("stopped")
        self.incumbent = incumbent


@dataclass(frozen=True, slots=True)
class _Data:
    """The problem in integers, items that can never fit removed (``keep`` maps back)."""

    W: np.ndarray  # (n, K) int64
    cap: np.ndarray  # (K,) int64
    o: np.ndarray  # (M, n) int64
    keep: np.ndarray  # indices into the problem's jobs
    scale: np.ndarray  # (M,) the powers of ten the objectives were multiplied by

    @property
    def low(self) -> np.ndarray:
        return np.minimum(self.o, 0).sum(axis=1)

    @property
    def high(self) -> np.ndarray:
        return np.maximum(self.o, 0).sum(axis=1)


def _data(form: IntegralForm) -> _Data:
    fits = np.all(form.demands <= form.capacities, axis=1)
    keep = np.flatnonzero(fits)
    return _Data(
        np.ascontiguousarray(form.demands[keep], dtype=np.int64),
        np.ascontiguousarray(form.capacities, dtype=np.int64),
        np.ascontiguousarray(form.objectives[:, keep], dtype=np.int64),
        keep,
        np.asarray(form.objective_scale, dtype=np.float64),
    )


def _lex_weight(data: _Data, b: int) -> int:
    """B of the lexicographic objective B · f_a + f_b: one more than f_b's span."""
    return int(data.high[b] - data.low[b]) + 1 if data.o.shape[0] > b else 1


def _too_big(data: _Data) -> bool:
    span = [int(max(abs(lo), abs(hi))) for lo, hi in zip(data.low, data.high, strict=True)]
    if data.o.shape[0] == 1:
        return span[0] >= _MAX_VALUE
    return any(_lex_weight(data, b) * span[a] + span[b] >= _MAX_VALUE for a, b in ((0, 1), (1, 0)))


@dataclass(slots=True)
class _Counters:
    solves: int = 0
    tries: int = 0
    nodes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, tries: int, nodes: int) -> None:
        with self.lock:
            self.solves += 1
            self.tries += tries
            self.nodes += nodes


def _lex_step(
    data: _Data,
    a: int,
    b: int | None,
    eps: int,
    top_a: int,
    floor_g: int | None,
    should_stop: Any,
    counters: _Counters,
) -> np.ndarray:
    """The lexicographic max of (f_a, f_b) subject to f_b >= eps (``b`` None: max f_a alone),
    by aspiration targets (module docstring); returns a boolean mask over ``data``'s items.
    ``top_a`` bounds f_a from above; ``floor_g`` (or None) is a value of B · f_a + f_b known to be
    reached by a feasible selection. Raises ``_Stopped`` when ``should_stop()`` turns true."""
    W, cap = data.W, data.cap
    n = W.shape[0]
    big = 1 if b is None else _lex_weight(data, b)
    if b is None:
        obj = data.o[a].copy()
        con = np.zeros(n, dtype=np.int64)
        low_b = 0
    else:
        obj = big * data.o[a] + data.o[b]
        con = data.o[b].copy()
        low_b = int(data.low[b])
    low_a = int(data.low[a])
    use_mu = b is not None and eps > int(data.low[b])
    u, mu, root = _bnb.multipliers(W, cap, obj, con, float(eps), use_mu, _MULT_ROUNDS, _MULT_ITERS)
    order, vo, so, vp, sp, npos = _bnb.order_items(W, obj, con, u, mu)
    Wo = np.ascontiguousarray(W[order])
    oo, co = obj[order], con[order]
    sufcon = np.zeros(n + 1, dtype=np.int64)
    sufcon[:-1] = np.cumsum(np.maximum(co, 0)[::-1])[::-1]
    top = min(top_a, math.floor((root - low_b) / big + 1e-6))
    delta, tries, nodes = 0, 0, 0
    while True:
        target = top - delta
        incl = np.zeros(n, dtype=np.int8)
        choice = np.zeros(n + 1, dtype=np.int8)
        used = np.zeros(W.shape[1], dtype=np.int64)
        best = np.zeros(n, dtype=np.int8)
        state = np.zeros(_bnb.STATE_SIZE, dtype=np.int64)
        exhaustive = False
        preset = big * target + low_b - 1  # "find g > preset", i.e. f_a >= target
        if floor_g is not None and preset < floor_g - 1:
            preset, exhaustive = floor_g - 1, True  # a selection reaching floor_g exists
        if target > low_a or floor_g is not None:
            state[_bnb.S_BEST], state[_bnb.S_HAS_BEST] = preset, 2
        else:
            exhaustive = True
        tries += 1
        while True:
            if should_stop():
                counters.add(tries, nodes + int(state[_bnb.S_NODES]))
                incumbent = None
                if state[_bnb.S_HAS_BEST] == 1:
                    incumbent = np.zeros(n, dtype=bool)
                    incumbent[order[best.astype(bool)]] = True
                raise _Stopped(incumbent)
            code = _bnb.search(
                Wo, cap, oo, co, eps, u, mu, vo, so, vp, sp, npos, sufcon,
                incl, choice, used, best, state, _CHUNK,
            )  # fmt: skip
            if code == _bnb.DONE:
                break
        nodes += int(state[_bnb.S_NODES])
        if state[_bnb.S_HAS_BEST] == 1:
            counters.add(tries, nodes)
            mask = np.zeros(n, dtype=bool)
            mask[order[best.astype(bool)]] = True
            return mask
        if exhaustive:  # cannot happen when floor_g is right or eps is trivially met
            raise RuntimeError(f"bnb: no selection where one must exist (eps={eps})")
        delta = max(_FIRST, _GROWTH * delta)


@dataclass(frozen=True, kw_only=True, slots=True)
class BnBSolver(BaseSolver):
    workers: int = param(1, "M=2: 1 walks the front from one end; 2 from both ends in two threads")
    time_limit_s: float = param(0.0, "cap on the whole solve in seconds; 0 = the decision budget")

    name = "bnb"
    summary = (
        "compiled branch and bound (surrogate+Lagrangian bound, aspiration targets); M=1 proven "
        "optimum, M=2 exact front by lexicographic ε-steps; integer-scalable data"
    )

    def __post_init__(self) -> None:
        self._require(self.workers in (1, 2), "workers", "1 or 2")
        self._require_number(
            "time_limit_s", 0.0, float("inf"), "a number of seconds >= 0 (0 = the budget)"
        )

    def _warm_up(self) -> None:
        """Compile (or load from numba's cache) the kernels on a tiny problem."""
        tiny = SelectionProblem(
            capacities=[3, 3], demands=[[1, 2], [2, 1], [2, 2]], objectives=[[3, 1, 2], [1, 3, 2]]
        )
        data = _data(IntegralForm.of(tiny))
        counters = _Counters()
        _lex_step(data, 0, 1, 2, 10, None, lambda: False, counters)
        _lex_step(data, 0, None, 0, 10, None, lambda: False, counters)

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if problem.M > 2:
            return False, f"{problem.M} objectives: bnb answers 1 or 2 (use cpsat or dp)"
        try:
            form = IntegralForm.of(problem)
        except OverflowError as exc:
            return False, str(exc)
        if not form.exact:
            return False, "data not decimal to 6 places: bnb needs an exact integer form"
        if _too_big(_data(form)):
            return False, "scaled values too large for bnb's float bounds (2^50)"
        return True, ""

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        data = _data(IntegralForm.of(problem))
        stop_at = clock.remaining()
        if self.time_limit_s > 0:
            stop_at = min(stop_at, self.time_limit_s)
        deadline = clock.elapsed() + stop_at
        if problem.w == 0 or data.keep.size == 0:
            return Answer(Status.OPTIMAL, [[]])
        if problem.M == 1:
            return self._single(data, clock, deadline)
        return self._front(data, clock, deadline)

    def _single(self, data: _Data, clock: Clock, deadline: float) -> Answer:
        counters = _Counters()
        try:
            mask = _lex_step(
                data, 0, None, 0, int(data.high[0]), None,
                lambda: clock.elapsed() >= deadline, counters,
            )  # fmt: skip
        except _Stopped as stopped:  # the best selection found, unproven (or none)
            if stopped.incumbent is None:
                return Answer(Status.TIMEOUT, [], stats=_stats(counters), notes=["no incumbent"])
            value = float(data.o[0, stopped.incumbent].sum()) / data.scale[0]
            return Answer(
                Status.TIMEOUT,
                [data.keep[stopped.incumbent].tolist()],
                trace=[(clock.elapsed(), [value])],
                stats=_stats(counters),
            )
        selection = data.keep[mask].tolist()
        value = float(data.o[0, mask].sum()) / data.scale[0]
        return Answer(
            Status.OPTIMAL, [selection], trace=[(clock.elapsed(), [value])], stats=_stats(counters)
        )

    def _front(self, data: _Data, clock: Clock, deadline: float) -> Answer:
        """The ε-walk for M = 2 (module docstring)."""
        counters = _Counters()
        complete = threading.Event()
        lock = threading.Lock()
        found: list[tuple[float, np.ndarray, tuple[int, int]]] = []
        failures: list[BaseException] = []

        def stop() -> bool:
            return complete.is_set() or clock.elapsed() >= deadline or bool(failures)

        def point(mask: np.ndarray) -> tuple[int, int]:
            return int(data.o[0, mask].sum()), int(data.o[1, mask].sum())

        def record(mask: np.ndarray) -> tuple[int, int]:
            pt = point(mask)
            with lock:
                found.append((clock.elapsed(), mask, pt))
            return pt

        try:
            # The two extreme points: the lexicographic maxima of (f_0, f_1) and (f_1, f_0).
            ends: list[tuple[int, int]] = []
            for a, b in ((0, 1), (1, 0)):
                mask = _lex_step(
                    data, a, b, int(data.low[b]), int(data.high[a]), None, stop, counters
                )
                ends.append(record(mask))
        except _Stopped:
            return self._answer(data, found, complete, counters)
        last = {0: ends[0], 1: ends[1]}  # the last point of each walk (walk a maximises f_a)
        if ends[0] == ends[1]:
            complete.set()

        def walk(a: int) -> None:
            b = 1 - a
            big = _lex_weight(data, b)
            try:
                while not stop():
                    with lock:
                        mine, theirs = last[a], last[b]
                    eps = mine[b] + 1
                    if eps >= theirs[b]:
                        complete.set()  # nothing strictly between the two walks' last points
                        return
                    mask = _lex_step(
                        data, a, b, eps, mine[a] - 1, big * theirs[a] + theirs[b], stop, counters
                    )
                    pt = point(mask)
                    if pt[b] >= theirs[b]:
                        complete.set()  # the other walk's point (or beyond): the walks met
                        return
                    record(mask)
                    with lock:
                        last[a] = pt
            except _Stopped:
                return
            except BaseException as exc:  # recorded; re-raised by the calling thread
                failures.append(exc)

        if not complete.is_set():
            if self.workers == 1:
                walk(0)
            else:
                run_threads([lambda: walk(0), lambda: walk(1)])
        if failures:
            raise failures[0]
        return self._answer(data, found, complete, counters)

    @staticmethod
    def _answer(
        data: _Data,
        found: list[tuple[float, np.ndarray, tuple[int, int]]],
        complete: threading.Event,
        counters: _Counters,
    ) -> Answer:
        first: dict[tuple[int, int], tuple[float, np.ndarray, tuple[int, int]]] = {}
        for item in sorted(found, key=lambda item: item[0]):
            first.setdefault(item[2], item)  # both walks may prove the same middle point
        found = list(first.values())
        return Answer(
            Status.OPTIMAL if complete.is_set() else Status.TIMEOUT,
            [data.keep[mask].tolist() for _t, mask, _pt in found],
            trace=[
                (t, [x / s for x, s in zip(pt, data.scale, strict=True)]) for t, _m, pt in found
            ],
            stats={**_stats(counters), "front": len({pt for _t, _m, pt in found})},
        )


def _stats(counters: _Counters) -> dict[str, Any]:
    return {"solves": counters.solves, "tries": counters.tries, "nodes": counters.nodes}
