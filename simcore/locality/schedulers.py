"""The locality schedulers (model note §6, §7): FCFS, EFT, LEA, LEO, LEM, each with a
backfilling (``-bf``) variant.

A scheduler plans the queue in order through a :class:`~simcore.locality.engine.Planner`, the
engine's node-level view: for each job it asks for the earliest available time (EAT) of the
job's cores on every node, the load and eviction terms, the backfilling candidates, and places
the job (or leaves it) through the planner's validated calls. This is the node-level counterpart
of the count-based ``Policy`` protocol (``simcore/policy.py``: a read-only view plus validated
actions); the count-based ``MachineView`` has no cores, files or holes, so the locality
schedulers have their own view rather than being forced into it.

Every per-job choice is a ``placement`` problem (``simcore/kinds/placement``): with a solver
(``solver=``, any registered placement solver) the scheduler poses it and applies the vetted
answer; without one it applies the reference rule directly (the same rule as the
``placement-locality`` solver, vectorised). ``record_problems=True`` poses every problem for
``DecisionRecorder`` even without a solver.

The rules (reference mode; paper-mode differences are fields of ``LocalityOptions``):

* **EAT** of ``c`` cores on a node: when its ``c``-th earliest core frees, never before now.
* **FCFS**: smallest EAT, ties to the earlier node (a node free now ends the scan).
* **Score** = EAT + W_load·TL + W_evict·E, in C ``float``, truncated to an integer; smallest
  wins, ties to the earlier node. The reference filters each node in four stages (EAT, then
  EAT + W_load·TL, then the full score, then the truncated score, each strictly below the best
  truncated score so far); since each stage's value is at most the next one's, the four stages
  select exactly the first node of smallest truncated score, which is what is computed here
  (``tests/simcore/test_locality_kernels.py`` checks it against a literal four-stage scan).
* **EFT** (1, 0); **LEA** (500, 1); **LEO** (500, 1) but (1, 0) from the first node that can
  start the job now on, for the rest of that job's scan (paper: on such nodes only); **LEM**
  EFT weights while the integer share of nodes running a job — those running at the start of the
  scheduler run plus idle nodes this run has started a job on now — is below 100 %, else LEA's.
* **Planning horizon** (§4): FCFS plans while a core is idle now and unclaimed; the score family
  stops at the first job asking for more cores than remain idle now and unclaimed.
* **Backfilling** (§7): only now, in holes (idle cores claimed by a later-starting job, the hole
  ending at that start); a normal placement takes the lowest-numbered cores free by its start;
  FCFS-BF takes the first node that can start the job now or backfill it; the score family
  scores both a node's normal placement and its backfilled placement now; when the pool runs
  out, a job may still start now entirely in a hole (scored without the EAT term, its file
  interval not recorded — the reference's hole-only pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

import numpy as np

import schedbench.simcore.locality._kernels as _k
from schedbench.simcore.errors import ConfigError
from schedbench.simcore.kinds.placement.problem import PlacementDecision, PlacementProblem
from schedbench.simcore.locality.engine import Planner
from schedbench.simcore.problem import Status

__all__ = ["FCFS", "SCHEDULER_NAMES", "ScoreScheduler", "select_reference"]

#: The ten schedulers of the paper (§6), in table order.
SCHEDULER_NAMES = (
    "fcfs",
    "eft",
    "lea",
    "leo",
    "lem",
    "fcfs-bf",
    "eft-bf",
    "lea-bf",
    "leo-bf",
    "lem-bf",
)


def select_reference(partial: np.ndarray, w_evict: np.ndarray, exact: Any, single: bool) -> int:
    """The first index of smallest (truncated) score, computing the eviction term only where
    it can matter: ``partial[i]`` = EAT + W_load·TL (float32 or float64), ``exact(i)`` the full
    score of ``i``. Candidates are visited by increasing lower bound; the full score never
    undercuts its partial sum, so the visit stops once no candidate can beat the best.

    This is the readable statement of the rule; the schedulers run the compiled
    :func:`simcore.locality._kernels.select_reference`, which returns the same node
    (``tests/simcore/test_locality_kernels.py`` checks both against scoring every node)."""
    lb = np.trunc(partial).astype(np.int64) if single else partial
    i0 = int(np.argmin(lb))  # the first candidate of the visit
    if not np.any(w_evict):
        return i0
    best_v: Any = exact(i0) if w_evict[i0] else lb[i0]
    best_i = i0
    # only candidates whose lower bound does not exceed the first full score can win: sort those
    cand = np.flatnonzero(lb <= best_v)
    for i in cand[np.lexsort((cand, lb[cand]))].tolist():
        if i == i0:
            continue
        if lb[i] > best_v or (lb[i] == best_v and i > best_i):
            break
        v = exact(i) if w_evict[i] else lb[i]
        if v < best_v or (v == best_v and i < best_i):
            best_v, best_i = v, i
    return best_i


def _trunc_full(partial_i: Any, w2: float, e: float, single: bool) -> Any:
    if single:
        full = np.float32(partial_i + np.float32(np.float32(w2) * np.float32(e)))
        return int(np.trunc(full))
    return float(partial_i) + w2 * e


@dataclass(eq=False)
class _Base:
    """What every locality scheduler shares: its name, a solver and problem recording."""

    rule: str = "fcfs"
    uses_files: ClassVar[bool] = False
    backfill: bool = False
    solver: Any = None
    record_problems: bool = False
    faults: int = field(default=0, init=False)

    @property
    def name(self) -> str:
        """The registry name: ``lea``, ``lea-bf``, ..."""
        return self.rule + ("-bf" if self.backfill else "")

    def describe(self) -> str:
        sid = getattr(self.solver, "id", None)
        return f"{self.name}:{sid}" if sid else self.name

    def _pose(self, p: Planner) -> bool:
        return p.has_solver or p.recording

    def _answer(self, p: Planner, problem: PlacementProblem) -> PlacementDecision | None:
        """Pose ``problem``; the solver's answer if it delivered a valid one, else None (the
        built-in rule then decides and the fault is counted)."""
        decision = p.decide(problem) if p.has_solver else None
        if not p.has_solver:
            p.record(problem)
            return None
        if decision is None:
            return None
        if Status(decision.status) not in (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT) or not (
            0 <= decision.node < problem.nodes
        ):
            self.faults += 1
            return None
        return decision


# =================================================================================================
# FCFS
# =================================================================================================
@dataclass(eq=False)
class FCFS(_Base):
    """First come, first served on the node with the smallest EAT (§6), optionally with the
    reference's conservative backfilling (§7)."""

    def plan(self, p: Planner, queue: Sequence[int], full: bool) -> None:
        if not self._pose(p):
            # the same rules compiled for the whole run (simcore/locality/_plan.py)
            p.plan_compiled(queue, "fcfs", self.backfill)
            return
        total = p.total_cores
        for k, j in enumerate(queue):
            if p.claimed < total:
                if self.backfill:
                    self._place_bf(p, j)
                else:
                    self._place(p, j)
            elif self.backfill and p.at_t < total:
                c = p.cores[j]
                node = -1
                if c <= p.biggest_hole:
                    for n in p.hole_nodes():
                        if p.fits_hole_only(j, n):
                            node = n
                            break
                if node >= 0:
                    p.place_backfilled(j, node, c, 0, 0, add_interval=False)
                else:
                    p.leave(j)
            else:
                for rest in queue[k:]:
                    p.leave(rest)
                return

    def _problem(self, p: Planner, j: int, eat: np.ndarray, nodes: np.ndarray) -> PlacementProblem:
        return PlacementProblem(
            now=float(p.now),
            cores=p.cores[j],
            runtime=float(p.walltime[j]),
            free_at=eat.astype(np.float64),
            cached=np.zeros(eat.size, dtype=bool),
            file_gb=float(p.workload.file_gb[j]),
            bandwidth_gbps=p.bandwidth_gbps,
            load_s=np.zeros(eat.size),
            w_load=0.0,
            w_evict=0.0,
            node_ids=nodes,
        )

    def _place(self, p: Planner, j: int) -> None:
        eat = p.eat(p.cores[j])
        node = int(np.argmin(eat))
        if self._pose(p):
            d = self._answer(p, self._problem(p, j, eat, np.arange(eat.size)))
            if d is not None:
                node = d.node
                p.place(j, node, max(int(np.ceil(d.start)), int(eat[node])), 0)
                return
        p.place(j, node, int(eat[node]), 0)

    def _place_bf(self, p: Planner, j: int) -> None:
        eat = p.eat(p.cores[j])
        now = p.now
        at_now = np.flatnonzero(eat == now)
        k_eat = int(at_now[0]) if at_now.size else p.nodes
        # candidate order: node n at its EAT, then node n backfilled now
        bf = p.backfill_options(j, before=k_eat, first_only=True)
        if self._pose(p):
            cands = self._candidates(eat, bf, p, j)
            problem = self._problem(p, j, cands[0], cands[1])
            d = self._answer(p, problem)
            if d is not None:
                self._apply_candidate(p, j, d, cands, eat)
                return
        if bf:
            n, from_hole, outside = bf[0]
            p.place_backfilled(j, n, from_hole, outside, 0)
        elif k_eat < p.nodes:
            p.place(j, k_eat, now, 0)
        else:
            node = int(np.argmin(eat))
            p.place(j, node, int(eat[node]), 0)

    @staticmethod
    def _candidates(
        eat: np.ndarray, bf: list[tuple[int, int, int]], p: Planner, j: int
    ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, int]]]:
        free_at = eat.astype(np.float64)
        nodes = np.arange(eat.size, dtype=np.int64)
        extra: list[tuple[int, int, int]] = []
        if bf:
            n = bf[0][0]
            free_at = np.insert(free_at, n + 1, float(p.now))
            nodes = np.insert(nodes, n + 1, n)
            extra = [bf[0]]
        return free_at, nodes, extra

    @staticmethod
    def _apply_candidate(
        p: Planner, j: int, d: PlacementDecision, cands: Any, eat: np.ndarray
    ) -> None:
        _free_at, nodes, extra = cands
        i = d.node
        n = int(nodes[i])
        is_bf = bool(extra) and i == extra[0][0] + 1
        start = max(int(np.ceil(d.start)), int(eat[n]) if not is_bf else p.now)
        if is_bf and start == p.now:
            _, from_hole, outside = extra[0]
            p.place_backfilled(j, n, from_hole, outside, 0)
        else:
            p.place(j, n, max(start, int(eat[n])), 0)


# =================================================================================================
# Score family: EFT, LEA, LEO, LEM
# =================================================================================================
@dataclass(eq=False)
class ScoreScheduler(_Base):
    """The score-based schedulers (§6): ``rule`` one of ``eft``, ``lea``, ``leo``, ``lem``."""

    uses_files: ClassVar[bool] = True
    rule: str = "lea"

    def __post_init__(self) -> None:
        self._const_weights: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}
        if self.rule not in ("eft", "lea", "leo", "lem"):
            raise ConfigError(
                f"score scheduler rule: expected eft, lea, leo or lem, got {self.rule!r}"
            )

    # -- weights ---------------------------------------------------------------------------------
    def _base_weights(self, p: Planner) -> tuple[int, int]:
        lea = p.options.weights_lea
        if self.rule == "eft":
            return (1, 0)
        if self.rule == "lem":
            share = (p.running_nodes * 100) // p.nodes
            return (1, 0) if share < p.options.lem_threshold_pct else lea
        return lea

    def _weights(self, p: Planner, eat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w1, w2 = self._base_weights(p)
        n = eat.size
        if self.rule != "leo":
            # the same weights on every node: read-only arrays kept for the whole simulation
            key = (w1, w2, n)
            pair = self._const_weights.get(key)
            if pair is None:
                c1 = np.full(n, w1, dtype=np.int64)
                c2 = np.full(n, w2, dtype=np.int64)
                c1.setflags(write=False)
                c2.setflags(write=False)
                pair = self._const_weights[key] = (c1, c2)
            return pair
        v1 = np.empty(n, dtype=np.int64)
        v2 = np.empty(n, dtype=np.int64)
        _k.leo_weights(eat, p.now, w1, w2, p.options.leo_sticky, v1, v2)
        return v1, v2

    # -- scoring ---------------------------------------------------------------------------------
    def _partial(self, p: Planner, eat: np.ndarray, tl: np.ndarray, w1: np.ndarray) -> np.ndarray:
        out = np.empty(eat.size, dtype=np.float32 if p.single else np.float64)
        _k.partial_scores(eat, tl, w1, out, p.single)
        return out

    def plan(self, p: Planner, queue: Sequence[int], full: bool) -> None:
        if not self._pose(p):
            # the same rules compiled for the whole run (simcore/locality/_plan.py)
            p.plan_compiled(queue, self.rule, self.backfill)
            return
        total = p.total_cores
        all_claimed = p.options.score_horizon == "all-claimed"
        for k, j in enumerate(queue):
            c = p.cores[j]
            if (p.claimed < total) if all_claimed else (c <= p.idle_unclaimed):
                if self.backfill:
                    self._place_bf(p, j)
                else:
                    self._place(p, j)
            elif self.backfill and p.at_t < total:
                if c <= p.biggest_hole:
                    self._hole_only(p, j)
                else:
                    p.leave(j)
            else:
                for rest in queue[k:]:
                    p.leave(rest)
                return

    def _evict_all(self, p: Planner, j: int, at: np.ndarray, w2: np.ndarray) -> np.ndarray:
        out = np.zeros(at.size, dtype=np.float64)
        for i in np.flatnonzero(w2):
            out[i] = p.evict_term(j, int(i), int(at[i]))
        return out

    def _place(self, p: Planner, j: int) -> None:
        c = p.cores[j]
        eat = p.eat(c)
        tl = p.load_terms(j, eat)
        w1, w2 = self._weights(p, eat)
        partial = self._partial(p, eat, tl, w1)
        if self._pose(p):
            problem = PlacementProblem(
                now=float(p.now),
                cores=c,
                runtime=float(p.walltime[j]),
                free_at=eat.astype(np.float64),
                cached=tl == 0,
                file_gb=float(p.workload.file_gb[j]),
                bandwidth_gbps=p.bandwidth_gbps,
                load_s=tl.astype(np.float64),
                evict_s=self._evict_all(p, j, eat, w2),
                w_load=w1.astype(np.float64),
                w_evict=w2.astype(np.float64),
            )
            d = self._answer(p, problem)
            if d is not None:
                node = d.node
                start = max(int(np.ceil(d.start)), int(eat[node]))
                p.place(j, node, start, int(tl[node]))
                return

        node, _score = p.select_reference(j, partial, w2, eat)
        p.place(j, node, int(eat[node]), int(tl[node]))

    def _place_bf(self, p: Planner, j: int) -> None:
        c = p.cores[j]
        now = p.now
        eat = p.eat(c)
        tl = p.load_terms(j, eat)
        w1, w2 = self._weights(p, eat)
        partial = self._partial(p, eat, tl, w1)
        single = p.single
        # backfilled candidates: node n scored now, after its normal candidate
        bf: list[tuple[int, int, int, float, Any]] = []  # node, from_hole, outside, tl, partial
        if p.has_holes():
            for n, from_hole, outside in p.backfill_options(j):
                tl_n = float(tl[n]) if eat[n] == now else p.load_term(j, n, now)
                part: Any
                if single:
                    part = np.float32(np.float32(now) + np.float32(w1[n]) * np.float32(tl_n))
                else:
                    part = now + float(w1[n]) * tl_n
                bf.append((n, from_hole, outside, tl_n, part))

        if self._pose(p):
            free_at = eat.astype(np.float64)
            nodes = np.arange(eat.size, dtype=np.int64)
            load = tl.astype(np.float64)
            evict = self._evict_all(p, j, eat, w2)
            wl, we = w1.astype(np.float64), w2.astype(np.float64)
            for n, _fh, _out, tl_n, _part in reversed(bf):
                e_n = p.evict_term(j, n, now) if w2[n] else 0.0
                free_at = np.insert(free_at, n + 1, float(now))
                nodes = np.insert(nodes, n + 1, n)
                load = np.insert(load, n + 1, tl_n)
                evict = np.insert(evict, n + 1, e_n)
                wl = np.insert(wl, n + 1, wl[n])
                we = np.insert(we, n + 1, we[n])
            problem = PlacementProblem(
                now=float(now),
                cores=c,
                runtime=float(p.walltime[j]),
                free_at=free_at,
                cached=load == 0,
                file_gb=float(p.workload.file_gb[j]),
                bandwidth_gbps=p.bandwidth_gbps,
                load_s=load,
                evict_s=evict,
                w_load=wl,
                w_evict=we,
                node_ids=nodes,
            )
            d = self._answer(p, problem)
            if d is not None:
                i = d.node
                n = int(nodes[i])
                is_bf = i > 0 and int(nodes[i - 1]) == n
                if is_bf and d.start <= now:
                    entry = next(b for b in bf if b[0] == n)
                    p.place_backfilled(j, n, entry[1], entry[2], int(entry[3]))
                else:
                    start = max(int(np.ceil(d.start)), int(eat[n]))
                    p.place(
                        j,
                        n,
                        start,
                        int(tl[n]) if start == eat[n] else int(p.load_term(j, n, start)),
                    )
                return

        # the reference rule over the candidates in scan order (normal, then backfilled)
        normal, best_v = p.select_reference(j, partial, w2, eat)
        best_key = (normal, 0)
        choice: tuple[int, int, int, float] | None = None
        for n, from_hole, outside, tl_n, part in bf:
            key = (n, 1)
            # the full score is never below the partial one: skip E where it cannot win
            low = int(np.trunc(part)) if single else part
            if low > best_v or (low == best_v and key > best_key):
                continue
            e_n = p.evict_term(j, n, now) if w2[n] else 0.0
            v = _trunc_full(part, float(w2[n]), e_n, single)
            if v < best_v or (v == best_v and key < best_key):
                best_v, best_key = v, key
                choice = (n, from_hole, outside, tl_n)
        if best_key[1] == 1 and choice is not None:
            n, from_hole, outside, tl_n = choice
            p.place_backfilled(j, n, from_hole, outside, int(tl_n))
        else:
            p.place(j, normal, int(eat[normal]), int(tl[normal]))

    def _hole_only(self, p: Planner, j: int) -> None:
        """The pool is out: start ``j`` now entirely in a hole if one fits (§7). LEO scores with
        (1, 0) here; the score omits the EAT term; the file interval is not recorded."""
        now = p.now
        cands = [n for n in p.hole_nodes() if p.fits_hole_only(j, n)]
        if not cands:
            p.leave(j)
            return
        if self.rule == "leo":
            w1, w2 = 1, 0
        else:
            w1, w2 = self._base_weights(p)
        single = p.single
        tls = [p.load_term(j, n, now) for n in cands]
        evs = [p.evict_term(j, n, now) if w2 else 0.0 for n in cands]
        if self._pose(p):
            problem = PlacementProblem(
                now=float(now),
                cores=p.cores[j],
                runtime=float(p.walltime[j]),
                free_at=np.full(len(cands), float(now)),
                cached=np.array([x == 0 for x in tls]),
                file_gb=float(p.workload.file_gb[j]),
                bandwidth_gbps=p.bandwidth_gbps,
                load_s=np.array(tls, dtype=np.float64),
                evict_s=np.array(evs, dtype=np.float64),
                w_load=float(w1),
                w_evict=float(w2),
                node_ids=np.array(cands, dtype=np.int64),
                start_term=False,
            )
            d = self._answer(p, problem)
            if d is not None:
                k = d.node
                p.place_backfilled(j, cands[k], p.cores[j], 0, int(tls[k]), add_interval=False)
                return
        best_v: Any = None
        best_k = -1
        for k, (tl_n, e_n) in enumerate(zip(tls, evs, strict=True)):
            if single:
                part = np.float32(np.float32(w1) * np.float32(tl_n))
                v: Any = int(
                    np.trunc(np.float32(part + np.float32(np.float32(w2) * np.float32(e_n))))
                )
            else:
                v = w1 * tl_n + w2 * e_n
            if best_k < 0 or v < best_v:
                best_v, best_k = v, k
        p.place_backfilled(j, cands[best_k], p.cores[j], 0, int(tls[best_k]), add_interval=False)


def make_scheduler(name: str, *, solver: Any = None, record_problems: bool = False) -> _Base:
    """``fcfs``, ``eft``, ``lea``, ``leo``, ``lem``, each optionally ``-bf``."""
    base, bf = (name[:-3], True) if name.endswith("-bf") else (name, False)
    if base == "fcfs":
        return FCFS(backfill=bf, solver=solver, record_problems=record_problems)
    if base in ("eft", "lea", "leo", "lem"):
        return ScoreScheduler(
            backfill=bf, solver=solver, record_problems=record_problems, rule=base
        )
    raise ConfigError(f"unknown locality scheduler {name!r}; known: {', '.join(SCHEDULER_NAMES)}")


# Factories for the entry-point group ``schedbench.locality_schedulers`` (pyproject.toml), one
# per name, exactly as a third-party package registers its own (any callable taking the
# scheduler's keyword options).
fcfs = partial(make_scheduler, "fcfs")
fcfs_bf = partial(make_scheduler, "fcfs-bf")
eft = partial(make_scheduler, "eft")
eft_bf = partial(make_scheduler, "eft-bf")
lea = partial(make_scheduler, "lea")
lea_bf = partial(make_scheduler, "lea-bf")
leo = partial(make_scheduler, "leo")
leo_bf = partial(make_scheduler, "leo-bf")
lem = partial(make_scheduler, "lem")
lem_bf = partial(make_scheduler, "lem-bf")
