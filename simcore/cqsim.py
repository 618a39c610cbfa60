"""The ``cqsim`` profile of the BBSched core: what the BBSched authors' simulator schedules.

The paper's text is the engine of ``simcore/engine.py`` (one pass per instant, requested times
everywhere, the starvation bound, the "twice the node loss" decision maker). The schedules the
paper reports were produced by the authors' own simulator, CQSim (branch ``BBSched``), whose
rules differ; the model note *bbsched-cqsim-semantics* ("What CQSim's BBSched branch actually
schedules") describes them with file:line references, and this module follows it section by
section (§N below is a section of that note). The reason it is a loop of its own, not switches
of the engine: the note's rules change the event loop itself (a pass per event, a completion
that holds its resources until its own event), the availability profile and the reservation
search, so they share almost nothing with the engine's fast paths, whose digests are pinned.

Every rule that differs from the paper's text is a named field of :class:`CqsimRules`, so a
rule can be switched back to the paper's reading one at a time. The defaults reproduce CQSim's
schedules job for job on the shipped calibration workload (dataset ``bbsched-w1``,
``tests/simcore/test_cqsim_w1.py``).

What is the same in both profiles: jobs that can never fit the machine are rejected at arrival
(CQSim drops them when it reads the trace, §1 step 3); a job whose runtime exceeds its request
runs for the request (CQSim clips the runtime, §1 step 1; the engine kills it there).
"""

from __future__ import annotations

import bisect
import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from schedbench.simcore.errors import ConfigError, SimulationError
from schedbench.simcore.problem import Budget
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload

#: The policies of the profile: CQSim's ``-u F`` (FCFS and backfilling) and ``-u M`` (BBSched's
#: window selection, then FCFS and backfilling).
CQSIM_POLICIES = ("naive", "window")
CQSIM_BACKFILLS = ("easy", "conservative")
#: CQSim enumerates every subset of at most 10 candidates and switches to a random GA beyond
#: (§6.1); the profile reproduces the deterministic path only.
MAX_WINDOW = 10
DECISION_MAKERS = ("cqsim", "paper")
QUEUED_DURATIONS = ("runtime", "requested")
SELECTIONS = ("enumerate", "solver")

_END, _ARRIVAL = 0, 1  # event kinds: at one instant completions come first (§3)


@dataclass(frozen=True, kw_only=True, slots=True)
class CqsimRules:
    """CQSim's rules where they differ from the paper's text; the defaults are CQSim's.

    Each field names one rule of the model note *bbsched-cqsim-semantics* (section in
    brackets); the other value is the paper's reading.
    """

    #: §3: one full scheduling pass after every single event (two jobs ending at one second
    #: give two passes, and the second holds its resources during the first). False: one pass
    #: per instant after every completion and arrival due then (the paper's engine).
    pass_per_event: bool = True
    #: §9: the duration of a *queued* job in the head's reservation and the backfill test:
    #: ``"runtime"`` (its actual runtime, CQSim) or ``"requested"`` (its request, the paper).
    #: Running jobs always enter the profile at start + requested time (§7).
    queued_duration: str = "runtime"
    #: §8: a reservation search gives up when the burst buffer does not fit at the first point
    #: where the nodes do (the job gets no reservation). False: the search moves on.
    bb_abandon: bool = True
    #: §7: the first running job opens a profile point of its own even when its predicted end
    #: is now. False: it joins the point of now.
    split_now_point: bool = True
    #: §8, §10: a reservation found at time zero (the first job's submission) counts as not
    #: found, and a job started without fitting takes no resources ("phantom" start).
    zero_start_not_found: bool = True
    #: §6.1: the window selection runs only when the window holds at least this many jobs
    #: (CQSim: more than 2). 1: at every pass with a queued job.
    window_min_queue: int = 3
    #: §6.3: two subsets with identical (nodes, BB) vectors knock each other out of the Pareto
    #: front, even when the vector is Pareto-optimal. False: one of them stays (the first in
    #: the window's order).
    equal_vectors_excluded: bool = True
    #: §6.4: ``"cqsim"`` (the most nodes, replaced by the most BB among the members that gain
    #: more than 30 % of its BB share and lose less than 0.1 of the machine's nodes) or
    #: ``"paper"`` (replaced when the BB gain is more than twice the node loss, BBSched §3.2.4).
    decision_maker: str = "cqsim"
    #: §1 step 4: CQSim reads at most this many jobs (``read_num`` of its configuration); the
    #: jobs after them are never simulated. None: every job.
    read_num: int | None = 8000
    #: §6.1, §6.6: how the window's subsets are ranked: ``"enumerate"`` (CQSim: every subset
    #: of the fitting window jobs, with the front rule of §6.3) or ``"solver"`` (the run's
    #: solver of the ``selection`` kind returns the Pareto set; the equal-vector rule cannot
    #: apply, since a solver returns one selection per vector).
    selection: str = "enumerate"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise ConfigError(f"cqsim_rules.{f.name}: expected true or false, got {value!r}")
        if self.queued_duration not in QUEUED_DURATIONS:
            raise ConfigError(
                f"cqsim_rules.queued_duration: expected one of {', '.join(QUEUED_DURATIONS)}, "
                f"got {self.queued_duration!r}"
            )
        if self.decision_maker not in DECISION_MAKERS:
            raise ConfigError(
                f"cqsim_rules.decision_maker: expected one of {', '.join(DECISION_MAKERS)}, "
                f"got {self.decision_maker!r}"
            )
        if self.selection not in SELECTIONS:
            raise ConfigError(
                f"cqsim_rules.selection: expected one of {', '.join(SELECTIONS)}, got {self.selection!r}"
            )
        m = self.window_min_queue
        if not isinstance(m, int) or isinstance(m, bool) or m < 1:
            raise ConfigError(f"cqsim_rules.window_min_queue: expected an integer >= 1, got {m!r}")
        r = self.read_num
        if r is not None and (not isinstance(r, int) or isinstance(r, bool) or r < 1):
            raise ConfigError(f"cqsim_rules.read_num: expected an integer >= 1 or none, got {r!r}")

    def changed(self) -> dict[str, Any]:
        """The rules that differ from CQSim's (for the run's configuration)."""
        base = CqsimRules()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }


def rules_from(options: dict[str, Any]) -> CqsimRules:
    """:class:`CqsimRules` from a table of rule names (a spec's ``cqsim_rules``); an unknown
    name is one line naming it and the known ones."""
    known = [f.name for f in fields(CqsimRules)]
    for key in options:
        if key not in known:
            raise ConfigError(f"cqsim_rules.{key}: expected a rule name ({', '.join(known)})")
    return CqsimRules(**options)


# -- the availability profile (§7) and reservations (§8) --------------------------------------


class _Profile:
    """Free nodes and burst buffer from each point's time to the next point's (§7).

    Points may share a time (the note's first running job at now); the last point is the fully
    free machine. Rebuilt at every backfilling call: nothing survives a pass (§9).
    """

    __slots__ = ("b", "n", "t", "zero")

    def __init__(self, t: list[float], n: list[float], b: list[float], zero: float | None):
        self.t, self.n, self.b = t, n, b
        self.zero = zero  # a start found at this time counts as not found (§8)

    def search(self, n: float, b: float, d: float, abandon: bool) -> float | None:
        """The start CQSim's ``reserve`` finds for ``n`` nodes, ``b`` BB, ``d`` seconds (§8)."""
        t, pn, pb = self.t, self.n, self.b
        i, m = 0, len(t)
        while i < m:
            if pn[i] < n:
                i += 1
                continue
            if pb[i] < b:
                if abandon:
                    return None
                i += 1
                continue
            end = t[i] + d
            k = i
            while k < m and t[k] < end:
                if pn[k] < n or pb[k] < b:
                    break
                k += 1
            else:
                return None if t[i] == self.zero else t[i]
            i = k + 1
        return None

    def book(self, s: float, n: float, b: float, d: float) -> None:
        """Take ``n`` nodes and ``b`` BB from every point in [s, s + d) (§8)."""
        t, pn, pb = self.t, self.n, self.b
        e = s + d
        if e not in t:
            # before the first later point; scanned, not bisected: a running job past its
            # predicted end (a fractional overrun the clipping of §1 lets through) puts a point
            # before now, so the times need not be sorted
            at = next((k for k, tk in enumerate(t) if tk > e), len(t))
            t.insert(at, e)
            pn.insert(at, pn[at - 1])
            pb.insert(at, pb[at - 1])
        for k, tk in enumerate(t):
            if s <= tk < e:
                pn[k] -= n
                pb[k] -= b

    def qualifies(self, now: float, n: float, b: float, d: float) -> bool:
        """CQSim's ``pre_avail``: fits at every point with now <= t < now + d (§9)."""
        e = now + d
        for k, tk in enumerate(self.t):
            if tk >= e:
                break
            if tk >= now and (self.n[k] < n or self.b[k] < b):
                return False
        return True


# -- the window selection (§6) ----------------------------------------------------------------

_MASKS: dict[int, np.ndarray] = {}


def _masks(k: int) -> np.ndarray:
    """Every non-empty subset of ``k`` items as 0/1 rows, in increasing bit order."""
    m = _MASKS.get(k)
    if m is None:
        codes = np.arange(1, 1 << k, dtype=np.int64)
        m = ((codes[:, None] >> np.arange(k)) & 1).astype(np.float64)
        _MASKS[k] = m
    return m


def pareto_front(u: np.ndarray, b: np.ndarray, equal_excluded: bool) -> list[int]:
    """Indices of the feasible subsets on CQSim's front (§6.3): S is on it when it is strictly
    larger than every other subset in at least one objective; with ``equal_excluded`` false,
    the first of several subsets with one vector stays."""
    order = np.lexsort((np.arange(u.size), -b, -u))  # most nodes, then most BB, then first
    front: list[int] = []
    best_b = -math.inf
    prev: tuple[float, float] | None = None
    for i in order.tolist():
        vec = (float(u[i]), float(b[i]))
        if vec == prev:  # a duplicate of the vector just seen
            if equal_excluded and front and front[-1] != -1 and vec == (u[front[-1]], b[front[-1]]):
                front[-1] = -1
            continue
        prev = vec
        if vec[1] > best_b:
            front.append(i)
            best_b = vec[1]
    return [i for i in front if i != -1]


def decide(u: Sequence[float], b: Sequence[float], rule: str) -> int:
    """Position in ``u``/``b`` (the front's node and BB shares) of the chosen member (§6.4)."""
    best = max(range(len(u)), key=lambda i: u[i])
    if rule == "cqsim":
        alt = [
            i
            for i in range(len(u))
            if i != best and b[i] - b[best] > 0.3 * abs(b[best]) and u[best] - u[i] < 0.1
        ]
        return max(alt, key=lambda i: b[i]) if alt else best
    gain = [(b[i] - b[best]) - 2.0 * (u[best] - u[i]) for i in range(len(u))]
    alt = [i for i in range(len(u)) if i != best and gain[i] > 0]
    return max(alt, key=lambda i: b[i] - b[best]) if alt else best


# -- the simulation ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class CqsimConfig:
    """One run of the profile: the policy (``naive``: CQSim ``-u F``; ``window``: ``-u M``), the
    window size (``-x``), the backfilling (``-b 1|2``) and the rules."""

    policy: str = "naive"
    window: int = 10
    backfill: str = "conservative"
    rules: CqsimRules = CqsimRules()

    def __post_init__(self) -> None:
        if self.policy not in CQSIM_POLICIES:
            raise ConfigError(
                f"policy: expected one of {', '.join(CQSIM_POLICIES)} under profile cqsim, "
                f"got {self.policy!r}"
            )
        if self.backfill not in CQSIM_BACKFILLS:
            raise ConfigError(
                f"backfill: expected one of {', '.join(CQSIM_BACKFILLS)} under profile cqsim, "
                f"got {self.backfill!r}"
            )
        w = self.window
        if not isinstance(w, int) or isinstance(w, bool) or not 1 <= w <= MAX_WINDOW:
            raise ConfigError(
                f"window: expected an integer from 1 to {MAX_WINDOW} under profile cqsim "
                f"(CQSim's exact enumeration), got {w!r}"
            )

    def describe(self) -> str:
        head = f"cqsim-window[w={self.window}]" if self.policy == "window" else "cqsim-naive"
        return f"{head}+{self.backfill}"


class CqsimSimulation:
    """One run of CQSim's scheduler (module docstring) on a workload and a machine.

    Same inputs and the same :class:`ScheduleResult` as :class:`simcore.engine.Simulation`, so
    the metrics, writers and stores take either.
    """

    def __init__(
        self,
        workload: Workload,
        system: System,
        config: CqsimConfig | None = None,
        *,
        solver: Any = None,
        budget: Budget | None = None,
    ):
        if np.any(np.asarray(workload.ssd_gb) > 0):
            raise ConfigError(
                "profile: cqsim models nodes and burst buffer only; expected a workload "
                "without local SSD requests"
            )
        self.workload, self.system = workload, system
        self.config = config or CqsimConfig()
        self.rules = self.config.rules
        if self.rules.selection == "solver" and self.config.policy == "window" and solver is None:
            raise ConfigError("cqsim_rules.selection: 'solver' needs a solver (--solver NAME)")
        self.solver, self.budget = solver, budget or Budget()
        self.latencies: list[float] = []
        self.fault_notes: list[str] = []
        self.n = len(workload)
        self.submit = workload.submit.tolist()
        self.nodes = [float(x) for x in workload.nodes.tolist()]
        self.bb = [float(x) for x in workload.bb_gb.tolist()]
        self.req = workload.requested_time.tolist()
        # §1 step 1: the runtime is clipped to the request when int(runtime) > int(request)
        self.run_s = [
            q if int(r) > int(q) else r
            for r, q in zip(workload.runtime.tolist(), self.req, strict=True)
        ]
        self.dur = self.run_s if self.rules.queued_duration == "runtime" else self.req
        self.cap_n, self.cap_b = float(system.nodes), float(system.bb_gb)
        swf = np.asarray(workload.swf, dtype=np.float64)
        # §1 step 2, on the trace's own fields (schedbench's reader repairs a missing request
        # and takes field 5 for a missing field 8; CQSim drops such jobs)
        self.dropped = [
            i <= 0 or int(r) <= 0 or int(q) <= 0 or p <= 0
            for i, r, q, p in zip(
                workload.job_id.tolist(),
                self.run_s,
                swf[:, 8].tolist(),
                swf[:, 7].tolist(),
                strict=True,
            )
        ]
        # §1: the window's node objective is field 5 (field 8 is what a job is given); when
        # the sizes were converted to another unit, the one count there is
        given = swf[:, 7] > 0
        same_unit = bool(np.array_equal(swf[given, 7], np.asarray(workload.nodes)[given]))
        self.obj_nodes = swf[:, 4].tolist() if same_unit else list(self.nodes)
        # §1: time zero is the first job that survives step 2, in trace order
        self.zero = next((t for t, d in zip(self.submit, self.dropped, strict=True) if not d), 0.0)
        self.free_n, self.free_b = self.cap_n, self.cap_b
        self.running: list[tuple[float, int]] = []  # (predicted end, job), §2
        self.queue: list[int] = []
        self.heap: list[tuple[float, int, int, int]] = []
        self.seq = 0
        self.start = [math.nan] * self.n
        self.end = [math.nan] * self.n
        self.state = [int(JobState.UNFINISHED)] * self.n
        self.holds = [True] * self.n  # False: a phantom start (§10)
        self.counters = dict.fromkeys(
            ("passes", "events", "started", "backfilled", "decisions", "rejected", "killed"), 0
        )
        for name in ("phantom_starts", "unread", "dropped", "faults"):
            self.counters[name] = 0
        self.usage: list[list[float]] = []

    # -- state changes (§2, §10) ---------------------------------------------------------------
    def _push(self, t: float, kind: int, j: int) -> None:
        heapq.heappush(self.heap, (t, kind, self.seq, j))
        self.seq += 1

    def fits(self, j: int) -> bool:
        return self.nodes[j] <= self.free_n and self.bb[j] <= self.free_b

    def _start(self, j: int, now: float) -> None:
        if self.fits(j):
            self.free_n -= self.nodes[j]
            self.free_b -= self.bb[j]
        elif self.rules.zero_start_not_found:
            self.holds[j] = False
            self.counters["phantom_starts"] += 1
        else:
            raise SimulationError(
                f"t={now:g}: job {self.workload.job_id[j]} started without fitting"
            )
        entry = (now + self.req[j], j)
        self.running.insert(bisect.bisect_right(self.running, entry[0], key=lambda e: e[0]), entry)
        self.start[j] = now
        self.queue.remove(j)
        self._push(now + self.run_s[j], _END, j)
        self.counters["started"] += 1

    def _complete(self, j: int, now: float) -> None:
        if self.holds[j]:
            self.free_n += self.nodes[j]
            self.free_b += self.bb[j]
        for k, (_, r) in enumerate(self.running):
            if r == j:
                del self.running[k]
                break
        self.end[j] = now
        killed = self.run_s[j] < self.workload.runtime[j]
        self.state[j] = int(JobState.KILLED if killed else JobState.COMPLETED)
        self.counters["killed"] += int(killed)

    # -- one pass (§4, §5) -----------------------------------------------------------------------
    def scan(self, now: float) -> None:
        """CQSim's ``start_scan`` (§5): window selection, the walk, one backfilling call."""
        self.counters["passes"] += 1
        # §4: CQSim sorts the queue by int(now - submit) + 2, highest first, with a stable
        # sort. The score never decreases with an earlier submission, and the queue is always
        # in trace order (arrivals are appended; the jobs M moves ahead all start in the same
        # pass), so that sort never moves a job: the queue is used as it is.
        if self.config.policy == "window":
            chosen = self._select()
            if chosen:
                keep = set(chosen)
                self.queue = chosen + [j for j in self.queue if j not in keep]
        while self.queue:
            j = self.queue[0]
            if not self.fits(j):
                self._backfill(now)
                return
            self._start(j, now)

    def _select(self) -> list[int]:
        """The window selection of §6: the chosen jobs in queue order, or [] (no decision)."""
        size = min(self.config.window, len(self.queue))
        if size < self.rules.window_min_queue:
            return []
        cands = [j for j in self.queue[:size] if self.fits(j)]
        if not cands:
            return []
        t0 = time.perf_counter()  # the enumeration's time is its decision latency
        if self.rules.selection == "solver":
            subsets, sum_n, sum_b = self._solver_front(cands)
        else:
            masks = _masks(len(cands))
            subsets = masks.astype(bool)
            sum_n = masks @ np.array([self.obj_nodes[j] for j in cands])
            sum_b = masks @ np.array([self.bb[j] for j in cands])
        u = (self.cap_n - self.free_n + sum_n) / self.cap_n
        b = (self.cap_b - self.free_b + sum_b) / self.cap_b if self.cap_b > 0 else np.zeros_like(u)
        ok = np.flatnonzero((u <= 1.0) & (b <= 1.0))
        front = [int(ok[i]) for i in pareto_front(u[ok], b[ok], self.rules.equal_vectors_excluded)]
        if not front:
            return []
        if self.rules.selection == "enumerate":
            self.latencies.append(time.perf_counter() - t0)
        self.counters["decisions"] += 1
        u_front = [float(u[i]) for i in front]
        pick = front[decide(u_front, [float(b[i]) for i in front], self.rules.decision_maker)]
        return [j for k, j in enumerate(cands) if subsets[pick, k]]

    def _solver_front(self, cands: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The solver's Pareto set for the candidates (rule ``selection="solver"``): the
        subsets as rows of booleans and their node and BB sums. A failed answer is no decision
        (the pass is plain FCFS), counted as a fault."""
        from schedbench.simcore.kinds.selection.problem import SelectionProblem
        from schedbench.simcore.problem import Status
        from schedbench.simcore.solver import timed_solve

        dem = np.array([[self.nodes[j], self.bb[j]] for j in cands], dtype=np.float64)
        problem = SelectionProblem(
            capacities=np.array([self.free_n, self.free_b]),
            demands=dem,
            objectives=dem.T.copy(),
            resources=("nodes", "bb_gb"),
            objective_names=("nodes", "bb_gb"),
            objective_scales=np.array([self.cap_n, max(self.cap_b, 1.0)]),
        )
        empty = np.zeros((0, len(cands)), dtype=bool), np.zeros(0), np.zeros(0)
        try:
            decision = timed_solve(self.solver, problem, self.budget)
        except Exception as exc:  # a plug-in solver crashed: no decision, as for a failed answer
            self._fault(f"solver raised {type(exc).__name__}: {exc}")
            return empty
        self.latencies.append(decision.latency_s)
        if decision.status in (Status.ERROR, Status.INFEASIBLE):
            self._fault(f"solver answered {decision.status.value}: {'; '.join(decision.notes)}")
            return empty
        sets = [p.selected for p in decision.pareto if p.selected] or (
            [decision.selected] if decision.selected else []
        )
        rows = np.zeros((len(sets), len(cands)), dtype=bool)
        for r, sel in enumerate(sets):
            rows[r, list(sel)] = True
        return rows, rows @ dem[:, 0], rows @ dem[:, 1]

    def _fault(self, why: str) -> None:
        """A decision that failed: counted, and the first few reasons kept for the run's
        configuration."""
        self.counters["faults"] += 1
        if len(self.fault_notes) < 10:
            self.fault_notes.append(why)

    def _profile(self, now: float) -> _Profile:
        """The availability profile of §7."""
        t, n, b = [now], [self.free_n], [self.free_b]
        last: float | None = None
        for pe, j in self.running:
            hold_n = self.nodes[j] if self.holds[j] else 0.0
            hold_b = self.bb[j] if self.holds[j] else 0.0
            joins = (
                pe == last if last is not None else (pe == now and not self.rules.split_now_point)
            )
            if joins:
                n[-1] += hold_n
                b[-1] += hold_b
            else:
                t.append(pe)
                n.append(n[-1] + hold_n)
                b.append(b[-1] + hold_b)
            last = pe
        zero = self.zero if self.rules.zero_start_not_found else None
        return _Profile(t, n, b, zero)

    def _backfill(self, now: float) -> None:
        """CQSim's backfilling (§9) on the queue from its blocked head on."""
        rest = list(self.queue)
        if len(rest) <= 1:
            return
        prof = self._profile(now)
        abandon = self.rules.bb_abandon
        nodes, bb, dur = self.nodes, self.bb, self.dur
        head = rest[0]
        s = prof.search(nodes[head], bb[head], dur[head], abandon)
        if s is not None:
            prof.book(s, nodes[head], bb[head], dur[head])
        conservative = self.config.backfill == "conservative"
        starts: list[int] = []
        for j in rest[1:]:
            ok = prof.qualifies(now, nodes[j], bb[j], dur[j])
            if ok or conservative:
                s = prof.search(nodes[j], bb[j], dur[j], abandon)
                if s is not None:
                    prof.book(s, nodes[j], bb[j], dur[j])
            if ok:
                starts.append(j)
        for j in starts:
            self._start(j, now)
        self.counters["backfilled"] += len(starts)

    # -- the loop (§3) ---------------------------------------------------------------------------
    def _record_usage(self, t: float) -> None:
        row = [t, self.cap_n - self.free_n, self.cap_b - self.free_b]
        if self.usage and self.usage[-1][0] == t:
            self.usage[-1] = row
        elif not self.usage or self.usage[-1][1:] != row[1:]:
            self.usage.append(row)

    def _read(self) -> None:
        """CQSim's reader (§1 steps 2-4): a job without a positive id, runtime, request or
        field 8 (counted as ``dropped``) or that can never fit is dropped before the run (no
        event, so no pass at its submission; state ``rejected``), and at most
        ``rules.read_num`` of the others are read (the rest: state ``rejected``, counted as
        ``unread``). Every job read gets its arrival event now, in trace order (§3)."""
        read = 0
        for j in range(self.n):
            if self.dropped[j]:
                self.state[j] = int(JobState.REJECTED)
                self.counters["dropped"] += 1
            elif self.nodes[j] > self.cap_n or self.bb[j] > self.cap_b:
                self.state[j] = int(JobState.REJECTED)
                self.counters["rejected"] += 1
            elif self.rules.read_num is not None and read >= self.rules.read_num:
                self.state[j] = int(JobState.REJECTED)
                self.counters["unread"] += 1
            else:
                read += 1
                self._push(self.submit[j], _ARRIVAL, j)

    def run(self) -> ScheduleResult:
        """Simulate until every job has ended; return the schedule."""
        self._read()
        per_event = self.rules.pass_per_event
        heap = self.heap
        while heap:
            now, kind, _, j = heapq.heappop(heap)
            self.counters["events"] += 1
            if kind == _END:
                self._complete(j, now)
            else:
                self.queue.append(j)
            if not per_event and heap and heap[0][0] == now:
                continue  # the paper's reading: one pass once everything due now is applied
            if self.queue:
                self.scan(now)
            self._record_usage(now)
        if self.queue or self.running:
            raise SimulationError(
                f"cqsim profile stopped with {len(self.queue)} queued and "
                f"{len(self.running)} running jobs"
            )
        return self._result()

    def snapshot(self) -> ScheduleResult:
        """The schedule so far, for a run that stopped early (unfinished jobs keep state
        ``unfinished`` and no end; ``config["aborted"]`` is True)."""
        result = self._result()
        result.config["aborted"] = True
        return result

    def _result(self) -> ScheduleResult:
        start = np.array(self.start, dtype=np.float64)
        end = np.array(self.end, dtype=np.float64)
        usage = np.zeros((len(self.usage), len(USAGE_COLUMNS)))
        if self.usage:
            arr = np.array(self.usage, dtype=np.float64)
            usage[:, 0], usage[:, 1] = arr[:, 1], arr[:, 2]
        return ScheduleResult(
            workload=self.workload,
            system=self.system,
            start=start,
            end=end,
            state=np.array(self.state, dtype=np.int8),
            first_alloc=start.copy(),
            last_release=end.copy(),
            usage_t=np.array([r[0] for r in self.usage], dtype=np.float64),
            usage=usage,
            capacity=np.array([self.cap_n, self.cap_b, 0.0, 0.0]),
            counters=dict(self.counters),
            decision_latency_s=np.array(self.latencies, dtype=np.float64),
            config={
                "policy": self.config.describe(),
                "profile": "cqsim",
                "cqsim_rules_changed": self.rules.changed(),
                "faults": list(self.fault_notes),
                "lifecycle": "classic",
                "priority": "fcfs",
                "system": self.system.name,
                "workload": self.workload.source,
                "jobs": self.n,
            },
        )
