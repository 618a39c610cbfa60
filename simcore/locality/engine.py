"""The node-level simulation core of the data-locality model (model note §4, §5, §7).

The count-based engine (``simcore/engine.py``) tracks how many nodes are free; this model needs
individual nodes with 20 cores each, every core's next free time, the files each node holds, the
intervals in which the planner expects them there, and backfilling holes on given cores. It is a
separate, compact core with its own clock, kept apart so that the 44 schedules pinned by
``tests/simcore/test_schedule_digests.py`` cannot move.

Clock (§4). Time is in whole seconds from the first category-0 submission. The engine jumps
from one event second to the next (a second without an end, a planned start or an arrival does
nothing in the reference either) and, within a second:

1. jobs whose end time is now finish;
2. jobs planned to start now start;
3. jobs submitted up to now arrive — into the queue if a job ended this second, else into a
   separate "new" list;
4. the scheduler may run, only in an open second of the gate (``options.gate_s``; in the
   reference the seconds t0 + k·30, k ≥ 1, where t0 is the first second: see
   ``LocalityOptions.gate_clock``): after a job end it clears every plan and replans the queue
   (``full`` run); else, if jobs arrived this second, it plans the new list behind the existing
   plans (``new`` run), which then joins the queue's tail;
5. the jobs it planned for now start.

The run ends as soon as every evaluated (category 1) job has started (§4); their end times are
fixed by then. When no event is left while an evaluated job has not started, the run stops with
:class:`~simcore.errors.SimulationError` naming the job (the reference would count seconds up to
2·10⁹).

Starting a job (§4, §5). On its node the job looks for its file: present (some running job uses
it, or its last user ended this very second) → no load, or the rest of a load in progress, which
is recorded as ``load_wait`` apart from ``transfer``; absent → a full load of
``size / bandwidth`` seconds (truncated; single precision in reference mode). The job then holds
its cores for ``min(delay + overhead, walltime)`` seconds; the planner keeps assuming
``start + walltime`` for those cores until the next full replan.

Schedulers (``simcore/locality/schedulers.py``) act on a :class:`Planner` — the engine's
read-only view of the nodes plus the placement calls it validates and applies — during a run.
Category −2 jobs are placed before the clock starts on ``(history node − 1) mod nodes`` at the
earliest time their cores allow, their delay and walltime reduced by the time already run (at
least 1 s each); category −1 jobs arrive in the first second with their own submission times.
"""

from __future__ import annotations

import bisect
import heapq
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

import schedbench.simcore.locality._kernels as _k
import schedbench.simcore.locality._plan as _p
from schedbench.simcore.errors import ConfigError, SimulationError
from schedbench.simcore.locality.model import (
    EVALUATED,
    RUNNING_AT_START,
    WARM_UP,
    LocalityOptions,
    LocalityPlatform,
    LocalityWorkload,
    load_seconds,
)
from schedbench.simcore.problem import Budget
from schedbench.simcore.solver import timed_solve

__all__ = [
    "FileEntry",
    "JobNeverStartsError",
    "LocalityResult",
    "LocalityScheduler",
    "LocalitySimulator",
    "Planner",
    "run_locality",
]

_NEVER = 2**62


class JobNeverStartsError(SimulationError):
    """No event is left that could plan an evaluated job that has not started: in reference
    mode, the fixed 30 s gate grid (``LocalityOptions.gate_clock``) on a workload too sparse for
    job ends and arrivals to fall on it. The reference itself loops until its clock overflows.
    Not a bug of the engine: callers that only need what happened before (recorded decisions)
    may catch it."""


class LocalityScheduler(Protocol):
    """A locality scheduler: ``name``, whether it backfills, whether it reads the file
    intervals (``uses_files``), and ``plan(planner, queue, full)`` which places (or leaves) each
    job of ``queue`` through the planner's calls."""

    name: str
    backfill: bool
    uses_files: bool

    def plan(self, planner: Planner, queue: Sequence[int], full: bool) -> None: ...


class FileEntry:
    """One file on one node (§5): the reference keeps such an entry from the first time the file
    is seen on the node (planned or loaded) and never removes it; ``rank`` is its place in the
    node's list (scan order of the eviction term). ``load_done`` is when its current load
    completes, ``end_time`` when its last user ends (or the latest planned end of its running
    users), ``users`` how many running jobs use it. ``eid`` is its row in the engine's entry
    table, which mirrors those three for the compiled interval rebuild."""

    __slots__ = ("eid", "end_time", "file", "load_done", "node", "rank", "size", "users")

    def __init__(self, node: int, file: int, size: float, rank: int, eid: int):
        self.node = node
        self.file = file
        self.size = size  # float32 value held exactly in a Python float (single mode)
        self.rank = rank
        self.eid = eid
        self.load_done = -1
        self.end_time = -1
        self.users = 0


@dataclass(frozen=True, slots=True, eq=False)
class LocalityResult:
    """Per job (workload rows): ``start``, ``end``, ``node`` (−1 when the job never started in
    the run), ``transfer`` (load seconds paid), ``load_wait`` (seconds waited for a load in
    progress); plus the run's counters and the options it ran with."""

    workload: LocalityWorkload
    platform: LocalityPlatform
    scheduler: str
    options: LocalityOptions
    start: np.ndarray
    end: np.ndarray
    node: np.ndarray
    transfer: np.ndarray
    load_wait: np.ndarray
    counters: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    decision_latency_s: float = 0.0
    wall_s: float = 0.0
    #: wall seconds inside the scheduler's runs (planning); the rest of ``wall_s`` is the clock,
    #: job starts and ends, and the file view's upkeep
    plan_s: float = 0.0

    @property
    def evaluated(self) -> np.ndarray:
        return self.workload.evaluated


class Planner:
    """What a scheduler sees and does during one scheduler run (the node-level counterpart of
    ``simcore/policy.py``'s ``MachineView`` + actions): read-only arrays and queries, and the
    placement calls :meth:`place`, :meth:`place_backfilled`, :meth:`leave`, which the engine
    validates before applying. Valid during the ``plan`` call only."""

    def __init__(self, sim: LocalitySimulator, full: bool):
        self._sim = sim
        self.now = sim.t
        self.full = full
        self.nodes = sim.N
        self.cores_per_node = sim.C
        self.options = sim.options
        self.single = sim.options.single_precision
        w = sim.workload
        self.cores = sim.cores
        self.walltime = sim.walltime
        self.file = sim.file
        self.size = sim.size
        self.workload = w
        #: cores claimed at ``now`` (running, or planned over an idle core) — the horizon counter
        self.claimed = int(np.count_nonzero(sim.avail > self.now))
        #: LEM: nodes running a job at the start of the run + idle nodes started now by it
        self.running_nodes = sim.running_nodes

    # -- queries ---------------------------------------------------------------------------------
    @property
    def total_cores(self) -> int:
        return self._sim.N * self._sim.C

    @property
    def bandwidth_gbps(self) -> float:
        return self._sim.platform.bandwidth_gbps

    @property
    def idle_unclaimed(self) -> int:
        return self.total_cores - self.claimed

    @property
    def at_t(self) -> int:
        """Cores the reference counts as running or starting now (backfilling's pool)."""
        return self._sim.at_t

    @property
    def biggest_hole(self) -> int:
        return self._sim.biggest_hole

    def eat(self, cores: int) -> np.ndarray:
        """Earliest available time of ``cores`` cores on every node, never before now (§6)."""
        col = self._sim.avail[:, cores - 1]
        return np.maximum(col, self.now)

    def core_times(self, node: int) -> np.ndarray:
        """The node's core free times, sorted (read-only copy)."""
        return self._sim.avail[node].copy()

    def load_terms(self, job: int, at: np.ndarray) -> np.ndarray:
        """TL per node (§6): 0 if the job's file will be on the node at ``at[n]`` with its load
        complete, the rest of a load in progress (from now or from ``at``, per
        ``options.load_term_from``), else the full load time ``size / bandwidth``
        (un-truncated; float32 in single precision)."""
        return self._sim.load_terms(job, at)

    def load_term(self, job: int, node: int, at: int) -> float:
        return self._sim.load_term_one(job, node, at)

    def evict_term(self, job: int, node: int, at: int) -> float:
        """E on one node (§6): sizes of the other files whose latest interval ends by ``at``,
        × cores / cores_per_node / bandwidth (float32 arithmetic in single precision)."""
        return self._sim.evict_term(job, node, at)

    def evict_terms(self, job: int, nodes: np.ndarray, at: np.ndarray) -> np.ndarray:
        """:meth:`evict_term` on each of ``nodes`` at ``at[k]`` (float64)."""
        return self._sim.evict_terms(job, nodes, at)

    def select_reference(
        self, job: int, partial: np.ndarray, w2: np.ndarray, at: np.ndarray
    ) -> tuple[int, Any]:
        """The score family's reference rule over all nodes (§6): (node, full score) of the first
        node of smallest (truncated) score, ``partial`` = EAT + W_load·TL at ``at`` = EAT,
        ``w2`` = W_evict per node; E is computed only where a node can still win."""
        return self._sim.select_reference(job, partial, w2, at)

    def has_holes(self) -> bool:
        return self._sim.hole_nodes_count > 0

    def backfill_check(self, job: int, node: int) -> tuple[bool, int, int]:
        """Whether ``job`` can start now on ``node`` in a hole (§7): (ok, cores from the hole,
        cores from fully free cores)."""
        return self._sim.can_backfill(job, node)

    def backfill_options(
        self, job: int, before: int | None = None, first_only: bool = False
    ) -> list[tuple[int, int, int]]:
        """:meth:`backfill_check` on every hole node before ``before`` (default: all) in scan
        order, the nodes where it succeeds (only the first with ``first_only``): (node, cores
        from the hole, cores from fully free cores)."""
        return self._sim.backfill_options(job, before, first_only)

    def hole_nodes(self) -> list[int]:
        """Nodes with hole cores, in scan order."""
        return self._sim.hole_nodes()

    def fits_hole_only(self, job: int, node: int) -> bool:
        """The pool-exhausted test (§7): the job's cores all from the node's hole."""
        return self._sim.fits_hole_only(job, node)

    # -- actions ---------------------------------------------------------------------------------
    def place(self, job: int, node: int, start: int, transfer: int) -> None:
        """Plan ``job`` on ``node`` at ``start`` (≥ its EAT there) with ``transfer`` planned load
        seconds; the cores are the earliest free ones (without backfilling) or the
        lowest-numbered cores free by ``start``, opening holes (with backfilling)."""
        self._sim.place(self, job, node, start, transfer, backfill_cores=None)

    def place_backfilled(
        self,
        job: int,
        node: int,
        from_hole: int,
        outside: int,
        transfer: int,
        *,
        add_interval: bool = True,
    ) -> None:
        """Start ``job`` now on ``node`` in its hole (§7)."""
        self._sim.place(
            self,
            job,
            node,
            self.now,
            transfer,
            backfill_cores=(from_hole, outside),
            add_interval=add_interval,
        )

    def leave(self, job: int) -> None:
        """``job`` stays unplanned until the next scheduler run."""
        self._sim.plan_start[job] = -1

    def plan_compiled(self, queue: Sequence[int], rule: str, backfill: bool) -> None:
        """Plan all of ``queue`` as the built-in scheduler ``rule`` (``fcfs``, ``eft``, ``lea``,
        ``leo``, ``lem``; with backfilling if ``backfill``) does, in one compiled call
        (``simcore/locality/_plan.py``): the same rules as the schedulers' Python, for runs
        where no problem is posed."""
        self._sim.plan_compiled(self, queue, rule, backfill)

    # -- solver decisions ------------------------------------------------------------------------
    def decide(self, problem: Any) -> Any:
        """Hand a placement problem to the run's solver (``simcore.solver.timed_solve``); the
        answer has passed the kind's core check. ``None`` without a solver."""
        return self._sim.decide(problem)

    @property
    def has_solver(self) -> bool:
        return self._sim.solver is not None

    def record(self, problem: Any) -> None:
        self._sim.record(problem)

    @property
    def recording(self) -> bool:
        return self._sim.recorder is not None


class _EvictRows:
    """The eviction rows of every node as padded ``node × slot`` arrays (file, end of the latest
    interval, size, rank; ``counts`` slots used per node), updated by the compiled
    :func:`~simcore.locality._kernels.row_set` / :func:`~simcore.locality._kernels.row_drop`."""

    __slots__ = ("counts", "ends", "files", "ranks", "sizes")

    def __init__(self, nodes: int, dtype: Any, width: int = 8):
        self.files = np.zeros((nodes, width), dtype=np.int64)
        self.ends = np.zeros((nodes, width), dtype=np.int64)
        self.sizes = np.zeros((nodes, width), dtype=dtype)
        self.ranks = np.zeros((nodes, width), dtype=np.int64)
        self.counts = np.zeros(nodes, dtype=np.int64)

    def set(self, e: FileEntry, end: int) -> None:
        """``e``'s row gets ``end`` as the end of its latest interval (inserted if absent)."""
        if self.counts[e.node] == self.files.shape[1]:
            self._grow()
        _k.row_set(
            self.files, self.ends, self.sizes, self.ranks, self.counts,
            e.node, e.file, end, e.size, e.rank,
        )  # fmt: skip

    def drop(self, e: FileEntry) -> None:
        _k.row_drop(self.files, self.ends, self.sizes, self.ranks, self.counts, e.node, e.file)

    def _grow(self) -> None:
        pad = ((0, 0), (0, self.files.shape[1]))
        self.files = np.pad(self.files, pad)
        self.ends = np.pad(self.ends, pad)
        self.sizes = np.pad(self.sizes, pad)
        self.ranks = np.pad(self.ranks, pad)

    def copy_from(self, other: _EvictRows) -> None:
        """Become a copy of ``other`` (the run's working rows from the base rows)."""
        if self.files.shape != other.files.shape:
            self.files = other.files.copy()
            self.ends = other.ends.copy()
            self.sizes = other.sizes.copy()
            self.ranks = other.ranks.copy()
        else:
            np.copyto(self.files, other.files)
            np.copyto(self.ends, other.ends)
            np.copyto(self.sizes, other.sizes)
            np.copyto(self.ranks, other.ranks)
        np.copyto(self.counts, other.counts)


class LocalitySimulator:
    """One run of one scheduler on one workload (see the module docstring)."""

    def __init__(
        self,
        workload: LocalityWorkload,
        platform: LocalityPlatform,
        scheduler: LocalityScheduler,
        options: LocalityOptions | None = None,
        *,
        solver: Any = None,
        budget_s: float = 15.0,
        recorder: Callable[[Any, dict[str, Any]], None] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ):
        self.options = options or LocalityOptions.reference()
        self.platform = platform
        self.scheduler = scheduler
        self.solver = solver
        self.budget_s = float(budget_s)
        self.recorder = recorder
        self.progress = progress
        workload.validate(platform.cores_per_node)
        self.workload = workload
        self.N = platform.nodes
        self.C = platform.cores_per_node
        single = self.options.single_precision
        self.bw32 = float(np.float32(platform.bandwidth_gbps))
        n = len(workload)
        self.cores: list[int] = workload.cores.tolist()
        self.walltime: list[int] = workload.walltime.tolist()
        self.delay: list[int] = workload.delay.tolist()
        self.file: list[int] = workload.file.tolist()
        self.category: list[int] = workload.category.tolist()
        self.submit: list[int] = workload.submit.tolist()
        if single:
            size32 = workload.file_gb.astype(np.float32)
            self.size: list[float] = size32.astype(np.float64).tolist()
            full = (size32 / np.float32(platform.bandwidth_gbps)).astype(np.float32)
            self.full_tl: list[float] = full.astype(np.float64).tolist()
        else:
            self.size = workload.file_gb.tolist()
            full64 = np.round(workload.file_gb / platform.bandwidth_gbps, 6)
            self.full_tl = full64.tolist()
        self.full_load: list[int] = load_seconds(
            workload.file_gb, platform.bandwidth_gbps, single=single
        ).tolist()
        for j in range(n):
            if self.file[j] == 0:
                self.full_tl[j] = 0.0
                self.full_load[j] = 0
        # node state
        N, C = self.N, self.C
        self.avail = np.zeros((N, C), dtype=np.int64)  # sorted by (time, core id)
        self.cid = np.tile(np.arange(C, dtype=np.int64), (N, 1))  # core id at each position
        self.run_end = np.full((N, C), -1, dtype=np.int64)  # by core id
        self.n_free = np.full(N, C, dtype=np.int64)  # cores not running a job
        # backfilling holes (simcore/locality/_kernels.py): per node, hole cores and the end of
        # each one's hole, in the reference's order; nodes with at least one hole core
        self.hole_core = np.zeros((N, C), dtype=np.int64)
        self.hole_end = np.zeros((N, C), dtype=np.int64)
        self.hole_count = np.zeros(N, dtype=np.int64)
        self.hole_nodes_count = 0
        self._bf_out = np.zeros((N, 3), dtype=np.int64)  # backfill_options' rows
        self.data: list[dict[int, FileEntry]] = [{} for _ in range(N)]
        self.running_nodes = 0
        self.running_cores = 0
        self.at_t = 0
        self.biggest_hole = 0
        self.biggest_hole_id = 0
        # per-run file views: the planner's intervals (simcore/locality/_kernels.py), rebuilt at
        # every scheduler run from the entry table, which mirrors each FileEntry's node, file,
        # load completion, end and running users
        self._ent = np.zeros((1024, _k.ENT_COLUMNS), dtype=np.int64)
        self._n_ent = 0
        # the entries that can have an interval at a scheduler run: running users (kept in
        # insertion order), or the last user ended at ``_ended_t``
        self._live: dict[int, None] = {}
        self._ended_eids: list[int] = []
        self._ended_t = -1
        max_file = int(workload.file.max()) if n else 0
        # the entries of each file as a linked list (first row per file, next row in column
        # 5), how the compiled planner (simcore/locality/_plan.py) finds a (node, file) entry;
        # an entry's rank in its node's list (the eviction term's order) is its row: both count
        # the entries as they are created
        self._ent_head = np.full(max_file + 1, -1, dtype=np.int64)
        self._size_of_file = np.zeros(max_file + 1, dtype=np.float64)
        for j in range(n):
            f = self.file[j]
            if f != 0 and self._size_of_file[f] == 0.0:
                self._size_of_file[f] = self.size[j]
        self._iv = np.zeros((4096, _k.IV_COLUMNS), dtype=np.int64)
        self._ht = np.full((max_file + 1, 2), -1, dtype=np.int64)
        self._n_iv = 0
        self._mark = np.zeros(N, dtype=np.int64)  # load_terms' decided nodes (by stamp)
        self._stamp = 0
        # the compiled planner's kept eviction sums per node (simcore/locality/_plan.py:
        # _evict): (run epoch, file, time) and the sum
        self._ec_tag = np.full((N, 3), -1, dtype=np.int64)
        self._ec_acc = np.zeros(N, dtype=np.float32 if single else np.float64)
        self._epoch = 0
        self._from_now = self.options.load_term_from == "now"
        self._tl_dtype = np.float32 if single else np.float64
        # eviction rows (simcore/locality/_kernels.py): the base rows (entries with intervals at
        # the start of a run: live files and files whose last user ended this second), kept
        # up to date at job starts and ends, and the run's working copy, which placements extend
        self._rows_base = _EvictRows(N, np.float32 if single else np.float64)
        self._rows = _EvictRows(N, np.float32 if single else np.float64)
        self._ended_rows: list[FileEntry] = []  # base rows of ended files, dropped once stale
        self._zero: Any = np.float32(0.0) if single else 0.0
        self._bw32 = np.float32(platform.bandwidth_gbps)
        self._track_rows = scheduler.uses_files
        self._evict_args_by_cores: dict[int, tuple[Any, ...]] = {}
        self._used = np.zeros(C, dtype=np.int64)  # take_cores' outputs
        self._free_now = np.zeros(C, dtype=np.int64)
        # jobs: the current plan (start −1: not planned) and its cores
        self.plan_start = np.full(n, -1, dtype=np.int64)
        self.plan_node = np.full(n, -1, dtype=np.int64)
        self.plan_transfer = np.zeros(n, dtype=np.int64)
        self.plan_cores = np.zeros((n, C), dtype=np.int64)  # the first cores[j] of row j
        self._placed = np.zeros(max(n, 1), dtype=np.int64)  # the compiled planner's placements
        self.start = np.full(n, -1, dtype=np.int64)
        self.end = np.full(n, -1, dtype=np.int64)
        self.node = np.full(n, -1, dtype=np.int64)
        self.transfer = np.zeros(n, dtype=np.int64)
        self.load_wait = np.zeros(n, dtype=np.int64)
        self.scheduled: dict[int, int] = {}  # job -> list key (insertion order)
        self.new_list: dict[int, int] = {}
        self._key = 0
        self.starts_at: dict[int, list[int]] = {}
        self.start_heap: list[int] = []
        self.end_heap: list[tuple[int, int]] = []
        self.t = 0
        self.n_eval = int(np.count_nonzero(workload.category == EVALUATED))
        self.eval_started = 0
        self.finished = 0
        self.counters: dict[str, int] = {
            "scheduler_runs_full": 0,
            "scheduler_runs_new": 0,
            "gate_closed_skips": 0,
            "backfilled": 0,
            "placements": 0,
            "event_seconds": 0,
        }
        self.decisions = 0
        self.decision_latency = 0.0
        self.plan_s = 0.0

    # =============================================================================================
    # File views (§5)
    # =============================================================================================
    def _begin_run(self) -> None:
        """``get_current_intervals``: every file entry's intervals are rebuilt from the jobs
        running now; a file whose last user ended this very second gets a zero-length interval at
        now; intervals planned by earlier runs are dropped (compiled:
        :func:`~simcore.locality._kernels.ivals_rebuild`, over the entry table).

        The eviction rows (§6's E reads the end of each entry's latest interval) follow the same
        rule without a rebuild: the base rows hold exactly the entries this rebuild gives an
        interval — live files (end = their latest planned end, set at each job start) and files
        whose last user ended this very second (end = that second) — once the files that ended
        before now are dropped here; the run works on a copy that its placements extend."""
        t = self.t
        eids = list(self._live)
        if self._ended_t == t:
            eids += self._ended_eids
        if self._iv.shape[0] < len(eids) + 1:
            self._grow_iv(len(eids) + 1)
        self._n_iv = _k.ivals_rebuild(
            self._iv, self._ht, self._n_iv, self._ent, np.array(eids, dtype=np.int64), t
        )
        # eviction rows: ended files stop having intervals once their end second has passed
        keep: list[FileEntry] = []
        for e in self._ended_rows:
            if e.users == 0:
                if e.end_time < t:
                    self._rows_base.drop(e)
                else:
                    keep.append(e)
        self._ended_rows = keep
        self._rows.copy_from(self._rows_base)

    def _grow_iv(self, need: int) -> None:
        cap = max(need, 2 * self._iv.shape[0])
        grown = np.zeros((cap, _k.IV_COLUMNS), dtype=np.int64)
        grown[: self._n_iv] = self._iv[: self._n_iv]
        self._iv = grown

    def _sync_entry(self, e: FileEntry) -> None:
        """Mirror ``e``'s load completion, end and users into the entry table."""
        row = self._ent[e.eid]
        row[2] = e.load_done
        row[3] = e.end_time
        row[4] = e.users

    def load_terms(self, job: int, at: np.ndarray) -> np.ndarray:
        f = self.file[job]
        if f == 0:
            return np.zeros(self.N, dtype=self._tl_dtype)
        out = np.empty(self.N, dtype=self._tl_dtype)
        self._stamp += 1
        _k.load_terms(
            self._iv, self._ht, f, at, self.t, self._from_now,
            out.dtype.type(self.full_tl[job]), self._mark, self._stamp, out,
        )  # fmt: skip
        return out

    def load_term_one(self, job: int, node: int, at: int) -> float:
        f = self.file[job]
        if f == 0:
            return 0.0
        found, v = _k.load_term_one(self._iv, self._ht, f, node, at, self.t, self._from_now)
        return float(v) if found else self.full_tl[job]

    def _evict_args(self, job: int) -> tuple[Any, ...]:
        """The arguments of the compiled eviction term after (node, file, at) for ``job`` (they
        depend on its core count only)."""
        c = self.cores[job]
        args = self._evict_args_by_cores.get(c)
        if args is None:
            args = self._evict_args_by_cores[c] = (
                self.options.single_precision,
                self._zero,
                np.float32(np.float32(c) / np.float32(self.C)),
                self._bw32,
                float(c),
                float(self.C),
                self.platform.bandwidth_gbps,
            )
        return args

    def evict_term(self, job: int, node: int, at: int) -> float:
        """E of ``job`` on ``node`` at ``at`` (§6) from the run's eviction rows: the sizes of
        the other files whose latest interval ends by ``at``, summed in list order (float32 in
        single precision), × cores / cores_per_node / bandwidth."""
        r = self._rows
        return float(
            _k.evict_term(
                r.files, r.ends, r.sizes, r.counts, node, self.file[job], at,
                *self._evict_args(job),
            )
        )  # fmt: skip

    def evict_terms(self, job: int, nodes: np.ndarray, at: np.ndarray) -> np.ndarray:
        """:meth:`evict_term` of ``job`` on each of ``nodes`` at ``at[k]``."""
        at_list = np.asarray(at, dtype=np.int64).tolist()
        nodes_list = np.asarray(nodes, dtype=np.int64).tolist()
        return np.array(
            [self.evict_term(job, n, a) for n, a in zip(nodes_list, at_list, strict=True)],
            dtype=np.float64,
        )

    def select_reference(
        self, job: int, partial: np.ndarray, w2: np.ndarray, at: np.ndarray
    ) -> tuple[int, Any]:
        """The reference rule of the score family (§6) in one compiled pass: (node, full score)
        of the first node of smallest (truncated) EAT + W_load·TL + W_evict·E, with
        ``partial`` = EAT + W_load·TL, ``at`` = EAT; the score an int in single precision."""
        r = self._rows
        node, best = _k.select_reference(
            partial, w2, at, r.files, r.ends, r.sizes, r.counts, self.file[job],
            *self._evict_args(job),
        )  # fmt: skip
        return int(node), (int(best) if self.options.single_precision else float(best))

    def _entry(self, node: int, f: int) -> FileEntry:
        e = self.data[node].get(f)
        if e is None:
            # the compiled planner creates entry rows without a FileEntry: adopt such a row
            eid = int(_k.ent_find(self._ent, self._ent_head, f, node))
            if eid < 0:
                eid = self._n_ent
                if eid == self._ent.shape[0]:
                    self._grow_ent()
                row = self._ent[eid]
                row[_k.ENT_NODE] = node
                row[_k.ENT_FILE] = f
                row[_k.ENT_LOAD] = -1
                row[_k.ENT_END] = -1
                row[_k.ENT_NEXT] = self._ent_head[f]
                self._ent_head[f] = eid
                self._n_ent = eid + 1
            e = FileEntry(node, f, self.size_of_file(f, node), eid, eid)
            self.data[node][f] = e
        return e

    def _grow_ent(self) -> None:
        self._ent = np.concatenate([self._ent, np.zeros_like(self._ent)])

    def size_of_file(self, f: int, node: int) -> float:
        return float(self._size_of_file[f])

    # =============================================================================================
    # Backfilling holes (§7)
    # =============================================================================================
    def can_backfill(self, job: int, node: int) -> tuple[bool, int, int]:
        """:func:`simcore.locality._kernels.can_backfill` for ``job`` on ``node``."""
        ok, from_hole, outside = _k.can_backfill(
            self.hole_end, self.hole_count, self.avail, node, self.cores[job], self.t,
            self.t + self.walltime[job], self.options.bf_hole_quirk,
        )  # fmt: skip
        return bool(ok), int(from_hole), int(outside)

    def backfill_options(
        self, job: int, before: int | None = None, first_only: bool = False
    ) -> list[tuple[int, int, int]]:
        """:meth:`can_backfill` on every hole node before ``before`` (default all) in scan
        order, where it succeeds (only the first with ``first_only``)."""
        if not self.hole_nodes_count:
            return []
        t = self.t
        m = _k.backfill_options(
            self.hole_end, self.hole_count, self.avail, self.cores[job], t,
            t + self.walltime[job], self.options.bf_hole_quirk,
            self.N if before is None else before, first_only, self._bf_out,
        )  # fmt: skip
        return [(r[0], r[1], r[2]) for r in self._bf_out[:m].tolist()]

    def fits_hole_only(self, job: int, node: int) -> bool:
        return bool(
            _k.fits_hole_only(
                self.hole_end, self.hole_count, node, self.cores[job], self.t + self.walltime[job]
            )
        )

    def hole_nodes(self) -> list[int]:
        """Nodes with hole cores, in scan order."""
        return np.flatnonzero(self.hole_count).tolist()

    def _insert_hole(self, node: int, core: int, hole_end: int) -> None:
        """``insert_cores_in_a_hole_list_sorted_increasing_order`` (backfill mode 2)."""
        if self.hole_count[node] == 0:
            self.hole_nodes_count += 1
        _k.hole_insert(self.hole_core, self.hole_end, self.hole_count, node, core, hole_end)

    def _new_biggest_hole(self) -> None:
        best_id = int(np.argmax(self.hole_count))  # the first node with the most hole cores
        self.biggest_hole, self.biggest_hole_id = int(self.hole_count[best_id]), best_id

    # =============================================================================================
    # Placement (the planner's actions)
    # =============================================================================================
    def _sort_node(self, node: int, times_by_id: list[int]) -> None:
        """The node's row sorted by (free time, core id) (a stable sort of the ids by time)."""
        order = sorted(range(self.C), key=times_by_id.__getitem__)
        self.avail[node] = [times_by_id[k] for k in order]
        self.cid[node] = order

    def _times_by_id(self, node: int) -> list[int]:
        out = [0] * self.C
        for core, at in zip(self.cid[node].tolist(), self.avail[node].tolist(), strict=True):
            out[core] = at
        return out

    def place(
        self,
        planner: Planner,
        job: int,
        node: int,
        start: int,
        transfer: int,
        *,
        backfill_cores: tuple[int, int] | None,
        add_interval: bool = True,
    ) -> None:
        t = self.t
        c = self.cores[job]
        wall = self.walltime[job]
        if not 0 <= node < self.N:
            raise SimulationError(
                f"scheduler {self.scheduler.name}: node {node} out of range at t={t}"
            )
        if job not in self.scheduled and job not in self.new_list:
            raise SimulationError(
                f"scheduler {self.scheduler.name}: job {self.workload.job_id[job]} is not queued at t={t}"
            )
        eat = max(int(self.avail[node, c - 1]), t)
        if backfill_cores is None and start < eat:
            raise SimulationError(
                f"scheduler {self.scheduler.name}: job {self.workload.job_id[job]} planned on node "
                f"{node} at {start}, before its cores are free ({eat})"
            )
        # LEM: an idle node that this run starts a job on now counts as running (§6)
        # (the row is sorted: its last core frees last)
        if start == t and self.n_free[node] == self.C and self.avail[node, self.C - 1] <= t:
            planner.running_nodes += 1
        used: list[int] = []
        if backfill_cores is not None:
            times = self._times_by_id(node)
            from_hole, outside = backfill_cores
            end_by = t + wall
            taken = 0
            if from_hole:
                taken = _k.take_hole_cores(
                    self.hole_core, self.hole_end, self.hole_count, node, from_hole, end_by,
                    self._used,
                )  # fmt: skip
                used = self._used[:taken].tolist()
                if self.hole_count[node] == 0:
                    self.hole_nodes_count -= 1
            if taken != from_hole:
                raise SimulationError(
                    f"scheduler {self.scheduler.name}: node {node} has no {from_hole} hole cores "
                    f"for job {self.workload.job_id[job]} at t={t}"
                )
            row_ids = self.cid[node]
            for k in range(outside):
                core = int(row_ids[k])
                if times[core] > t:
                    raise SimulationError(
                        f"scheduler {self.scheduler.name}: core {core} of node {node} is busy at t={t}"
                    )
                used.append(core)
                times[core] = t + wall
            self.at_t += c
            planner.claimed += outside
            self.counters["backfilled"] += 1
            if node == self.biggest_hole_id:
                self._new_biggest_hole()
            self._sort_node(node, times)
        else:
            # without backfilling the earliest free cores; with it fill_cores_minimize_holes
            # (mode 2): the lowest-numbered cores free by the start, idle ones left as holes
            lowest = self.scheduler.backfill
            if lowest and start == t:
                self.at_t += c
            got = _k.take_cores(
                self.avail, self.cid, node, c, start, start + wall, t, lowest,
                self._used, self._free_now,
            )  # fmt: skip
            if got != c:
                raise SimulationError(
                    f"scheduler {self.scheduler.name}: node {node} cannot hold job "
                    f"{self.workload.job_id[job]} at {start}"
                )
            used = self._used[:c].tolist()
            free = self._free_now[:c].tolist()
            planner.claimed += sum(free)
            if lowest:
                if start > t:
                    for core, idle in zip(used, free, strict=True):
                        if idle:
                            self._insert_hole(node, core, start)
                if node == self.biggest_hole_id:
                    self._new_biggest_hole()
        self.plan_start[job] = start
        self.plan_node[job] = node
        self.plan_transfer[job] = transfer
        self.plan_cores[job, : len(used)] = used
        self.counters["placements"] += 1
        f = self.file[job]
        if add_interval and self.scheduler.uses_files:
            e = self._entry(node, f)
            m = self._n_iv
            if m == self._iv.shape[0]:
                self._grow_iv(m + 1)
            _k.ival_append(self._iv, self._ht, m, f, node, start, start + transfer, start + wall)
            self._n_iv = m + 1
            self._rows.set(e, start + wall)
        self.starts_at.setdefault(start, []).append(job)
        heapq.heappush(self.start_heap, start)

    def plan_compiled(
        self, planner: Planner, queue: Sequence[int], rule: str, backfill: bool
    ) -> None:
        """:meth:`Planner.plan_compiled`: one call of :func:`simcore.locality._plan.plan_run`,
        again from where it stopped whenever an array has to grow; then the planned starts are
        filed and the run's counters taken back."""
        o = self.options
        t = self.t
        cfg = np.array(
            [
                _p.RULES[rule], int(backfill), int(self.scheduler.uses_files), t,
                int(o.single_precision), int(o.load_term_from == "now"), o.weights_lea[0],
                o.weights_lea[1], o.lem_threshold_pct, int(o.leo_sticky), int(o.bf_hole_quirk),
                int(o.score_horizon == "all-claimed"),
            ],
            dtype=np.int64,
        )  # fmt: skip
        st = np.zeros(_p.ST_SIZE, dtype=np.int64)
        st[_p.ST_CLAIMED] = planner.claimed
        st[_p.ST_AT_T] = self.at_t
        st[_p.ST_RUNNING_NODES] = planner.running_nodes
        st[_p.ST_BIGGEST_HOLE] = self.biggest_hole
        st[_p.ST_BIGGEST_HOLE_ID] = self.biggest_hole_id
        st[_p.ST_HOLE_NODES] = self.hole_nodes_count
        st[_p.ST_N_IV] = self._n_iv
        st[_p.ST_N_ENT] = self._n_ent
        st[_p.ST_STAMP] = self._stamp
        self._epoch += 1
        st[_p.ST_EPOCH] = self._epoch
        q = np.asarray(queue, dtype=np.int64)
        cores, walltime, files, full_tl, size_of_file = self._plan_arrays()
        rows = self._rows
        tl = np.empty(self.N, dtype=self._tl_dtype)
        partial = np.empty(self.N, dtype=self._tl_dtype)
        k = 0
        while True:
            k, status = _p.plan_run(
                cfg, st, q, k, cores, walltime, files, full_tl, size_of_file, self._zero,
                self._bw32, self.platform.bandwidth_gbps,
                self.avail, self.cid, self.n_free, self.hole_core, self.hole_end,
                self.hole_count, self._iv, self._ht, self._ent, self._ent_head, self._mark,
                rows.files, rows.ends, rows.sizes, rows.ranks, rows.counts, self.plan_start,
                self.plan_node, self.plan_transfer, self.plan_cores, self._placed, tl, partial,
                self._ec_tag, self._ec_acc,
            )  # fmt: skip
            if status == _p.DONE:
                break
            if status == _p.GROW_IV:
                self._n_iv = int(st[_p.ST_N_IV])
                self._grow_iv(self._n_iv + 1)
            elif status == _p.GROW_ENT:
                self._grow_ent()
            elif status == _p.GROW_ROWS:
                rows._grow()
            else:  # pragma: no cover - plan_run returns one of the four
                raise SimulationError(f"compiled planner: unknown status {status}")
        self._n_ent = int(st[_p.ST_N_ENT])  # its new rows get a FileEntry when a job starts
        self._n_iv = int(st[_p.ST_N_IV])
        self._stamp = int(st[_p.ST_STAMP])
        self.at_t = int(st[_p.ST_AT_T])
        self.biggest_hole = int(st[_p.ST_BIGGEST_HOLE])
        self.biggest_hole_id = int(st[_p.ST_BIGGEST_HOLE_ID])
        self.hole_nodes_count = int(st[_p.ST_HOLE_NODES])
        planner.claimed = int(st[_p.ST_CLAIMED])
        planner.running_nodes = int(st[_p.ST_RUNNING_NODES])
        self.counters["placements"] += int(st[_p.ST_PLACEMENTS])
        self.counters["backfilled"] += int(st[_p.ST_BACKFILLED])
        starts_at = self.starts_at
        heap = self.start_heap
        placed = self._placed[: int(st[_p.ST_N_PLACED])].tolist()
        for j, s in zip(placed, self.plan_start[placed].tolist(), strict=True):
            lst = starts_at.get(s)
            if lst is None:
                starts_at[s] = [j]
                heapq.heappush(heap, s)
            else:
                lst.append(j)

    def _plan_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The job columns the compiled planner reads (cores, walltime, file, full load term,
        file sizes), built once (the walltimes of category −2 jobs are final by then)."""
        arrays = getattr(self, "_plan_cols", None)
        if arrays is None:
            arrays = self._plan_cols = (
                np.asarray(self.cores, dtype=np.int64),
                np.asarray(self.walltime, dtype=np.int64),
                np.asarray(self.file, dtype=np.int64),
                np.asarray(self.full_tl, dtype=np.float64),
                self._size_of_file,
            )
        return arrays

    # =============================================================================================
    # Solver hook
    # =============================================================================================
    def decide(self, problem: Any) -> Any:
        if self.recorder is not None:
            self.record(problem)
        if self.solver is None:
            return None
        decision = timed_solve(self.solver, problem, Budget(self.budget_s))
        self.decisions += 1
        lat = decision.latency_s
        if isinstance(lat, float) and math.isfinite(lat):
            self.decision_latency += lat
        return decision

    def record(self, problem: Any) -> None:
        if self.recorder is not None:
            self.recorder(
                problem,
                {
                    "t": self.t,
                    "queue_length": len(self.scheduled) + len(self.new_list),
                    "scheduler": self.scheduler.name,
                },
            )

    # =============================================================================================
    # Clock
    # =============================================================================================
    def _start_jobs(self) -> None:
        t = self.t
        cands = self.starts_at.pop(t, None)
        if not cands:
            return
        valid = {j for j in cands if self.plan_start[j] == t and j in self.scheduled}
        for j in sorted(valid, key=self.scheduled.__getitem__):
            self._start_one(j)

    def _start_one(self, j: int) -> None:
        t = self.t
        node = int(self.plan_node[j])
        c = self.cores[j]
        f = self.file[j]
        wall = self.walltime[j]
        planned_end = t + wall
        transfer = 0
        wait = 0
        if f != 0:
            e = self.data[node].get(f)
            if e is None:
                e = self._entry(node, f)
                e.end_time = planned_end
                transfer = self.full_load[j]
                e.load_done = t + transfer
            else:
                if e.users > 0 or e.end_time == t:
                    if e.load_done > t:
                        wait = e.load_done - t
                else:
                    transfer = self.full_load[j]
                    e.load_done = t + transfer
                if e.end_time < planned_end:
                    e.end_time = planned_end
            e.users += 1
            if self._track_rows:
                self._rows_base.set(e, e.end_time)
                self._sync_entry(e)
                if e.users == 1:
                    self._live[e.eid] = None
        overhead = transfer if transfer else wait
        end = t + min(self.delay[j] + overhead, wall)
        if end <= t:
            raise SimulationError(f"job {self.workload.job_id[j]}: end {end} not after start {t}")
        heapq.heappush(self.end_heap, (end, j))
        self.running_cores += c
        if self.n_free[node] == self.C:
            self.running_nodes += 1
        self.n_free[node] -= c
        if self.n_free[node] < 0:
            raise SimulationError(
                f"node {node} over-committed at t={t} by job {self.workload.job_id[j]}"
            )
        for core in self.plan_cores[j, :c].tolist():
            if self.run_end[node, core] != -1:
                raise SimulationError(
                    f"node {node} core {core} already runs a job when job "
                    f"{self.workload.job_id[j]} starts at t={t}"
                )
            self.run_end[node, core] = planned_end
        self.start[j] = t
        self.end[j] = end
        self.node[j] = node
        self.transfer[j] = transfer
        self.load_wait[j] = wait
        del self.scheduled[j]
        if self.category[j] == EVALUATED:
            self.eval_started += 1
            if self.progress is not None:
                self.progress(self.eval_started, self.n_eval)

    def _end_jobs(self) -> int:
        t = self.t
        heap = self.end_heap
        ended = 0
        while heap and heap[0][0] == t:
            _, j = heapq.heappop(heap)
            ended += 1
            node = int(self.node[j])
            c = self.cores[j]
            self.finished += 1
            self.running_cores -= c
            self.n_free[node] += c
            if self.n_free[node] == self.C:
                self.running_nodes -= 1
            for core in self.plan_cores[j, :c].tolist():
                self.run_end[node, core] = -1
            f = self.file[j]
            if f != 0:
                e = self.data[node][f]
                e.users -= 1
                if e.users == 0:
                    e.end_time = t
                    if self._track_rows:
                        self._rows_base.set(e, t)
                        self._ended_rows.append(e)
                        del self._live[e.eid]
                        if self._ended_t != t:
                            self._ended_t = t
                            self._ended_eids = []
                        self._ended_eids.append(e.eid)
                if self._track_rows:
                    self._sync_entry(e)
        return ended

    def _reset(self) -> None:
        """``reset_cores``: every plan is dropped; a core is free now or at the walltime end of
        the job running on it; holes are cleared."""
        _k.reset_cores(self.run_end, self.t, self.avail, self.cid)
        self.hole_count[:] = 0
        self.hole_nodes_count = 0
        self.biggest_hole = 0
        self.at_t = 0
        self.starts_at.clear()
        self.start_heap.clear()
        if self.scheduled:
            queued = np.fromiter(self.scheduled, dtype=np.int64, count=len(self.scheduled))
            self.plan_start[queued] = -1

    def _run_scheduler(self, queue: Sequence[int], full: bool) -> None:
        if self.scheduler.uses_files:
            self._begin_run()
        planner = Planner(self, full)
        t0 = time.perf_counter()
        self.scheduler.plan(planner, queue, full)
        self.plan_s += time.perf_counter() - t0
        self.counters["scheduler_runs_full" if full else "scheduler_runs_new"] += 1

    def _next_start_time(self) -> int:
        heap = self.start_heap
        while heap:
            s = heap[0]
            jobs = self.starts_at.get(s)
            if jobs and any(self.plan_start[j] == s and j in self.scheduled for j in jobs):
                return s
            heapq.heappop(heap)
            self.starts_at.pop(s, None)
        return _NEVER

    def _place_history_jobs(self, rows: list[int]) -> None:
        """§4: category −2 jobs in order of their historical start (the reference's sorted
        insert: a job whose start equals the current head goes first, otherwise after its
        equals), each on node ``(history node − 1) mod nodes`` at its earliest time."""
        t = self.t
        order: list[int] = []
        keys: list[int] = []
        hist = self.workload.hist_start
        for j in rows:
            k = int(hist[j])
            pos = 0 if order and keys[0] == k else bisect.bisect_right(keys, k)
            order.insert(pos, j)
            keys.insert(pos, k)
        hist_node = self.workload.hist_node
        for j in order:
            ran = t - int(hist[j])
            # the job's delay and walltime lose the time it already ran (the reference mutates
            # them for good: every later plan of this job uses the reduced walltime)
            self.delay[j] = max(self.delay[j] - ran, 1)
            self.walltime[j] = max(self.walltime[j] - ran, 1)
            idx = int(hist_node[j]) - 1
            idx = int(math.fmod(idx, self.N)) if idx >= 0 else 0
            c = self.cores[j]
            eat = max(int(self.avail[idx, c - 1]), t)
            times = self._times_by_id(idx)
            used = [int(x) for x in self.cid[idx, :c]]
            for core in used:
                times[core] = eat + self.walltime[j]
            self._sort_node(idx, times)
            self.plan_start[j] = eat
            self.plan_node[j] = idx
            self.plan_cores[j, :c] = used
            self.plan_transfer[j] = 0
            self._key += 1
            self.scheduled[j] = self._key
            self.starts_at.setdefault(eat, []).append(j)
            heapq.heappush(self.start_heap, eat)

    def run(self) -> LocalityResult:
        wall0 = time.perf_counter()
        w = self.workload
        n = len(w)
        day0 = np.flatnonzero(w.category == WARM_UP)
        # the first category-0 submission starts the clock (0 without one, as the reference)
        self.t = int(w.submit[day0[0]]) if day0.size else 0
        history = [j for j in range(n) if self.category[j] == RUNNING_AT_START]
        arrivals = [j for j in range(n) if self.category[j] != RUNNING_AT_START]
        self._place_history_jobs(history)
        self._start_jobs()
        gate = self.options.gate_s
        grid = self.options.gate_clock == "grid"
        t0 = self.t
        always = self.options.replan == "always"
        last_run = -(2**62)
        a = 0  # next arrival
        n_arr = len(arrivals)
        first = True
        while self.eval_started < self.n_eval:
            if not first:
                nxt = min(
                    self.end_heap[0][0] if self.end_heap else _NEVER,
                    self._next_start_time(),
                    self.submit[arrivals[a]] if a < n_arr else _NEVER,
                )
                if nxt >= _NEVER:
                    self._never_start()
                if nxt <= self.t:
                    raise SimulationError(f"locality clock went backwards: {nxt} after {self.t}")
                self.t = nxt
            first = False
            t = self.t
            self.counters["event_seconds"] += 1
            ended = self._end_jobs()
            if self.starts_at.get(t):
                self._start_jobs()
            arrived = False
            while a < n_arr and self.submit[arrivals[a]] <= t:
                j = arrivals[a]
                a += 1
                arrived = True
                self._key += 1
                if ended or always:
                    self.scheduled[j] = self._key
                else:
                    self.new_list[j] = self._key
            if gate == 0:
                open_gate = True
            elif grid:
                # the reference's fixed grid t0 + k·gate, k >= 1 (LocalityOptions.gate_clock);
                # the seconds this loop skips have no event, so they change nothing
                open_gate = t > t0 and (t - t0) % gate == 0
            else:
                open_gate = t - last_run >= gate
            # Everything scheduled is replanned after an end (paper mode: after any event);
            # otherwise only the new arrivals are planned.
            if self.scheduled and (ended or (always and arrived)):
                if open_gate:
                    self._reset()
                    self._run_scheduler(list(self.scheduled), True)
                    last_run = t
                    self._start_jobs()
                else:
                    self.counters["gate_closed_skips"] += 1
            elif arrived and not always:
                if open_gate:
                    queue = list(self.new_list)
                    self._run_scheduler(queue, False)
                    for j in queue:
                        del self.new_list[j]
                        self._key += 1
                        self.scheduled[j] = self._key
                    last_run = t
                    self._start_jobs()
                else:
                    self.counters["gate_closed_skips"] += 1
        return LocalityResult(
            workload=w,
            platform=self.platform,
            scheduler=self.scheduler.name,
            options=self.options,
            start=self.start,
            end=self.end,
            node=self.node,
            transfer=self.transfer,
            load_wait=self.load_wait,
            counters=dict(self.counters),
            decisions=self.decisions,
            decision_latency_s=self.decision_latency,
            wall_s=time.perf_counter() - wall0,
            plan_s=self.plan_s,
        )

    def _never_start(self) -> None:
        w = self.workload
        waiting = [j for j in range(len(w)) if self.category[j] == EVALUATED and self.start[j] < 0]
        j = waiting[0]
        opts = self.options
        gated = opts.gate_s > 0
        when = (
            f" in an open second of the {opts.gate_s} s gate"
            + (" (t0 + k·gate)" if opts.gate_clock == "grid" else "")
            if gated
            else ""
        )
        if j in self.new_list:
            why = (
                "it is held in the new-arrivals list, which only a scheduler run in a second with "
                f"arrivals and no job end{when} plans, and no such second is left"
            )
        elif j in self.scheduled:
            why = f"it is queued but no job end or arrival{when} is left to plan it"
        else:
            why = "it never arrived"
        hint = ""
        if gated and opts.gate_clock == "grid":
            hint = (
                "; the reference's gate needs a workload dense enough for events to fall on its "
                "grid (the reference itself would loop until its clock overflows): try "
                "gate_clock='since-run' (--gate-clock since-run), gate_s=0 (--gate 0) or paper "
                "mode"
            )
        elif gated:
            hint = "; try gate_s=0 (--gate 0) or paper mode"
        raise JobNeverStartsError(
            f"evaluated job {int(w.job_id[j])} ({w.where(j)}) can never start: {why}; "
            f"{len(waiting)} evaluated job(s) unstarted at t={self.t} "
            f"(scheduler {self.scheduler.name}, gate {opts.gate_s} s){hint}"
        )


def run_locality(
    workload: LocalityWorkload,
    scheduler: LocalityScheduler,
    platform: LocalityPlatform | None = None,
    options: LocalityOptions | None = None,
    **kwargs: Any,
) -> LocalityResult:
    """Run the scheduler object ``scheduler`` on ``workload``; ``platform`` defaults to the
    evaluated cluster (486 × 20 cores, 0.1 GB/s). By name: ``simcore/locality/run.py``'s
    ``simulate_locality`` (kept out of this module so that the engine does not import the
    scheduler registry: no import cycle)."""
    if platform is None:
        platform = LocalityPlatform()
    if not isinstance(platform, LocalityPlatform):
        raise ConfigError(f"platform: expected a LocalityPlatform, got {type(platform).__name__}")
    return LocalitySimulator(workload, platform, scheduler, options, **kwargs).run()
