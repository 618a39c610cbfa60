"""The discrete-event simulator: one :class:`Simulation` per run, no module-level state.

Event loop (DESIGN.md "Simulation semantics")
---------------------------------------------
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

Policies, backfilling and decisions live in ``simcore/policies.py``; this module owns the
state and the clock, validates nothing about solvers itself, and records the usage timeline.
"""

from __future__ import annotations

import bisect
import heapq
import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.priority import PRIORITIES
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


class SimulationError(SchedbenchError, RuntimeError):
    """The simulation reached an impossible state (a bug or an invalid plug-in)."""


class ConfigError(SchedbenchError, ValueError):
    """A simulation option with a wrong value; the message names the option."""


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
_WAKE = 6  # nothing is released: a scheduling pass is due (``Simulation.wake_at``)


@dataclass(frozen=True, slots=True)
class SimOptions:
    """What to simulate beyond the workload, the machine and the policy.

    ``on_invalid``: ``"raise"`` (default) stops the simulation when a solver's decision breaks
    a constraint; ``"fallback"`` uses the naive start for that pass and counts the fault.
    ``progress``: called with the number of finished jobs, every ``progress_every`` of them.
    ``decision_log``: called with one JSON-ready dict per decision (window policy).
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


class Simulation:
    """One simulation run: the workload, the machine, a policy, the options.

    Hot state is plain Python (lists, floats) — the loop is interpreter-bound and numpy scalar
    access would dominate it. Per-job demand tuples are built at arrival and dropped at the end.
    """

    def __init__(
        self, workload: Workload, system: System, policy: Any, options: SimOptions | None = None
    ):
        self.workload = workload
        self.system = system
        self.policy = policy
        self.options = options or SimOptions()
        self.three_phase = self.options.lifecycle == "three-phase"
        n = len(workload)
        self.n = n
        self.resource_names = system.resource_names
        self.K = len(self.resource_names)
        self.capacity: tuple[float, ...] = system.capacity_vector()
        self.bb_index = self.K - 1 if system.bb_gb > 0 else -1
        # Node groups are tracked with several groups (SSD cuts) and with local SSD at all (one
        # group of SSD nodes): the SSD usage columns come from the group assignment.
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
        # Columns as Python lists for fast scalar access.
        self.submit: list[float] = workload.submit.tolist()
        self.runtime: list[float] = workload.runtime.tolist()
        self.req: list[float] = workload.requested_time.tolist()
        self.nodes: list[int] = workload.nodes.tolist()
        bb_run = workload.bb_gb
        if self.three_phase:
            self.data_in: list[float] = workload.data_in_gb.tolist()
            self.data_out: list[float] = workload.data_out_gb.tolist()
            bb_run = workload.bb_gb + workload.data_out_gb
        # How long a run phase holds what it takes at its start, by the request: what the
        # backfillers' reservations use. Classic: the request. Three-phase: load-in + request +
        # load-out, plus the drain (the stage-out buffer is held until it ends).
        self.hold: list[float] = self.req
        if self.three_phase:
            hold = (
                workload.data_in_gb / system.bw_bb_gbps
                + workload.requested_time
                + workload.data_out_gb / system.bw_bb_gbps
                + workload.data_out_gb / system.bw_io_gbps
            )
            self.hold = hold.tolist()
        self.hold_array = np.asarray(self.hold, dtype=np.float64)
        self.bb_eps = 1e-9 * max(system.bb_gb, 1.0)
        self._dem_matrix = system.demand_matrix(workload.nodes, bb_run, workload.ssd_gb)
        self.ssd: list[float] = workload.ssd_gb.tolist()
        # Per-job demand tuples (run phase) and who can never fit, computed once, vectorised.
        self.dem: list[tuple[float, ...]] = list(map(tuple, self._dem_matrix.tolist()))
        self._reject: list[int] = self._never_fits(bb_run).tolist()
        self.free: list[float] = list(self.capacity)
        prio_cls = PRIORITIES[self.options.priority]
        self.priority = prio_cls(workload.submit, workload.nodes, workload.requested_time)
        # Queues and running state.
        self.queue: list[int] = []  # run queue, arrival order
        self.stage_queue: list[int] = []  # three-phase: waiting for stage-in
        self.staged: dict[int, None] = {}  # three-phase: holding bb_in, in the run queue
        self.running: set[int] = set()
        self.releases: list[tuple[float, int, tuple[float, ...]]] = []  # expected releases
        self._rel_keys: dict[int, list[tuple[float, int, tuple[float, ...]]]] = {}
        self.group_alloc: dict[int, list[int]] = {}
        self.window_passes: dict[int, int] = {}
        #: conservative backfilling's reservations, kept between passes: job -> (start, end, demand)
        self.reservations: dict[int, tuple[float, float, tuple[float, ...]]] = {}
        self._heap: list[tuple[float, int, int, int]] = []
        self._wakes: set[float] = set()
        self._next_arrival = 0  # index of the next job to arrive (for wake_at)
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

    # ------------------------------------------------------------------ resources
    def demand(self, j: int) -> tuple[float, ...]:
        return self.dem[j]

    def fits(self, d: tuple[float, ...], free: list[float] | None = None) -> bool:
        from schedbench.simcore.policies import _fits  # one definition of "fits"

        return _fits(d, self.free if free is None else free, self.K, self.bb_index, self.bb_eps)

    def _take(self, d: tuple[float, ...]) -> None:
        f = self.free
        for k in range(self.K):
            f[k] -= d[k]

    def _give(self, d: tuple[float, ...]) -> None:
        f = self.free
        for k in range(self.K):
            f[k] += d[k]

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

    def _alloc_groups(self, j: int, cuts: tuple[float, ...] | None = None) -> tuple[float, ...]:
        """Assign node groups: the smallest adequate SSD first (BBSched §5), or, with ``cuts``,
        exactly the nodes per SSD level a conservative booking planned (so a start honours the
        booking, not only the node count).

        Returns the job's demand vector with the ``nodes_ssd>=t`` entries it really holds (a
        small-SSD job may spill onto larger-SSD nodes): what its end will give back.
        """
        s = self.ssd[j]
        taken, need = self._group_plan(j) if cuts is None else self._level_plan(cuts)
        for gi, t in enumerate(taken):
            self.group_free[gi] -= t
        if need:
            raise SimulationError(
                f"job {int(self.workload.job_id[j])}: node groups cannot hold it although the "
                "resource vector said it fits (start the most SSD-demanding jobs first)"
            )
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
            self.free[k] = float(sum(gf[g] for g in groups))

    def _free_groups(self, j: int) -> None:
        taken = self.group_alloc.pop(j)
        for gi, t in enumerate(taken):
            self.group_free[gi] += t
        self._sync_cuts()
        self.ssd_req_used -= self.ssd[j] * self.nodes[j]
        self.ssd_assigned_used -= sum(
            t * size for t, size in zip(taken, self.group_ssd, strict=True)
        )

    def wake_at(self, t: float) -> None:
        """Make sure a scheduling pass happens at ``t`` (> now) even if nothing ends then.

        Conservative backfilling promises jobs a start at their booking; a booking is normally
        at some running job's expected end, but when bookings had to move (WFP reordering, SSD
        spill, three-phase stage-ins) one can sit at an instant no event visits, and with
        nothing running the simulation would stop with jobs queued (issue 10).
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
        self._rel_keys.setdefault(j, []).append(key)

    def _unexpect(self, j: int, which: int = 0) -> None:
        keys = self._rel_keys[j]
        key = keys.pop(which)
        del self.releases[bisect.bisect_left(self.releases, key)]
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

    def effective_demand(self, j: int) -> tuple[float, ...]:
        """Job ``j``'s demand vector if it started now, with the ``nodes_ssd>=t`` entries it
        would really occupy.

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

    # ------------------------------------------------------------------ starting jobs
    def start(
        self, j: int, *, backfilled: bool = False, cuts: tuple[float, ...] | None = None
    ) -> None:
        """Start job ``j``'s run phase now. The caller has checked that it fits. ``cuts``: the
        nodes per SSD cut to take (node groups only; default: smallest adequate SSD first)."""
        now = self.now
        d = self.dem[j]
        self._take(d)
        if self.bb_index >= 0:
            self.used_bb += d[self.bb_index]
        if self.has_groups:
            # the expected releases carry what the job really holds, so the reservations
            # see the SSD nodes a spilled job will give back
            d = self._alloc_groups(j, cuts)
        self.queue.remove(j)
        self.window_passes.pop(j, None)
        self.reservations.pop(j, None)
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
        self._give(d)
        if self.bb_index >= 0:
            self.used_bb -= d[self.bb_index]
        if self.has_groups:
            self._free_groups(j)
        self._unexpect(j)
        self.end_t[j] = self.now
        if self.runtime[j] > self.req[j]:
            self.state[j] = JobState.KILLED
            self.counters.killed += 1
        else:
            self.state[j] = JobState.COMPLETED
        self._finish(j)

    def _release_bb(self, amount: float) -> None:
        if amount and self.bb_index >= 0:
            self.free[self.bb_index] += amount
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
            self.staged.pop(j, None)
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
                    self.free[k] += d[k]
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
        else:
            self._enqueue_run(j)

    def _enqueue_run(self, j: int) -> None:
        self.queue.append(j)

    # ------------------------------------------------------------------ stage-in (three-phase)
    def _stage_in_pass(self) -> None:
        b = self.bb_index
        i = 0
        while i < len(self.stage_queue):
            j = self.stage_queue[i]
            amount = self.data_in[j]
            if amount <= self.free[b] + self.bb_eps and self._safe_after_staging(j):
                self.stage_queue.pop(i)
                self.free[b] -= amount
                self.used_bb += amount
                self.staged[j] = None
                self.first_alloc[j] = self.now
                self._push(self.now + amount / self.system.bw_io_gbps, _STAGE_IN_DONE, j)
            else:
                if amount <= self.free[b] + self.bb_eps:
                    self.counters.stage_in_deferred_unsafe += 1
                i += 1

    def _safe_after_staging(self, new: int) -> bool:
        """Banker's check: with ``new`` staged, can every staged job still get its run buffer?"""
        b = self.bb_index
        holders = [*self.staged, new]
        avail = self.system.bb_gb - sum(self.data_in[h] for h in holders)
        needs = sorted((self.dem[h][b], self.data_in[h]) for h in holders)
        for need, held in needs:
            if need > avail + self.bb_eps:
                return False
            avail += held
        return True

    # ------------------------------------------------------------------ the loop
    def _record_usage(self) -> None:
        """Append the usage from now on, unless it equals the last recorded row."""
        row = (
            self.capacity[0] - self.free[0],
            self.used_bb,
            self.ssd_req_used,
            self.ssd_assigned_used,
        )
        if row == self._last_usage:
            return
        self._last_usage = row
        self.usage_t.append(self.now)
        for col, v in zip(self.usage_cols, row, strict=True):
            col.append(v)

    def run(self) -> ScheduleResult:
        """Simulate until every job has ended (or can never start); return the schedule."""
        heap = self._heap
        submit = self.submit
        n = self.n
        i = 0
        on_end = self._on_end
        on_phase = self._on_three_phase
        schedule = self.policy.schedule
        while i < n or heap:
            t_arr = submit[i] if i < n else math.inf
            t = heap[0][0] if heap and heap[0][0] <= t_arr else t_arr
            self.now = t
            self.counters.instants += 1
            # 1. every completion and release due now
            while heap and heap[0][0] <= t:
                _, _, kind, j = heapq.heappop(heap)
                if kind == _END:
                    on_end(j)
                else:
                    on_phase(kind, j)
            # 2. every arrival now
            while i < n and submit[i] <= t:
                self._arrive(i)
                i += 1
            self._next_arrival = i
            # 3. one scheduling pass
            if self.stage_queue:
                self._stage_in_pass()
            if self.queue:
                self.counters.passes += 1
                schedule(self, t)
            self._record_usage()
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
        c = self.counters
        counters = {
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
            counters=counters,
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


def simulate(
    workload: Workload, system: System, policy: Any, options: SimOptions | None = None
) -> ScheduleResult:
    """Run one simulation (see :class:`Simulation`)."""
    return Simulation(workload, system, policy, options).run()
