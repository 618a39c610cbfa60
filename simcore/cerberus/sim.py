"""The BBSim event loop: Cerberus' three-phase lifecycle and the one-phase baselines, exactly as
``papers/cerberus-evaluation-model.md`` §3–§4 describe the runs that produced the published
numbers.

Lifecycle (three-phase; ``in``, ``run``, ``out`` are the job's volumes in the accounting unit,
``B`` the burst buffer's bandwidth, ``E`` the external one — ``B`` unless
``external_bandwidth="io"``):

1. stage-in (input queue): reserves ``in`` of burst buffer for ``in/E``; the job joins the run
   queue;
2. run (run queue): reserves the cores and ``run``; a fetch of ``in/B``, at whose end ``in`` is
   returned; execution for ``runtime + run/B`` (the execution end is *fetch end* + that
   duration); at its end ``run`` is returned and the job joins the output queue — **its cores are
   not returned**;
3. stage-out (output queue): reserves ``out``; a drain of ``out/B``, at whose end the cores are
   returned; then the write to external storage, ``out/E`` (completion = *drain end* + that); at
   completion ``out`` is returned.

One-phase: one queue; cores (and, with a burst buffer, the stage-in amount) held from start to
completion; durations as in model note §5.

Event loop (model note §4): take every pending event whose time *equals* (exact float equality)
the earliest one, apply them in creation order (a global counter; initial submissions are created
in job-id order, each later event when its predecessor fires or its phase starts), then run one
scheduling pass — queues served output → run → input — and record a usage sample
(time, 1 − free cores / cores, 1 − free BB / BB). Jobs started in a pass start at the pass time.
Reservations are checked against the current free amount only: no look-ahead, no backfilling.

Resource checks: a policy's answer is checked before it is applied (``simcore/cerberus/policy.py``);
under ``units="floor"`` the knapsack units may over-allocate (model note §5: free cores go
negative), which is applied and counted rather than refused. The run ends when no event is left;
jobs still queued then (a never-fitting job at the head of a strict FIFO queue, or a deadlock) are
reported ``stuck``. A deadlock is possible where stage-in volumes are large (1D Cerberus with
``one_size_in="d"``, the paper's "max in every phase"): FCFS stage-ins can fill the burst buffer
while the run queue's head waits for its run volume and nothing runs to free any; the published
runs' GB-sized stage-ins (and d/1000) cannot fill it.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from schedbench.simcore.cerberus.config import CerberusConfig
from schedbench.simcore.cerberus.policy import (
    QUEUES_ONE_PHASE,
    QUEUES_THREE_PHASE,
    CerberusPolicy,
    KnapsackCall,
    QueueView,
)
from schedbench.simcore.cerberus.workload import CerberusWorkload
from schedbench.simcore.errors import ConfigError, InvalidActionError
from schedbench.simcore.system import System


class CerberusState(IntEnum):
    """Final state of a job; the CSV writes the lower-case name."""

    DONE = 0
    REJECTED = 1  # can never fit the machine (reject_unfit); never queued
    STUCK = 2  # still queued or running when no event was left


# Event kinds (the order of the names carries no priority: ties go by creation order).
SUBMIT, IN_END, FETCH_END, EXEC_END, DRAIN_END, OUT_END, FINISH = range(7)
EVENT_NAMES = ("submit", "stage_in_end", "fetch_end", "exec_end", "drain_end", "complete", "finish")

#: Per-job time columns of a result, in lifecycle order.
TIME_COLUMNS: tuple[str, ...] = (
    "in_start",
    "in_end",
    "run_start",
    "fetch_end",
    "exec_end",
    "out_start",
    "drain_end",
    "complete",
)


@dataclass(frozen=True, slots=True)
class Machine:
    """The machine as the loop sees it, in the accounting unit (TB or GB)."""

    name: str
    cores: int
    bb: float  # capacity in the accounting unit (0 for a machine without burst buffer)
    bb_unit: str  # "TB" or "GB"
    bw_bb: float  # accounting unit per second
    bw_io: float

    @classmethod
    def of(cls, system: System, config: CerberusConfig) -> Machine:
        """The machine of ``system`` (its nodes are cores; Cerberus counts cores) in the unit of
        ``config.bb_accounting``: TB as floats (GB ÷ 1000, model note §1) or whole GB."""
        if config.bb_accounting == "tb-float":
            return cls(
                system.name,
                system.nodes,
                system.bb_gb / 1000,
                "TB",
                system.bw_bb_gbps / 1000,
                system.bw_io_gbps / 1000,
            )
        if system.bb_gb != int(system.bb_gb):
            raise ConfigError(
                f"machine {system.name!r}: bb_accounting='gb-exact' needs a burst buffer in whole "
                f"GB, got {system.bb_gb!r}"
            )
        return cls(
            system.name, system.nodes, int(system.bb_gb), "GB", system.bw_bb_gbps, system.bw_io_gbps
        )


@dataclass(frozen=True, slots=True, eq=False)
class CerberusResult:
    """One run: per-job times (NaN where a phase never happened; aligned with the workload's
    rows), states, the usage samples, the knapsack calls and counters.

    One-phase runs fill ``run_start`` (start) and ``complete`` only.
    """

    workload: CerberusWorkload
    machine: Machine
    policy: str
    lifecycle: str
    config: CerberusConfig
    times: dict[str, np.ndarray]
    state: np.ndarray
    cores: np.ndarray
    sample_t: np.ndarray
    sample_cpu: np.ndarray
    sample_bb: np.ndarray | None
    calls: tuple[KnapsackCall, ...]
    counters: dict[str, Any]
    rejected: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    #: queue -> id of the solver that answered its knapsacks (empty for FCFS policies)
    solvers: dict[str, str] = field(default_factory=dict)

    @property
    def submit(self) -> np.ndarray:
        return self.workload.submit

    @property
    def complete(self) -> np.ndarray:
        return self.times["complete"]

    @property
    def start(self) -> np.ndarray:
        """When the job first held a resource (stage-in start; the start of a one-phase job)."""
        return (
            self.times["in_start"] if self.lifecycle == "three-phase" else self.times["run_start"]
        )

    def waits(self) -> dict[str, np.ndarray]:
        """Per-job waits (model note §6): input-queue wait (stage-in start − submit), run-queue
        wait (run start − stage-in end), output-queue wait (stage-out start − execution end) and
        their sum; one-phase: the only wait is before the start (in ``wait_in`` and ``wait``)."""
        t = self.times
        if self.lifecycle == "one-phase":
            w = t["run_start"] - self.submit
            nan = np.full_like(w, np.nan)
            return {"wait_in": w, "wait_run": nan, "wait_out": nan, "wait": w}
        w_in = t["in_start"] - self.submit
        w_run = t["run_start"] - t["in_end"]
        w_out = t["out_start"] - t["exec_end"]
        return {"wait_in": w_in, "wait_run": w_run, "wait_out": w_out, "wait": w_in + w_run + w_out}

    def response(self) -> np.ndarray:
        """completion − submit per job (NaN where the job never completed)."""
        return self.complete - self.submit


@dataclass(frozen=True, slots=True)
class _Loop:
    """What :meth:`CerberusSimulation.run` shares with its helpers: the containers it mutates in place
    and two constants of the run (the scalars it rebinds stay locals of the loop)."""

    queues: dict[str, list[int]]
    where: list[str | None]
    cols: dict[str, list[float]]
    heap: list[tuple[float, int, int, int]]
    counters: dict[str, Any]
    tol: float
    floor_units: bool


class CerberusSimulation:
    """One Cerberus/BBSim run of ``policy`` on ``workload`` (module docstring).

    ``record(problem, context)`` receives every knapsack problem posed (e.g. a
    ``simcore.recording.DecisionRecorder``); ``progress(done, total)`` is called now and then.
    """

    def __init__(
        self,
        workload: CerberusWorkload,
        system: System,
        policy: CerberusPolicy,
        config: CerberusConfig,
        *,
        record: Callable[[Any, dict[str, Any]], None] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.workload = workload
        self.policy = policy
        self.config = config
        self.record = record
        self.progress = progress
        self.machine = Machine.of(system, config)
        self.lifecycle = policy.lifecycle
        if self.lifecycle not in ("three-phase", "one-phase"):
            raise ConfigError(f"policy {policy.name!r}: unknown lifecycle {self.lifecycle!r}")
        if policy.uses_bb and self.machine.bb <= 0:
            raise ConfigError(
                f"policy {policy.name!r} needs a burst buffer; machine {system.name!r} has none"
            )
        self._prepare()

    # ------------------------------------------------------------------ job data
    def _amounts(self, tb: np.ndarray, column: str) -> list[Any]:
        """Volumes in TB -> the accounting unit (Python numbers: the loop's arithmetic)."""
        if self.machine.bb_unit == "TB":
            return [float(x) for x in tb]
        gb = tb * 1000
        whole = np.round(gb)
        bad = np.flatnonzero(np.abs(gb - whole) > 1e-6)
        if bad.size:
            j = int(bad[0])
            raise ConfigError(
                f"workload {self.workload.source or '<memory>'}: job {int(self.workload.job_id[j])}: "
                f"{column} = {tb[j]!r} TB is not a whole number of GB (bb_accounting='gb-exact')"
            )
        return [int(x) for x in whole]

    def _need(self, column: str) -> np.ndarray:
        col = self.workload.one_size_tb() if column == "d" else getattr(self.workload, column)
        missing = np.flatnonzero(np.isnan(col))
        if missing.size:
            j = int(missing[0])
            what = (
                "data_max_tb (or data_run_tb and data_out_tb)"
                if column == "d"
                else f"data_{column}"
            )
            raise ConfigError(
                f"workload {self.workload.source or '<memory>'}: job {int(self.workload.job_id[j])} "
                f"has no {what}, which policy {self.policy.name!r} needs"
            )
        return np.asarray(col, dtype=np.float64)

    def _prepare(self) -> None:
        cfg, m, wl = self.config, self.machine, self.workload
        n = len(wl)
        self.n = n
        cores = np.maximum(wl.cores, cfg.min_cores).astype(np.int64)
        self.cores_arr = cores
        self.cores_arr.setflags(write=False)
        self.cores_l = [int(c) for c in cores]
        runtime = [float(x) for x in wl.runtime]
        B, IO = m.bw_bb, m.bw_io
        ext = B if cfg.external_bandwidth == "bb" else IO
        zero: list[Any] = [0] * n
        if self.policy.data == "triple":
            d_in = self._amounts(self._need("in_gb") / 1000, "data_in_gb / 1000")
            d_run = self._amounts(self._need("run_tb"), "data_run_tb")
            d_out = self._amounts(self._need("out_tb"), "data_out_tb")
        else:
            d = self._need("d")
            x_tb = d / 1000 if cfg.one_size_in == "d/1000" else d
            x = self._amounts(x_tb, "d/1000" if cfg.one_size_in == "d/1000" else "d")
            dd = self._amounts(d, "d")
            d_in, d_run, d_out = x, dd, dd
        if self.lifecycle == "three-phase":
            self.d_in, self.d_run, self.d_out = d_in, d_run, d_out
            self.t_stage_in = [a / ext for a in d_in]
            self.t_fetch = [a / B for a in d_in]
            self.t_exec = [r + a / B for r, a in zip(runtime, d_run, strict=True)]
            self.t_drain = [a / B for a in d_out]
            self.t_write = [a / ext for a in d_out]
            demands = {"in": d_in, "run": d_run, "out": d_out}
            # the most one job holds at once: stage-in and run volumes together until the
            # fetch ends, the stage-out volume later
            need_bb = [max(a + b, c) for a, b, c in zip(d_in, d_run, d_out, strict=True)]
        else:
            x, d_amt = d_in, d_run
            if self.policy.uses_bb:
                # model note §5, 1-Phase BB: stage-in + [runtime + checkpoint + fetch + drain]
                # + stage-out, summed in that order
                self.duration = [
                    xi / ext + (r + di / B + xi / B + di / B) + di / ext
                    for xi, di, r in zip(x, d_amt, runtime, strict=True)
                ]
                self.d_single = x
            else:
                # 1-Phase IO: stage-in + (runtime + checkpoint) + stage-out at the I/O bandwidth
                self.duration = [
                    xi / IO + (r + di / IO) + di / IO
                    for xi, di, r in zip(x, d_amt, runtime, strict=True)
                ]
                self.d_single = zero
            demands = {"single": self.d_single}
            need_bb = list(self.d_single)
        self.demands = demands
        self.bb_arrays = {
            q: np.asarray(v, dtype=np.int64 if m.bb_unit == "GB" else np.float64)
            for q, v in demands.items()
        }
        for a in self.bb_arrays.values():
            a.setflags(write=False)
        self.requested = np.asarray(wl.requested, dtype=np.float64)
        # Jobs that can never fit the machine (counted by reason).
        too_many = cores > m.cores
        too_much = np.asarray(need_bb, dtype=np.float64) > m.bb
        self.unfit = too_many | too_much
        self.rejected_counts = {
            "cores": int(np.count_nonzero(too_many)),
            "bb": int(np.count_nonzero(too_much & ~too_many)),
        }

    # ------------------------------------------------------------------ the loop
    def run(self) -> CerberusResult:
        t_wall = time.perf_counter()
        cfg, m, n = self.config, self.machine, self.n
        three = self.lifecycle == "three-phase"
        queue_names = QUEUES_THREE_PHASE if three else QUEUES_ONE_PHASE
        queues: dict[str, list[int]] = {q: [] for q in queue_names}
        where: list[str | None] = [None] * n
        nan = math.nan
        cols = {c: [nan] * n for c in TIME_COLUMNS}
        state = [int(CerberusState.STUCK)] * n
        heap: list[tuple[float, int, int, int]] = []
        seq = 0
        submit = [float(x) for x in self.workload.submit]
        for j in range(n):  # initial submissions, in job-id order (model note §4)
            heap.append((submit[j], seq, SUBMIT, j))
            seq += 1
        heapq.heapify(heap)
        free_cores: int = m.cores
        free_bb: Any = m.bb
        cores = self.cores_l
        reject = cfg.reject_unfit
        tol = 1e-9 if m.bb_unit == "TB" else 0
        floor_units = cfg.units == "floor"
        calls: list[KnapsackCall] = []
        sample_t: list[float] = []
        sample_cpu: list[float] = []
        sample_bb: list[float] = []
        counters: dict[str, Any] = {
            "events": 0,
            "passes": 0,
            "core_overallocations": 0,
            "bb_overallocations": 0,
            "free_cores_min": m.cores,
        }
        loop = _Loop(queues, where, cols, heap, counters, tol, floor_units)
        d_in = getattr(self, "d_in", None)
        d_run = getattr(self, "d_run", None)
        d_out = getattr(self, "d_out", None)
        first_queue = "in" if three else "single"
        report = calls.append
        done = 0
        next_progress = 0

        while heap:
            now = heap[0][0]
            # every event of this exact timestamp, in creation order (heap order: (t, seq))
            while heap and heap[0][0] == now:
                _, _, kind, j = heapq.heappop(heap)
                counters["events"] += 1
                if kind == SUBMIT:
                    if reject and self.unfit[j]:
                        state[j] = int(CerberusState.REJECTED)
                        continue
                    queues[first_queue].append(j)
                    where[j] = first_queue
                elif kind == IN_END:
                    cols["in_end"][j] = now
                    queues["run"].append(j)
                    where[j] = "run"
                elif kind == FETCH_END:
                    cols["fetch_end"][j] = now
                    assert d_in is not None
                    free_bb += d_in[j]
                    heapq.heappush(heap, (now + self.t_exec[j], seq, EXEC_END, j))
                    seq += 1
                elif kind == EXEC_END:
                    cols["exec_end"][j] = now
                    assert d_run is not None
                    free_bb += d_run[j]
                    queues["out"].append(j)
                    where[j] = "out"
                elif kind == DRAIN_END:
                    cols["drain_end"][j] = now
                    free_cores += cores[j]
                    heapq.heappush(heap, (now + self.t_write[j], seq, OUT_END, j))
                    seq += 1
                elif kind == OUT_END:
                    cols["complete"][j] = now
                    assert d_out is not None
                    free_bb += d_out[j]
                    state[j] = int(CerberusState.DONE)
                    done += 1
                else:  # FINISH (one-phase)
                    cols["complete"][j] = now
                    free_cores += cores[j]
                    free_bb += self.d_single[j]
                    state[j] = int(CerberusState.DONE)
                    done += 1
            # one scheduling pass: output, run, input (model note §4)
            counters["passes"] += 1
            for q in queue_names:
                lst = queues[q]
                if not lst:
                    continue
                view = QueueView(
                    now,
                    q,
                    tuple(lst),
                    free_cores,
                    free_bb,
                    m.cores,
                    m.bb,
                    m.bb_unit,
                    self.cores_arr,
                    self.bb_arrays[q],
                    self.requested,
                    cfg,
                    report,
                    self.record,
                )
                chosen = self.policy.serve(view)
                if chosen:
                    free_cores, free_bb, seq = self._start(
                        q, chosen, now, loop, free_cores, free_bb, seq
                    )
            sample_t.append(now)
            sample_cpu.append(1 - free_cores / m.cores)
            if self.policy.uses_bb:
                sample_bb.append(1 - free_bb / m.bb)
            if self.progress is not None and done >= next_progress:
                self.progress(done, n)
                next_progress = done + max(1, n // 100)
        if self.progress is not None:
            self.progress(done, n)

        return self._result(loop, state, calls, (sample_t, sample_cpu, sample_bb), t_wall)

    def _start(
        self,
        q: str,
        chosen: Any,
        now: float,
        loop: _Loop,
        free_cores: int,
        free_bb: Any,
        seq: int,
    ) -> tuple[int, Any, int]:
        """Start the jobs ``chosen`` from queue ``q`` at ``now``, each checked first (a job not
        waiting there, or one that does not fit unless ``units="floor"``, is an
        :class:`InvalidActionError`); the free amounts and the event counter go back to the loop,
        which keeps them in locals for speed."""
        m, n, cores = self.machine, self.n, self.cores_l
        queues, where, cols, heap, counters = (
            loop.queues,
            loop.where,
            loop.cols,
            loop.heap,
            loop.counters,
        )
        tol, floor_units = loop.tol, loop.floor_units
        lst = queues[q]
        count = 0
        for j in chosen:
            if not isinstance(j, (int, np.integer)) or not 0 <= j < n or where[j] != q:
                raise InvalidActionError(
                    f"cerberus policy {self.policy.name!r} at t={now:g}: job {j!r} is not "
                    f"waiting in the {q!r} queue (or was named twice)"
                )
            j = int(j)
            if q == "run" or q == "single":
                need_c = cores[j]
                need_b = self.demands[q][j]
                if not floor_units and (free_cores < need_c or free_bb < need_b - tol):
                    raise InvalidActionError(
                        f"cerberus policy {self.policy.name!r} at t={now:g}: job "
                        f"{int(self.workload.job_id[j])} needs {need_c} cores and "
                        f"{need_b} {m.bb_unit}; free: {free_cores} cores, {free_bb} {m.bb_unit}"
                    )
                free_cores -= need_c
                free_bb -= need_b
                if q == "run":
                    cols["run_start"][j] = now
                    heapq.heappush(heap, (now + self.t_fetch[j], seq, FETCH_END, j))
                else:
                    cols["run_start"][j] = now
                    heapq.heappush(heap, (now + self.duration[j], seq, FINISH, j))
                seq += 1
            else:
                need_b = self.demands[q][j]
                if not floor_units and free_bb < need_b - tol:
                    raise InvalidActionError(
                        f"cerberus policy {self.policy.name!r} at t={now:g}: job "
                        f"{int(self.workload.job_id[j])} needs {need_b} {m.bb_unit} of burst "
                        f"buffer in the {q!r} queue; free: {free_bb}"
                    )
                free_bb -= need_b
                if q == "in":
                    cols["in_start"][j] = now
                    heapq.heappush(heap, (now + self.t_stage_in[j], seq, IN_END, j))
                else:
                    cols["out_start"][j] = now
                    heapq.heappush(heap, (now + self.t_drain[j], seq, DRAIN_END, j))
                seq += 1
            where[j] = None
            count += 1
            if free_cores < counters["free_cores_min"]:
                counters["free_cores_min"] = free_cores
            if free_cores < 0:
                counters["core_overallocations"] += 1
            if free_bb < -tol:
                counters["bb_overallocations"] += 1
        if count == 0:
            return free_cores, free_bb, seq
        if lst[:count] == list(chosen):  # FCFS: a prefix left
            del lst[:count]
        else:
            taken = set(int(j) for j in chosen)
            lst[:] = [j for j in lst if j not in taken]
        return free_cores, free_bb, seq

    def _result(
        self,
        loop: _Loop,
        state: list[int],
        calls: list[KnapsackCall],
        samples: tuple[list[float], list[float], list[float]],
        t_wall: float,
    ) -> CerberusResult:
        """The run's result: times, states, usage samples, the policy's calls and the counters
        (with the stuck jobs by place and the solver calls)."""
        cfg, m, n = self.config, self.machine, self.n
        where, cols, counters = loop.where, loop.cols, loop.counters
        reject = cfg.reject_unfit
        sample_t, sample_cpu, sample_bb = samples
        stuck: dict[str, int] = {}
        for j in range(n):
            if state[j] == CerberusState.STUCK:
                key = where[j] or "running"
                stuck[key] = stuck.get(key, 0) + 1
        counters["stuck_by_place"] = stuck
        counters["knapsack_solves"] = len(calls)
        counters["solver_calls"] = sum(1 for c in calls if c.called)
        counters["solver_faults"] = sum(
            1 for c in calls if c.called and c.status in ("error", "timeout") and not c.selected
        )
        rejected = dict(self.rejected_counts) if reject else {"cores": 0, "bb": 0}
        times = {c: np.asarray(v, dtype=np.float64) for c, v in cols.items()}
        for a in times.values():
            a.setflags(write=False)
        return CerberusResult(
            workload=self.workload,
            machine=m,
            policy=self.policy.name,
            lifecycle=self.lifecycle,
            config=cfg,
            times=times,
            state=np.asarray(state, dtype=np.int8),
            cores=self.cores_arr,
            sample_t=np.asarray(sample_t),
            sample_cpu=np.asarray(sample_cpu),
            sample_bb=np.asarray(sample_bb) if self.policy.uses_bb else None,
            calls=tuple(calls),
            counters=counters,
            rejected=rejected,
            wall_s=time.perf_counter() - t_wall,
            solvers={
                q: str(getattr(sv, "id", sv))
                for q, sv in getattr(self.policy, "solvers", {}).items()
                if sv is not None and (q != "in" or cfg.stage_in_knapsack)
            },
        )
