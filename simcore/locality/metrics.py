"""The locality model's metrics (``papers/locality-evaluation-model.md`` §8), on category-1
(evaluated) jobs only, each described once as a ``MetricSpec`` (the group ``LOCALITY_METRICS``
registers under the entry-point group ``schedbench.metrics``).

* flow = end − submission; queue time = start − submission;
* **stretch** = flow / (delay + size / bandwidth): the denominator uses the full load time even
  when the job reused its file, and the delay even when the job was killed at its walltime;
* **bounded stretch**: the same with the denominator raised to at least 300 s;
* **transfer + wait**: per job the load time it paid plus the time it waited for a load in
  progress; the headline locality metric is their total;
* **core time** = Σ (end − start) × cores;
* **reduction** of a scheduler against its baseline (FCFS for plain schedulers, FCFS-BF for
  -BF) = (baseline − scheduler) / baseline;
* **user sessions**: the evaluated jobs sorted by file id, cut into maximal runs of one user id
  (the reference's ids, a new one at every change of user token in the file); a session's value
  is the sum of its jobs' stretches; improvement = baseline sum / scheduler sum, "equal" within
  1 % of 1.

The reference sums in single precision; we sum in double, so compare with it through relative
tolerances.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.errors import MetricsError
from schedbench.simcore.locality.engine import LocalityResult
from schedbench.simcore.metric_spec import MetricSpec

__all__ = [
    "LOCALITY_METRICS",
    "SessionComparison",
    "compare_sessions",
    "job_table",
    "locality_metrics",
    "reductions",
    "sessions",
]

_SRC = "locality model note §8"
#: §8: the denominator of the bounded stretch is at least this (s).
BOUNDED_STRETCH_MIN_S = 300.0
#: §8: session improvements within this of 1 count as "equal".
EQUAL_TOLERANCE = 0.01

LOCALITY_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "evaluated_jobs",
        "category-1 (evaluated) jobs of the locality workload",
        unit="count",
        source=_SRC,
        label="evaluated",
    ),
    MetricSpec(
        "transfer_wait_s",
        "sum over evaluated jobs of the load time paid plus the time waited for a load in "
        "progress (the headline locality metric)",
        unit="s",
        direction="lower",
        source=_SRC,
        label="transfer+wait",
    ),
    MetricSpec(
        "transfer_s",
        "sum over evaluated jobs of the load time paid",
        unit="s",
        direction="lower",
        source=_SRC,
    ),
    MetricSpec(
        "load_wait_s",
        "sum over evaluated jobs of the time waited for a load in progress by another job",
        unit="s",
        direction="lower",
        source=_SRC,
    ),
    MetricSpec(
        "mean_stretch",
        "mean of (end - submit) / (delay + size / bandwidth) over evaluated jobs (full load time "
        "in the denominator even when the file was reused)",
        direction="lower",
        source=_SRC,
        label="stretch",
    ),
    MetricSpec(
        "mean_bounded_stretch",
        "mean of (end - submit) / max(delay + size / bandwidth, 300 s) over evaluated jobs",
        direction="lower",
        source=_SRC,
        label="bounded stretch",
    ),
    MetricSpec(
        "max_stretch",
        "largest stretch of an evaluated job",
        direction="lower",
        source=_SRC,
    ),
    MetricSpec(
        "core_time_s",
        "sum over evaluated jobs of (end - start) x cores (core-seconds)",
        unit="s",
        direction="lower",
        source=_SRC,
        label="core time",
    ),
    MetricSpec(
        "queue_time_mean_s",
        "mean of start - submit over evaluated jobs",
        unit="s",
        direction="lower",
        source=_SRC,
        label="queue time",
    ),
    MetricSpec(
        "transfer_wait_reduction",
        "(baseline - scheduler) / baseline of transfer_wait_s; baseline FCFS, or FCFS-BF for -BF",
        unit="share",
        direction="higher",
        source=_SRC,
    ),
    MetricSpec(
        "mean_stretch_reduction",
        "(baseline - scheduler) / baseline of mean_stretch; baseline FCFS, or FCFS-BF for -BF",
        unit="share",
        direction="higher",
        source=_SRC,
    ),
    MetricSpec(
        "core_time_reduction",
        "(baseline - scheduler) / baseline of core_time_s; baseline FCFS, or FCFS-BF for -BF",
        unit="share",
        direction="higher",
        source=_SRC,
    ),
    MetricSpec(
        "sessions",
        "user sessions: maximal runs of one user id among evaluated jobs sorted by file id",
        unit="count",
        source=_SRC,
    ),
    MetricSpec(
        "sessions_faster",
        "sessions whose summed stretch improves on the baseline's by more than 1 %",
        unit="count",
        direction="higher",
        source=_SRC,
    ),
    MetricSpec(
        "sessions_equal",
        "sessions whose improvement (baseline sum / scheduler sum of stretches) is within 1 % of 1",
        unit="count",
        source=_SRC,
    ),
    MetricSpec(
        "sessions_slower",
        "sessions whose summed stretch is worse than the baseline's by more than 1 %",
        unit="count",
        direction="lower",
        source=_SRC,
    ),
    MetricSpec(
        "session_improvement_median",
        "median over sessions of baseline sum / scheduler sum of stretches",
        direction="higher",
        source=_SRC,
    ),
)


def _evaluated(result: LocalityResult) -> np.ndarray:
    ev = result.evaluated
    if ev.size and np.any(result.start[ev] < 0):
        missing = int(np.count_nonzero(result.start[ev] < 0))
        raise MetricsError(f"{missing} evaluated job(s) never started: the run is incomplete")
    return ev


def stretch_denominator(result: LocalityResult, rows: np.ndarray) -> np.ndarray:
    """delay + size / bandwidth (s) of ``rows`` (the reference's ``delay + size / 0.1``)."""
    w = result.workload
    size = w.file_gb[rows].astype(np.float32).astype(np.float64)
    return w.delay[rows] + size / result.platform.bandwidth_gbps


def job_table(result: LocalityResult) -> dict[str, np.ndarray]:
    """Per evaluated job: the columns of ``<scheduler>/jobs.csv``."""
    ev = _evaluated(result)
    w = result.workload
    flow = (result.end[ev] - w.submit[ev]).astype(np.float64)
    return {
        "job_id": w.job_id[ev],
        "submit_s": w.submit[ev],
        "start_s": result.start[ev],
        "end_s": result.end[ev],
        "node": result.node[ev],
        "cores": w.cores[ev],
        "transfer_s": result.transfer[ev],
        "load_wait_s": result.load_wait[ev],
        "stretch": flow / stretch_denominator(result, ev),
    }


def locality_metrics(result: LocalityResult) -> dict[str, Any]:
    """The §8 metrics of one run (the reductions and sessions need a baseline: see
    :func:`reductions` and :func:`compare_sessions`)."""
    ev = _evaluated(result)
    w = result.workload
    if ev.size == 0:
        raise MetricsError("the workload has no evaluated (category 1) job")
    flow = (result.end[ev] - w.submit[ev]).astype(np.float64)
    denom = stretch_denominator(result, ev)
    stretch = flow / denom
    bounded = flow / np.maximum(denom, BOUNDED_STRETCH_MIN_S)
    transfer = result.transfer[ev].astype(np.int64)
    wait = result.load_wait[ev].astype(np.int64)
    return {
        "evaluated_jobs": int(ev.size),
        "transfer_wait_s": int(transfer.sum() + wait.sum()),
        "transfer_s": int(transfer.sum()),
        "load_wait_s": int(wait.sum()),
        "mean_stretch": float(stretch.mean()),
        "mean_bounded_stretch": float(bounded.mean()),
        "max_stretch": float(stretch.max()),
        "core_time_s": int(np.sum((result.end[ev] - result.start[ev]) * w.cores[ev])),
        "queue_time_mean_s": float(np.mean(result.start[ev] - w.submit[ev])),
    }


def reductions(metrics: dict[str, Any], baseline: dict[str, Any]) -> dict[str, float | None]:
    """(baseline − scheduler) / baseline of transfer + wait, mean stretch and core time; None
    where the baseline is 0."""
    out: dict[str, float | None] = {}
    for key, name in (
        ("transfer_wait_s", "transfer_wait_reduction"),
        ("mean_stretch", "mean_stretch_reduction"),
        ("core_time_s", "core_time_reduction"),
    ):
        b = float(baseline[key])
        out[name] = None if b == 0 else (b - float(metrics[key])) / b
    return out


def baseline_of(scheduler: str) -> str:
    """FCFS for plain schedulers, FCFS-BF for -BF variants (§8)."""
    return "fcfs-bf" if scheduler.endswith("-bf") else "fcfs"


def sessions(result: LocalityResult) -> tuple[np.ndarray, np.ndarray]:
    """(session index of each evaluated job in file-id order, summed stretch per session)."""
    ev = _evaluated(result)
    w = result.workload
    order = ev[np.argsort(w.file[ev], kind="stable")]
    uid = w.user_id[order]
    cut = np.concatenate(([True], uid[1:] != uid[:-1]))
    sid = np.cumsum(cut) - 1
    flow = (result.end[order] - w.submit[order]).astype(np.float64)
    stretch = flow / stretch_denominator(result, order)
    sums = np.bincount(sid, weights=stretch)
    return order, sums


@dataclass(frozen=True, slots=True)
class SessionComparison:
    """Per-session improvement of a scheduler over its baseline (§8)."""

    improvement: np.ndarray
    faster: int
    equal: int
    slower: int

    def to_metrics(self) -> dict[str, Any]:
        return {
            "sessions": int(self.improvement.size),
            "sessions_faster": self.faster,
            "sessions_equal": self.equal,
            "sessions_slower": self.slower,
            "session_improvement_median": float(np.median(self.improvement))
            if self.improvement.size
            else None,
        }


def compare_sessions(result: LocalityResult, baseline: LocalityResult) -> SessionComparison:
    """Improvement = baseline's summed stretch / scheduler's, per session; within 1 % of 1 is
    "equal". Both runs must be on the same workload."""
    if result.workload is not baseline.workload and not np.array_equal(
        result.workload.job_id, baseline.workload.job_id
    ):
        raise MetricsError("compare_sessions: the two runs are on different workloads")
    _, mine = sessions(result)
    _, base = sessions(baseline)
    imp = base / mine
    faster = int(np.count_nonzero(imp > 1 + EQUAL_TOLERANCE))
    slower = int(np.count_nonzero(imp < 1 - EQUAL_TOLERANCE))
    return SessionComparison(imp, faster, int(imp.size) - faster - slower, slower)
