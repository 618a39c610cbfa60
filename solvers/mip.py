"""``mip-cbc`` and ``mip-highs``: the selection problem as a 0-1 integer program, built with PuLP
and solved by CBC or HiGHS in a worker process.

The models
----------
Variables ``x_j ∈ {0, 1}`` (job j starts now); ``Σ_j d_jk x_j <= C_k`` for every resource k. The
``must_include`` jobs are already taken out by ``BaseSolver``.

* ``M = 1``: maximise ``Σ_j o_j x_j``. A greedy selection (value per share of capacity) is the
  fallback answer and HiGHS's MIP start (CBC gets none, see below).
* ``M = 2``, ``pareto_method="epsilon"`` (the default of ``mip-highs`` for M = 2): the
  epsilon-constraint method with a lexicographic second stage. First the *anchor*, the front
  point with the largest f2 (max f2, then max f1 with f2 held). Then from eps = -inf:
  z1 = max f1 s.t. f2 >= eps; if z1 is the anchor's f1 the front is complete, else
  z2 = max f2 s.t. f1 = z1 gives the next Pareto point and eps = z2 + 1 (objectives are whole
  numbers). After a proven point, f1 <= z1 - 1 is added (valid: a larger f1 with f2 >= eps
  would contradict the point's lexicographic optimality).
  2|F| + 1 solves for a front F, and no solve is infeasible: an infeasibility proof is often the
  hardest solve, and CBC 2.10.3 crashes on some (below).
  ``second_stage="lazy"`` skips the second stage: a first-stage answer x is only a
  candidate, confirmed by the next step (eps = f2(x) + 1 returns a smaller f1) or replaced by it
  (the same f1 again: x was weakly dominated). About |F| + 1 solves instead of 2|F| + 1; on the
  Zitzler–Thiele 100.2 front under load it found 29 points in 30 s against 19.
* ``M >= 2``, ``pareto_method="dominance-cuts"`` (the default for M >= 3, and of ``mip-cbc`` for
  M = 2, where it is the faster of the two for CBC): weighted sum with dominance cuts.
  Repeatedly maximise Σ_i f_i (weights 1 on the integer-scaled objectives) over the selections
  that no point p found so far weakly dominates: for every p, binaries y_pi with
  Σ_i y_pi >= 1 and f_i - M_pi y_pi >= p_i + 1 - M_pi, M_pi = p_i + 1 - min f_i (the smallest
  value f_i can take, Σ_j min(o_ij, 0)); y_pi is left out when p_i + 1 exceeds the largest value
  f_i can take. Each optimum is Pareto-optimal (a point dominating it would lie in the same
  region with a larger weighted sum) and every front point not yet found lies in the region, so
  the loop ends (infeasible) with the whole front. |F| + 1 solves, but each point adds M
  binaries with big-M rows, so the solves slow down as the front grows (M = 3 at w = 10 with
  10-40 points: about 1-10 s).

The front is ``optimal`` only if every solve was proven optimal; otherwise it is ``feasible``
(or ``timeout`` at the deadline) with the points found. Cheap consistency checks catch a solver
"proof" that its own later answers contradict (M = 1: the optimum below the greedy start; epsilon:
a point beating the anchor; dominance cuts: a proven weighted-sum optimum that grows) and
downgrade the status to ``feasible`` with a note.

Exact integer data and exact reductions
---------------------------------------
``solvers._integral.IntegralForm`` scales each resource and objective by a power of ten to whole
numbers; when that is not exact (e.g. 1/3, or 0.5·nodes/N) the answer is ``feasible``, never
``optimal``, with a note. On the integer model (``reduce=True``, all exact):

* jobs that do not fit alone, or improve no objective, are left out;
* each resource row is divided by the gcd of its demands (capacity rounded down), rows that can
  never bind are dropped, and a capacity up to 2^22 is lowered to the largest subset sum of its
  demands that fits (bitset DP; every feasible selection's usage is such a sum);
* each objective is divided by the gcd of its values;
* identical jobs (same demands and objectives) become one integer variable 0..count, mapped back
  to the earliest jobs of the group in window order — this removes the symmetry between
  identical jobs completely (the x_i >= x_j chains would only restrict it).

Objectives are whole numbers, so both solvers run with relative gap 0 and absolute gap 0.5: a gap
below 1 proves optimality.

What "optimal" means for each solver
------------------------------------
* **CBC** (PuLP's bundled CBC 2.10.3, ``PULP_CBC_CMD``, or a ``cbc`` on PATH): PuLP's ``status``
  says "Optimal" for an incumbent CBC returned at its time limit. The proof is read from the
  first word of CBC's solution file (``sol_status == LpSolutionOptimal``) and CBC's
  ``Result -`` log line; a time-limited incumbent is ``timeout``.
* **HiGHS** (highspy through ``pulp.HiGHS``): default ``mip_rel_gap`` 1e-4 stops short of the
  optimum on these knapsacks; here ``mip_rel_gap = 0`` and ``mip_abs_gap = 0.5``, and
  ``optimal`` means model status kOptimal under those gaps; kTimeLimit is ``timeout``.

CBC 2.10.3 bugs found here (and what is done about them)
--------------------------------------------------------
* Its **knapsack cover cuts** cut off the optimum: ``theta_window(50, 28)`` with objective
  nodes·B + bb·N was reported "Optimal" 0.93 % below the optimum (one single-row model, after
  capacity lowering; reproduced with the binaries expanded). Known in COIN-OR (Cgl#32, Cbc#82).
  ``knapsackCuts off``.
* Its **preprocessing** cut off a front point of ``theta_window(50, 9)`` (stage one reported 1408
  "Optimal", the true maximum is 1422; with and without our reductions). ``preprocess off``.
  With both off, 200 + 100 single-objective windows (w = 50, 100), 60 + 80 fronts (w = 50, 30)
  and 900 small random problems agreed with ``dp`` / ``exhaustive``.
* Given a **MIP start** it returned 1717 "Optimal" for 1718 (``theta_window(20, 16)``, the anchor's
  second stage; right without the start, or with probing cuts off). CBC gets no MIP start.
* With **preprocessing off** it segfaults writing the solution of a model its bound tightening
  finds infeasible (exit 139; the epsilon sweep used to end on such a model). The sweep now never
  solves an infeasible model; should CBC still crash, the worker retries that solve with
  preprocessing on and marks it as no proof (the answer is then ``feasible``).
* Turning preprocessing and knapsack cuts off makes CBC slower on the hard cases (below).

HiGHS 1.15 showed no wrong answer on the same instances.

The worker process
------------------
OR-Tools bundles its own HiGHS, and it and highspy cannot be loaded into one process (whichever
loads second fails with an undefined symbol); ``import pulp`` imports highspy. So this process
never imports PuLP: every model is built and solved in one persistent worker
(``solvers._mip_worker``), started with ``multiprocessing``'s ``spawn`` method on first use
(``supports()``) or in the untimed ``warm_up()``, shared by all ``mip-*`` solvers of the process
and reused across solves; requests and answers are plain numpy arrays and dicts over a pipe.
Spawn would re-import the parent's ``__main__`` script in the child (running a script without a
``__main__`` guard twice, and loading OR-Tools if the script imports it), so ``__main__`` is
hidden while the worker starts. The worker leads its own process group (Ctrl-C in the terminal
does not reach it; it and the CBC it runs can be killed together) and exits when its parent dies.
Each solve gets the time left minus a margin as the solver's own time limit; if no answer has
come ``WORKER_GRACE_S`` after the deadline, the worker is killed with its process group and
restarted, and the answer is ``timeout`` with what was found before (``BaseSolver`` makes an
empty answer the forced jobs only). At exit the worker is asked to stop and joined (``atexit``).
Its temporary files (PuLP's MPS and solution files, CBC logs) live in a private directory that
is removed when the worker stops, is killed, or outlives its parent.
A daemonic process (a ``multiprocessing.Pool`` or daemonic dask worker) may not start children:
``supports()`` declines there, saying so; it also declines when CBC or HiGHS is missing in the
worker, with how to install it, and for CBC when scaled integers reach 1e12 (PuLP hands CBC an
MPS file with 13 significant digits).

The anytime trace is the solver's improving incumbents for M = 1 (CBC's log, HiGHS's
improving-solution callback), and each front point as found for M >= 2.

Measured here
-------------
``python bench/benchmarks/mip_speed.py`` (2-core VM shared with other jobs, Python 3.11, CBC 2.10.3,
HiGHS 1.15.1; Theta windows ``theta_window``, nodes + BB GB; 15 s budget; after ``warm_up``).
Latency median / p95 / max in ms; every answer was checked against ``dp``, none claimed optimal
wrongly.

M = 1, w = 50 (50 seeds):

* weighted 0.5·n/N + 0.5·b/B as floats — dp 8 / 11 / 15; mip-cbc 19 / 38 / 103; mip-highs
  19 / 55 / 76; both reach dp's optimum on every seed, but the data are not decimal, so the
  status is ``feasible``. The same ranking in integers (n·B + b·N) is proven optimal on every
  seed at the same speed (cbc 19 / 49 / 111, highs 21 / 60 / 123): pass integer weights.
* constrained-cpu (max nodes) — dp 7 / 11 / 16; mip-cbc 24 / 95 / 2,298; mip-highs 20 / 67 / 75.
  Without the exact reductions CBC timed out on 2 of 50 (median 470 ms).

M = 1, w = 100: weighted-int cbc 25 / 95 / 165, highs 43 / 122 / 181; constrained-cpu cbc
56 / 2,960 / 15,015 (2 of 50 timeouts), highs 48 / 185 / 560 (CBC without the reductions: 25 of
50 timeouts). w = 200 (10 seeds): constrained-cpu cbc median 236, max 6,441; highs 83, 603.

M = 2, exact front (median size 2 / 3 / 4 at w = 20 / 50 / 100; 30 / 30 / 10 seeds):

* w = 20: cbc (dominance cuts) 57 / 97 / 117; highs (epsilon) 61 / 178 / 210.
* w = 50: cbc dominance cuts 119 / 327 / 1,043, epsilon 338 / 2,116 / 2,351; highs epsilon
  163 / 597 / 783, dominance cuts 285 / 772 / 1,231.
* w = 100: cbc dominance cuts 859 median, 3,927 max; epsilon 3,708 median and 3 of 10 timeouts;
  highs epsilon 657 / 2,046, dominance cuts 1,108 / 3,415.
* w = 200 (5 seeds): highs epsilon median 2.8 s, max 7.6 s, all proven; cbc dominance cuts 2 of
  5 timeouts (the whole front was found, its completeness not proven), epsilon 4 of 5.

What was not fixed: CBC's timeouts on the capacity-bound subproblems (max nodes, or max nodes
s.t. bb >= eps): the LP bound sits at the capacity and, with the two cut/preprocessing bugs
worked around, CBC closes the last unit of gap by enumeration; HiGHS does not stall there. An
exact DP over the node axis (``dp``) answers the same questions in 7-16 ms because the node
capacity (<= 4,392) keeps its state space small, which is exactly the structure LP bounds cannot
see. Prefer ``dp`` for two-resource windows and ``mip-highs`` as the general exact MIP; use
``mip-cbc`` for cross-checking, not for tight budgets at w >= 100.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from schedbench.simcore import fdcapture
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import _mip_worker
from schedbench.solvers._integral import IntegralForm
from schedbench.solvers.base import Answer, BaseSolver, Clock, param

#: Kept back from every solver time limit for writing the model, starting CBC and answering.
TIME_MARGIN_S = 0.08
#: A solve is not started with less time than this left.
MIN_SOLVE_S = 0.02
#: The worker is killed (and restarted) when it has not answered this long after its deadline.
WORKER_GRACE_S = 1.0
#: How long supports() waits for a new worker to start and report its backends.
PROBE_TIMEOUT_S = 60.0
#: Capacities are lowered to the largest reachable subset sum when they are at most this large.
SUBSET_SUM_MAX = 1 << 22
#: PuLP hands CBC an MPS file written with 13 significant digits; integers below 10^12 are exact.
CBC_MAX_COEFFICIENT = 10**12
#: Absolute gap at which the solvers stop. Objectives are whole numbers, so a gap below 1 proves
#: optimality; the relative gap is 0.
GAP_ABS = 0.5
PARETO_METHODS = ("auto", "epsilon", "dominance-cuts")
#: When the epsilon method runs its lexicographic second stage (``second_stage``).
SECOND_STAGES = ("always", "lazy")
_INCONSISTENT = (
    "the solver's answers contradict each other (a proven optimum was beaten); not trusted as proof"
)
#: Extra CBC command-line options: CBC 2.10.3's knapsack cover cuts and its preprocessing both cut
#: off optimal solutions of these knapsacks (see the module docstring).
CBC_OPTIONS: tuple[str, ...] = ("knapsackCuts off", "preprocess off")
#: CBC 2.10.3 also returned a wrong "Optimal" when given a MIP start: it gets none.
CBC_MIP_START = False


# -- the worker process --------------------------------------------------------------------------
@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Spawn re-imports the parent's ``__main__`` script in the child unless it is hidden.

    That would run a script without an ``if __name__ == "__main__"`` guard a second time, and a
    script that imports OR-Tools would load it into the worker next to highspy. With a stand-in
    ``__main__`` (no ``__file__``, no ``__spec__``) the child imports nothing of the parent's.
    """
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


class _Worker:
    """The one MIP worker of this process, shared by every ``mip-*`` solver (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._proc: Any = None
        self._conn: Any = None
        self._owner = -1  # pid that started it; a forked child starts its own
        self._probe: dict[str, Any] | None = None
        self._tmp: str | None = None
        self.restarts = 0
        #: Why the worker was last replaced (a timeout, EOF, a broken pipe), "" if never.
        self.last_failure = ""

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._owner == os.getpid() else None

    def _alive(self) -> bool:
        return self._proc is not None and self._owner == os.getpid() and self._proc.is_alive()

    def start(self) -> None:
        with self._lock:
            if self._alive():
                return
            self._discard()
            ctx = multiprocessing.get_context("spawn")
            parent_end, child_end = ctx.Pipe()
            # The worker's temporary files (PuLP's MPS/solution files, CBC logs) go here, so
            # that they are removed even when the worker is killed in the middle of a solve.
            self._tmp = tempfile.mkdtemp(prefix="schedbench-mip-")
            proc = ctx.Process(
                target=_mip_worker.serve,
                args=(child_end, self._tmp),
                name="schedbench-mip-worker",
                daemon=True,
            )
            with _main_module_hidden():
                proc.start()
            child_end.close()
            self._proc, self._conn, self._owner = proc, parent_end, os.getpid()

    def call(self, request: dict[str, Any], deadline: float) -> dict[str, Any] | None:
        """Send ``request``; the reply, or None (and a fresh worker) if none came by
        ``deadline`` (``time.monotonic()``) or the worker died."""
        with self._lock:
            try:
                self.start()
                self._conn.send(request)
                if self._conn.poll(max(0.0, deadline - time.monotonic())):
                    reply: dict[str, Any] = self._conn.recv()
                    printed = reply.pop("output", "")
                    if printed:
                        fdcapture.LOGGER.info("MIP worker printed:\n%s", printed.rstrip("\n"))
                    return reply
                self.last_failure = "no reply by the deadline"
            except Exception as exc:  # died (EOF), broken pipe, could not start: counted below
                self.last_failure = f"{type(exc).__name__}: {exc}"
            self.kill()
            self.restarts += 1
            try:
                self.start()  # start the next one now; it imports while the caller goes on
            except (OSError, RuntimeError) as exc:  # the next call tries again and says why
                self.last_failure += f"; restart failed: {type(exc).__name__}: {exc}"
            return None

    def probe(self) -> dict[str, Any]:
        """The worker's report on CBC and HiGHS (cached for the life of the process)."""
        with self._lock:
            if self._probe is None:
                try:
                    reply = self.call({"op": "probe"}, time.monotonic() + PROBE_TIMEOUT_S)
                except Exception as exc:  # cannot start a process here
                    reply = {"status": "error", "message": f"{type(exc).__name__}: {exc}"}
                if reply is None or reply.get("status") != "ok":
                    why = (reply or {}).get("message") or "it did not answer"
                    reason = f"the MIP worker process could not be started ({why})"
                    reply = {"status": "ok", "cbc": (False, reason), "highs": (False, reason)}
                self._probe = reply
            return self._probe

    def kill(self) -> None:
        with self._lock:
            proc = self._proc
            if proc is not None and self._owner == os.getpid():
                if hasattr(os, "killpg"):
                    # The worker leads its own process group (it may be running CBC). Our
                    # unreaped child's pid cannot have been reused by another group.
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(OSError, ValueError):  # already gone or closed
                    proc.kill()
                proc.join(timeout=5.0)
            self._discard()

    def close(self) -> None:
        """Stop the worker cleanly (atexit)."""
        with self._lock:
            proc = self._proc
            if proc is not None and self._owner == os.getpid():
                with contextlib.suppress(OSError, ValueError):  # the worker is already gone
                    self._conn.send({"op": "stop"})
                proc.join(timeout=2.0)
                if proc.is_alive():
                    self.kill()
            self._discard()

    def _discard(self) -> None:
        """Forget the worker (dead, or another process's after a fork) and its files."""
        if self._owner == os.getpid():
            if self._conn is not None:
                with contextlib.suppress(OSError, ValueError):  # closed already
                    self._conn.close()
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
        self._proc, self._conn, self._owner, self._tmp = None, None, -1, None


_WORKER = _Worker()
atexit.register(_WORKER.close)


# -- the model in integers -------------------------------------------------------------------------
@dataclass(slots=True)
class _Model:
    """The problem in whole numbers, reduced exactly (see the module docstring).

    Variable g counts how many jobs of ``groups[g]`` (identical jobs, in window order) are taken.
    """

    demands: np.ndarray  # G × K' (int64), resources that can bind
    capacities: np.ndarray  # K'
    objectives: np.ndarray  # M × G (int64)
    groups: list[list[int]]  # job indices (of the problem given to _solve) per variable
    objective_unit: np.ndarray  # M: original units per model unit
    exact: bool
    notes: list[str] = field(default_factory=list)

    @property
    def sizes(self) -> np.ndarray:
        return np.array([len(g) for g in self.groups], dtype=np.int64)

    @classmethod
    def of(cls, problem: SelectionProblem, *, reduce: bool) -> _Model:
        form = IntegralForm.of(problem)
        demands = form.demands.copy()
        capacities = form.capacities.copy()
        objectives = form.objectives.copy()
        unit = 1.0 / form.objective_scale
        notes = []
        if not form.exact:
            notes.append(
                "data not decimal within 6 places: demands rounded up, capacities down, objectives "
                "to 1e-6 (feasible, not proven optimal in the original numbers)"
            )
        # Jobs that fit alone and can improve some objective; the others are never in an
        # optimum (M = 1) nor needed for a front point (M >= 2).
        jobs = np.flatnonzero(
            np.all(demands <= capacities, axis=1) & np.any(objectives > 0, axis=0)
        )
        demands, objectives = demands[jobs], objectives[:, jobs]
        rows = list(range(problem.K))
        if reduce and jobs.size:
            rows = []
            for k in range(problem.K):
                column = demands[:, k]
                if column.sum() <= capacities[k]:
                    continue  # cannot bind
                g = int(np.gcd.reduce(column[column > 0]))
                if g > 1:
                    demands[:, k] //= g
                    capacities[k] //= g
                if capacities[k] <= SUBSET_SUM_MAX:
                    capacities[k] = _largest_subset_sum(demands[:, k], int(capacities[k]))
                rows.append(k)
            for i in range(objectives.shape[0]):
                nonzero = np.abs(objectives[i][objectives[i] != 0])
                g = int(np.gcd.reduce(nonzero)) if nonzero.size else 1
                if g > 1:
                    objectives[i] //= g
                    unit[i] *= g
        demands, capacities = demands[:, rows], capacities[rows]
        if reduce:
            keys: dict[tuple[int, ...], int] = {}
            groups: list[list[int]] = []
            first: list[int] = []
            for pos, job in enumerate(jobs.tolist()):
                key = (*demands[pos].tolist(), *objectives[:, pos].tolist())
                g = keys.setdefault(key, len(groups))
                if g == len(groups):
                    groups.append([])
                    first.append(pos)
                groups[g].append(job)
            demands, objectives = demands[first], objectives[:, first]
        else:
            groups = [[int(j)] for j in jobs]
        return cls(demands, capacities, objectives, groups, unit, form.exact, notes)

    def selection(self, counts: np.ndarray) -> list[int]:
        """Jobs chosen by variable values: the first ``counts[g]`` jobs of each group."""
        return sorted(j for g, n in zip(self.groups, counts, strict=True) for j in g[: int(n)])

    def feasible(self, counts: np.ndarray) -> bool:
        return bool(
            np.all(counts >= 0)
            and np.all(counts <= self.sizes)
            and np.all(counts @ self.demands <= self.capacities)
        )

    def values(self, counts: np.ndarray) -> np.ndarray:
        return self.objectives @ counts

    def greedy(self, weights: np.ndarray) -> np.ndarray:
        """A quick feasible start: groups by weighted value per share of capacity."""
        value = weights @ self.objectives
        share = (self.demands / np.maximum(self.capacities, 1)).sum(axis=1)
        order = np.lexsort((np.arange(value.size), -value / np.maximum(share, 1e-12)))
        counts = np.zeros(value.size, dtype=np.int64)
        left = self.capacities.copy()
        for g in order:
            if value[g] <= 0:
                continue
            d = self.demands[g]
            fit = self.sizes[g] if not np.any(d > 0) else int(np.min(left[d > 0] // d[d > 0]))
            counts[g] = min(int(self.sizes[g]), fit)
            left -= counts[g] * d
        return counts


def _epsilon_rows(
    f1: np.ndarray, f2: np.ndarray, eps: float | None, cap: float | None
) -> list[tuple[np.ndarray, float, float]]:
    """The ε-sweep's extra rows: f2 >= eps and f1 <= cap, each once it is set."""
    rows = []
    if eps is not None:
        rows.append((f2, eps, math.inf))
    if cap is not None:
        rows.append((f1, -math.inf, cap))
    return rows


def _largest_subset_sum(values: np.ndarray, cap: int) -> int:
    """The largest sum of a subset of ``values`` that is at most ``cap`` (bitset DP)."""
    mask = (1 << (cap + 1)) - 1
    reach = 1
    for v in values.tolist():
        if v > 0:
            reach |= (reach << v) & mask
    return reach.bit_length() - 1


# -- one solve's bookkeeping ----------------------------------------------------------------------
@dataclass(slots=True)
class _Result:
    status: str
    x: np.ndarray | None
    reply: dict[str, Any]


class _Session:
    """Sends single MILPs to the worker against one decision's deadline."""

    def __init__(self, solver: _MIPSolver, model: _Model, clock: Clock):
        self.solver = solver
        self.model = model
        self.clock = clock
        now = time.monotonic()
        budget_end = now + clock.remaining()
        limit_end = (
            now + solver.time_limit_s - clock.elapsed() if solver.time_limit_s > 0 else math.inf
        )
        self.end = min(budget_end, limit_end)
        # The grace shrinks with short budgets (at most half the budget): a 1 s decision must
        # not wait a whole extra second for a worker still building a huge model.
        self.grace = min(WORKER_GRACE_S, 0.5 * (clock.deadline - clock.start))
        self.limited_by = "the deadline" if budget_end <= limit_end else "time_limit_s"
        self.stopped_by_time = False
        self.lost_worker = False
        self.unproven = False  # a solver answer that is no proof (see _mip_worker)
        self.solves = 0
        self.solver_time = 0.0
        self.trace: list[tuple[float, list[float]]] = []
        self.messages: list[str] = []

    def solve(
        self,
        c: np.ndarray,
        rows: list[tuple[np.ndarray, float, float]],
        *,
        extra_binaries: int = 0,
        start: np.ndarray | None = None,
    ) -> _Result:
        """Maximise ``c·v`` over the capacity rows plus ``rows`` (coefficients, lo, hi); ``v`` is
        the model's group counts followed by ``extra_binaries`` 0/1 variables."""
        model = self.model
        g = model.objectives.shape[1]
        n = g + extra_binaries
        ub = np.concatenate([model.sizes, np.ones(extra_binaries, dtype=np.int64)])
        cap_rows = np.hstack([model.demands.T, np.zeros((model.demands.shape[1], extra_binaries))])
        a = np.vstack([cap_rows, *[r[0].reshape(1, n) for r in rows]]) if rows else cap_rows
        lo = np.concatenate([np.full(cap_rows.shape[0], -np.inf), [r[1] for r in rows]])
        hi = np.concatenate([model.capacities.astype(np.float64), [r[2] for r in rows]])
        left = self.end - time.monotonic() - TIME_MARGIN_S
        if left < MIN_SOLVE_S:
            self.stopped_by_time = True
            return _Result("timeout", None, {})
        request = {
            "op": "solve",
            "backend": self.solver.backend,
            "c": np.asarray(c, dtype=np.float64),
            "ub": ub,
            "A": a.astype(np.float64),
            "lo": lo.astype(np.float64),
            "hi": hi.astype(np.float64),
            "time_limit": left,
            "deadline": self.end - TIME_MARGIN_S,
            "threads": self.solver.threads,
            "gap_abs": GAP_ABS,
            "start": None
            if start is None or (self.solver.backend == "cbc" and not CBC_MIP_START)
            else np.asarray(start, dtype=np.int64),
            "cbc_options": list(CBC_OPTIONS),
        }
        sent = self.clock.elapsed()
        reply = _WORKER.call(request, self.end + self.grace)
        self.solves += 1
        if reply is None:
            self.lost_worker = self.stopped_by_time = True
            self.messages.append(
                f"the MIP worker did not answer within {self.grace:g} s after the time limit "
                "(or died); it was killed and restarted"
            )
            return _Result("timeout", None, {})
        self.solver_time += float(reply.get("time") or 0.0)
        status = str(reply.get("status"))
        if not reply.get("proof", True):
            self.unproven = True
            if status == "optimal":
                status = "feasible"
        if status == "timeout":
            self.stopped_by_time = True
        if status == "error" and reply.get("message"):
            self.messages.append(f"{self.solver.name}: {reply['message']}")
        reply["sent"] = sent
        x = reply.get("x")
        if x is not None:
            x = np.asarray(x, dtype=np.int64)
            if not model.feasible(x[:g]):
                self.messages.append(
                    f"{self.solver.name} returned a selection that violates the integer model; "
                    "discarded"
                )
                return _Result("error", None, reply)
        return _Result(status, x, reply)

    def record(self, result: _Result, objective_index: int | None) -> None:
        """Anytime trace: M = 1 the solver's improving incumbents, else each point found."""
        unit = self.model.objective_unit
        if objective_index is not None:
            for t, value in result.reply.get("trace", []):
                self.trace.append((result.reply["sent"] + t, [value * unit[objective_index]]))
        elif result.x is not None:
            values = self.model.values(result.x[: self.model.objectives.shape[1]])
            self.trace.append((self.clock.elapsed(), list(values * unit)))

    def stats(self) -> dict[str, Any]:
        return {
            "solves": self.solves,
            "solver_time_s": round(self.solver_time, 6),
            "variables": int(self.model.objectives.shape[1]),
            "jobs_in_model": int(self.model.sizes.sum()),
            "rows": int(self.model.demands.shape[1]),
            "worker_restarted": self.lost_worker,
        }


# -- the solvers ----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True, slots=True)
class _MIPSolver(BaseSolver):
    time_limit_s: float = param(0.0, "solver time limit in seconds; 0 = the decision budget")
    threads: int = param(1, "solver threads")
    pareto_method: str = param(
        "auto",
        "M >= 2: 'epsilon' (M = 2 only: epsilon-constraint, lexicographic second stage), "
        "'dominance-cuts' (weighted sum over the region no found point weakly dominates), "
        "'auto' (mip-highs: epsilon for M = 2; otherwise dominance-cuts; the faster in "
        "bench/benchmarks/mip_speed.py)",
    )
    second_stage: str = param(
        "always",
        "M = 2 epsilon: 'always' (max f2 with f1 held, for every point: 2|F|+1 solves) or "
        "'lazy' (a point is confirmed by the next step instead: about |F|+1 solves)",
    )
    reduce: bool = param(
        True,
        "exact reductions: gcd per row, capacities lowered to reachable sums, identical jobs "
        "aggregated into one integer variable",
    )

    backend: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self._require(
            isinstance(self.time_limit_s, (int, float))
            and not isinstance(self.time_limit_s, bool)
            and math.isfinite(self.time_limit_s)
            and self.time_limit_s >= 0,
            "time_limit_s",
            "a number of seconds >= 0 (0 = use the budget)",
        )
        self._require(
            isinstance(self.threads, int)
            and not isinstance(self.threads, bool)
            and 1 <= self.threads <= 256,
            "threads",
            "an integer in 1..256",
        )
        self._require(
            self.pareto_method in PARETO_METHODS,
            "pareto_method",
            f"one of {', '.join(PARETO_METHODS)}",
        )
        self._require(isinstance(self.reduce, bool), "reduce", "true or false")
        self._require(
            self.second_stage in SECOND_STAGES,
            "second_stage",
            f"one of {', '.join(SECOND_STAGES)}",
        )

    # -- protocol ----------------------------------------------------------------------------
    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if multiprocessing.current_process().daemon:
            return False, (
                "runs CBC/HiGHS in a worker process, which a daemonic process (a multiprocessing "
                "Pool or daemonic dask worker) may not start; run it from a non-daemonic process"
            )
        ok, reason = _WORKER.probe().get(self.backend, (False, "unknown backend"))
        if not ok:
            return False, reason
        if self.pareto_method == "epsilon" and problem.M > 2:
            return False, (
                f"pareto_method='epsilon' handles M = 2 only, this problem has M = {problem.M}; "
                "use 'dominance-cuts' or 'auto'"
            )
        try:
            form = IntegralForm.of(problem)
        except OverflowError as exc:
            return False, str(exc)
        if self.backend == "cbc":
            biggest = max(
                int(np.abs(form.demands).sum(axis=0).max(initial=0)),
                int(np.abs(form.objectives).sum(axis=1).max(initial=0)),
            )
            if biggest >= CBC_MAX_COEFFICIENT:
                return False, (
                    f"scaled integer data reach {biggest:.3g}; CBC reads them from an MPS file "
                    "with 13 significant digits (exact below 1e12); use mip-highs or cpsat"
                )
        return True, ""

    def _warm_up(self) -> None:
        """Start the worker and probe the backends (untimed)."""
        _WORKER.probe()

    # -- solving -------------------------------------------------------------------------------
    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        model = _Model.of(problem, reduce=self.reduce)
        if model.objectives.shape[1] == 0:
            status = Status.OPTIMAL if model.exact else Status.FEASIBLE
            return Answer(status, [[]], notes=list(model.notes), stats={"solves": 0})
        session = _Session(self, model, clock)
        if problem.M == 1:
            status, selections, notes = self._single(session)
        else:
            method = self.pareto_method
            if method == "auto":
                method = (
                    "epsilon" if problem.M == 2 and self.backend == "highs" else "dominance-cuts"
                )
            if method == "epsilon":
                status, selections, notes = self._epsilon(session)
            else:
                status, selections, notes = self._dominance_cuts(session)
            notes.append(f"Pareto front by {method}")
        if status == Status.OPTIMAL and (session.unproven or not model.exact):
            status = Status.FEASIBLE
        if status == Status.TIMEOUT and session.limited_by == "time_limit_s":
            status = Status.FEASIBLE
            notes.append(f"stopped at time_limit_s={self.time_limit_s:g} without proof")
        return Answer(
            status,
            selections,
            trace=session.trace,
            stats=session.stats(),
            notes=[*model.notes, *notes, *session.messages],
        )

    def _stopped(self, session: _Session, result: _Result) -> Status | None:
        """The status to end with after ``result``, or None to go on."""
        if result.status == "error":
            return Status.ERROR
        if result.status == "timeout" or session.stopped_by_time:
            return Status.TIMEOUT
        return None

    def _single(self, session: _Session) -> tuple[Status, list[list[int]], list[str]]:
        """M = 1: maximise the objective (greedy start; the greedy selection is the fallback)."""
        model = session.model
        start = model.greedy(np.ones(1))
        result = session.solve(model.objectives[0], [], start=start)
        session.record(result, 0)
        selections = [model.selection(start)]
        if result.x is not None:
            selections.append(model.selection(result.x))
        if result.status == "optimal" and result.x is not None:
            if model.values(result.x)[0] < model.values(start)[0]:
                return Status.FEASIBLE, selections, [_INCONSISTENT]
            return Status.OPTIMAL, selections, []
        if result.status == "feasible":
            return Status.FEASIBLE, selections, ["the solver stopped without proving optimality"]
        if result.status == "infeasible":
            return Status.ERROR, [], ["the solver called the problem infeasible (x = 0 fits)"]
        return self._stopped(session, result) or Status.ERROR, selections, []

    def _epsilon(self, session: _Session) -> tuple[Status, list[list[int]], list[str]]:
        """M = 2, epsilon-constraint with a lexicographic second stage (see the module docstring):
        the anchor (max f2, then max f1) first; then from eps = -inf: z1 = max f1 s.t. f2 >= eps,
        stop if z1 is the anchor's f1, else max f2 s.t. f1 = z1 gives the next point and
        eps = f2 + 1. After a proven point (z1, z2), f1 <= z1 - 1 is valid for the rest."""
        model = session.model
        g = model.objectives.shape[1]
        f1, f2 = model.objectives[0].astype(np.float64), model.objectives[1].astype(np.float64)
        selections: list[list[int]] = []
        notes: list[str] = []

        def second_stage(
            first: _Result, a: np.ndarray, b: np.ndarray, rows: list[Any]
        ) -> tuple[Any, ...]:
            """max b with a held at its stage-one value: (x, proven, status to end with)."""
            za = float(a @ first.x)
            fixed = (a, za, za if first.status == "optimal" else math.inf)
            second = session.solve(b, [*rows, fixed], start=first.x)
            x = second.x if second.x is not None else first.x
            if x is None:  # neither stage found a point: nothing to add
                return None, False, second.status
            selections.append(model.selection(x[:g]))
            session.record(_Result(second.status, x, {}), None)
            end = None
            if "error" in (first.status, second.status):
                end = Status.ERROR
            elif session.stopped_by_time:
                end = Status.TIMEOUT
            return x, first.status == "optimal" and second.status == "optimal", end

        # The anchor: the front point with the largest f2. The sweep ends on reaching it, so no
        # solve is infeasible (proving infeasibility is often the hardest solve, and CBC 2.10.3
        # crashes on some infeasible models).
        first = session.solve(f2, [])
        if first.x is None:
            return self._stopped(session, first) or Status.ERROR, selections, []
        anchor, proven, end = second_stage(first, f2, f1, [])
        if end is not None:
            return end, selections, []
        top_f2, anchor_f1 = float(f2 @ anchor), float(f1 @ anchor)
        if self.second_stage == "lazy":
            return self._epsilon_lazy(session, selections, proven, top_f2, anchor_f1)
        eps: float | None = None
        cap: float | None = None
        while True:
            rows = _epsilon_rows(f1, f2, eps, cap)
            first = session.solve(f1, rows)
            if first.x is None:
                if first.status == "infeasible":  # impossible if the anchor is right
                    proven = False
                    break
                return self._stopped(session, first) or Status.ERROR, selections, []
            if float(f1 @ first.x) <= anchor_f1:
                # The lexicographic maximum over f2 >= eps is the anchor, already found.
                proven = proven and first.status == "optimal"
                break
            x, point_proven, end = second_stage(first, f1, f2, rows)
            if end is not None:
                return end, selections, []
            proven = proven and point_proven
            if float(f2 @ x) >= top_f2 or (cap is not None and float(f1 @ x) > cap):
                # Beat the anchor or a proven point: some "optimal" was wrong.
                notes.append(_INCONSISTENT)
                proven = False
                break
            eps = float(f2 @ x) + 1
            cap = float(f1 @ x) - 1 if point_proven else None
        status = Status.OPTIMAL if proven else Status.FEASIBLE
        if not proven and not notes:
            notes.append("some solves stopped without proof")
        return status, selections, notes

    def _epsilon_lazy(
        self,
        session: _Session,
        selections: list[list[int]],
        proven: bool,
        top_f2: float,
        anchor_f1: float,
    ) -> tuple[Status, list[list[int]], list[str]]:
        """The epsilon sweep without a second stage per point (``second_stage="lazy"``).

        z1 = max f1 s.t. f2 >= eps (and f1 <= cap) gives a *candidate* x; the next step uses
        eps = f2(x) + 1 with the same cap. If it returns a smaller f1, no selection has f1 = z1
        and f2 > f2(x), so x was the lexicographic maximum: a front point (emitted, and
        cap = z1 − 1 from then on). If it returns f1 = z1 again, x was weakly dominated and the
        new answer replaces it. The sweep ends, as the eager one, at the anchor's f1. Each point
        costs one solve plus one per dominated candidate, instead of two."""
        model = session.model
        f1, f2 = model.objectives[0].astype(np.float64), model.objectives[1].astype(np.float64)
        notes: list[str] = []
        eps: float | None = None
        cap: float | None = None
        pending: tuple[np.ndarray, bool] | None = None  # candidate, and whether its solve proved

        def emit(x: np.ndarray) -> None:
            selections.append(model.selection(x[: model.objectives.shape[1]]))
            session.record(_Result("optimal", x, {}), None)

        while True:
            rows = _epsilon_rows(f1, f2, eps, cap)
            first = session.solve(f1, rows)
            if first.x is None:
                if pending is not None:
                    emit(pending[0])  # a feasible candidate, maybe not on the front
                if first.status == "infeasible":  # impossible if the anchor is right
                    proven = False
                    break
                return self._stopped(session, first) or Status.ERROR, selections, notes
            z1 = float(f1 @ first.x)
            solved = first.status == "optimal"
            if pending is not None and z1 < float(f1 @ pending[0]):
                emit(pending[0])  # confirmed (if both solves were proofs)
                proven = proven and pending[1] and solved
                cap = float(f1 @ pending[0]) - 1 if pending[1] and solved else None
                pending = None
            elif pending is not None and z1 > float(f1 @ pending[0]):
                notes.append(_INCONSISTENT)  # a larger f1 under a tighter eps: a wrong proof
                proven = False
                emit(first.x)
                break
            if z1 <= anchor_f1:
                proven = proven and solved
                break
            if float(f2 @ first.x) >= top_f2:
                notes.append(_INCONSISTENT)
                proven = False
                break
            if session.stopped_by_time:
                emit(first.x)
                return Status.TIMEOUT, selections, notes
            pending = (first.x, solved)  # replaces a dominated candidate with the same f1
            eps = float(f2 @ first.x) + 1
        status = Status.OPTIMAL if proven else Status.FEASIBLE
        if not proven and not notes:
            notes.append("some solves stopped without proof")
        return status, selections, notes

    def _dominance_cuts(self, session: _Session) -> tuple[Status, list[list[int]], list[str]]:
        """Weighted sum with dominance cuts: maximise sum_i f_i over the selections that no found
        point p weakly dominates (for every p some i with f_i >= p_i + 1: binary y_pi and
        f_i - M_pi y_pi >= p_i + 1 - M_pi, M_pi = p_i + 1 - min f_i); until infeasible."""
        model = session.model
        obj = model.objectives.astype(np.float64)
        m, g = obj.shape
        low = np.clip(obj, None, 0).sum(axis=1)  # smallest value each objective can take
        high = np.clip(obj, 0, None).sum(axis=1)  # largest
        found: list[np.ndarray] = []
        selections: list[list[int]] = []
        notes: list[str] = []
        proven = True
        previous: float | None = None  # last proven weighted-sum optimum
        while True:
            pairs = [
                (p, i) for p in range(len(found)) for i in range(m) if found[p][i] + 1 <= high[i]
            ]
            if any(all(q != p for q, _ in pairs) for p in range(len(found))):
                break  # a point no selection can beat in any objective: nothing is left
            n_y = len(pairs)
            rows = []
            for p in range(len(found)):
                coeff = np.zeros(g + n_y)
                coeff[g + np.array([k for k, (q, _) in enumerate(pairs) if q == p])] = 1.0
                rows.append((coeff, 1.0, math.inf))
            for k, (p, i) in enumerate(pairs):
                big = found[p][i] + 1 - low[i]
                coeff = np.concatenate([obj[i], np.zeros(n_y)])
                coeff[g + k] = -big
                rows.append((coeff, found[p][i] + 1 - big, math.inf))
            c = np.concatenate([obj.sum(axis=0), np.zeros(n_y)])
            result = session.solve(c, rows, extra_binaries=n_y)
            if result.status == "infeasible":
                break
            if result.x is None:
                return self._stopped(session, result) or Status.ERROR, selections, []
            x = result.x[:g]
            selections.append(model.selection(x))
            found.append(model.values(x).astype(np.float64))
            session.record(result, None)
            weighted = float(found[-1].sum())
            if result.status != "optimal":
                proven = False
            elif previous is not None and weighted > previous:
                # The region only shrinks: a proven optimum cannot grow.
                notes.append(_INCONSISTENT)
                proven = False
            previous = weighted if result.status == "optimal" else None
            if session.stopped_by_time:
                return Status.TIMEOUT, selections, []
        status = Status.OPTIMAL if proven else Status.FEASIBLE
        if not proven and not notes:
            notes.append("some solves stopped without proof")
        return status, selections, notes


@dataclass(frozen=True, kw_only=True, slots=True)
class CBCSolver(_MIPSolver):
    name = "mip-cbc"
    summary = (
        "0-1 MIP through PuLP + CBC (worker process); M = 1 proven optimum, M >= 2 exact front "
        "(epsilon-constraint / dominance cuts)"
    )
    backend = "cbc"


@dataclass(frozen=True, kw_only=True, slots=True)
class HiGHSSolver(_MIPSolver):
    name = "mip-highs"
    summary = (
        "0-1 MIP through PuLP + HiGHS (worker process; never beside OR-Tools); M = 1 proven "
        "optimum at gap 0, M >= 2 exact front (epsilon-constraint / dominance cuts)"
    )
    backend = "highs"
