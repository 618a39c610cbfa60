"""A window of queued jobs to place on the nodes at once (beyond the paper,
docs/design.md#beyond-the-papers): the problem an exact solver answers so that the schedulers'
one-job-at-a-time decisions can be shown as a gap to the optimum on recorded scheduler runs.

Model (our choice; the paper has no window problem): at time ``now`` node ``n``'s cores free
at ``core_free[n]`` (the planner's view, §4: running jobs hold their cores until start +
walltime). Job ``j`` asks for ``cores[j]`` cores of one node for ``duration[j]`` seconds (its
walltime: what the planner reserves) and pays ``load[j, n]`` seconds of transfer or load wait
on node ``n`` — the load term TL of §6 evaluated from the file state at ``now`` (0 when the file
is there and loaded, the rest of a load in progress, else the full load). The cost of a
placement is

    Σ_j (start_j − now) + w_load · load[j, node_j]

(queue wait from now plus transfer + wait; minimising transfer + wait alone is degenerate, as
every job would wait for a node holding its file). Simplifications, stated because they bound
what the gap means: jobs of the window do not warm caches for each other, files of running
jobs are assumed to stay (as the planner assumes), and the load does not lengthen the
reservation (as in the planner). The heuristics' rules are evaluated in the same model
(:meth:`LocalityWindow.greedy`), so the gap compares like with like.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.errors import ConfigError

__all__ = ["RULES", "LocalityWindow", "WindowRecorder"]

#: the heuristics' scores in the window model: (weight of EAT, weight of TL)
RULES: dict[str, tuple[float, float]] = {
    "fcfs": (1.0, 0.0),  # earliest start, files ignored
    "eft": (1.0, 1.0),  # §6 EFT: (W_load, W_evict) = (1, 0)
    "lea": (1.0, 500.0),  # §6 LEA: W_load = 500 (the eviction term is outside this model)
}


@dataclass(frozen=True, slots=True, eq=False)
class LocalityWindow:
    """See the module docstring. ``core_free`` is nodes × cores_per_node (any order per row);
    ``load`` is jobs × nodes; times are whole seconds."""

    now: int
    core_free: np.ndarray
    cores: np.ndarray
    duration: np.ndarray
    load: np.ndarray
    w_load: float = 1.0
    label: str = field(default="")

    def __post_init__(self) -> None:
        cf = np.asarray(self.core_free, dtype=np.int64)
        if cf.ndim != 2 or cf.shape[0] < 1 or cf.shape[1] < 1:
            raise ConfigError(f"window core_free: expected nodes x cores, got shape {cf.shape}")
        cf = np.sort(np.maximum(cf, self.now), axis=1)
        object.__setattr__(self, "core_free", cf)
        k = len(self.cores)
        for name in ("cores", "duration"):
            v = np.asarray(getattr(self, name), dtype=np.int64)
            if v.shape != (k,):
                raise ConfigError(f"window {name}: expected {k} values, got shape {v.shape}")
            object.__setattr__(self, name, v)
        if k < 1:
            raise ConfigError("window: expected at least one job")
        if np.any(self.cores < 1) or np.any(self.cores > cf.shape[1]):
            raise ConfigError(
                f"window cores: expected 1..{cf.shape[1]} per job, got {self.cores.tolist()}"
            )
        if np.any(self.duration < 1):
            raise ConfigError("window duration: expected >= 1 s per job")
        ld = np.asarray(self.load, dtype=np.float64)
        if ld.shape != (k, cf.shape[0]) or not np.all(np.isfinite(ld)) or np.any(ld < 0):
            raise ConfigError(f"window load: expected {k} x {cf.shape[0]} finite values >= 0")
        object.__setattr__(self, "load", np.trunc(ld).astype(np.int64))
        if not (np.isfinite(self.w_load) and self.w_load >= 0):
            raise ConfigError(f"window w_load: expected a number >= 0, got {self.w_load!r}")

    @property
    def jobs(self) -> int:
        return int(self.cores.size)

    @property
    def nodes(self) -> int:
        return int(self.core_free.shape[0])

    def cost(
        self, nodes: Sequence[int] | np.ndarray, starts: Sequence[int] | np.ndarray
    ) -> tuple[float, int]:
        """(the cost, total transfer + wait) of a placement; raises ConfigError if it overfills
        a node or starts a job before ``now``."""
        n_arr = np.asarray(nodes, dtype=np.int64)
        s_arr = np.asarray(starts, dtype=np.int64)
        if n_arr.shape != (self.jobs,) or s_arr.shape != (self.jobs,):
            raise ConfigError(f"window placement: expected {self.jobs} nodes and starts")
        if np.any(s_arr < self.now) or np.any((n_arr < 0) | (n_arr >= self.nodes)):
            raise ConfigError("window placement: a start before now or a node out of range")
        C = self.core_free.shape[1]
        for n in np.unique(n_arr):
            rows = np.flatnonzero(n_arr == n)
            busy = self.core_free[n]
            t_ev = np.concatenate([s_arr[rows], s_arr[rows] + self.duration[rows]])
            for t in np.unique(t_ev):
                used = int(np.count_nonzero(busy > t))
                act = (s_arr[rows] <= t) & (t < s_arr[rows] + self.duration[rows])
                used += int(np.sum(self.cores[rows][act]))
                if used > C:
                    raise ConfigError(f"window placement: node {int(n)} overfilled at t={int(t)}")
        transfer = int(np.sum(self.load[np.arange(self.jobs), n_arr]))
        return float(np.sum(s_arr - self.now)) + self.w_load * transfer, transfer

    def greedy(self, rule: str) -> tuple[np.ndarray, np.ndarray]:
        """The placement a one-job-at-a-time rule makes (``RULES``): jobs in window order, each
        on the node of smallest ``a·EAT + b·TL`` (ties to the lowest node), at its EAT (the
        ``c``-th earliest core free time), those cores then busy until start + duration."""
        if rule not in RULES:
            raise ConfigError(f"window rule: expected one of {', '.join(RULES)}, got {rule!r}")
        a, b = RULES[rule]
        free = self.core_free.copy()
        nodes = np.empty(self.jobs, dtype=np.int64)
        starts = np.empty(self.jobs, dtype=np.int64)
        for j in range(self.jobs):
            c = int(self.cores[j])
            eat = free[:, c - 1]
            score = a * eat + b * self.load[j]
            n = int(np.argmin(score))
            s = int(eat[n])
            free[n, :c] = s + int(self.duration[j])
            free[n].sort()
            nodes[j], starts[j] = n, s
        return nodes, starts


class WindowRecorder:
    """A locality scheduler wrapper (the ``LocalityScheduler`` protocol of ``engine.py``) that
    records, at every full scheduler run with at least ``min_jobs`` queued jobs, the window of
    the first ``max_jobs`` of them (:class:`LocalityWindow`), then lets ``inner`` plan as
    usual: the run's schedule is unchanged."""

    def __init__(self, inner: Any, *, max_jobs: int = 6, min_jobs: int = 2, limit: int = 50):
        if max_jobs < 1 or min_jobs < 1 or limit < 0:
            raise ConfigError("WindowRecorder: expected max_jobs >= 1, min_jobs >= 1, limit >= 0")
        self.inner = inner
        self.name = inner.name
        self.backfill = inner.backfill
        self.uses_files = True  # the planner must rebuild the file intervals to read TL
        self.max_jobs = max_jobs
        self.min_jobs = min_jobs
        self.limit = limit
        self.windows: list[LocalityWindow] = []

    def plan(self, planner: Any, queue: Sequence[int], full: bool) -> None:
        if full and len(queue) >= self.min_jobs and len(self.windows) < self.limit:
            jobs = list(queue)[: self.max_jobs]
            now = int(planner.now)
            n_nodes = planner.total_cores // int(planner.core_times(0).size)
            core_free = np.stack([planner.core_times(n) for n in range(n_nodes)])
            at = np.full(n_nodes, now, dtype=np.int64)
            load = np.stack([np.asarray(planner.load_terms(j, at), dtype=np.float64) for j in jobs])
            self.windows.append(
                LocalityWindow(
                    now=now,
                    core_free=core_free,
                    cores=np.array([planner.cores[j] for j in jobs]),
                    duration=np.array([max(int(planner.walltime[j]), 1) for j in jobs]),
                    load=load,
                    label=f"t={now}",
                )
            )
        self.inner.plan(planner, queue, full)
