"""The discrete-event simulator: one :class:`Simulation` per run, no module-level state.

Event loop (docs/design.md#one-engine-semantics-stated-once)
------------------------------------------------------------
Time advances to the next instant ``t`` at which something happens. At that instant the
simulator, in this order:

1. applies **every** completion and resource release due at ``t`` (a heap of
   ``(time, sequence, kind, job)``; the sequence number makes ties deterministic: events due
   at the same instant are applied in the order they were scheduled);
2. admits **every** arrival with submit time ``t`` (arrivals are read from the workload's
   submit column, which is sorted, rather than pushed onto the heap: same order, less work);
3. runs **one** scheduling pass.

A phase of zero length (a job whose runtime is 0, a stage-in of 0 GB) completes at the same
instant; its release is applied by a further round at ``t`` (steps 1–3 again), so a pass
never sees a finished job holding resources.

Jobs and lifecycles
-------------------
``classic``: a job holds its nodes, burst buffer and SSD from start to
``start + min(runtime, requested_time)``; when the runtime exceeds the request it is killed at
the request (state ``KILLED``).

``three-phase`` (BBSim paper, "BBSim: an event driven simulator", release points and
bandwidth-based durations): stage-in (``data_in_gb`` held in the burst buffer, duration
``data_in / bw_io``), then the run phase, which allocates the nodes and ``bb_gb`` and first
loads the staged data into memory (``data_in / bw_bb``; the stage-in buffer is released at its
end), computes for ``min(runtime, requested_time)`` (the run buffer is released at its end),
writes its output to the burst buffer (``data_out / bw_bb``; the nodes are released at its
end) and drains it to the file system (``data_out / bw_io``; the stage-out buffer is released
at its end: the job is complete). Choices the paper leaves open, documented here:

* The stage-out buffer is **reserved when the run phase starts** (the run phase demands
  ``bb_gb + data_out_gb``), so the output can always be written as soon as the computation
  ends. BBSim lets a finished job wait for stage-out space while holding its nodes, which can
  deadlock a full burst buffer; reserving up front cannot.
* The stage-in queue is served first-come first-fit, and a stage-in is admitted only if the
  burst buffer stays in a *safe state* (banker's algorithm over the staged jobs: every staged
  job can still obtain its run-phase buffer once the running jobs finish). Without that check,
  staged jobs can fill the buffer and starve every run phase.
* The run phase is what the policy (naive or window + backfilling) schedules; the reservation
  arithmetic of the backfillers uses each running job's expected releases (the stage-in buffer
  at the end of the load-in, the nodes at the end of the load-out by the request, the stage-out
  buffer after the drain) and, for a queued job, ``hold``: load-in + request + load-out + drain.

Policies
--------
A policy acts on the simulation only through actions (``simcore/policy.py``, the protocol both
this module and the policies import; neither imports the other). At every pass the engine calls
``policy.schedule(view, now)`` with a read-only :class:`MachineView` of its state and consumes
the returned iterable one action at a time: each action is validated, then applied, before the
next is asked for, so a generator policy sees the updated view after each start. Actions are
dispatched on their type through a table (``_HANDLERS``), so new kinds of action (advance
reservations, data staging, file loads) add a handler, not a branch. A refused action raises
``InvalidActionError`` naming the policy, the time and the job, and changes nothing.

Start rules, backfilling and decisions live in ``simcore/policies.py`` and
``simcore/backfill.py``; this module owns the state and the clock, validates every action,
validates nothing about solvers itself (the problem's kind does, in ``simcore/solver.py:
timed_solve``), and records the
usage timeline.
"""

from __future__ import annotations

import bisect
import heapq
import math
import operator
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NoReturn, cast

import numpy as np

from schedbench.simcore._stage_in_kernel import need_order, stage_in_pass
from schedbench.simcore.errors import ConfigError as ConfigError
from schedbench.simcore.errors import InvalidActionError as InvalidActionError
from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.errors import SimulationError as SimulationError
from schedbench.simcore.policy import (
    POLICY_COUNTERS,
    Action,
    Count,
    DecisionLatency,
    Fault,
    LogDecision,
    MachineView,
    Policy,
    RecordProblem,
    Start,
    WakeAt,
    fits,
)
from schedbench.simcore.priority import PRIORITIES
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload

LIFECYCLES = ("classic", "three-phase")

#: Why a job was rejected on arrival (it can never fit the empty machine), as counters:
#: more nodes than the machine, more burst buffer than it has, or more nodes with an adequate
#: local SSD than exist.
REJECT_REASONS = ("", "rejected_nodes", "rejected_bb", "rejected_ssd")

# Event kinds (heap entries); every kind is a completion or release.
_END = 0  # classic: the job ends, everything is released
_STAGE_IN_DONE = 1  # three-phase: staged, ready for the run queue
_LOAD_IN_DONE = 2  # stage-in buffer released
_COMPUTE_DONE = 3  # run buffer released
_LOAD_OUT_DONE = 4  # nodes released
_DRAIN_DONE = 5  # stage-out buffer released; job complete
_WAKE = 6  # nothing is released: a scheduling pass is due (a ``WakeAt`` action)


@dataclass(frozen=True, slots=True)
class SimOptions:
    """What to simulate beyond the workload, the machine and the policy.

    ``on_invalid``: ``"raise"`` (default) stops the simulation when a solver's decision breaks
    a constraint; ``"fallback"`` uses the naive start for that pass and counts the fault.
    ``progress``: called with the number of finished jobs, every ``progress_every`` of them.
    ``decision_log``: called with one JSON-ready dict per decision (window policy: the
    :class:`~simcore.policy.LogDecision` actions).
    """

    lifecycle: str = "classic"
    priority: str = "fcfs"
    on_invalid: str = "raise"
    progress: Callable[[int], None] | None = None
    progress_every: int = 1000
    decision_log: Callable[[dict[str, Any]], None] | None = None
    #: Called with every decision problem a window policy poses and its context (time, queue
    #: length, policy), before it is solved: ``--record-decisions`` (``instances/recorded.py``).
    record_problem: Callable[[Any, dict[str, Any]], None] | None = None

    def __post_init__(self) -> None:
        if self.lifecycle not in LIFECYCLES:
            raise ConfigError(
                f"lifecycle: expected one of {', '.join(LIFECYCLES)}, got {self.lifecycle!r}"
            )
        if self.priority not in PRIORITIES:
            raise ConfigError(
                f"priority: expected one of {', '.join(PRIORITIES)}, got {self.priority!r}"
            )
        if self.on_invalid not in ("raise", "fallback"):
            raise ConfigError(
                f"on_invalid: expected 'raise' or 'fallback', got {self.on_invalid!r}"
            )


@dataclass(slots=True)
class Counters:
    passes: int = 0
    instants: int = 0
    started: int = 0
    backfilled: int = 0
    decisions: int = 0
    trivial_decisions: int = 0
    starved_forced: int = 0
    faults: int = 0
    fallbacks: int = 0
    rejected: int = 0
    killed: int = 0
    stage_in_deferred_unsafe: int = 0
    extra: dict[str, int] = field(default_factory=dict)


#: Counter names a policy may not report (``Count``): the engine keeps these itself.
_ENGINE_COUNTERS = frozenset(
    {f.name for f in fields(Counters)} - set(POLICY_COUNTERS) | set(REJECT_REASONS[1:])
)


class Simulation:
    """One simulation run: the workload, the machine, a policy, the options.

    Hot state is plain Python (lists, tuples, floats) — the loop is interpreter-bound and numpy
    scalar access would dominate it. The policy sees it through one :class:`MachineView` per
    run (``machine_view()``) and changes it only through actions (module docstring).

    Nothing here refers back to the simulation (the view lives only while ``run`` does, the
    action handlers are plain functions), so a finished simulation is freed at once, not when
    the cyclic garbage collector gets to it.
    """

    def __init__(
        self,
        workload: Workload,
        system: System,
        policy: Policy | Any,
        options: SimOptions | None = None,
    ):
        self.workload = workload
        self.system = system
        self.policy = policy
        self.options = options or SimOptions()
        self.three_phase = self.options.lifecycle == "three-phase"
        self.n = len(workload)
        self.resource_names = system.resource_names
        self.K = len(self.resource_names)
        self.capacity: tuple[float, ...] = system.capacity_vector()
        self.bb_index = self.K - 1 if system.bb_gb > 0 else -1
        self._init_node_groups(system)
        self._init_jobs(workload, system)
        self._init_state(self.n)

    def _init_node_groups(self, system: System) -> None:
        """Node groups are tracked with several groups (SSD cuts) and with local SSD at all (one
        group of SSD nodes): the SSD usage columns come from the group assignment."""
        self.has_groups = len(system.node_groups) > 1 or system.has_ssd
        self.group_ssd = [g.ssd_gb for g in system.node_groups]
        self.group_free = [g.count for g in system.node_groups]
        # cut index k (1..) -> groups counted in it
        self._cut_groups = [
            [gi for gi, g in enumerate(system.node_groups) if g.ssd_gb >= t]
            for t in system._thresholds
        ]
        # SSD level m (between thresholds m and m + 1) -> its groups, for booked allocations
        bounds = (0.0, *system._thresholds, math.inf)
        self._level_groups = [
            [gi for gi, g in enumerate(system.node_groups) if bounds[m] <= g.ssd_gb < bounds[m + 1]]
            for m in range(len(system._thresholds) + 1)
        ]

    def _init_jobs(self, workload: Workload, system: System) -> None:
        """The jobs' columns as Python sequences for fast scalar access (tuples for what the
        view hands out), their run-phase demands and who can never fit."""
        self.submit: tuple[float, ...] = tuple(workload.submit.tolist())
        self.runtime: list[float] = workload.runtime.tolist()
        self.req: tuple[float, ...] = tuple(workload.requested_time.tolist())
        self.nodes: list[int] = workload.nodes.tolist()
        bb_run = workload.bb_gb
        if self.three_phase:
            self.data_in: list[float] = workload.data_in_gb.tolist()
            self.data_out: list[float] = workload.data_out_gb.tolist()
            bb_run = workload.bb_gb + workload.data_out_gb
        # How long a run phase holds what it takes at its start, by the request: what the
        # backfillers' reservations use. Classic: the request. Three-phase: load-in + request +
        # load-out, plus the drain (the stage-out buffer is held until it ends).
        self.hold: tuple[float, ...] = self.req
        if self.three_phase:
            hold = (
                workload.data_in_gb / system.bw_bb_gbps
                + workload.requested_time
                + workload.data_out_gb / system.bw_bb_gbps
                + workload.data_out_gb / system.bw_io_gbps
            )
            self.hold = tuple(hold.tolist())
        self.hold_array = _frozen(np.asarray(self.hold, dtype=np.float64))  # the view's
        self.bb_eps = 1e-9 * max(system.bb_gb, 1.0)
        self._dem_matrix = _frozen(system.demand_matrix(workload.nodes, bb_run, workload.ssd_gb))
        self.ssd: tuple[float, ...] = tuple(workload.ssd_gb.tolist())
        # Per-job demand tuples (run phase) and who can never fit, computed once, vectorised.
        self.dem: tuple[tuple[float, ...], ...] = tuple(map(tuple, self._dem_matrix.tolist()))
        self._reject: list[int] = self._never_fits(bb_run).tolist()
        prio_cls = PRIORITIES[self.options.priority]
        self.priority = prio_cls(workload.submit, workload.nodes, workload.requested_time)
        self._arrival_order = self.options.priority == "fcfs"

    def _init_state(self, n: int) -> None:
        """The free resources, the queues, the running state, the outputs and the action
        handlers of a run that has not started."""
        self.free: list[float] = list(self.capacity)
        # What policies see of ``free``: a mirror the engine keeps equal to it after every
        # change, exported as a read-only memoryview (live, no copy per pass). The engine reads
        # and validates against its own list, so nothing reached through the view (not even
        # the memoryview's ``obj``) can change what the engine believes is free.
        self._free_mirror = array("d", self.free)
        # Queues and running state.
        self.queue: list[int] = []  # run queue, arrival order
        self._queued = bytearray(n)  # 1 while in the run queue (validates a Start in O(1))
        self.stage_queue: list[int] = []  # three-phase: waiting for stage-in
        # three-phase: data_in, run-phase buffer, the jobs' ranks in the order of the two, the
        # era in which each job was last found unsafe and an output buffer, as arrays for the
        # stage-in pass (made at its first call)
        self._stage_arrays: tuple[np.ndarray, ...] | None = None
        # counts the jobs that left the staged set: until it changes, a job found unsafe stays
        # unsafe (the staged set only grew), and the pass only counts it
        self._stage_era = 0
        # the stage queue again as an array (its first ``_sq_len`` entries), kept beside the
        # list: the pass reads it as is instead of converting the list at every pass
        self._sq_array = np.empty(n if self.three_phase else 0, dtype=np.int64)
        self._sq_len = 0
        # changes when the stage queue or the staged set does: with the free buffer, what the
        # last stage-in pass saw (epoch, free buffer, stage-ins deferred as unsafe)
        self._stage_epoch = 0
        self._stage_seen: tuple[int, float, int] = (-1, math.nan, 0)
        self.staged: dict[int, None] = {}  # three-phase: holding bb_in, in the run queue
        self.running: set[int] = set()
        self.releases: list[tuple[float, int, tuple[float, ...]]] = []  # expected releases
        self._rel_snapshot: tuple[tuple[float, int, tuple[float, ...]], ...] | None = None
        self._rel_keys: dict[int, list[tuple[float, int, tuple[float, ...]]]] = {}
        self.group_alloc: dict[int, list[int]] = {}
        self._heap: list[tuple[float, int, int, int]] = []
        self._wakes: set[float] = set()
        self._next_arrival = 0  # index of the next job to arrive (for _wake_at)
        self._woken = array("d")
        self._seq = 0
        self.now = -math.inf
        # Outputs.
        nan = math.nan
        self.start_t: list[float] = [nan] * n
        self.end_t: list[float] = [nan] * n
        # Only the three-phase lifecycle holds resources outside [start, end); the classic one
        # derives these from start and end at the end (saves two lists per job).
        self.first_alloc: list[float] = [nan] * n if self.three_phase else []
        self.last_release: list[float] = [nan] * n if self.three_phase else []
        self.state = bytearray([JobState.UNFINISHED]) * n
        self.usage_t = array("d")
        self.usage_cols = [array("d") for _ in USAGE_COLUMNS]
        self.used_bb = 0.0
        self.ssd_req_used = 0.0
        self.ssd_assigned_used = 0.0
        self.latencies = array("d")
        self._last_usage: tuple[float, ...] = ()
        self.counters = Counters()
        self.done = 0
        self._job_times: dict[int, tuple[float, float, float]] = {}  # three-phase durations
        # The policy's side: the action handlers (functions of (simulation, action); bound
        # methods would make a reference cycle), and which path _apply_start may take.
        self._plain = not self.three_phase and not self.has_groups  # _apply_start's fast path
        self._apply: dict[type, Callable[[Simulation, Any], None]] = {
            kind: getattr(Simulation, method) for kind, method in _HANDLERS.items()
        }

    def machine_view(self) -> MachineView:
        """A read-only view of this simulation (what ``run`` hands the policy at every pass)."""
        return _View(self)

    # ------------------------------------------------------------------ resources
    def _take(self, d: tuple[float, ...]) -> None:
        f = self.free
        m = self._free_mirror
        for k in range(self.K):
            m[k] = f[k] = f[k] - d[k]

    def _give(self, d: tuple[float, ...]) -> None:
        f = self.free
        m = self._free_mirror
        for k in range(self.K):
            m[k] = f[k] = f[k] + d[k]

    def _set_free(self, k: int, value: float) -> None:
        self.free[k] = value
        self._free_mirror[k] = value

    def _group_plan(self, j: int) -> tuple[list[int], int]:
        """Nodes job ``j`` would take from each group now (smallest adequate SSD first, BBSched
        §5), and how many it would still lack."""
        need = self.nodes[j]
        s = self.ssd[j]
        taken = [0] * len(self.group_free)
        for gi, size in enumerate(self.group_ssd):
            if size < s or need == 0:
                continue
            t = min(need, self.group_free[gi])
            taken[gi] = t
            need -= t
        return taken, need

    def _level_plan(self, cuts: tuple[float, ...]) -> tuple[list[int], int]:
        """Nodes to take from each group for an allocation given per SSD cut (entry 0: all
        nodes, entry k: nodes with SSD >= the k-th threshold), and how many are missing."""
        n_cuts = len(self._cut_groups)
        taken = [0] * len(self.group_free)
        missing = 0
        for m, level in enumerate(self._level_groups):
            want = round(cuts[m] - (cuts[m + 1] if m < n_cuts else 0.0))
            for gi in level:
                t = min(want, self.group_free[gi])
                taken[gi] += t
                want -= t
            missing += want
        return taken, missing

    def _alloc_groups(self, j: int, taken: list[int]) -> tuple[float, ...]:
        """Assign node groups as ``taken`` (validated by ``_apply_start``): the smallest
        adequate SSD first (BBSched §5, ``_group_plan``), or exactly the nodes per SSD level a
        conservative booking planned (``Start.cuts``, ``_level_plan``: a start honours the
        booking, not only the node count).

        Returns the job's demand vector with the ``nodes_ssd>=t`` entries it really holds (a
        small-SSD job may spill onto larger-SSD nodes): what its end will give back.
        """
        s = self.ssd[j]
        for gi, t in enumerate(taken):
            self.group_free[gi] -= t
        self.group_alloc[j] = taken
        self._sync_cuts()
        self.ssd_req_used += s * self.nodes[j]
        self.ssd_assigned_used += sum(
            t * size for t, size in zip(taken, self.group_ssd, strict=True)
        )
        held = list(self.dem[j])
        for k, groups in enumerate(self._cut_groups, start=1):
            held[k] = float(sum(taken[g] for g in groups))
        return tuple(held)

    def _sync_cuts(self) -> None:
        """Free ``nodes_ssd>=t`` entries from the groups' real free counts.

        A job with a small SSD request may spill onto larger-SSD nodes; its demand vector does
        not say so, so the cut entries are recomputed from the node groups after every change.
        """
        gf = self.group_free
        for k, groups in enumerate(self._cut_groups, start=1):
            self._set_free(k, float(sum(gf[g] for g in groups)))

    def _free_groups(self, j: int) -> None:
        taken = self.group_alloc.pop(j)
        for gi, t in enumerate(taken):
            self.group_free[gi] += t
        self._sync_cuts()
        self.ssd_req_used -= self.ssd[j] * self.nodes[j]
        self.ssd_assigned_used -= sum(
            t * size for t, size in zip(taken, self.group_ssd, strict=True)
        )

    def _wake_at(self, t: float) -> None:
        """Make sure a scheduling pass happens at ``t`` (> now) even if nothing ends then.

        Conservative backfilling promises jobs a start at their booking; a booking is normally
        at some running job's expected end, but when bookings had to move (WFP reordering, SSD
        spill, three-phase stage-ins) one can sit at an instant no event visits, and with
        nothing running the simulation would stop with jobs queued
        (docs/design.md#one-engine-semantics-stated-once).
        """
        if t <= self.now or t in self._wakes:
            return
        # Only when nothing else would bring a pass by then: any earlier pass re-books and
        # asks again (saves a pass per booking whose job ends early).
        if self._heap and self._heap[0][0] <= t:
            return
        if self._next_arrival < self.n and self.submit[self._next_arrival] <= t:
            return
        self._wakes.add(t)
        self._push(t, _WAKE, -1)

    def _push(self, t: float, kind: int, j: int) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, kind, j))

    def _expect(self, j: int, t: float, delta: tuple[float, ...]) -> None:
        self._seq += 1
        key = (t, self._seq, delta)
        bisect.insort(self.releases, key)
        self._rel_snapshot = None
        self._rel_keys.setdefault(j, []).append(key)

    def _unexpect(self, j: int, which: int = 0) -> None:
        keys = self._rel_keys[j]
        key = keys.pop(which)
        del self.releases[bisect.bisect_left(self.releases, key)]
        self._rel_snapshot = None
        if not keys:
            del self._rel_keys[j]

    def _reexpect(self, j: int, delta: tuple[float, ...]) -> None:
        """Replace the amounts of job ``j``'s next expected release (same time, same place)."""
        keys = self._rel_keys[j]
        old = keys[0]
        del self.releases[bisect.bisect_left(self.releases, old)]
        self._seq += 1
        keys[0] = (old[0], self._seq, delta)
        bisect.insort(self.releases, keys[0])
        self._rel_snapshot = None

    def effective_demand(self, j: int) -> tuple[float, ...]:
        """Job ``j``'s demand vector if it started now, with the ``nodes_ssd>=t`` entries it
        would really occupy (``MachineView.effective_demand``).

        A job with a small SSD request spills onto larger-SSD nodes when the smaller ones are
        busy (``_alloc_groups``); its demand vector does not show it, the cut entries here do.
        The backfillers use it for what a job started now leaves to a reservation.
        """
        d = self.dem[j]
        if not self._cut_groups:
            return d
        taken, need = self._group_plan(j)
        if need:  # it does not fit now: nothing to correct
            return d
        eff = list(d)
        for k, groups in enumerate(self._cut_groups, start=1):
            eff[k] = float(sum(taken[g] for g in groups))
        return tuple(eff)

    # ------------------------------------------------------------------ actions
    def _apply_start(self, a: Start) -> None:
        """Validate a :class:`Start`, then start the job's run phase now (``_start``; inlined
        here for the classic lifecycle without node groups, the simulator's hot path)."""
        j = a.job
        if j.__class__ is not int or not 0 <= j < self.n or not self._queued[j]:
            j = self._queued_job(a)
        d = self.dem[j]
        K = self.K
        f = self.free
        if not (d[0] <= f[0] if K == 1 else fits(d, f, K, self.bb_index, self.bb_eps)):
            self._refuse(
                a, f"does not fit the free resources (demand {_vec(d)}, free {_vec(f)})", j
            )
        if self._plain and a.cuts is None:
            # _start for a classic lifecycle without node groups, inlined
            now = self.now
            m = self._free_mirror
            for k in range(K):
                m[k] = f[k] = f[k] - d[k]
            if self.bb_index >= 0:
                self.used_bb += d[self.bb_index]
            self.queue.remove(j)
            self._queued[j] = 0
            self.running.add(j)
            self.start_t[j] = now
            c = self.counters
            c.started += 1
            if a.backfilled:
                c.backfilled += 1
            run = self.runtime[j]
            req = self.req[j]
            seq = self._seq + 1
            heapq.heappush(self._heap, (now + (run if run <= req else req), seq, _END, j))
            # _expect, inlined (a job has no expected release before it starts)
            self._seq = seq + 1
            key = (now + req, seq + 1, d)
            bisect.insort(self.releases, key)
            self._rel_snapshot = None
            self._rel_keys[j] = [key]
            return
        taken: list[int] | None = None
        if self.has_groups:
            if a.cuts is None:
                taken, need = self._group_plan(j)
                if need:
                    self._refuse(
                        a,
                        f"fits the resource vector but the node groups lack {need} adequate "
                        "nodes (start the most SSD-demanding jobs first)",
                        j,
                    )
            else:
                taken = self._check_cuts(a, j)
        elif a.cuts is not None:
            self._refuse(a, "comes with cuts, but the machine has no SSD node groups", j)
        self._start(j, bool(a.backfilled), taken)

    def _queued_job(self, a: Start) -> int:
        """The job index of a Start whose job did not pass the fast check: an integer of
        another type (numpy) that is queued, else a refusal saying why."""
        j = a.job
        try:
            if isinstance(j, bool):
                raise TypeError
            j = operator.index(j)
        except TypeError:
            self._refuse(a, f"names no job: expected a job index (int), got {j!r}")
        if not 0 <= j < self.n:
            self._refuse(a, f"names no job: index {j} is outside 0..{self.n - 1}")
        if self._queued[j]:
            return j
        if j in self.running or self.start_t[j] == self.start_t[j]:
            where = "has already started"
        elif self.state[j] == JobState.REJECTED:
            where = "was rejected on arrival (it can never fit the machine)"
        elif self.three_phase and (j in self.staged or j in self.stage_queue):
            where = "is staging in, not in the run queue yet"
        elif self.submit[j] > self.now or j >= self._next_arrival:
            where = "has not arrived yet"
        else:
            where = "is not in the run queue"
        self._refuse(a, where, j)

    def _check_cuts(self, a: Start, j: int) -> list[int]:
        """The node groups for a Start with ``cuts``: exactly the job's nodes, on SSD levels
        adequate for its request, all free now; else a refusal."""
        cuts = a.cuts
        n_cuts = len(self._cut_groups)
        assert cuts is not None
        try:
            vals = [float(cuts[k]) for k in range(n_cuts + 1)]
        except (TypeError, ValueError, IndexError):
            self._refuse(a, f"cuts {cuts!r}: expected {n_cuts + 1} numbers (nodes per SSD cut)", j)
        d = self.dem[j]
        levels = [vals[m] - (vals[m + 1] if m < n_cuts else 0.0) for m in range(n_cuts + 1)]
        if vals[0] != d[0]:
            self._refuse(a, f"cuts {_vec(vals)} place {vals[0]:g} nodes, the job has {d[0]:g}", j)
        if any(not (v >= 0 and float(v).is_integer()) for v in levels):
            self._refuse(a, f"cuts {_vec(vals)} do not give a whole number of nodes per level", j)
        if any(vals[k] < d[k] for k in range(1, n_cuts + 1)):
            self._refuse(
                a, f"cuts {_vec(vals)} place nodes on SSD levels below its request {_vec(d)}", j
            )
        taken, missing = self._level_plan(tuple(vals))
        if missing:
            self._refuse(a, f"cuts {_vec(vals)}: {missing} of these nodes are not free", j)
        return taken

    def _apply_wake(self, a: WakeAt) -> None:
        t = a.t
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            self._refuse(a, f"wake-up time {t!r}: expected a finite number")
        if t <= self.now:
            self._refuse(a, f"wake-up at {t:g}: expected a time after now ({self.now:g})")
        self._wake_at(float(t))

    def _apply_count(self, a: Count) -> None:
        name, k = a.name, a.n
        if not isinstance(name, str) or not name or name in _ENGINE_COUNTERS:
            self._refuse(a, f"counter {name!r} is the engine's own (or not a name)")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            self._refuse(a, f"counter {name!r}: expected a count >= 0, got {k!r}")
        c = self.counters
        if name in POLICY_COUNTERS:
            setattr(c, name, getattr(c, name) + k)
        else:
            c.extra[name] = c.extra.get(name, 0) + k

    def _apply_latency(self, a: DecisionLatency) -> None:
        x = a.seconds
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not x >= 0:
            self._refuse(a, f"latency {x!r}: expected a number of seconds >= 0")
        self.latencies.append(x)

    def _apply_log(self, a: LogDecision) -> None:
        log = self.options.decision_log
        if log is not None:
            log(cast(dict[str, Any], a.entry))

    def _apply_record(self, a: RecordProblem) -> None:
        record = self.options.record_problem
        if record is not None:
            record(a.problem, cast(dict[str, Any], a.context))

    def _apply_fault(self, a: Fault) -> None:
        self.counters.faults += 1
        if self.options.on_invalid == "raise":
            raise InvalidDecisionError(
                f"t={self.now:g}: {a.reason} (use on_invalid='fallback' to fall back to "
                f"{a.fallback})"
            )
        self.counters.fallbacks += 1

    def _handler(self, a: object) -> Callable[[Simulation, Any], None]:
        """The handler of an action whose exact type is not in the table: that of its nearest
        action base class (a policy's subclass of ``Start``), cached; else a refusal."""
        for base in type(a).__mro__[1:]:
            handler = self._apply.get(base)
            if handler is not None:
                self._apply[type(a)] = handler
                return handler
        known = ", ".join(t.__name__ for t in _HANDLERS)
        self._refuse(a, f"is not an action this engine applies (known: {known})")

    def _refuse(self, a: object, why: str, j: int | None = None) -> NoReturn:
        """Raise ``InvalidActionError`` for action ``a`` (nothing of it has been applied)."""
        policy = self._policy_label()
        job = ""
        if j is not None:
            job = f" job {int(self.workload.job_id[j])} (row {j})"
        raise InvalidActionError(
            f"t={self.now:g}: policy {policy!r}: {type(a).__name__}{job} refused: {why}; "
            f"action {a!r} not applied"
        )

    def _policy_label(self) -> str:
        return str(getattr(self.policy, "describe", lambda: type(self.policy).__name__)())

    # ------------------------------------------------------------------ starting jobs
    def _start(self, j: int, backfilled: bool, taken: list[int] | None) -> None:
        """Start job ``j``'s run phase now (validated by ``_apply_start``). ``taken``: the nodes
        per node group (machines with node groups)."""
        now = self.now
        d = self.dem[j]
        f = self.free
        m = self._free_mirror
        for k in range(self.K):  # _take, inlined
            m[k] = f[k] = f[k] - d[k]
        if self.bb_index >= 0:
            self.used_bb += d[self.bb_index]
        if taken is not None:
            # the expected releases carry what the job really holds, so the reservations
            # see the SSD nodes a spilled job will give back
            d = self._alloc_groups(j, taken)
        self.queue.remove(j)
        self._queued[j] = 0
        self.running.add(j)
        self.start_t[j] = now
        if self.three_phase and self.first_alloc[j] != self.first_alloc[j]:  # NaN: no stage-in
            self.first_alloc[j] = now
        self.counters.started += 1
        if backfilled:
            self.counters.backfilled += 1
        run = self.runtime[j]
        req = self.req[j]
        if not self.three_phase:
            end = now + (run if run <= req else req)
            self._push(end, _END, j)
            self._expect(j, now + req, d)
            return
        bw_bb = self.system.bw_bb_gbps
        bw_io = self.system.bw_io_gbps
        load_in = self.data_in[j] / bw_bb
        compute = run if run <= req else req
        load_out = self.data_out[j] / bw_bb
        drain = self.data_out[j] / bw_io
        self._push(now + load_in, _LOAD_IN_DONE, j)
        t_nodes = now + load_in + req + load_out
        b = self.bb_index
        if b >= 0 and self.data_in[j] > 0:  # the stage-in buffer, freed when the load-in ends
            staged = tuple((self.data_in[j] if k == b else 0.0) for k in range(self.K))
            self._expect(j, now + load_in, staged)
        nodes_delta = tuple(
            (d[k] - self.data_out[j] if k == b else d[k]) for k in range(self.K)
        )  # nodes and the run buffer; the stage-out buffer is released after the drain
        self._expect(j, t_nodes, nodes_delta)
        if b >= 0 and self.data_out[j] > 0:
            out = tuple((self.data_out[j] if k == b else 0.0) for k in range(self.K))
            self._expect(j, t_nodes + drain, out)
        self._job_times[j] = (compute, load_out, drain)

    # ------------------------------------------------------------------ events
    def _finish(self, j: int) -> None:
        self.running.discard(j)
        if self.three_phase:
            self.last_release[j] = self.now
        self.done += 1
        p = self.options.progress
        if p is not None and self.done % self.options.progress_every == 0:
            p(self.done)

    def _on_end(self, j: int) -> None:
        d = self.dem[j]
        f = self.free
        m = self._free_mirror
        for k in range(self.K):  # _give, inlined
            m[k] = f[k] = f[k] + d[k]
        if self.bb_index >= 0:
            self.used_bb -= d[self.bb_index]
        if self.has_groups:
            self._free_groups(j)
        # _unexpect, inlined: a classic job has exactly one expected release
        rel = self.releases
        del rel[bisect.bisect_left(rel, self._rel_keys.pop(j)[0])]
        self._rel_snapshot = None
        self.end_t[j] = self.now
        if self.runtime[j] > self.req[j]:
            self.state[j] = JobState.KILLED
            self.counters.killed += 1
        else:
            self.state[j] = JobState.COMPLETED
        # _finish, inlined (classic lifecycle)
        self.running.discard(j)
        self.done += 1
        p = self.options.progress
        if p is not None and self.done % self.options.progress_every == 0:
            p(self.done)

    def _release_bb(self, amount: float) -> None:
        if amount and self.bb_index >= 0:
            b = self.bb_index
            self._set_free(b, self.free[b] + amount)
            self.used_bb -= amount

    def _on_three_phase(self, kind: int, j: int) -> None:
        now = self.now
        if kind == _WAKE:
            self._wakes.discard(now)
            self._woken.append(now)
        elif kind == _STAGE_IN_DONE:
            self._enqueue_run(j)
        elif kind == _LOAD_IN_DONE:
            self._release_bb(self.data_in[j])
            if self.bb_index >= 0 and self.data_in[j] > 0:
                self._unexpect(j)  # the stage-in buffer entry
            if j in self.staged:
                del self.staged[j]
                self._stage_era += 1
            self._stage_epoch += 1
            compute, _, _ = self._job_times[j]
            self._push(now + compute, _COMPUTE_DONE, j)
        elif kind == _COMPUTE_DONE:
            self._release_bb(self.workload.bb_gb[j].item())
            b = self.bb_index
            if b >= 0:  # the run buffer is free now: the reservations must not count it again
                delta = self._rel_keys[j][0][2]
                self._reexpect(j, tuple((0.0 if k == b else delta[k]) for k in range(self.K)))
            _, load_out, _ = self._job_times[j]
            self._push(now + load_out, _LOAD_OUT_DONE, j)
        elif kind == _LOAD_OUT_DONE:
            d = self.dem[j]
            for k in range(self.K):
                if k != self.bb_index:
                    self._set_free(k, self.free[k] + d[k])
            if self.has_groups:
                self._free_groups(j)
            self._unexpect(j)  # nodes + run buffer entry
            self.end_t[j] = now
            _, _, drain = self._job_times[j]
            self._push(now + drain, _DRAIN_DONE, j)
        elif kind == _DRAIN_DONE:
            self._release_bb(self.data_out[j])
            if j in self._rel_keys:
                self._unexpect(j)
            del self._job_times[j]
            if self.runtime[j] > self.req[j]:
                self.state[j] = JobState.KILLED
                self.counters.killed += 1
            else:
                self.state[j] = JobState.COMPLETED
            self._finish(j)

    def _never_fits(self, bb_run: np.ndarray) -> np.ndarray:
        """Why each job cannot run even on the empty machine: 0 it can, else an index into
        ``REJECT_REASONS`` (the first reason that applies: nodes, burst buffer, SSD nodes)."""
        w, system = self.workload, self.system
        peak_bb = np.asarray(bb_run, dtype=np.float64)
        if self.three_phase:
            peak_bb = peak_bb + w.data_in_gb  # stage-in buffer held until the load-in ends
        adequate = np.zeros(len(w), dtype=np.int64)
        for g in system.node_groups:
            adequate += np.where(g.ssd_gb >= w.ssd_gb, g.count, 0)
        code = np.zeros(len(w), dtype=np.int8)
        code[w.nodes > adequate] = 3
        code[peak_bb > system.bb_gb + self.bb_eps] = 2
        code[w.nodes > system.nodes] = 1
        return code

    def _arrive(self, j: int) -> None:
        reason = self._reject[j]
        if reason:
            self.state[j] = JobState.REJECTED
            self.counters.rejected += 1
            key = REJECT_REASONS[reason]
            self.counters.extra[key] = self.counters.extra.get(key, 0) + 1
            self.done += 1
            return
        if self.three_phase and self.data_in[j] > 0 and self.bb_index >= 0:
            self.stage_queue.append(j)
            self._sq_array[self._sq_len] = j
            self._sq_len += 1
            self._stage_epoch += 1
        else:
            self._enqueue_run(j)

    def _enqueue_run(self, j: int) -> None:
        self.queue.append(j)
        self._queued[j] = 1

    # ------------------------------------------------------------------ stage-in (three-phase)
    def _stage_in_pass(self) -> None:
        """Stage the jobs of the stage queue, first-come first-fit, that fit the free burst
        buffer and keep it in a safe state (banker's algorithm, module docstring). Which ones
        is found in O(Q + (S + F) log(S + F)) for S staged and Q waiting jobs, F of which fit the
        free buffer and are not known to be unsafe since the last job left the staged set
        (``simcore/_stage_in_kernel.py``); they are then staged in queue order."""
        b = self.bb_index
        sq = self.stage_queue
        if self._stage_arrays is None:
            held = np.asarray(self.data_in, dtype=np.float64)
            need = np.ascontiguousarray(self._dem_matrix[:, b], dtype=np.float64)
            self._stage_arrays = (
                held,
                need,
                need_order(need, held),
                np.full(self.n, -1, dtype=np.int64),
                np.empty(self.n, dtype=np.int64),
            )
        data_in, need, rank, mark, out = self._stage_arrays
        epoch, seen_free, seen_unsafe = self._stage_seen
        if epoch == self._stage_epoch and seen_free == self.free[b]:
            # nothing changed since a pass that staged nothing: the same outcome again
            self.counters.stage_in_deferred_unsafe += seen_unsafe
            return
        k, unsafe = stage_in_pass(
            np.fromiter(self.staged, dtype=np.int64, count=len(self.staged)),
            self._sq_array[: self._sq_len],
            data_in,
            need,
            rank,
            mark,
            self._stage_era,
            self.free[b],
            float(self.system.bb_gb),
            self.bb_eps,
            out,
        )
        self.counters.stage_in_deferred_unsafe += unsafe
        if not k:
            self._stage_seen = (self._stage_epoch, self.free[b], unsafe)
            return
        self._stage_epoch += 1
        picked = out[:k].tolist()
        bw = self.system.bw_io_gbps
        now = self.now
        for q in picked:
            j = sq[q]
            amount = self.data_in[j]
            self._set_free(b, self.free[b] - amount)
            self.used_bb += amount
            self.staged[j] = None
            self.first_alloc[j] = now
            self._push(now + amount / bw, _STAGE_IN_DONE, j)
        kept: list[int] = []
        last = 0
        for q in picked:  # ascending
            kept += sq[last:q]
            last = q + 1
        kept += sq[last:]
        sq[:] = kept
        keep = np.ones(self._sq_len, dtype=np.bool_)
        keep[out[:k]] = False
        rest = self._sq_array[: self._sq_len][keep]
        self._sq_len = rest.shape[0]
        self._sq_array[: self._sq_len] = rest

    # ------------------------------------------------------------------ the loop
    def run(self) -> ScheduleResult:
        """Simulate until every job has ended (or can never start); return the schedule."""
        heap = self._heap
        submit = self.submit
        n = self.n
        i = 0
        on_end = self._on_end
        on_phase = self._on_three_phase
        schedule = self.policy.schedule
        view = _View(self)  # one per run, dropped with it (see the class docstring)
        apply = self._apply
        queue = self.queue
        queued = self._queued
        stage_queue = self.stage_queue
        # arrivals that go straight to the run queue (the common case, inlined below)
        direct = [not r for r in self._reject] if not self.three_phase else None
        free = self.free
        cap0 = self.capacity[0]
        # the usage columns, appended to inline (most instants change the usage on a busy
        # machine: a call per instant cost more than the appends)
        usage_t = self.usage_t.append
        u_nodes, u_bb, u_ssd_req, u_ssd_assigned = (c.append for c in self.usage_cols)
        counters = self.counters
        instants = passes = 0  # kept local in the loop, written back on the way out
        try:
            while i < n or heap:
                t_arr = submit[i] if i < n else math.inf
                t = heap[0][0] if heap and heap[0][0] <= t_arr else t_arr
                self.now = t
                instants += 1
                # 1. every completion and release due now
                while heap and heap[0][0] <= t:
                    _, _, kind, j = heapq.heappop(heap)
                    if kind == _END:
                        on_end(j)
                    else:
                        on_phase(kind, j)
                # 2. every arrival now
                while i < n and submit[i] <= t:
                    if direct is not None and direct[i]:
                        queue.append(i)
                        queued[i] = 1
                    else:
                        self._arrive(i)
                    i += 1
                self._next_arrival = i
                # 3. one scheduling pass
                if stage_queue:
                    self._stage_in_pass()
                if queue:
                    passes += 1
                    actions = schedule(view, t)
                    if actions is None:
                        raise InvalidActionError(
                            f"t={t:g}: policy {self._policy_label()!r}: schedule() returned "
                            "None; expected an iterable of actions (simcore/policy.py)"
                        )
                    # One action at a time: each is validated and applied before the policy
                    # is asked for the next, so a generator sees its own starts in the view.
                    for a in actions:
                        handler = apply.get(a.__class__)
                        if handler is None:
                            handler = self._handler(a)
                        handler(self, a)
                # the usage from now on, recorded when it differs from the last row
                # (``_record_usage``, inlined)
                last = self._last_usage
                used = cap0 - free[0]
                if (
                    not last
                    or used != last[0]
                    or self.used_bb != last[1]
                    or self.ssd_req_used != last[2]
                    or self.ssd_assigned_used != last[3]
                ):
                    row = (used, self.used_bb, self.ssd_req_used, self.ssd_assigned_used)
                    self._last_usage = row
                    usage_t(t)
                    u_nodes(row[0])
                    u_bb(row[1])
                    u_ssd_req(row[2])
                    u_ssd_assigned(row[3])
        finally:
            counters.instants += instants
            counters.passes += passes
        return self._result()

    def snapshot(self) -> ScheduleResult:
        """The schedule so far, for a run that stopped early (an error, an interrupt).

        Jobs that had not ended keep state ``UNFINISHED``; ``config["aborted"]`` is True.
        """
        result = self._result(partial=True)
        result.config["aborted"] = True
        result.config["stopped_at"] = self.now
        return result

    def _result(self, partial: bool = False) -> ScheduleResult:
        if not partial and (self.queue or self.running or self.stage_queue):
            # Cannot happen with a correct policy: every queued job fits the empty machine.
            raise SimulationError(
                f"simulation stopped with {len(self.queue)} queued, {len(self.stage_queue)} "
                f"waiting for stage-in and {len(self.running)} running jobs"
            )
        state = np.frombuffer(bytes(self.state), dtype=np.int8).copy()
        start = np.array(self.start_t, dtype=np.float64)
        end = np.array(self.end_t, dtype=np.float64)
        if self.three_phase:
            first_alloc = np.array(self.first_alloc, dtype=np.float64)
            last_release = np.array(self.last_release, dtype=np.float64)
        else:
            first_alloc, last_release = start.copy(), end.copy()
        if partial:  # running jobs have a start but no end yet
            end[state == JobState.UNFINISHED] = np.nan
            last_release[state == JobState.UNFINISHED] = np.nan
        usage = (
            np.column_stack([np.frombuffer(c, dtype=np.float64) for c in self.usage_cols])
            if len(self.usage_t)
            else np.zeros((0, len(USAGE_COLUMNS)))
        )
        capacity = np.array(
            [
                float(self.system.nodes),
                float(self.system.bb_gb),
                self.system.ssd_total_gb,
                self.system.ssd_total_gb,
            ]
        )
        return ScheduleResult(
            workload=self.workload,
            system=self.system,
            start=start,
            end=end,
            state=state,
            first_alloc=first_alloc,
            last_release=last_release,
            usage_t=np.frombuffer(self.usage_t, dtype=np.float64).copy(),
            usage=usage,
            capacity=capacity,
            counters=self._counters(),
            config={
                "policy": getattr(self.policy, "describe", lambda: str(self.policy))(),
                "lifecycle": self.options.lifecycle,
                "priority": self.options.priority,
                "system": self.system.name,
                "workload": self.workload.source,
                "jobs": self.n,
            },
            decision_latency_s=np.frombuffer(self.latencies, dtype=np.float64).copy(),
            wake_times=np.frombuffer(self._woken, dtype=np.float64).copy(),
        )

    def _counters(self) -> dict[str, Any]:
        """The run's counters, in the order ``metrics.json`` lists them."""
        c = self.counters
        return {
            "passes": c.passes,
            "instants": c.instants,
            "started": c.started,
            "backfilled": c.backfilled,
            "decisions": c.decisions,
            "trivial_decisions": c.trivial_decisions,
            "starved_forced": c.starved_forced,
            "faults": c.faults,
            "fallbacks": c.fallbacks,
            "rejected": c.rejected,
            "killed": c.killed,
            "stage_in_deferred_unsafe": c.stage_in_deferred_unsafe,
            **c.extra,
        }


#: Action type -> the ``Simulation`` method that validates and applies it. A new kind of action
#: (advance reservations, data staging, file loads) is a dataclass in ``simcore/policy.py`` and
#: one entry here.
_HANDLERS: dict[type[Action], str] = {
    Start: "_apply_start",
    WakeAt: "_apply_wake",
    Count: "_apply_count",
    DecisionLatency: "_apply_latency",
    LogDecision: "_apply_log",
    RecordProblem: "_apply_record",
    Fault: "_apply_fault",
}


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a``'s values in an array that no one can make writeable again: its memory belongs to
    an immutable ``bytes`` object (``flags.writeable = False`` alone can be undone on an array
    that owns its data, or through ``.base``)."""
    return np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=a.dtype).reshape(a.shape)


def _vec(v: Sequence[float]) -> str:
    return "(" + ", ".join(f"{x:g}" for x in v) + ")"


class _View:
    """The engine's :class:`~simcore.policy.MachineView` (documented there): read-only.

    Fixed data are slots set once (fast to read in a pass); what changes is read through
    properties or a live read-only memoryview. Assignment raises ``AttributeError``.
    """

    __slots__ = (
        "K",
        "__weakref__",  # a policy may tell runs apart by a weak reference to their view
        "_sim",
        "bb_eps",
        "bb_index",
        "capacity",
        "demand_matrix",
        "demands",
        "free",
        "has_groups",
        "hold",
        "hold_array",
        "logs_decisions",
        "n_cuts",
        "priority",
        "records_problems",
        "requested_time",
        "resource_names",
        "ssd",
        "submit",
        "system",
        "three_phase",
    )

    K: int
    _sim: Simulation
    bb_eps: float
    bb_index: int
    capacity: tuple[float, ...]
    demand_matrix: np.ndarray
    demands: tuple[tuple[float, ...], ...]
    free: Sequence[float]
    has_groups: bool
    hold: tuple[float, ...]
    hold_array: np.ndarray
    logs_decisions: bool
    n_cuts: int
    priority: str
    records_problems: bool
    requested_time: tuple[float, ...]
    resource_names: tuple[str, ...]
    ssd: tuple[float, ...]
    submit: tuple[float, ...]
    system: System
    three_phase: bool

    def __init__(self, sim: Simulation):
        init = object.__setattr__
        init(self, "_sim", sim)
        init(self, "system", sim.system)
        init(self, "resource_names", tuple(sim.resource_names))
        init(self, "capacity", tuple(sim.capacity))
        init(self, "K", sim.K)
        init(self, "bb_index", sim.bb_index)
        init(self, "bb_eps", sim.bb_eps)
        init(self, "n_cuts", len(sim._cut_groups))
        init(self, "has_groups", sim.has_groups)
        init(self, "three_phase", sim.three_phase)
        init(self, "free", cast(Sequence[float], memoryview(sim._free_mirror).toreadonly()))
        init(self, "demands", sim.dem)
        init(self, "demand_matrix", sim._dem_matrix)  # read-only for good (_frozen)
        init(self, "hold", sim.hold)
        init(self, "hold_array", sim.hold_array)
        init(self, "requested_time", sim.req)
        init(self, "submit", sim.submit)
        init(self, "ssd", sim.ssd)
        init(self, "priority", sim.options.priority)
        init(self, "logs_decisions", sim.options.decision_log is not None)
        init(self, "records_problems", sim.options.record_problem is not None)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(
            f"the machine view is read-only (cannot set {name!r}): a policy acts through the "
            "actions it returns (simcore/policy.py)"
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"the machine view is read-only (cannot delete {name!r})")

    def __repr__(self) -> str:
        sim = self._sim
        return (
            f"<MachineView t={sim.now:g} free={_vec(sim.free)} queued={len(sim.queue)} "
            f"running={len(sim.running)}>"
        )

    @property
    def now(self) -> float:
        return self._sim.now

    @property
    def queue(self) -> tuple[int, ...]:
        return tuple(self._sim.queue)

    @property
    def queue_length(self) -> int:
        return len(self._sim.queue)

    def ordered_queue(self) -> list[int]:
        sim = self._sim
        q = sim.queue
        if sim._arrival_order:  # FCFS: the queue is kept in arrival order
            return q.copy()
        order = sim.priority.order(q, sim.now)
        return q.copy() if order is q else order

    def is_queued(self, j: int) -> bool:
        sim = self._sim
        return 0 <= j < sim.n and bool(sim._queued[j])

    @property
    def started_count(self) -> int:
        return self._sim.counters.started

    @property
    def running(self) -> tuple[int, ...]:
        return tuple(sorted(self._sim.running))

    @property
    def releases(self) -> tuple[tuple[float, int, tuple[float, ...]], ...]:
        sim = self._sim
        snap = sim._rel_snapshot
        if snap is None:
            snap = sim._rel_snapshot = tuple(sim.releases)
        return snap

    @property
    def staged(self) -> tuple[int, ...]:
        return tuple(self._sim.staged)

    @property
    def stage_queue(self) -> tuple[int, ...]:
        return tuple(self._sim.stage_queue)

    def job_id(self, j: int) -> int:
        return int(self._sim.workload.job_id[j])

    def effective_demand(self, j: int) -> tuple[float, ...]:
        return self._sim.effective_demand(j)

    def group_plan(self, j: int) -> tuple[tuple[int, ...], int]:
        taken, need = self._sim._group_plan(j)
        return tuple(taken), need

    def level_plan(self, cuts: Sequence[float]) -> tuple[tuple[int, ...], int]:
        sim = self._sim
        n_cuts = len(sim._cut_groups)
        if len(cuts) < n_cuts + 1:
            raise ValueError(f"cuts: expected at least {n_cuts + 1} entries, got {len(cuts)}")
        taken, missing = sim._level_plan(tuple(float(c) for c in cuts))
        return tuple(taken), missing


def simulate(
    workload: Workload, system: System, policy: Policy | Any, options: SimOptions | None = None
) -> ScheduleResult:
    """Run one simulation (see :class:`Simulation`)."""
    return Simulation(workload, system, policy, options).run()
