"""Streamed simulation: jobs arrive in chunks, finished jobs leave, records go to disk.

:func:`simulate_stream` runs the engine of ``simcore/engine.py`` (the same event loop, the same
action handlers, the same policy objects) on a workload given as an iterable of
:class:`JobChunk` (numpy columns per chunk) instead of a :class:`~simcore.workload.Workload`
held in memory, so the memory of a run is bounded by the jobs *alive* at a time (queued,
running, plus one chunk of look-ahead), not by the length of the workload. Choices:

Window of jobs, renumbered
    The engine addresses jobs by row index into per-job Python lists (fast scalar access in the
    interpreter-bound loop). The streamed engine keeps those lists for a *window* of rows:
    arrivals are read lazily, one chunk when the next arrival is not loaded yet; before a chunk
    is appended, the finished prefix of the window (every row below the oldest queued or
    running job and the next arrival) is *retired*: its records go to the writer and the
    online metrics, and every row index still held (queue, running set, event heap, expected
    releases, the next arrival) is shifted down. No per-access offset is paid in the hot loop;
    the shift costs O(window) per chunk, i.e. O(1) per job amortised.
Which policies
    Renumbering is invisible to a policy that keeps nothing keyed by row index between passes:
    the naive start rule with EASY backfilling or none (:class:`~simcore.policies.NaivePolicy`
    with ``backfill="easy"`` or ``"none"``), FCFS priority, the classic lifecycle, machines
    without SSD node groups. Anything else (conservative bookings, window ageing, WFP's
    priority arrays, the three-phase lifecycle) is refused with :class:`ConfigError`. A job
    chunk carries ``job_id, submit, runtime, nodes, requested_time`` (no burst buffer or SSD).
Records on disk
    ``records=PATH`` appends the retired rows to a CSV file in ``jobs.csv``'s schema (``id,
    submit, start, end, nodes, requested_time, runtime, wait, status``, the columns of the
    BBSched core's ``jobs.csv`` less ``bb_gb, ssd_gb``), one ``write`` and ``flush`` per retired
    batch, in job order, through :func:`~simcore.safeio.create_output`. A crash leaves every
    complete line readable (the data reached the OS at each flush; it is not fsynced, so a
    machine crash may lose the tail); :func:`read_records` drops a final line without its
    newline.
Metrics online
    Counts, means and maxima of wait, slowdown and bounded slowdown, makespan, throughput and
    node (and burst-buffer) usage are accumulated as the rows retire (sums in fixed blocks of
    consecutive jobs, each exactly rounded by ``math.fsum``, so the chunk size cannot change a
    bit of them; the usage integral step by step). They are the definitions of
    ``simcore/metrics.py`` over the whole run (no warm-up or cool-down: the last submit time is
    not known until the stream ends), so on a workload that fits in memory they equal
    :func:`~simcore.metrics.compute_metrics`: counts, maxima, makespan and percentiles exactly,
    means and usage up to the rounding of the summation order.
    **Percentiles are exact, computed after the run from an on-disk spill**: the wait and run
    of each measured job are appended as raw float64 to an anonymous temporary file (16 bytes a
    job, deleted on close) and read back once at the end for the medians and the p95: 10^7 jobs
    need about 0.4 GB for that moment, not a sketch's approximation.
"""

from __future__ import annotations

import csv
import heapq
import math
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from schedbench.simcore.backfill import EasyBackfill, NoBackfill
from schedbench.simcore.core import cell
from schedbench.simcore.engine import _END, ConfigError, SimOptions, Simulation
from schedbench.simcore.errors import SimulationError
from schedbench.simcore.metrics import (
    DEFAULT_ABNORMAL_RUN_S,
    DEFAULT_TAU_S,
    _bounded_slowdown,
    _json_value,
    _percentiles,
    _slowdown,
)
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.safeio import create_output, read_text, wrap_os_error
from schedbench.simcore.schedule import JobState
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload, WorkloadError

__all__ = [
    "RECORD_COLUMNS",
    "JobChunk",
    "StreamResult",
    "StreamSimulation",
    "chunks_of",
    "read_records",
    "simulate_stream",
]

#: The columns of a streamed ``jobs.csv``, in order.
RECORD_COLUMNS = (
    "id",
    "submit",
    "start",
    "end",
    "nodes",
    "requested_time",
    "runtime",
    "wait",
    "status",
)
_STATUS = np.array([s.name.lower() for s in sorted(JobState, key=lambda s: s.value)], dtype=object)


@dataclass(frozen=True)
class JobChunk:
    """Consecutive jobs of a streamed workload, as numpy columns of equal length. Submit times
    are non-decreasing within a chunk and from one chunk to the next."""

    job_id: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    nodes: np.ndarray
    requested_time: np.ndarray

    def __len__(self) -> int:
        return int(self.submit.shape[0])


def chunks_of(workload: Workload, size: int) -> Iterator[JobChunk]:
    """A workload in memory as chunks of ``size`` jobs (tests; a trace read whole)."""
    if size < 1:
        raise WorkloadError(f"chunk size: expected >= 1, got {size!r}")
    for lo in range(0, len(workload), size):
        hi = lo + size
        yield JobChunk(
            job_id=workload.job_id[lo:hi],
            submit=workload.submit[lo:hi],
            runtime=workload.runtime[lo:hi],
            nodes=workload.nodes[lo:hi],
            requested_time=workload.requested_time[lo:hi],
        )


@dataclass
class StreamResult:
    """What a streamed run leaves in memory: metrics (keys of ``compute_metrics``), counters,
    the configuration, and ``max_window`` (the most rows the engine held at once)."""

    metrics: dict[str, Any]
    counters: dict[str, Any]
    config: dict[str, Any]
    jobs: int
    max_window: int
    records: Path | None = None


class _Ids:
    """What the engine's error messages read of a workload: the job ids of the window rows."""

    def __init__(self) -> None:
        self.job_id: list[int] = []


class _Sum:
    """A sum of values given in batches, the same whatever the batches: the values are added
    in fixed blocks of :data:`_SUM_BLOCK` consecutive values (``math.fsum``: exactly rounded),
    and the block sums likewise at the end."""

    def __init__(self) -> None:
        self.blocks: list[float] = []
        self.pending = np.zeros(0)
        self.count = 0

    def add(self, values: np.ndarray) -> None:
        self.count += values.size
        data = np.concatenate([self.pending, values]) if self.pending.size else values
        full = data.size - data.size % _SUM_BLOCK
        for lo in range(0, full, _SUM_BLOCK):
            self.blocks.append(math.fsum(data[lo : lo + _SUM_BLOCK].tolist()))
        self.pending = data[full:].copy()

    def total(self) -> float:
        return math.fsum([*self.blocks, math.fsum(self.pending.tolist())])

    def mean(self) -> float | None:
        return self.total() / self.count if self.count else None


_SUM_BLOCK = 4096


@dataclass
class _Online:
    """Online accumulators of the per-job metrics (module docstring, "Metrics online")."""

    abnormal_run_s: float
    tau_s: float
    spill: IO[bytes] = field(default_factory=lambda: tempfile.TemporaryFile())  # noqa: SIM115
    counts: np.ndarray = field(default_factory=lambda: np.zeros(len(JobState), dtype=np.int64))
    sums: dict[str, _Sum] = field(
        default_factory=lambda: {k: _Sum() for k in ("wait", "slowdown", "bounded")}
    )
    maxima: dict[str, float] = field(default_factory=dict)
    excluded: int = 0
    last_end: float = -math.inf

    def add(
        self, submit: np.ndarray, start: np.ndarray, end: np.ndarray, state: np.ndarray
    ) -> None:
        self.counts += np.bincount(state, minlength=len(JobState))
        ran = (state == JobState.COMPLETED) | (state == JobState.KILLED)
        if not ran.any():
            return
        wait = start[ran] - submit[ran]
        run = end[ran] - start[ran]
        slow, excluded = _slowdown(wait, run, self.abnormal_run_s)
        bounded = _bounded_slowdown(wait, run, self.tau_s)
        self.excluded += excluded
        for key, values in (("wait", wait), ("slowdown", slow), ("bounded", bounded)):
            if values.size:
                self.sums[key].add(values)
                self.maxima[key] = max(self.maxima.get(key, -math.inf), float(values.max()))
        self.last_end = max(self.last_end, float(end[ran].max()))
        self.spill.write(np.ascontiguousarray(np.column_stack([wait, run])).tobytes())

    def metrics(self, first: float, last: float, usage: dict[str, float | None]) -> dict[str, Any]:
        """The metrics, the percentiles read back from the spill (then closed)."""
        self.spill.seek(0)
        pairs = np.frombuffer(self.spill.read(), dtype=np.float64).reshape(-1, 2)
        self.spill.close()
        wait, run = pairs[:, 0], pairs[:, 1]
        slow, _ = _slowdown(wait, run, self.abnormal_run_s)
        bounded = _bounded_slowdown(wait, run, self.tau_s)
        n = wait.size
        wait_median, wait_p95 = _percentiles(wait)
        c = {s.name.lower(): int(self.counts[s.value]) for s in JobState}
        total = int(self.counts.sum())
        makespan = self.last_end - first if n else None
        out = {
            "window_start_s": first,
            "window_end_s": last,
            "jobs_total": total,
            "jobs_in_window": total,
            "jobs_measured": n,
            "jobs_completed": c["completed"],
            "jobs_killed": c["killed"],
            "jobs_rejected": c["rejected"],
            "jobs_unfinished": c["unfinished"],
            **usage,
            "wait_mean_s": self.sums["wait"].mean(),
            "wait_median_s": wait_median,
            "wait_p95_s": wait_p95,
            "wait_max_s": self.maxima.get("wait"),
            "slowdown_mean": self.sums["slowdown"].mean(),
            "slowdown_median": _percentiles(slow, (50.0,))[0],
            "slowdown_max": self.maxima.get("slowdown"),
            "slowdown_excluded": self.excluded,
            "bounded_slowdown_mean": self.sums["bounded"].mean(),
            "bounded_slowdown_median": _percentiles(bounded, (50.0,))[0],
            "bounded_slowdown_max": self.maxima.get("bounded"),
            "makespan_s": makespan,
            "throughput_jobs_per_s": n / makespan if makespan else None,
        }
        return {key: _json_value(value) for key, value in out.items()}


class _RecordWriter:
    """Appends retired rows to a CSV file (module docstring, "Records on disk")."""

    def __init__(self, path: Path):
        self.path = path
        self._fh: IO[str] | None = create_output(path, newline="")
        self._write(",".join(RECORD_COLUMNS) + "\n")

    def _write(self, text: str) -> None:
        assert self._fh is not None
        try:
            self._fh.write(text)
            self._fh.flush()
        except OSError as exc:
            raise wrap_os_error(self.path, exc) from exc

    def write(self, columns: list[np.ndarray]) -> None:
        texts = [_column_text(c) for c in columns]
        self._write("".join(",".join(row) + "\n" for row in zip(*texts, strict=True)))

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def _column_text(a: np.ndarray) -> list[str]:
    """A column's cells as :func:`~simcore.core.cell` writes them; whole numbers (the common
    case: traces count seconds) without a Python call per cell."""
    if a.dtype == object:
        return list(a.tolist())
    if np.all(np.isfinite(a)) and np.array_equal(a, np.floor(a)):
        return list(map(str, a.astype(np.int64).tolist()))
    return [cell(x) for x in a.tolist()]


def read_records(path: str | Path) -> dict[str, np.ndarray]:
    """A streamed ``jobs.csv`` as columns (numbers as float64, NaN for an empty cell; ``status``
    as text), complete lines only: a final line without its newline (a crash mid-write) is
    dropped. For files that fit in memory."""
    text = read_text(path)
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    rows = list(csv.reader(text.splitlines()))
    if not rows or tuple(rows[0]) != RECORD_COLUMNS:
        raise WorkloadError(f"{path}: expected the header {','.join(RECORD_COLUMNS)}")
    body = rows[1:]
    out: dict[str, np.ndarray] = {}
    for k, name in enumerate(RECORD_COLUMNS):
        values = [r[k] for r in body]
        if name == "status":
            out[name] = np.array(values, dtype=object)
        else:
            out[name] = np.array([float(v) if v else math.nan for v in values], dtype=np.float64)
    return out


def _set(obj: object, name: str, value: object) -> None:
    """Set an engine attribute to the streamed engine's kind of value (a list for a tuple)."""
    setattr(obj, name, value)


class StreamSimulation(Simulation):
    """The engine over a stream of :class:`JobChunk` (module docstring): call :meth:`run_stream`."""

    def __init__(
        self,
        chunks: Iterable[JobChunk],
        system: System,
        policy: Any,
        options: SimOptions | None = None,
        *,
        records: str | Path | None = None,
        abnormal_run_s: float = DEFAULT_ABNORMAL_RUN_S,
        tau_s: float = DEFAULT_TAU_S,
    ):
        options = options or SimOptions()
        _check_streamable(policy, options)
        ids = _Ids()
        _set(self, "workload", ids)
        self._ids = ids.job_id  # the window's job ids
        self.system, self.policy, self.options = system, policy, options
        self.three_phase = False
        self.n = 0
        self.resource_names = system.resource_names
        self.K = len(self.resource_names)
        self.capacity = system.capacity_vector()
        self.bb_index = self.K - 1 if system.bb_gb > 0 else -1
        self._init_node_groups(system)
        if self.has_groups:
            raise ConfigError("a streamed run needs a machine without SSD node groups")
        self.bb_eps = 1e-9 * max(system.bb_gb, 1.0)
        for name in ("submit", "req", "dem", "ssd", "runtime", "nodes", "_reject", "_direct"):
            _set(self, name, [])
        _set(self, "hold", self.req)
        _set(self, "priority", None)  # FCFS: the queue is kept in arrival order
        self._arrival_order = True
        self._dem_matrix = np.zeros((0, self.K))
        self.hold_array = np.zeros(0)
        self._init_state(0)
        self._chunks = iter(chunks)
        self._exhausted = False
        self._first = math.nan
        self._last_submit = -math.inf
        self.base = 0  # job number (0-based, over the whole stream) of window row 0
        self.max_window = 0
        self._online = _Online(abnormal_run_s, tau_s)
        self._writer = _RecordWriter(Path(records)) if records is not None else None
        # the usage timeline since the last refill (t, nodes, burst buffer in use), the row in
        # force before it, and the integrals so far
        self._usage = (array("d"), array("d"), array("d"))
        self._u_prev: tuple[float, float, float] | None = None
        self._area = (_Sum(), _Sum())
        self._view: Any = None

    # ------------------------------------------------------------------ the window
    def _load(self, chunk: JobChunk) -> None:
        """Append a chunk's jobs to the window (validated: the engine needs sorted arrivals)."""
        m = len(chunk)
        cols = (chunk.job_id, chunk.runtime, chunk.nodes, chunk.requested_time)
        if any(np.shape(c) != (m,) for c in cols):
            raise WorkloadError("job chunk: every column needs the length of submit")
        submit = np.asarray(chunk.submit, dtype=np.float64)
        runtime = np.asarray(chunk.runtime, dtype=np.float64)
        req = np.asarray(chunk.requested_time, dtype=np.float64)
        nodes = np.asarray(chunk.nodes, dtype=np.int64)
        if not (np.all(np.isfinite(submit)) and np.all(np.diff(submit) >= 0)):
            raise WorkloadError("job chunk: submit times must be finite and non-decreasing")
        if m and submit[0] < self._last_submit:
            raise WorkloadError(
                f"job chunk: submit {submit[0]:g} comes before the previous chunk's last "
                f"({self._last_submit:g})"
            )
        if np.any(nodes < 1) or np.any(~(runtime >= 0)) or np.any(~(req >= 0)):
            raise WorkloadError("job chunk: expected nodes >= 1, runtime >= 0, requested >= 0")
        if m == 0:
            return
        if math.isnan(self._first):
            self._first = float(submit[0])
        self._last_submit = float(submit[-1])
        dem = self.system.demand_matrix(nodes, np.zeros(m), np.zeros(m))
        reject = np.where(nodes > self.system.nodes, 1, 0).tolist()
        cast_any: Any = self
        cast_any.submit.extend(submit.tolist())
        self.runtime.extend(runtime.tolist())
        cast_any.req.extend(req.tolist())  # also ``hold`` (the same list)
        self.nodes.extend(nodes.tolist())
        cast_any.dem.extend(map(tuple, dem.tolist()))
        cast_any.ssd.extend([0.0] * m)
        self._reject.extend(reject)
        cast_any._direct.extend(r == 0 for r in reject)
        self._ids.extend(np.asarray(chunk.job_id, dtype=np.int64).tolist())
        self.start_t.extend([math.nan] * m)
        self.end_t.extend([math.nan] * m)
        self.state.extend(bytes([JobState.UNFINISHED]) * m)
        self._queued.extend(bytes(m))
        self._dem_matrix = np.concatenate([self._dem_matrix, dem])
        self.hold_array = np.concatenate([self.hold_array, req])
        self.n += m
        self.max_window = max(self.max_window, self.n)
        self._refresh_view()

    def _refresh_view(self) -> None:
        """The view's numpy columns after the window changed (its lists change in place)."""
        if self._view is not None:
            object.__setattr__(self._view, "demand_matrix", self._dem_matrix)
            object.__setattr__(self._view, "hold_array", self.hold_array)

    def _retire(self, r: int) -> None:
        """Retire window rows ``0 .. r-1`` (all finished): records, metrics, renumbering."""
        if r <= 0:
            return
        cast_any: Any = self
        submit = np.array(cast_any.submit[:r])
        start = np.array(self.start_t[:r])
        end = np.array(self.end_t[:r])
        state = np.frombuffer(bytes(self.state[:r]), dtype=np.int8).astype(np.int64)
        self._online.add(submit, start, end, state)
        if self._writer is not None:
            self._writer.write(
                [
                    np.array(self._ids[:r], dtype=np.float64),
                    submit,
                    start,
                    end,
                    np.array(self.nodes[:r], dtype=np.float64),
                    np.array(cast_any.req[:r]),
                    np.array(self.runtime[:r]),
                    start - submit,
                    _STATUS[state],
                ]
            )
        for name in ("submit", "req", "dem", "ssd", "runtime", "nodes", "_reject", "_direct"):
            del getattr(self, name)[:r]
        for seq in (self._ids, self.start_t, self.end_t, self.state, self._queued):
            del seq[:r]
        self.queue[:] = [j - r for j in self.queue]
        running = [j - r for j in self.running]
        self.running.clear()
        self.running.update(running)
        self._heap[:] = [(t, s, k, j - r if j >= 0 else j) for t, s, k, j in self._heap]
        self._rel_keys = {j - r: keys for j, keys in self._rel_keys.items()}
        self._next_arrival -= r
        self.n -= r
        self.base += r
        self._dem_matrix = self._dem_matrix[r:].copy()
        self.hold_array = self.hold_array[r:].copy()
        self._refresh_view()

    def _refill(self, i: int) -> int:
        """Retire the finished prefix and load the next non-empty chunk; return the next
        arrival's row (shifted like every other row)."""
        r = min(
            self.queue[0] if self.queue else i,
            min(self.running) if self.running else i,
            i,
        )
        self._retire(r)
        self._integrate_usage()
        i -= r
        for chunk in self._chunks:
            if len(chunk):
                self._load(chunk)
                return i
            self._load(chunk)  # validates, adds nothing
        self._exhausted = True
        return i

    # ------------------------------------------------------------------ usage, online
    def _integrate_usage(self) -> None:
        """Integrate the usage rows recorded since the last call, each up to the next row,
        clipped to [first submit, last submit] (``metrics.integrate_usage``); the last row is
        kept for the next call. The end of the window is +inf until the stream has ended: no
        row comes after the last submit before that."""
        if not self._usage[0]:
            return
        t, nodes, bb = (np.frombuffer(a, dtype=np.float64) for a in self._usage)
        if self._u_prev is not None:
            p = self._u_prev
            t, nodes, bb = np.r_[p[0], t], np.r_[p[1], nodes], np.r_[p[2], bb]
        self._u_prev = (float(t[-1]), float(nodes[-1]), float(bb[-1]))
        hi = self._last_submit if self._exhausted else math.inf
        dt = np.diff(np.clip(t, self._first, hi))
        self._area[0].add(nodes[:-1] * dt)
        self._area[1].add(bb[:-1] * dt)
        del t, nodes, bb  # the buffers must not be exported while they are cleared
        for a in self._usage:
            del a[:]

    def _usage_metrics(self) -> dict[str, float | None]:
        lo, hi = self._first, self._last_submit
        if hi > lo:  # the last row holds until the end of the window
            for a, v in zip(self._usage, (hi, 0.0, 0.0), strict=True):
                a.append(v)
        self._integrate_usage()
        span = hi - lo if hi > lo else 0.0

        def share(k: int, capacity: float) -> float | None:
            available = capacity * span
            return self._area[k].total() / available if available > 0 else None

        return {
            "node_usage": share(0, float(self.system.nodes)),
            "bb_usage": share(1, float(self.system.bb_gb)),
            "ssd_usage": None,
            "ssd_waste": None,
        }

    # ------------------------------------------------------------------ the loop
    def run_stream(self) -> StreamResult:
        """Simulate until every job of the stream has ended (the engine's ``run``, with the
        window refilled before the next arrival is needed and the usage integrated online)."""
        heap = self._heap
        cast_any: Any = self
        submit: list[float] = cast_any.submit  # mutated in place by _load / _retire
        direct: list[bool] = cast_any._direct
        on_end = self._on_end
        on_phase = self._on_three_phase
        schedule = self.policy.schedule
        self._view = view = self.machine_view()
        apply = self._apply
        queue = self.queue
        queued = self._queued
        free = self.free
        cap0 = self.capacity[0]
        counters = self.counters
        last: tuple[float, float] | None = None
        usage_t, u_nodes, u_bb = (a.append for a in self._usage)  # appended inline
        instants = passes = 0
        i = self._refill(0)
        try:
            while i < self.n or heap:
                n = self.n
                t_arr = submit[i] if i < n else math.inf
                t = heap[0][0] if heap and heap[0][0] <= t_arr else t_arr
                self.now = t
                instants += 1
                while heap and heap[0][0] <= t:
                    _, _, kind, j = heapq.heappop(heap)
                    if kind == _END:
                        on_end(j)
                    else:
                        on_phase(kind, j)
                while True:  # every arrival now, across chunk boundaries
                    while i < n and submit[i] <= t:
                        if direct[i]:
                            queue.append(i)
                            queued[i] = 1
                        else:
                            self._arrive(i)
                        i += 1
                    if i < n or self._exhausted:
                        break
                    i = self._refill(i)  # also keeps the next arrival loaded (``_wake_at``)
                    n = self.n
                self._next_arrival = i
                if queue:
                    passes += 1
                    for a in schedule(view, t):
                        handler = apply.get(a.__class__)
                        if handler is None:
                            handler = self._handler(a)
                        handler(self, a)
                used = cap0 - free[0]
                if last is None or used != last[0] or self.used_bb != last[1]:
                    last = (used, self.used_bb)
                    usage_t(t)
                    u_nodes(used)
                    u_bb(self.used_bb)
        except BaseException:
            if self._writer is not None:  # what was retired stays readable (module docstring)
                self._writer.close()
            raise
        finally:
            counters.instants += instants
            counters.passes += passes
        return self._finish_stream()

    def _finish_stream(self) -> StreamResult:
        if self.queue or self.running:
            raise SimulationError(
                f"simulation stopped with {len(self.queue)} queued and {len(self.running)} "
                "running jobs"
            )
        writer = self._writer
        self._retire(self.n)
        if writer is not None:
            writer.close()
        jobs = self.base
        first = self._first if jobs else math.nan
        metrics = self._online.metrics(first, self._last_submit, self._usage_metrics())
        counters = self._counters()
        return StreamResult(
            metrics=metrics,
            counters=counters,
            config={
                "policy": getattr(self.policy, "describe", lambda: str(self.policy))(),
                "lifecycle": self.options.lifecycle,
                "priority": self.options.priority,
                "system": self.system.name,
                "jobs": jobs,
                "streamed": True,
            },
            jobs=jobs,
            max_window=self.max_window,
            records=writer.path if writer is not None else None,
        )


def _check_streamable(policy: Any, options: SimOptions) -> None:
    """Refuse what the renumbered window cannot run (module docstring, "Which policies")."""
    if options.lifecycle != "classic" or options.priority != "fcfs":
        raise ConfigError(
            "a streamed run simulates the classic lifecycle under FCFS priority "
            f"(got lifecycle {options.lifecycle!r}, priority {options.priority!r})"
        )
    backfiller = getattr(policy, "backfiller", None)
    if type(policy) is not NaivePolicy or type(backfiller) not in (EasyBackfill, NoBackfill):
        raise ConfigError(
            "a streamed run needs a policy that keeps nothing between passes: the naive policy "
            "with backfill 'easy' or 'none'"
        )


def simulate_stream(
    chunks: Iterable[JobChunk],
    system: System,
    policy: Any,
    options: SimOptions | None = None,
    *,
    records: str | Path | None = None,
    abnormal_run_s: float = DEFAULT_ABNORMAL_RUN_S,
    tau_s: float = DEFAULT_TAU_S,
) -> StreamResult:
    """Run a streamed simulation (module docstring); ``records``: the CSV file of per-job
    records, appended as jobs retire."""
    sim = StreamSimulation(
        chunks, system, policy, options, records=records, abnormal_run_s=abnormal_run_s, tau_s=tau_s
    )
    return sim.run_stream()
