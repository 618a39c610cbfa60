"""``moo``: a stronger multi-objective search than BBSched's GA (beyond the paper).

Why
---
A limit study found BBSched's GA, run faithfully, finds about 30 % of the exact front at w = 20
on Theta-like windows and none of it at w >= 50; ``solvers.ga`` finds about 10 % at w = 20 and
none at w >= 50 here. Most random chromosomes are infeasible, nothing repairs them, and a
population of 20 keeps getting near the front without landing on it. pymoo's NSGA-II does better
at w = 20 but takes 0.6–3 s per decision. This search aims at NSGA-II's quality or better at
w = 20–100 in a few tens of milliseconds (``bench/benchmarks/moo_quality.py`` measures them side by
side).

The algorithm: seeded Pareto local search with an unbounded archive and kicks
-------------------------------------------------------------------------------
Everything works on a non-dominated **archive** of feasible selections, unbounded (it grows as
needed), one selection per objective vector (of two with equal vectors, the one holding the
earlier jobs: BBSched's window-order tie-break, §3.2.4). Every selection the search builds is
feasible by construction (moves are checked against the capacities before they are made), so
nothing needs repair. Dominance is on all M objectives, feasibility on all K resources.

0. **DP front** (``dp_states``, default 65,536; 0 = off) — when the two objectives are the
   demands of two integral resources (BBSched's windows), ``dp``'s compiled two-resource passes
   with at most ``dp_states`` states per layer run first, for at most half of ``time_limit_s``
   (``dp.pair_front_selections``; a few milliseconds at w = 100). Its front (feasible
   selections; the exact front when the pass finishes under the cap) joins the answer; the
   search below runs as before and the union's non-dominated points are the answer. On conflict-
   rich fresh windows at w = 100 the search alone found 64-89 % of the exact front within 50 ms
   under load (``bench/benchmarks/frontier.py``; ``moo[dp_states=0]`` side by side).
1. **Seeds** — the empty selection, then for ``weights`` weight vectors λ (evenly spread for
   M = 2, λ = (t, 1 − t); for M ≠ 2 the M unit vectors, then random ones) two greedy fills — jobs
   by λ-weighted gain per unit of demand, and by λ-weighted gain alone (ties in window order) —
   each followed by a best-improvement hill climb on λ · f (add, drop and swap moves). Gains are
   divided by the problem's ``objective_scales``, demands by the capacities.
2. **Pareto local search** (Paquete, Chiarandini and Stützle 2004) with two neighbourhoods. A
   member's neighbours are offered to the archive; a neighbour enters when no member weakly
   dominates it, and the members it dominates leave. Level 1: exchange at most one selected job
   for at most one unselected job (add, drop, swap), and every exchange that drops a job followed
   by a fill (add every job that still fits, in a random order drawn per exploration). Level 2:
   exchanges of up to two jobs for up to two that level 1 does not make, with the fill when two
   are dropped and at most one is added. Unselected jobs are scanned in ascending demand of the
   tightest resource, so a scan stops at the first job that cannot fit.
3. **Kicks** — once every member is explored at level 1 (a Pareto local optimum), up to
   ``kicks`` times: take a random member, drop 1–3 random jobs (kept out of the refill), refill in
   a random order, hill-climb on a random λ (uniform on the simplex), and offer the result; if it
   enters, level-1 search resumes from it. After the kicks, level 2 explores every member
   (and level 1 any newcomer) until nothing is left to explore. (Corner moves, step 5, take
   turns with the kicks.)

4. **Anytime phase** (``anytime=true`` only; performance target 3) — once the search above has
   nothing left to explore it keeps going until ``time_limit_s``, the deadline or
   ``max_evaluations``, taking turns of (a) a larger kick (drop 1–6 jobs, refill, hill-climb on a
   random λ), (b) a large-neighbourhood move solved exactly: free 1–4 random jobs of a random
   member and enumerate every subset of a pool of at most 10 jobs (the freed ones and random
   unselected jobs that fit alone), in Gray-code order, offering every feasible one the archive
   does not weakly dominate, and (c) a corner move (step 5) where it applies and ``corner`` > 0
   (every other turn: a, c, b, c, ...; a and b in turn without corner moves).
   Newcomers are explored at levels 1 and 2 before the next move. The archive only improves, so
   the anytime answer weakly dominates the converging one (same seed). Off by default: it makes
   the answer depend on machine speed and spends the whole time limit.
5. **Corner moves** (performance target 3; up to ``corner`` of them, taking turns with the kicks
   of step 3, ending early after 60 in a row that found nothing new). On the conflict-rich
   windows of ``instances/conflict_windows.py`` the front sits in the corner: both resources
   filled to within a few nodes and GB, a two-dimensional exact subset sum that kicks and small
   exchanges rarely hit. The move applies when there are two resources, the objectives are the
   demands, and one resource (the *snap* resource s: nodes) has whole demands and a capacity of
   at most 2^20 units. Jobs then split into *single* jobs (demand only for s) and *pair* jobs.
   For a fixed set of pair jobs, the best completion fills s with single jobs as far as it
   goes: the largest subset sum of the single jobs' demands that fits, read from a subset-sum
   table built once per window (with back-pointers that rebuild the subset). So the front is
   the Pareto set, over subsets S of pair jobs, of (s(S) + best(cap_s − s(S)), other(S)). The
   move takes a random member, frees all its pair jobs (or, half the time or when they are more
   than the pool, a random number of them; the rest stay fixed), adds random unselected pair
   jobs up to ``corner_pool`` jobs, and solves the pool exactly by meet in the middle: all
   subsets of each half that fit, the second half sorted by the other resource; for every
   first-half subset the 64 largest second-half sums that still fit are combined, snapped,
   and offered unless the archive weakly dominates them. When the pool holds every pair job
   (w = 20, often w = 50) and nothing stays fixed, one move combining the half-lists in full
   (at most 2^20 pairs) finds the whole exact front, and no further corner move is made.
   ``corner=0`` is the search as it
   was before (measured side by side in ``bench/benchmarks/frontier.py``).

Order of the steps and defaults were chosen on Theta-like windows (``instances.windows``) and on
the Zitzler–Thiele knapsack (100 items, 2 objectives; large selections, where level 2 is
expensive and kicks pay more): levels, kicks then level 2 found the most of both fronts.

Stopping, status, determinism
-----------------------------
The search ends when nothing is left to explore (unless ``anytime``), after ``max_evaluations`` neighbour
evaluations (status ``feasible``, with a note), at ``time_limit_s`` (status ``feasible``, with a
note that the answer then depends on machine speed), or shortly before the budget's deadline
(status ``timeout``). The answer is the archive. Everything random is drawn from one SplitMix64
stream seeded from ``budget.seed``, so unless a clock stops it the answer depends only on the seed.

Speed and quality, measured
---------------------------
The search is one numba kernel (``@njit(cache=True)``; ``warm_up()`` compiles it, about 25 s the
first time on a fresh machine, or loads it from numba's cache). It reads the clock itself,
through numba's object mode, every 64 units of work.

``bench/benchmarks/moo_quality.py``, 20 seeds of ``theta_window`` per w, a loaded 2-CPU Xeon: share
of the exact front found 97.5 / 98.3 / 92.8 % at w = 20 / 50 / 100 (NSGA-II, population 20 and 500
generations: 81.7 / 35.1 / 0 %), mean IGD+ 0.025 / 0.005 / 0.003 (NSGA-II 0.116 / 0.266 / 1.37),
median latency 6 / 12 / 34 ms (NSGA-II 2.6–2.8 s). At w = 200: 94 % in a median of 68 ms. What
it misses is mostly the end of the front at full node use, where hitting the exact node count
takes an exchange of three or more jobs. On the Zitzler–Thiele knapsack (121-point front) it
finds about 110 points and stops at ``max_evaluations`` after about 0.4 s.

On the conflict-rich windows (``bench/benchmarks/frontier.py --part b``, 10 windows per w,
a loaded 2-CPU EPYC), with ``time_limit_s=0.05``: share of the exact front 100 / 100 / 96 % at
w = 20 / 50 / 100 (fresh windows, ``--seed 1``: 100 / 100 / 91 %; with ``anytime``, 96 % at
w = 100 on both); ``corner=0`` in the same runs: 100 / 87 / 30 % and 100 / 86 / 52 %.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import objmode

from schedbench.simcore.jit import njit
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers._numba_rng import new_state, randint, uniform
from schedbench.solvers.base import Answer, BaseSolver, Clock, param
from schedbench.solvers.dp import pair_front_selections
from schedbench.solvers.ga import kernel_limit

_INITIAL_ARCHIVE = 256
#: Anytime phase: jobs in a large-neighbourhood move's exactly enumerated pool.
_LNS_POOL = 10
#: Anytime phase: a kick drops 1 to this many jobs.
_ANYTIME_DROP = 6
#: Corner move: second-half sums combined with each first-half subset (the largest that fit).
_CORNER_SCAN = 64
#: Corner moves end (before ``corner`` of them) after this many in a row found nothing new.
_CORNER_PATIENCE = 60
#: Corner move: combine the two half-lists in full when the pool is the whole problem and they
#: make at most this many pairs.
_COMPLETE_PAIRS = 1 << 20
#: Time kept back from the deadline for assembling the decision (seconds, at most this share).
_MARGIN_S, _MARGIN_SHARE = 0.02, 0.05

# Kernel return codes, and the slots of the counters array.
_DONE, _FULL, _STOPPED = 0, 2, 3
_N, _EVALS, _KICKS, _STEPS, _SEEDED, _ACCEPTED, _CORNERS, _COMPLETE, _IDLE = range(9)
#: The share of ``time_limit_s`` the DP front (``dp_states``) may use.
_DP_SHARE = 0.5
#: Corner move: largest resource capacity (in whole units) the snap table covers.
_SNAP_MAX = 1 << 20
#: Most weight vectors (each seeds two solutions, allocated before the search starts).
MAX_WEIGHTS = 100_000
#: At most this many table cells are touched building the corner move's subset-sum table
#: (single jobs × capacity; about 0.1 s): beyond it the move does not apply. A 100,000-job
#: window with 265,000 free nodes would otherwise spend 1.6 s before its first clock check.
_PACK_WORK = 5 * 10**8


@dataclass(frozen=True, kw_only=True, slots=True)
class MOOSolver(BaseSolver):
    weights: int = param(16, "weight vectors for the greedy seeds (two seeds each)")
    kicks: int = param(1000, "perturbation restarts after the level-1 local search converges")
    exchange: int = param(2, "largest number of jobs swapped in or out by one move (1 or 2)")
    max_evaluations: int = param(
        2_000_000, "stop after this many neighbour evaluations (deterministic work cap)"
    )
    time_limit_s: float = param(
        1.0, "stop after this many seconds (status feasible, with a note); 0 = no limit"
    )
    corner: int = param(
        200,
        "corner moves (exact meet-in-the-middle completions, module docstring step 5) after the "
        "kicks; 0 = none (the search before the corner move)",
    )
    corner_pool: int = param(24, "jobs a corner move completes exactly (2 to 30)")
    dp_states: int = param(
        65_536,
        "first dp's compiled two-resource passes with at most this many states per layer, "
        "for at most half the time limit (two resources whose demands are the objectives); "
        "their front joins the answer; 0 = none (the search alone)",
    )
    anytime: bool = param(
        False,
        "after convergence keep kicking (larger kicks) until time_limit_s, the deadline or "
        "max_evaluations; the answer then depends on machine speed",
    )

    name = "moo"
    summary = (
        "seeded Pareto local search, unbounded archive, kicks; any K, M; heuristic, seeded; numba"
    )

    def __post_init__(self) -> None:
        # weight vectors are allocated up front, so their number is bounded (two seeds each)
        self._require_int("weights", 1, "an integer >= 1", MAX_WEIGHTS)
        for name, low in (("kicks", 0), ("max_evaluations", 1), ("corner", 0), ("dp_states", 0)):
            self._require_int(name, low, f"an integer >= {low}")
        self._require(isinstance(self.anytime, bool), "anytime", "true or false")
        self._require(
            isinstance(self.corner_pool, int)
            and not isinstance(self.corner_pool, bool)
            and 2 <= self.corner_pool <= 30,
            "corner_pool",
            "an integer from 2 to 30",
        )
        self._require(
            self.exchange in (1, 2) and not isinstance(self.exchange, bool), "exchange", "1 or 2"
        )
        self._require(
            isinstance(self.time_limit_s, (int, float))
            and not isinstance(self.time_limit_s, bool)
            and self.time_limit_s >= 0,
            "time_limit_s",
            "a number of seconds >= 0 (0 = no limit)",
        )

    def _warm_up(self) -> None:
        """Compile (or load from numba's cache) the kernels on a tiny problem; untimed."""
        tiny = SelectionProblem(capacities=[2, 2], demands=[[1, 1], [1, 0], [0, 2]])
        _Search.start(tiny, 0, stop_at=np.inf).run(
            self.weights, 2, 1000, 2, anytime=True, corners=2, pool=self.corner_pool
        )

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        if problem.w == 0:
            return Answer(Status.FEASIBLE, [[]])
        seeded: list[list[int]] = []
        proven = False
        if self.dp_states > 0:
            # At most half the time limit (the kernel reads the clock between chunks of work).
            share = _DP_SHARE * self.time_limit_s if self.time_limit_s > 0 else np.inf
            dp_clock = clock
            if share < clock.remaining():
                dp_clock = Clock(Budget(deadline_s=share), clock.now)
            found = pair_front_selections(problem, self.dp_states, dp_clock)
            if found is not None:
                seeded, proven = found
        margin = min(_MARGIN_S, _MARGIN_SHARE * budget.deadline_s)
        deadline_at = clock.deadline - margin
        limit_at = clock.start + self.time_limit_s if self.time_limit_s > 0 else np.inf
        search = _Search.start(
            problem, budget.seed, stop_at=min(deadline_at, limit_at), corner=self.corner > 0
        )
        code = search.run(
            self.weights,
            self.kicks,
            self.max_evaluations,
            self.exchange,
            anytime=self.anytime,
            corners=self.corner,
            pool=self.corner_pool,
        )
        status, notes = Status.FEASIBLE, []
        c = search.counters
        if code == _STOPPED and limit_at < deadline_at:
            notes.append(
                f"stopped at time_limit_s={self.time_limit_s:g} s before the search finished; "
                "the answer depends on machine speed"
            )
        elif code == _STOPPED:
            status = Status.TIMEOUT
        elif c[_EVALS] >= self.max_evaluations:
            notes.append(f"stopped at max_evaluations={self.max_evaluations}")
        stats = {
            "archive": int(c[_N]),
            "evaluations": int(c[_EVALS]),
            "kicks": int(c[_KICKS]),
            "steps": int(c[_STEPS]),
            "accepted": int(c[_ACCEPTED]),
            "corner_moves": int(c[_CORNERS]),
            "dp_points": len(seeded),
            "dp_exact": int(proven),
        }
        return Answer(status, search.selections() + seeded, stats=stats, notes=notes)


def corner_pack(
    demands: np.ndarray, gains: np.ndarray, limit: np.ndarray, work: int = _PACK_WORK
) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the corner move (step 5 of the module docstring) needs, or a pack with ``snap`` = -1
    when it does not apply: two resources, the objectives equal to the demands, a *snap*
    resource s with whole, non-negative demands and a capacity of at most ``_SNAP_MAX`` units,
    and a table of at most ``work`` cells to fill (single jobs × (capacity + 1)).

    Returns (snap, other, single, pair, by, best): the jobs asking only for s (``single``) and
    the others (``pair``); over the single jobs, ``by[c]`` is the job that first made the sum c
    reachable (-1: unreachable; 0 is reachable by the empty set), and ``best[c]`` is the largest
    reachable sum <= c, for c = 0 .. floor(limit[s]) (the classic subset-sum table, with the
    back-pointers that rebuild a subset: the job before ``by[c]`` in the chain has a lower index).
    """
    empty = np.zeros(0, np.int64)
    none = (-1, -1, empty, empty, empty, empty)
    w = demands.shape[0]
    if w == 0 or demands.shape[1] != 2 or gains.shape[1] != 2 or not np.array_equal(gains, demands):
        return none
    snap, size = -1, _SNAP_MAX + 1
    for r in (0, 1):
        col = demands[:, r]
        if np.all(col >= 0) and np.all(col == np.floor(col)) and 0 <= limit[r] < size:
            snap, size = r, int(np.floor(limit[r]))
    if snap < 0:
        return none
    other = 1 - snap
    single = np.flatnonzero(demands[:, other] == 0).astype(np.int64)
    if len(single) * (size + 1) > work:
        return none
    pair = np.flatnonzero(demands[:, other] != 0).astype(np.int64)
    by = np.full(size + 1, -1, np.int64)
    reach = np.zeros(size + 1, bool)
    reach[0] = True
    for j in single:
        n = int(demands[j, snap])
        if n == 0 or n > size:
            continue
        new = np.zeros(size + 1, bool)
        new[n:] = reach[:-n] & ~reach[n:]
        by[new] = j
        reach |= new
    best = np.maximum.accumulate(np.where(reach, np.arange(size + 1), 0)).astype(np.int64)
    return snap, other, single, pair, by, best


@dataclass(slots=True)
class _Search:
    """The search state between kernel calls (arrays the kernels update in place)."""

    genes: np.ndarray  # cap × w uint8: archive member i selects job j
    value: np.ndarray  # cap × M objective vectors
    usage: np.ndarray  # cap × K resource usage
    level: np.ndarray  # cap uint8: neighbourhood level explored so far (0, 1, 2)
    counters: np.ndarray  # int64, slots _N.._ACCEPTED
    prob: tuple[Any, ...]  # see "Argument packs" below
    rng: np.ndarray

    @classmethod
    def start(
        cls, problem: SelectionProblem, seed: int, *, stop_at: float, corner: bool = True
    ) -> _Search:
        """``corner``: build the corner move's table (``corner_pack``); without it the move
        does not apply."""
        w, k, m = problem.w, problem.K, problem.M
        cap = _INITIAL_ARCHIVE
        # Writable C-contiguous copies: numba compiles one specialisation for these types.
        demands = np.array(problem.demands, dtype=np.float64, order="C")
        limit = kernel_limit(problem)  # half the feasibility slack: see solvers.ga
        with np.errstate(divide="ignore", invalid="ignore"):
            load = np.where(limit > 0, demands.sum(axis=0) / limit, np.inf)
        gains = np.array(problem.objectives.T, dtype=np.float64, order="C")
        prob = (
            demands,
            gains,
            limit,
            np.array(problem.objective_scales, dtype=np.float64),
            int(np.argmax(np.nan_to_num(load, nan=0.0))) if w else 0,
            np.array([stop_at, 0.0, 63.0]),  # the first _expired() call reads the clock
            corner_pack(demands, gains, limit, work=_PACK_WORK if corner else 0),
        )
        return cls(
            genes=np.zeros((cap, w), np.uint8),
            value=np.zeros((cap, m)),
            usage=np.zeros((cap, k)),
            level=np.zeros(cap, np.uint8),
            counters=np.zeros(9, np.int64),
            prob=prob,
            rng=new_state(seed),
        )

    def run(
        self,
        weights: int,
        kicks: int,
        max_evaluations: int,
        depth: int,
        *,
        anytime: bool = False,
        corners: int = 0,
        pool: int = 2,
    ) -> int:
        """Search until done or stopped; returns the kernel's code (``_DONE`` or ``_STOPPED``)."""
        while True:
            arc = (self.genes, self.value, self.usage, self.level, self.counters)
            code = _search(
                arc,
                self.prob,
                self.rng,
                weights,
                kicks,
                max_evaluations,
                depth,
                anytime,
                corners,
                pool,
            )
            if code != _FULL:
                return code
            self._grow()

    def _grow(self) -> None:
        def bigger(a: np.ndarray) -> np.ndarray:
            out = np.zeros((2 * a.shape[0], *a.shape[1:]), a.dtype)
            out[: a.shape[0]] = a
            return out

        self.genes = bigger(self.genes)
        self.value = bigger(self.value)
        self.usage = bigger(self.usage)
        self.level = bigger(self.level)

    def selections(self) -> list[list[int]]:
        n = int(self.counters[_N])
        return [np.flatnonzero(self.genes[i]).tolist() for i in range(n)]


# -- numba kernels ---------------------------------------------------------------------------------
# Argument packs (tuples, so the signatures stay short):
#   arc  = (genes, value, usage, level, counters)     the archive, updated in place
#   prob = (demands, gains, limit, scales, tight, stop): w × K, w × M, K, M, the index of the
#          tightest resource (most demand per capacity), and the stop clock (``_expired``)


@njit(cache=True)
def _expired(stop: Any) -> Any:
    """True once the clock has passed ``stop[0]`` (a ``time.perf_counter`` time). Reads the
    clock only every 64th call (``stop[2]`` counts, ``stop[1]`` remembers expiry): a call through
    numba's object mode costs about a microsecond."""
    if stop[1] != 0.0:
        return True
    stop[2] += 1.0
    if stop[2] < 64.0:
        return False
    stop[2] = 0.0
    with objmode(now="float64"):
        now = time.perf_counter()
    if now >= stop[0]:
        stop[1] = 1.0
        return True
    return False


@njit(cache=True)
def _weakly_dominated(value: Any, n: Any, v: Any) -> Any:
    """Index of an archive member whose vector is >= v everywhere, or -1."""
    m = v.shape[0]
    for a in range(n):
        ok = True
        for i in range(m):
            if value[a, i] < v[i]:
                ok = False
                break
        if ok:
            return a
    return -1


@njit(cache=True)
def _earlier_jobs(x: Any, y: Any) -> Any:
    """Selection x holds the first job on which x and y differ (BBSched's window-order tie-break)."""
    for j in range(x.shape[0]):
        if x[j] != y[j]:
            return x[j] == 1
    return False


@njit(cache=True)
def _copy_row(table: Any, row: Any, values: Any) -> Any:
    """table[row] = values, as a loop (compiles much faster than numba's slice assignment)."""
    for i in range(values.shape[0]):
        table[row, i] = values[i]


@njit(cache=True)
def _set(target: Any, source: Any) -> Any:
    """target[:] = source for 1-d arrays, as a loop (see ``_copy_row``)."""
    for i in range(target.shape[0]):
        target[i] = source[i]


@njit(cache=True)
def _sort_by(index: Any, key: Any) -> Any:
    """Sort ``index`` in place by ascending key[index], stably (merge sort: an insertion sort
    here made seeding O(w^2), 3 s at w = 30,000 whatever the budget;
    docs/design.md#trust-boundaries-and-bounded-work)."""
    perm = np.argsort(key[index], kind="mergesort")
    index[:] = index[perm]


@njit(cache=True)
def _offer(arc: Any, x: Any, v: Any, u: Any) -> Any:
    """Offer a feasible selection x (value v, usage u) to the archive. Returns 1 if it entered,
    0 if not, ``_FULL`` (2) when there is no room (the caller grows the archive and retries)."""
    genes, value, usage, level, counters = arc
    n = counters[0]
    m = v.shape[0]
    a = _weakly_dominated(value, n, v)
    if a >= 0:
        same = True
        for i in range(m):
            if value[a, i] != v[i]:
                same = False
                break
        if same and _earlier_jobs(x, genes[a]):
            _copy_row(genes, a, x)
            _copy_row(usage, a, u)
        return 0
    # Drop the members v dominates (v is not weakly dominated, so >= everywhere means dominated).
    kept = 0
    for b in range(n):
        dominated = True
        for i in range(m):
            if value[b, i] > v[i]:
                dominated = False
                break
        if not dominated:
            if kept != b:
                _copy_row(genes, kept, genes[b])
                _copy_row(value, kept, value[b])
                _copy_row(usage, kept, usage[b])
                level[kept] = level[b]
            kept += 1
    counters[0] = kept
    if kept >= genes.shape[0]:
        return 2
    _copy_row(genes, kept, x)
    _copy_row(value, kept, v)
    _copy_row(usage, kept, u)
    level[kept] = 0
    counters[0] = kept + 1
    counters[5] += 1
    return 1


@njit(cache=True)
def _fits(u: Any, limit: Any) -> Any:
    for r in range(limit.shape[0]):  # noqa: SIM110 (an explicit loop compiles in numba)
        if u[r] > limit[r]:
            return False
    return True


@njit(cache=True)
def _job_fits(u: Any, demands: Any, j: Any, limit: Any) -> Any:
    """Whether job j fits on top of the usage u."""
    for r in range(limit.shape[0]):  # noqa: SIM110 (an explicit loop compiles in numba)
        if u[r] + demands[j, r] > limit[r]:
            return False
    return True


@njit(cache=True)
def _add(x: Any, u: Any, v: Any, j: Any, prob: Any, sign: Any) -> Any:
    """Add (sign 1) or remove (sign -1) job j: x, u, v updated in place."""
    demands, gains = prob[0], prob[1]
    x[j] = 1 if sign > 0 else 0
    for r in range(u.shape[0]):
        u[r] += sign * demands[j, r]
    for i in range(v.shape[0]):
        v[i] += sign * gains[j, i]


@njit(cache=True)
def _fill(x: Any, u: Any, v: Any, order: Any, prob: Any) -> Any:
    """Add, in ``order``, every unselected job that still fits (x, u, v updated in place; a job
    with x[j] != 0 is skipped, so a caller can mark jobs to keep out)."""
    demands, limit = prob[0], prob[2]
    for t in range(order.shape[0]):
        j = order[t]
        if not x[j] and _job_fits(u, demands, j, limit):
            _add(x, u, v, j, prob, 1.0)


@njit(cache=True)
def _shuffle(order: Any, rng: Any) -> Any:
    for i in range(order.shape[0] - 1, 0, -1):
        j = randint(rng, i + 1)
        order[i], order[j] = order[j], order[i]


@njit(cache=True)
def _hill_climb(x: Any, u: Any, v: Any, lam: Any, prob: Any) -> Any:
    """Best-improvement local search on the weighted sum lam · v with add, drop and swap moves
    (at most 4w + 1 moves: a guard against float rounding)."""
    demands, gains, limit = prob[0], prob[1], prob[2]
    w, k = demands.shape
    m = gains.shape[1]
    score = np.empty(w)
    for j in range(w):
        s = 0.0
        for i in range(m):
            s += lam[i] * gains[j, i]
        score[j] = s
    ins = np.empty(w, np.int64)
    stop = prob[5]
    for _ in range(4 * w + 1):
        # One move scans in x out pairs, O(w^2) on a large window: read the clock at every move
        # and every 1,024 candidates, not every 64th call as elsewhere, or it overruns its budget.
        stop[2] = 63.0
        if _expired(stop):
            return
        n_in = 0
        for j in range(w):
            if x[j]:
                ins[n_in] = j
                n_in += 1
        best, bi, bj = 1e-12, -1, -1
        for t in range(n_in):
            if -score[ins[t]] > best:
                best, bi, bj = -score[ins[t]], ins[t], -1
        for j in range(w):
            if (j & 1023) == 1023:
                stop[2] = 63.0
                if _expired(stop):
                    return
            if x[j]:
                continue
            if score[j] > best and _job_fits(u, demands, j, limit):
                best, bi, bj = score[j], -1, j
            for t in range(n_in):
                i = ins[t]
                if score[j] - score[i] <= best:
                    continue
                ok = True
                for r in range(k):
                    if u[r] - demands[i, r] + demands[j, r] > limit[r]:
                        ok = False
                        break
                if ok:
                    best, bi, bj = score[j] - score[i], i, j
        if bi < 0 and bj < 0:
            return
        if bi >= 0:
            _add(x, u, v, bi, prob, -1.0)
        if bj >= 0:
            _add(x, u, v, bj, prob, 1.0)


@njit(cache=True)
def _weights(t: Any, total: Any, scales: Any, rng: Any, lam: Any) -> Any:
    """Weight vector t of ``total`` (t < 0: a random one), divided by the objective scales."""
    m = lam.shape[0]
    if m == 1:
        lam[0] = 1.0
    elif m == 2 and t >= 0:
        a = t / (total - 1) if total > 1 else 0.5
        lam[0] = a
        lam[1] = 1.0 - a
    elif 0 <= t < m:
        for i in range(m):
            lam[i] = 1.0 if i == t else 0.0
    else:
        s = 0.0
        for i in range(m):
            lam[i] = -np.log(1.0 - uniform(rng))  # Dirichlet(1, ..., 1): uniform on the simplex
            s += lam[i]
        lam /= s
    for i in range(m):
        lam[i] /= scales[i]


@njit(cache=True)
def _seed(arc: Any, prob: Any, rng: Any, weights: Any) -> Any:
    """Step 1 of the module docstring. Returns 2 when the archive is full."""
    demands, gains, limit, scales = prob[0], prob[1], prob[2], prob[3]
    w, k = demands.shape
    m = gains.shape[1]
    x = np.zeros(w, np.uint8)
    u = np.zeros(k)
    v = np.zeros(m)
    if _offer(arc, x, v, u) == 2:
        return 2
    lam = np.empty(m)
    key = np.empty(w)
    order = np.empty(w, np.int64)
    for t in range(weights):
        if _expired(prob[5]):
            return 3
        _weights(t, weights, scales, rng, lam)
        for mode in range(2):
            for j in range(w):
                s = 0.0
                for i in range(m):
                    s += lam[i] * gains[j, i]
                if mode == 0:  # gain per unit of normalised demand
                    size = 0.0
                    for r in range(k):
                        size += demands[j, r] / max(limit[r], 1e-300)
                    s = s / (size + 1e-12)
                key[j] = -s
            for j in range(w):
                order[j] = j
            _sort_by(order, key)  # stable: ties in window order
            for j in range(w):
                x[j] = 0
            for r in range(k):
                u[r] = 0.0
            for i in range(m):
                v[i] = 0.0
            _fill(x, u, v, order, prob)
            _hill_climb(x, u, v, lam, prob)
            if _offer(arc, x, v, u) == 2:
                return 2
    return 0


@njit(cache=True)
def _try(arc: Any, x0: Any, d1: Any, d2: Any, j1: Any, j2: Any, u: Any, v: Any) -> Any:
    """Offer x0 − {d1, d2} + {j1, j2} (−1 = none), whose usage and value are u and v, unless
    the archive weakly dominates v."""
    if _weakly_dominated(arc[1], arc[4][0], v) >= 0:
        return 0
    x = x0.copy()
    for j in (d1, d2):
        if j >= 0:
            x[j] = 0
    for j in (j1, j2):
        if j >= 0:
            x[j] = 1
    return _offer(arc, x, v, u)


@njit(cache=True)
def _try_filled(
    arc: Any, prob: Any, x0: Any, d1: Any, d2: Any, j1: Any, u: Any, v: Any, order: Any, x: Any
) -> Any:
    """``_try`` for x0 − {d1, d2} + {j1} after adding every other job that still fits, in
    ``order`` (the dropped jobs stay out); u and v must hold the exchange's usage and value and
    are overwritten; x is scratch space."""
    _set(x, x0)
    for j in (d1, d2):
        if j >= 0:
            x[j] = 2  # non-zero: the fill skips it
    if j1 >= 0:
        x[j1] = 1
    _fill(x, u, v, order, prob)
    if _weakly_dominated(arc[1], arc[4][0], v) >= 0:
        return 0
    for j in (d1, d2):
        if j >= 0:
            x[j] = 0
    return _offer(arc, x, v, u)


@njit(cache=True)
def _explore_drop(
    arc: Any,
    prob: Any,
    x0: Any,
    u0: Any,
    v0: Any,
    d1: Any,
    d2: Any,
    outs: Any,
    order: Any,
    level: Any,
    scratch: Any,
) -> Any:
    """The exchanges that drop {d1, d2} (−1 = none) from x0 and add jobs of ``outs``
    (unselected, ascending in the tight resource). Level 1: add at most one job, and when
    something was dropped also the exchange followed by a fill. Level 2: the exchanges level 1
    does not make — add two jobs, or (when two were dropped) also none or one job, with the fill.
    ``scratch`` is a work selection. Returns (code, evaluations)."""
    demands, gains, limit, tight = prob[0], prob[1], prob[2], prob[4]
    k = u0.shape[0]
    m = v0.shape[0]
    ud = u0.copy()
    vd = v0.copy()
    for d in (d1, d2):
        if d >= 0:
            for r in range(k):
                ud[r] -= demands[d, r]
            for i in range(m):
                vd[i] -= gains[d, i]
    u = np.empty(k)
    v = np.empty(m)
    none = np.int64(-1)  # a typed -1: a literal would make numba compile another specialisation
    dropped = d1 >= 0
    small = level == 1 or d2 >= 0  # exchanges adding at most one job
    pairs = level == 2
    evals = 0
    if dropped and small:
        evals += 2
        if _try(arc, x0, d1, d2, none, none, ud, vd) == 2:
            return 2, evals
        _set(u, ud)
        _set(v, vd)
        if _try_filled(arc, prob, x0, d1, d2, none, u, v, order, scratch) == 2:
            return 2, evals
    n_out = outs.shape[0]
    for a in range(n_out):
        if _expired(prob[5]):
            return 3, evals
        j = outs[a]
        evals += 1
        for r in range(k):
            u[r] = ud[r] + demands[j, r]
        if u[tight] > limit[tight]:
            break  # nor does any later job fit (outs ascend in the tight resource)
        if not _fits(u, limit):
            continue
        if small:
            for i in range(m):
                v[i] = vd[i] + gains[j, i]
            if _try(arc, x0, d1, d2, j, none, u, v) == 2:
                return 2, evals
            # The fill can add something only if the smallest other unselected job fits.
            smallest = outs[1] if a == 0 and n_out > 1 else outs[0]
            if dropped and u[tight] + demands[smallest, tight] <= limit[tight]:
                evals += 1
                if _try_filled(arc, prob, x0, d1, d2, j, u, v, order, scratch) == 2:
                    return 2, evals
        if not pairs:
            continue
        for b in range(a + 1, n_out):
            j2 = outs[b]
            evals += 1
            for r in range(k):
                u[r] = ud[r] + demands[j, r] + demands[j2, r]
            if u[tight] > limit[tight]:
                break
            if not _fits(u, limit):
                continue
            for i in range(m):
                v[i] = vd[i] + gains[j, i] + gains[j2, i]
            if _try(arc, x0, d1, d2, j, j2, u, v) == 2:
                return 2, evals
    return 0, evals


@njit(cache=True)
def _explore(arc: Any, prob: Any, a: Any, rng: Any, level: Any) -> Any:
    """Step 2 of the module docstring for archive member a. Level 1: exchanges of at most one
    selected job for at most one unselected job, and exchanges that drop a job and add at most
    one followed by a fill in a random order. Level 2: the exchanges of up to two for up to two
    that level 1 does not make (with the fill when two are dropped and at most one is added).
    Returns (code, evaluations)."""
    genes, value, usage = arc[0], arc[1], arc[2]
    demands, tight = prob[0], prob[4]
    w = demands.shape[0]
    x0 = genes[a].copy()
    u0 = usage[a].copy()
    v0 = value[a].copy()
    n_in = 0
    for j in range(w):
        n_in += x0[j]
    ins = np.empty(n_in, np.int64)
    outs = np.empty(w - n_in, np.int64)
    p = q = 0
    for j in range(w):
        if x0[j]:
            ins[p] = j
            p += 1
        else:
            outs[q] = j
            q += 1
    _sort_by(outs, demands[:, tight])
    order = np.arange(w)
    _shuffle(order, rng)
    scratch = np.empty(w, np.uint8)
    evals = 0
    none = np.int64(-1)  # a typed -1: a literal would make numba compile another specialisation
    for p in range(-1, n_in):
        d1 = ins[p] if p >= 0 else none
        code, e = _explore_drop(arc, prob, x0, u0, v0, d1, none, outs, order, level, scratch)
        evals += e
        if code != 0:
            return code, evals
        if p < 0 or level < 2:
            continue
        for q in range(p + 1, n_in):
            code, e = _explore_drop(arc, prob, x0, u0, v0, d1, ins[q], outs, order, level, scratch)
            evals += e
            if code != 0:
                return code, evals
    return 0, evals


@njit(cache=True)
def _kick(arc: Any, prob: Any, rng: Any, most: Any) -> Any:
    """Step 3 of the module docstring: drop 1..``most`` random jobs. Returns ``_offer``'s code."""
    genes, value, usage, counters = arc[0], arc[1], arc[2], arc[4]
    w = genes.shape[1]
    m = value.shape[1]
    a = randint(rng, counters[0])
    x = genes[a].copy()
    u = usage[a].copy()
    v = value[a].copy()
    for _ in range(1 + randint(rng, most)):
        chosen = 0
        for j in range(w):
            if x[j] == 1:
                chosen += 1
        if chosen == 0:
            break
        pick = randint(rng, chosen)
        for j in range(w):
            if x[j] == 1:
                if pick == 0:
                    _add(x, u, v, j, prob, -1.0)
                    x[j] = 2  # kept out of the refill
                    break
                pick -= 1
    lam = np.empty(m)
    _weights(np.int64(-1), np.int64(0), prob[3], rng, lam)  # typed: one specialisation
    order = np.arange(w)
    _shuffle(order, rng)
    _fill(x, u, v, order, prob)
    for j in range(w):
        if x[j] == 2:
            x[j] = 0
    _hill_climb(x, u, v, lam, prob)
    return _offer(arc, x, v, u)


@njit(cache=True)
def _lns(arc: Any, prob: Any, rng: Any, size: Any) -> Any:
    """Anytime step: a large-neighbourhood move solved exactly. Take a random member, free 1 to 4
    of its jobs at random, and enumerate every subset of a pool of at most ``size`` jobs (the
    freed ones and random unselected jobs that fit alone) added to the rest (Gray-code order,
    one job changes per step); offer each feasible one the archive does not weakly dominate.
    Returns (``_offer``'s worst code, subsets enumerated)."""
    genes, value, usage, counters = arc[0], arc[1], arc[2], arc[4]
    demands, gains, limit = prob[0], prob[1], prob[2]
    w, k = demands.shape
    m = gains.shape[1]
    a = randint(rng, counters[0])
    x = genes[a].copy()
    u = usage[a].copy()
    v = value[a].copy()
    pool = np.empty(size, np.int64)
    n_pool = 0
    n_in = 0
    for j in range(w):
        n_in += x[j]
    if n_in > 0:
        for _ in range(1 + randint(rng, min(4, size // 2))):
            pick = randint(rng, n_in)
            for j in range(w):
                if x[j] == 1:
                    if pick == 0:
                        _add(x, u, v, j, prob, -1.0)
                        x[j] = 2
                        pool[n_pool] = j
                        n_pool += 1
                        n_in -= 1
                        break
                    pick -= 1
            if n_in == 0:
                break
    order = np.arange(w)
    _shuffle(order, rng)
    for t in range(w):
        if n_pool >= size:
            break
        j = order[t]
        if not x[j] and _job_fits(u, demands, j, limit):
            pool[n_pool] = j
            n_pool += 1
    for t in range(n_pool):
        x[pool[t]] = 0
    code = 0
    steps = 0
    for i in range(1, 1 << n_pool):
        if (i & 255) == 0 and _expired(prob[5]):
            break
        b = 0
        while not (i >> b) & 1:
            b += 1
        j = pool[b]
        sign = -1.0 if x[j] else 1.0
        _add(x, u, v, j, prob, sign)
        steps += 1
        if not _fits(u, limit):
            continue
        if _weakly_dominated(value, counters[0], v) >= 0:
            continue
        # Recompute from scratch before offering (no drift from the incremental sums).
        uu = np.zeros(k)
        vv = np.zeros(m)
        for jj in range(w):
            if x[jj]:
                for r in range(k):
                    uu[r] += demands[jj, r]
                for q in range(m):
                    vv[q] += gains[jj, q]
        if not _fits(uu, limit):
            continue
        c = _offer(arc, x, vv, uu)
        if c == 2:
            return 2, steps
    return code, steps


@njit(cache=True)
def _half_sums(pool: Any, lo: Any, hi: Any, demands: Any, snap: Any, other: Any, room: Any) -> Any:
    """Every subset of pool[lo:hi] whose demands fit in ``room`` (other, snap): returns the
    other-resource sums, the snap sums and the subsets (bit t = job pool[lo + t])."""
    h = hi - lo
    total = 1 << h
    so = np.empty(total)
    ss = np.empty(total)
    mask = np.empty(total, np.int64)
    so[0] = 0.0
    ss[0] = 0.0
    mask[0] = 0
    for m in range(1, total):
        low = m & -m
        t = 0
        while (low >> t) != 1:
            t += 1
        j = pool[lo + t]
        so[m] = so[m ^ low] + demands[j, other]
        ss[m] = ss[m ^ low] + demands[j, snap]
        mask[m] = m
    keep = 0
    for m in range(total):
        if so[m] <= room[0] and ss[m] <= room[1]:
            so[keep] = so[m]
            ss[keep] = ss[m]
            mask[keep] = mask[m]
            keep += 1
    return so[:keep], ss[:keep], mask[:keep]


@njit(cache=True)
def _corner(arc: Any, prob: Any, rng: Any, size: Any, scan: Any) -> Any:
    """Step 5 of the module docstring: a corner-aimed exact completion. Take a random member,
    free its pair jobs (all of them, or a random number of them), add random unselected pair jobs
    up to a pool of ``size``, and complete exactly: every subset of the pool (meet in the middle:
    two half-lists, the second sorted by the other resource; for each first-half subset the
    ``scan`` largest second-half sums that fit are combined) plus the fixed pair jobs, the snap
    resource then filled as full as possible by single jobs (the subset-sum table). Offers each
    combination the archive does not weakly dominate. Returns (``_offer``'s code, work done)."""
    genes, value, counters = arc[0], arc[1], arc[4]
    demands, limit = prob[0], prob[2]
    snap, other, pair, by, best = prob[6][0], prob[6][1], prob[6][3], prob[6][4], prob[6][5]
    w = demands.shape[0]
    n_pair = pair.shape[0]
    cap_s = best.shape[0] - 1
    a = randint(rng, counters[0])
    x0 = genes[a]
    order = pair.copy()
    _shuffle(order, rng)
    mine = 0
    for t in range(n_pair):
        if x0[order[t]]:
            mine += 1
    free = mine if (mine <= size and randint(rng, 2) == 0) else 1 + randint(rng, max(mine, 1))
    free = min(free, mine, size)
    pool = np.empty(size, np.int64)
    fixed = np.zeros(w, np.uint8)
    n_pool = 0
    fo = 0.0
    fs = 0.0
    taken = 0
    for t in range(n_pair):
        j = order[t]
        if x0[j]:
            if taken < free:
                pool[n_pool] = j
                n_pool += 1
                taken += 1
            else:
                fixed[j] = 1
                fo += demands[j, other]
                fs += demands[j, snap]
    too_big = 0  # unselected pair jobs that do not fit beside the fixed ones on their own
    for t in range(n_pair):
        if n_pool >= size:
            break
        j = order[t]
        if x0[j]:
            continue
        if fo + demands[j, other] <= limit[other] and fs + demands[j, snap] <= cap_s:
            pool[n_pool] = j
            n_pool += 1
        else:
            too_big += 1
    room = np.array([limit[other] - fo, cap_s - fs])
    h1 = n_pool // 2
    ao, as_, am = _half_sums(pool, 0, h1, demands, snap, other, room)
    bo, bs, bm = _half_sums(pool, h1, n_pool, demands, snap, other, room)
    idx = np.argsort(bo)
    bo = bo[idx]
    bs = bs[idx]
    bm = bm[idx]
    nb = bo.shape[0]
    # A pool of every pair job with nothing fixed, combined in full, solves the window exactly:
    # no later corner move can find more (counters[7] says so to the caller).
    if taken == mine and n_pool + too_big == n_pair and ao.shape[0] * nb <= _COMPLETE_PAIRS:
        scan = nb
        counters[7] = 1
    v = np.empty(2)
    work = ao.shape[0] + nb
    for i in range(ao.shape[0]):
        if (i & 63) == 0 and _expired(prob[5]):
            return 3, work
        left = room[0] - ao[i]
        # the last second-half entry whose other-resource sum fits
        lo_, hi_ = 0, nb
        while lo_ < hi_:
            mid = (lo_ + hi_) // 2
            if bo[mid] <= left:
                lo_ = mid + 1
            else:
                hi_ = mid
        seen = 0
        for b in range(lo_ - 1, -1, -1):
            if seen >= scan:
                break
            seen += 1
            used_s = fs + as_[i] + bs[b]
            if used_s > cap_s:
                continue
            v[other] = fo + ao[i] + bo[b]
            v[snap] = used_s + best[cap_s - int(used_s)]
            work += 1
            if _weakly_dominated(value, counters[0], v) >= 0:
                continue
            x = fixed.copy()
            for t in range(h1):
                if (am[i] >> t) & 1:
                    x[pool[t]] = 1
            for t in range(n_pool - h1):
                if (bm[b] >> t) & 1:
                    x[pool[h1 + t]] = 1
            c = best[cap_s - int(used_s)]
            while c > 0:
                j = by[c]
                x[j] = 1
                c -= int(demands[j, snap])
            u = np.zeros(2)
            for j in range(w):
                if x[j]:
                    u[0] += demands[j, 0]
                    u[1] += demands[j, 1]
            if not _fits(u, limit):
                continue
            vv = u.copy()
            if _offer(arc, x, vv, u) == 2:
                return 2, work
    return 0, work


@njit(cache=True)
def _same_genes(x: Any, y: Any) -> Any:
    for j in range(x.shape[0]):  # noqa: SIM110 (an explicit loop compiles in numba)
        if x[j] != y[j]:
            return False
    return True


@njit(cache=True)
def _first_at_level(level: Any, n: Any, want: Any) -> Any:
    for b in range(n):
        if level[b] == want:
            return b
    return -1


@njit(cache=True)
def _search(
    arc: Any,
    prob: Any,
    rng: Any,
    weights: Any,
    kicks: Any,
    max_evaluations: Any,
    depth: Any,
    anytime: Any,
    corners: Any,
    pool: Any,
) -> Any:
    """Seed (first call), then step until done: each step explores the oldest member not yet
    explored at level 1, else makes a kick while kicks are left, else (``depth`` 2) explores the
    oldest member not yet explored at level 2. Returns ``_DONE`` when the search is over,
    ``_FULL`` when the archive needs room (the interrupted step is redone after growing),
    ``_STOPPED`` when the clock ran out (``prob[5]``)."""
    genes, level, counters = arc[0], arc[3], arc[4]
    if counters[4] == 0:
        code = _seed(arc, prob, rng, weights)
        if code == 2:
            counters[0] = 0
            counters[5] = 0
            return 2  # grow, then seed again from scratch
        counters[4] = 1
        if code == 3:
            return 3
    while True:
        if counters[1] >= max_evaluations:
            return 0
        if _expired(prob[5]):
            return 3
        a = _first_at_level(level, counters[0], 0)
        if a < 0 and counters[2] >= kicks and depth >= 2:
            a = _first_at_level(level, counters[0], 1)
        if a >= 0:
            before = level[a]
            level[a] = before + 1
            x0 = genes[a].copy()
            code, evals = _explore(arc, prob, a, rng, before + 1)
            counters[1] += evals
            if code == 2:
                # Redo this exploration after growing: restore the member's level.
                for b in range(counters[0]):
                    if _same_genes(genes[b], x0):
                        level[b] = before
                        break
            if code != 0:
                return code
        elif (
            counters[6] < corners
            and prob[6][0] >= 0
            and counters[7] == 0
            and counters[8] < _CORNER_PATIENCE
            and (counters[6] <= counters[2] or counters[2] >= kicks)
        ):
            accepted = counters[5]
            code, steps = _corner(arc, prob, rng, pool, np.int64(_CORNER_SCAN))
            if code != 0:
                return code
            counters[1] += steps
            counters[6] += 1
            counters[8] = 0 if counters[5] > accepted else counters[8] + 1
        elif counters[2] < kicks:
            if _kick(arc, prob, rng, np.int64(3)) == 2:
                return 2
            counters[2] += 1
        elif anytime:
            # Alternate a larger kick and a large-neighbourhood move solved exactly (and, when
            # corner moves apply, a corner move).
            with_corner = corners > 0 and prob[6][0] >= 0 and counters[7] == 0
            # turns: kick, corner, large neighbourhood, corner (or kick, large neighbourhood)
            if not with_corner:
                turn = counters[2] & 1
            elif counters[2] & 1:
                turn = 2
            else:
                turn = (counters[2] >> 1) & 1
            if turn == 2:
                code, steps = _corner(arc, prob, rng, pool, np.int64(_CORNER_SCAN))
                if code == 3:
                    return 3
            elif turn == 1:
                code, steps = _lns(arc, prob, rng, np.int64(_LNS_POOL))
            else:
                code = _kick(arc, prob, rng, np.int64(_ANYTIME_DROP))
                steps = genes.shape[1]  # its hill climb: count w evaluations
            if code == 2:
                return 2
            counters[1] += steps
            counters[2] += 1
        else:
            return 0
        counters[3] += 1
