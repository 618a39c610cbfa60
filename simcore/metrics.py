"""Simulation metrics: every definition stated once, here, with its source.

All metrics are functions of a recorded :class:`~simcore.schedule.ScheduleResult` ; nothing
here runs a simulation or a solver, so a report can recompute any of them from stored results.

Measurement window (BBSched §4.2)
    BBSched uses the first half month of a trace to "warm up" the system and the last half month
    to "cool down" and reports the months in between. A :class:`MeasurementWindow` resolves
    against a result to the interval ``[t_lo, t_hi]`` with

        t_lo = first submit + warm-up,    t_hi = last submit − cool-down,

    both measured on the submit axis. Per-job metrics use the jobs *submitted* in
    ``[t_lo, t_hi]`` (both ends included) that ran, i.e. whose state is COMPLETED or KILLED
    (the "measured" jobs); REJECTED and UNFINISHED jobs of the window are counted but never
    averaged (they have no wait or run). Usage metrics integrate the usage timeline over the same
    ``[t_lo, t_hi]``. A window with ``t_hi < t_lo``, or ``t_hi == t_lo`` after a warm-up or
    cool-down was asked for, is an error; with no trimming at all a zero-length window (a single
    submit instant) leaves the usage metrics undefined (None) and the per-job metrics intact.

Usage timeline
    ``usage[i]`` holds on ``[usage_t[i], usage_t[i+1])``; nothing is in use before
    ``usage_t[0]``; the last row holds from ``usage_t[-1]`` on (a simulator that ends with every
    job finished records a final all-zero row). The integral over a window is computed exactly by
    clipping each step to the window.

Whole-run metrics
    Makespan, throughput and the decision-latency statistics are over the whole run, not the
    window: makespan has no meaning on part of a run, and decisions carry no timestamps.

JSON
    :func:`compute_metrics` returns plain ``int``/``float``/``None`` values (never numpy scalars,
    never NaN or infinity: an undefined value is None), flat metric keys, and two nested
    mappings: ``definitions`` (key → the one-line definition in :data:`METRIC_DEFINITIONS`) and
    ``parameters`` (the window and thresholds the numbers depend on).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.errors import MetricsError
from schedbench.simcore.indicators import latency_stats
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.problem import DEFAULT_DEADLINE_S
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


#: Half a month, as BBSched's warm-up and cool-down (§4.2): 15 days.
HALF_MONTH_S = 15 * 86_400.0

#: BBSched filters "abnormal jobs" from the average slowdown (§4.2) without stating the rule;
#: ours: a job whose actual run (end − start) is shorter than this many seconds is abnormal.
DEFAULT_ABNORMAL_RUN_S = 60.0

#: τ of the bounded slowdown (Feitelson et al. 1997; RLScheduler uses the same).
DEFAULT_TAU_S = 10.0

_NODES, _BB, _SSD_REQ, _SSD_ASSIGNED = (
    USAGE_COLUMNS.index(c) for c in ("nodes", "bb_gb", "ssd_requested_gb", "ssd_assigned_gb")
)


# ---------------------------------------------------------------------------------------------
# The definitions, once: compute_metrics' keys and the strings its JSON carries.
# ---------------------------------------------------------------------------------------------

#: Every metric key of :func:`compute_metrics` described once: unit, direction, definition,
#: source (``simcore/catalogue.py`` gathers these with the other metrics).
SIMULATION_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "window_start_s",
        "t_lo = first submit + warm-up (s); start of the measurement window",
        unit="s",
        direction="none",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "window_end_s",
        "t_hi = last submit - cool-down (s); end of the measurement window",
        unit="s",
        direction="none",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "jobs_total", "jobs in the workload (whole run)", unit="count", direction="none", source=""
    ),
    MetricSpec(
        "jobs_in_window",
        "jobs submitted in [t_lo, t_hi], any state",
        unit="count",
        direction="none",
        source="",
    ),
    MetricSpec(
        "jobs_measured",
        "jobs submitted in [t_lo, t_hi] that ran (COMPLETED or KILLED); the per-job statistics average over these",
        unit="count",
        direction="none",
        source="",
    ),
    MetricSpec(
        "jobs_completed",
        "jobs submitted in the window that ran their full trace runtime",
        unit="count",
        direction="none",
        source="",
    ),
    MetricSpec(
        "jobs_killed",
        "jobs submitted in the window killed at their requested time",
        unit="count",
        direction="none",
        source="",
    ),
    MetricSpec(
        "jobs_rejected",
        "jobs submitted in the window that can never fit the machine",
        unit="count",
        direction="none",
        source="",
    ),
    MetricSpec(
        "jobs_unfinished",
        "jobs submitted in the window still queued or running at the end",
        unit="count",
        direction="lower",
        source="",
    ),
    MetricSpec(
        "node_usage",
        "integral of nodes in use over [t_lo, t_hi] / (total nodes * (t_hi - t_lo)) (BBSched 4.2)",
        unit="share",
        direction="higher",
        source="BBSched §4.2",
        short="node-hours used / available",
    ),
    MetricSpec(
        "bb_usage",
        "integral of burst-buffer GB in use over [t_lo, t_hi] / (BB capacity * (t_hi - t_lo)); None without a burst buffer (BBSched 4.2)",
        unit="share",
        direction="higher",
        source="BBSched §4.2",
        short="burst-buffer GB-hours used / available",
    ),
    MetricSpec(
        "ssd_usage",
        "integral of requested local-SSD GB in use over [t_lo, t_hi] / (total SSD GB * (t_hi - t_lo)); None without local SSD (BBSched 5, f3)",
        unit="share",
        direction="higher",
        source="BBSched §5 (f3)",
        short="requested SSD GB-hours / available",
    ),
    MetricSpec(
        "ssd_waste",
        "(integral of assigned - integral of requested local-SSD GB) / integral of assigned, over [t_lo, t_hi]; None without local SSD or with none assigned (BBSched 5, f4)",
        unit="share",
        direction="lower",
        source="BBSched §5 (f4)",
        short="SSD assigned but not requested",
    ),
    MetricSpec(
        "wait_mean_s",
        "mean of wait = start - submit over measured jobs (s)",
        unit="s",
        direction="lower",
        source="BBSched §4.2",
        short="mean wait (start - submit)",
    ),
    MetricSpec(
        "wait_median_s",
        "median wait over measured jobs (s)",
        unit="s",
        direction="lower",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "wait_p95_s",
        "95th percentile of wait over measured jobs (s, linear interpolation)",
        unit="s",
        direction="lower",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "wait_max_s",
        "largest wait over measured jobs (s)",
        unit="s",
        direction="lower",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "slowdown_mean",
        "mean of (wait + run) / run, run = end - start, over measured jobs with run >= abnormal_run_s (BBSched 4.2 with our abnormal-job rule)",
        unit="",
        direction="lower",
        source="BBSched §4.2",
        short="mean slowdown",
    ),
    MetricSpec(
        "slowdown_median",
        "median slowdown over the same jobs as slowdown_mean",
        unit="",
        direction="lower",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "slowdown_max",
        "largest slowdown over the same jobs as slowdown_mean",
        unit="",
        direction="lower",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "slowdown_excluded",
        "measured jobs left out of the slowdown as abnormal (run < abnormal_run_s, or run <= 0)",
        unit="count",
        direction="none",
        source="BBSched §4.2",
    ),
    MetricSpec(
        "bounded_slowdown_mean",
        "mean of max((wait + run) / max(run, tau), 1) over measured jobs (Feitelson et al. 1997)",
        unit="",
        direction="lower",
        source="Feitelson et al. 1997",
        short="mean bounded slowdown (tau = 10 s)",
    ),
    MetricSpec(
        "bounded_slowdown_median",
        "median bounded slowdown over measured jobs",
        unit="",
        direction="lower",
        source="Feitelson et al. 1997",
    ),
    MetricSpec(
        "bounded_slowdown_max",
        "largest bounded slowdown over measured jobs",
        unit="",
        direction="lower",
        source="Feitelson et al. 1997",
    ),
    MetricSpec(
        "makespan_s",
        "last resource release - first submit, whole run (s)",
        unit="s",
        direction="lower",
        source="",
        short="last release - first submit",
    ),
    MetricSpec(
        "throughput_jobs_per_s",
        "jobs that ran (COMPLETED or KILLED), whole run / makespan_s",
        unit="s",
        direction="higher",
        source="",
    ),
    MetricSpec(
        "decisions",
        "scheduling decisions with a recorded solver latency, whole run",
        unit="count",
        direction="none",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "decision_latency_median_s",
        "median solver latency per decision (s)",
        unit="s",
        direction="lower",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "decision_latency_p95_s",
        "95th percentile of solver latency per decision (s)",
        unit="s",
        direction="lower",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "decision_latency_max_s",
        "largest solver latency per decision (s)",
        unit="s",
        direction="lower",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "decision_latency_total_s",
        "total solver latency over all decisions (s)",
        unit="s",
        direction="lower",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "decision_within_budget",
        "share of decisions whose latency is <= budget_s",
        unit="share",
        direction="higher",
        source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
    ),
    MetricSpec(
        "offered_node_load",
        "sum over jobs submitted in [t_lo, t_hi] of nodes * min(runtime, requested time) / "
        "(total nodes * (t_hi - t_lo)); the load the workload offers, whatever the schedule",
        unit="share",
        direction="none",
        source="schedbench load knob (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)",
        short="offered node load",
    ),
    MetricSpec(
        "offered_bb_load",
        "the same for the burst buffer: sum of bb_gb * min(runtime, requested time) / "
        "(BB capacity * (t_hi - t_lo)); None without a burst buffer",
        unit="share",
        direction="none",
        source="schedbench load knob (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)",
        short="offered BB load",
    ),
    MetricSpec(
        "choice_passes",
        "window-policy passes in which the window jobs that fit on their own do not all fit "
        "together (a real choice), whole run; None for policies without a window",
        unit="count",
        direction="none",
        source="BBSched §3.1; schedbench (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)",
    ),
    MetricSpec(
        "solver_pass_share",
        "share of the passes with a real choice whose window reached the solver (the rest went "
        "down the starvation path); None without such passes",
        unit="share",
        direction="none",
        source="BBSched §3.1; schedbench (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)",
        short="passes with a choice that reach the solver",
    ),
    MetricSpec(
        "starvation_blocked",
        "passes with a real choice in which starved jobs were started and the solver was not "
        "called, whole run; None for policies without a window",
        unit="count",
        direction="none",
        source="BBSched §3.1; schedbench (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)",
    ),
)

#: Below this share of the passes with a choice reaching the solver, a run is warned about: the
#: optimiser decided less than half of what it was there to decide
#: (docs/design.md#the-bbsched-regime-starvation-ageing-and-load).
SOLVER_PASS_WARN = 0.5

#: key -> one-line definition (what ``metrics.json`` carries under ``definitions``).
METRIC_DEFINITIONS: dict[str, str] = {m.name: m.definition for m in SIMULATION_METRICS}


# ---------------------------------------------------------------------------------------------
# Measurement window
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeasurementWindow:
    """Warm-up and cool-down trimmed off the submit span; see the module docstring.

    Give each side in seconds (``warmup_s``, ``cooldown_s``) or as a fraction of the submit span
    (``warmup_fraction``, ``cooldown_fraction``; :meth:`fractions`), not both. The default trims
    nothing; :meth:`bbsched` trims half a month (15 days) at each end, as BBSched §4.2.
    """

    warmup_s: float = 0.0
    cooldown_s: float = 0.0
    warmup_fraction: float = 0.0
    cooldown_fraction: float = 0.0

    def __post_init__(self) -> None:
        for name in ("warmup_s", "cooldown_s", "warmup_fraction", "cooldown_fraction"):
            value = getattr(self, name)
            if not (_is_real(value) and math.isfinite(value) and value >= 0):
                raise MetricsError(
                    f"MeasurementWindow.{name}: expected a number >= 0, got {value!r}"
                )
        for name in ("warmup_fraction", "cooldown_fraction"):
            if getattr(self, name) >= 1:
                raise MetricsError(
                    f"MeasurementWindow.{name}: expected a fraction < 1, got {getattr(self, name)!r}"
                )
        for side in ("warmup", "cooldown"):
            if getattr(self, f"{side}_s") > 0 and getattr(self, f"{side}_fraction") > 0:
                raise MetricsError(
                    f"MeasurementWindow: give {side}_s or {side}_fraction, not both "
                    f"(got {getattr(self, f'{side}_s')!r} and {getattr(self, f'{side}_fraction')!r})"
                )

    @classmethod
    def bbsched(cls) -> MeasurementWindow:
        """BBSched §4.2: the first and the last half month (15 days = 1,296,000 s) are excluded."""
        return cls(warmup_s=HALF_MONTH_S, cooldown_s=HALF_MONTH_S)

    @classmethod
    def fractions(cls, warmup: float = 0.0, cooldown: float = 0.0) -> MeasurementWindow:
        """Trim these fractions of the submit span (last submit − first submit) at each end."""
        return cls(warmup_fraction=warmup, cooldown_fraction=cooldown)

    @property
    def trims(self) -> bool:
        return any((self.warmup_s, self.cooldown_s, self.warmup_fraction, self.cooldown_fraction))

    def resolve(self, source: ScheduleResult | Workload) -> tuple[float, float]:
        """``(t_lo, t_hi)`` for a result (or its workload); raises :class:`MetricsError` when the
        workload is empty or the window is inverted (or empty after trimming)."""
        workload = source.workload if isinstance(source, ScheduleResult) else source
        if len(workload) == 0:
            raise MetricsError("measurement window: the workload has no jobs")
        first, last = float(workload.submit[0]), float(workload.submit[-1])
        span = last - first
        warmup = self.warmup_s + self.warmup_fraction * span
        cooldown = self.cooldown_s + self.cooldown_fraction * span
        t_lo, t_hi = first + warmup, last - cooldown
        if t_hi < t_lo or (t_hi == t_lo and self.trims):
            raise MetricsError(
                f"measurement window is empty: t_lo = first submit {first:g} + warm-up {warmup:g} "
                f"= {t_lo:g} s, t_hi = last submit {last:g} - cool-down {cooldown:g} = {t_hi:g} s; "
                f"need t_hi > t_lo (the submit span is {span:g} s)"
            )
        return t_lo, t_hi


#: The default window: nothing trimmed.
NO_TRIM = MeasurementWindow()


# ---------------------------------------------------------------------------------------------
# Usage (system-level metrics)
# ---------------------------------------------------------------------------------------------


def integrate_usage(usage_t: np.ndarray, usage: np.ndarray, t_lo: float, t_hi: float) -> np.ndarray:
    """Exact ∫ usage dt over ``[t_lo, t_hi]`` of the step function, one value per column.

    Row ``i`` holds on ``[usage_t[i], usage_t[i+1])``, the last row from ``usage_t[-1]`` on, and
    nothing before ``usage_t[0]``; each step is clipped to the window:
    ``Σ_i (min(t_{i+1}, t_hi) − max(t_i, t_lo))⁺ · usage[i]``.
    """
    t = np.asarray(usage_t, dtype=np.float64)
    u = np.asarray(usage, dtype=np.float64)
    if u.ndim != 2 or u.shape[0] != t.shape[0] or t.ndim != 1:
        raise MetricsError(
            f"usage timeline: expected usage_t (T,) and usage (T, C), got {t.shape} and {u.shape}"
        )
    if t.size == 0 or not t_hi > t_lo:
        return np.zeros(u.shape[1])
    backwards = np.flatnonzero(np.diff(t) < 0)
    if backwards.size:
        i = int(backwards[0]) + 1
        raise MetricsError(f"usage_t[{i}] = {t[i]!r} comes before usage_t[{i - 1}] = {t[i - 1]!r}")
    lo = np.clip(t, t_lo, t_hi)  # step starts inside the window
    hi = np.empty_like(lo)
    hi[:-1] = lo[1:]
    hi[-1] = t_hi  # the last step holds to the end of the window
    return (hi - lo) @ u


def _usage_integrals(result: ScheduleResult, t_lo: float, t_hi: float) -> np.ndarray:
    if result.usage.shape[1:] != (len(USAGE_COLUMNS),):
        raise MetricsError(
            f"usage timeline: expected {len(USAGE_COLUMNS)} columns {USAGE_COLUMNS}, "
            f"got shape {result.usage.shape}"
        )
    return integrate_usage(result.usage_t, result.usage, t_lo, t_hi)


def _share(used: float, capacity: float, t_lo: float, t_hi: float) -> float | None:
    """used resource-seconds / available resource-seconds; None when either is zero."""
    available = capacity * (t_hi - t_lo)
    return used / available if available > 0 else None


def node_usage(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> float | None:
    """Node usage = ∫_{t_lo}^{t_hi} nodes in use dt / (total nodes × (t_hi − t_lo)).

    BBSched §4.2 ("the ratio of the used node-hours for useful job execution to the elapsed
    node-hours"): used resource-seconds over available resource-seconds. None for a zero-length
    window.
    """
    t_lo, t_hi = window.resolve(result)
    used = _usage_integrals(result, t_lo, t_hi)[_NODES]
    return _share(used, float(result.capacity[_NODES]), t_lo, t_hi)


def bb_usage(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> float | None:
    """Burst-buffer usage = ∫_{t_lo}^{t_hi} BB GB in use dt / (BB capacity × (t_hi − t_lo)).

    BBSched §4.2 ("the ratio of the used burst buffer hours to the elapsed burst buffer hours").
    None when the machine has no burst buffer (capacity 0) or the window has zero length.
    """
    t_lo, t_hi = window.resolve(result)
    used = _usage_integrals(result, t_lo, t_hi)[_BB]
    return _share(used, float(result.capacity[_BB]), t_lo, t_hi)


def ssd_usage(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> float | None:
    """Local-SSD usage = ∫ requested SSD GB in use dt / (total SSD GB × (t_hi − t_lo)).

    BBSched §5, objective f3 = Σ s_i·n_i·x_i (requested GB per node × nodes): the SSD a job asked
    for counts as used, the surplus of a larger node's SSD does not (that is :func:`ssd_waste`).
    Total SSD GB = Σ count · ssd_gb over node groups (``capacity``). None without local SSD.
    """
    t_lo, t_hi = window.resolve(result)
    used = _usage_integrals(result, t_lo, t_hi)[_SSD_REQ]
    return _share(used, float(result.capacity[_SSD_REQ]), t_lo, t_hi)


def _waste(integrals: np.ndarray, ssd_capacity: float) -> float | None:
    assigned, requested = float(integrals[_SSD_ASSIGNED]), float(integrals[_SSD_REQ])
    if ssd_capacity <= 0 or assigned <= 0:
        return None
    return (assigned - requested) / assigned


def ssd_waste(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> float | None:
    """Wasted local SSD = (∫ assigned SSD GB dt − ∫ requested SSD GB dt) / ∫ assigned SSD GB dt.

    BBSched §5, objective f4 = −Σ_i Σ_j (l_ij − s_i)·x_i: a node j given to job i holds l_ij GB of
    SSD of which the job asked for s_i; the difference is wasted. We report the wasted share of
    the SSD held by jobs over the window (0 = every assigned GB was requested). None when the
    machine has no local SSD, or no SSD was assigned during the window (0/0).
    """
    t_lo, t_hi = window.resolve(result)
    return _waste(_usage_integrals(result, t_lo, t_hi), float(result.capacity[_SSD_ASSIGNED]))


# ---------------------------------------------------------------------------------------------
# Per-job (user-level) metrics
# ---------------------------------------------------------------------------------------------


def _in_window(result: ScheduleResult, t_lo: float, t_hi: float) -> np.ndarray:
    submit = result.workload.submit
    return (submit >= t_lo) & (submit <= t_hi)


def _ran(result: ScheduleResult) -> np.ndarray:
    state = np.asarray(result.state)
    return (state == JobState.COMPLETED) | (state == JobState.KILLED)


def _measured_mask(result: ScheduleResult, t_lo: float, t_hi: float) -> np.ndarray:
    mask = _in_window(result, t_lo, t_hi) & _ran(result)
    bad = mask & ~(np.isfinite(result.start) & np.isfinite(result.end))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise MetricsError(
            f"job {int(result.workload.job_id[i])} (row {i}) is {JobState(int(result.state[i])).name}"
            f" but has start {result.start[i]!r} and end {result.end[i]!r}"
        )
    return mask


def measured_jobs(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> np.ndarray:
    """Boolean mask of the measured jobs: submitted in ``[t_lo, t_hi]`` and COMPLETED or KILLED."""
    return _measured_mask(result, *window.resolve(result))


def _wait(result: ScheduleResult, mask: np.ndarray) -> np.ndarray:
    return result.start[mask] - result.workload.submit[mask]


def _run(result: ScheduleResult, mask: np.ndarray) -> np.ndarray:
    return result.end[mask] - result.start[mask]


def wait_times(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> np.ndarray:
    """Wait = start − submit (s), per measured job (BBSched §4.2: "the interval between job
    submission to job start time")."""
    return _wait(result, measured_jobs(result, window))


def _slowdown(wait: np.ndarray, run: np.ndarray, abnormal_run_s: float) -> tuple[np.ndarray, int]:
    normal = (run >= abnormal_run_s) & (run > 0)
    return (wait[normal] + run[normal]) / run[normal], int(normal.size - np.count_nonzero(normal))


def slowdowns(
    result: ScheduleResult,
    window: MeasurementWindow = NO_TRIM,
    *,
    abnormal_run_s: float = DEFAULT_ABNORMAL_RUN_S,
) -> tuple[np.ndarray, int]:
    """Slowdown = (wait + run) / run with run = end − start, per measured job that is not
    abnormal; returns the slowdowns and how many measured jobs were excluded.

    BBSched §4.2: "the ratio of the job response time (job runtime plus wait time) to its actual
    runtime", averaged after filtering out "abnormal jobs [that] end abruptly at beginning of
    execution". The paper does not state its rule; ours: a job is abnormal when its actual run is
    shorter than ``abnormal_run_s`` (default 60 s). Jobs with run <= 0 are always excluded (the
    ratio is undefined), also when ``abnormal_run_s`` is 0.
    """
    _check_nonneg("abnormal_run_s", abnormal_run_s)
    mask = measured_jobs(result, window)
    return _slowdown(_wait(result, mask), _run(result, mask), abnormal_run_s)


def _bounded_slowdown(wait: np.ndarray, run: np.ndarray, tau_s: float) -> np.ndarray:
    return np.maximum((wait + run) / np.maximum(run, tau_s), 1.0)


def bounded_slowdowns(
    result: ScheduleResult, window: MeasurementWindow = NO_TRIM, *, tau_s: float = DEFAULT_TAU_S
) -> np.ndarray:
    """Bounded slowdown = max((wait + run) / max(run, τ), 1), τ = 10 s, per measured job.

    Feitelson, Rudolph, Schwiegelshohn, Sevcik and Wong, "Theory and practice in parallel job
    scheduling", JSSPP 1997; τ = 10 s, as RLScheduler. No job is filtered: τ keeps
    very short jobs from dominating.
    """
    _check_positive("tau_s", tau_s)
    mask = measured_jobs(result, window)
    return _bounded_slowdown(_wait(result, mask), _run(result, mask), tau_s)


def state_counts(result: ScheduleResult, window: MeasurementWindow = NO_TRIM) -> dict[str, int]:
    """Jobs submitted in ``[t_lo, t_hi]`` by final state: ``completed``, ``killed``, ``rejected``,
    ``unfinished`` (:class:`~simcore.schedule.JobState`)."""
    t_lo, t_hi = window.resolve(result)
    return _state_counts(np.asarray(result.state)[_in_window(result, t_lo, t_hi)])


def _state_counts(states: np.ndarray) -> dict[str, int]:
    counts = np.bincount(states.astype(np.int64), minlength=len(JobState))
    return {s.name.lower(): int(counts[s.value]) for s in JobState}


# ---------------------------------------------------------------------------------------------
# Whole-run metrics
# ---------------------------------------------------------------------------------------------


def makespan(result: ScheduleResult) -> float | None:
    """Makespan = latest ``last_release`` over jobs that started − first submit (s), whole run.

    ``last_release`` is when a job freed its last resource (after stage-out in the three-phase
    lifecycle). None when no job started.
    """
    released = np.asarray(result.last_release)[result.started()]
    released = released[np.isfinite(released)]
    if released.size == 0 or len(result.workload) == 0:
        return None
    return float(released.max() - result.workload.submit[0])


def throughput(result: ScheduleResult) -> float | None:
    """Throughput = jobs that ran (COMPLETED or KILLED) over the whole run / makespan (jobs/s).

    None when the makespan is undefined or zero.
    """
    span = makespan(result)
    if span is None or span <= 0:
        return None
    return int(np.count_nonzero(_ran(result))) / span


def decision_latency_stats(
    latency_s: np.ndarray, *, budget_s: float = DEFAULT_DEADLINE_S
) -> dict[str, float | int | None]:
    """Solver latency per scheduling decision: count, median, p95 (linear interpolation), max,
    total, and the share within ``budget_s`` (default 15 s, BBSched §1's lower bound on what a
    production scheduler tolerates; docs/design.md#quality-and-latency-of-a-decision). Keys as in
    :func:`compute_metrics`; statistics are None without decisions."""
    _check_positive("budget_s", budget_s)
    lat = np.asarray(latency_s, dtype=np.float64).ravel()
    if lat.size and not np.all(np.isfinite(lat)):
        i = int(np.flatnonzero(~np.isfinite(lat))[0])
        raise MetricsError(f"decision_latency_s[{i}]: expected a finite number, got {lat[i]!r}")
    stats = latency_stats(lat, budget_s)  # the one definition (simcore/indicators.py)
    return {
        "decisions": int(lat.size),
        "decision_latency_median_s": stats["median_s"],
        "decision_latency_p95_s": stats["p95_s"],
        "decision_latency_max_s": stats["max_s"],
        "decision_latency_total_s": float(lat.sum()),
        "decision_within_budget": stats["share_within_budget"],
    }


# ---------------------------------------------------------------------------------------------
# Everything at once
# ---------------------------------------------------------------------------------------------


def compute_metrics(
    result: ScheduleResult,
    window: MeasurementWindow = NO_TRIM,
    *,
    abnormal_run_s: float = DEFAULT_ABNORMAL_RUN_S,
    tau_s: float = DEFAULT_TAU_S,
    budget_s: float = DEFAULT_DEADLINE_S,
) -> dict[str, Any]:
    """Every metric of :data:`METRIC_DEFINITIONS` as a JSON-safe flat dict, plus ``definitions``
    (key → definition) and ``parameters`` (window and thresholds used)."""
    _check_nonneg("abnormal_run_s", abnormal_run_s)
    _check_positive("tau_s", tau_s)
    _check_positive("budget_s", budget_s)
    t_lo, t_hi = window.resolve(result)
    first, last = float(result.workload.submit[0]), float(result.workload.submit[-1])

    in_window = _in_window(result, t_lo, t_hi)
    counts = _state_counts(np.asarray(result.state)[in_window])
    mask = _measured_mask(result, t_lo, t_hi)
    wait, run = _wait(result, mask), _run(result, mask)
    slow, excluded = _slowdown(wait, run, abnormal_run_s)
    bounded = _bounded_slowdown(wait, run, tau_s)

    integrals = _usage_integrals(result, t_lo, t_hi)
    cap = np.asarray(result.capacity, dtype=np.float64)
    wait_median, wait_p95 = _percentiles(wait)
    slow_median = _percentiles(slow, (50.0,))[0]
    bounded_median = _percentiles(bounded, (50.0,))[0]

    metrics: dict[str, Any] = {
        "window_start_s": t_lo,
        "window_end_s": t_hi,
        "jobs_total": len(result.workload),
        "jobs_in_window": int(np.count_nonzero(in_window)),
        "jobs_measured": int(np.count_nonzero(mask)),
        "jobs_completed": counts["completed"],
        "jobs_killed": counts["killed"],
        "jobs_rejected": counts["rejected"],
        "jobs_unfinished": counts["unfinished"],
        "node_usage": _share(integrals[_NODES], cap[_NODES], t_lo, t_hi),
        "bb_usage": _share(integrals[_BB], cap[_BB], t_lo, t_hi),
        "ssd_usage": _share(integrals[_SSD_REQ], cap[_SSD_REQ], t_lo, t_hi),
        "ssd_waste": _waste(integrals, float(cap[_SSD_ASSIGNED])),
        "wait_mean_s": _mean(wait),
        "wait_median_s": wait_median,
        "wait_p95_s": wait_p95,
        "wait_max_s": _max(wait),
        "slowdown_mean": _mean(slow),
        "slowdown_median": slow_median,
        "slowdown_max": _max(slow),
        "slowdown_excluded": excluded,
        "bounded_slowdown_mean": _mean(bounded),
        "bounded_slowdown_median": bounded_median,
        "bounded_slowdown_max": _max(bounded),
        "makespan_s": makespan(result),
        "throughput_jobs_per_s": throughput(result),
        **decision_latency_stats(result.decision_latency_s, budget_s=budget_s),
        **_offered(result.workload, result.system, t_lo, t_hi),
        **window_pass_stats(result.counters),
    }
    metrics = {key: _json_value(value) for key, value in metrics.items()}
    metrics["definitions"] = dict(METRIC_DEFINITIONS)
    metrics["parameters"] = {
        "warmup_s": t_lo - first,
        "cooldown_s": last - t_hi,
        "abnormal_run_s": float(abnormal_run_s),
        "tau_s": float(tau_s),
        "budget_s": float(budget_s),
    }
    return metrics


# ---------------------------------------------------------------------------------------------
# Offered load and the window policy's reach
# (docs/design.md#the-bbsched-regime-starvation-ageing-and-load)
# ---------------------------------------------------------------------------------------------


def offered_load(
    workload: Workload,
    system: System,
    t_lo: float | None = None,
    t_hi: float | None = None,
) -> dict[str, float | None]:
    """The load a workload offers a machine, per resource, whatever the schedule.

    ``nodes``: Σ nodes_i · min(runtime_i, requested_i) over the jobs submitted in ``[t_lo,
    t_hi]``, divided by ``total nodes · (t_hi − t_lo)``; ``bb`` the same with the burst-buffer
    request and capacity (None without a burst buffer). A job holds what it takes for its
    run, which ends at its request at the latest (docs/design.md#one-engine-semantics-stated-once),
    so min(runtime, request) is the demand it brings (the classic lifecycle: staging is not
    counted). Default window: the whole submit span. Above 1 the queue cannot stay bounded; the
    usage a schedule reaches is at most the offered load over a long enough run. None for an empty
    window.
    """
    n = len(workload)
    if n == 0:
        return {"nodes": None, "bb": None}
    submit = workload.submit
    lo = float(submit[0]) if t_lo is None else float(t_lo)
    hi = float(submit[-1]) if t_hi is None else float(t_hi)
    if not hi > lo:
        return {"nodes": None, "bb": None}
    mask = (submit >= lo) & (submit <= hi)
    run = np.minimum(workload.runtime[mask], workload.requested_time[mask])
    span = hi - lo
    nodes = float(np.dot(workload.nodes[mask].astype(np.float64), run)) / (system.nodes * span)
    bb = (
        float(np.dot(workload.bb_gb[mask], run)) / (system.bb_gb * span)
        if system.bb_gb > 0
        else None
    )
    return {"nodes": nodes, "bb": bb}


def _offered(workload: Workload, system: System, t_lo: float, t_hi: float) -> dict[str, Any]:
    load = offered_load(workload, system, t_lo, t_hi)
    return {"offered_node_load": load["nodes"], "offered_bb_load": load["bb"]}


def window_pass_stats(counters: Mapping[str, Any]) -> dict[str, Any]:
    """``choice_passes``, ``solver_pass_share`` and ``starvation_blocked`` from a run's policy
    counters (``simcore/policies.py``, ``WindowPolicy``); all None for a policy that does not
    report them (no window)."""
    if "choice_passes" not in counters:
        return {"choice_passes": None, "solver_pass_share": None, "starvation_blocked": None}
    choice = int(counters.get("choice_passes", 0))
    solved = int(counters.get("choice_passes_solver", 0))
    return {
        "choice_passes": choice,
        "solver_pass_share": solved / choice if choice else None,
        "starvation_blocked": int(counters.get("starvation_blocked", 0)),
    }


def solver_pass_warning(metrics: Mapping[str, Any]) -> str | None:
    """A warning when fewer than half of the passes with a real choice reached the solver
    (:data:`SOLVER_PASS_WARN`): the window policy then measures its starvation rule more than
    its optimiser. None otherwise."""
    share = metrics.get("solver_pass_share")
    if share is None or share >= SOLVER_PASS_WARN:
        return None
    return (
        f"warning: only {100 * share:.0f} % of the {metrics.get('choice_passes')} passes with a "
        f"real choice reached the solver ({metrics.get('starvation_blocked')} blocked by "
        "starvation); the results measure the starvation rule more than the optimiser "
        "(see WindowPolicy's ageing and starvation_bound)"
    )


# ---------------------------------------------------------------------------------------------
# Breakdowns (BBSched §4.4, Figures 9-11)
# ---------------------------------------------------------------------------------------------

#: Job-size bin lower edges (nodes). BBSched Figure 9's text names only its smallest (1-8) and
#: largest (1024-4392, Theta's full size) bins; the three between are our choice, growing by
#: about 4-8x. Each bin is [edge, next edge); the last is capped at the machine size.
SIZE_EDGES: tuple[float, ...] = (1, 9, 65, 257, 1024)

#: Burst-buffer bin edges (GB; 1 TB = 1000 GB) after the "none" bin (bb = 0). BBSched Figure 10's
#: text names "no BB", 100-200 TB and > 200 TB; the lower bins are our choice. Bins (edge, next].
BB_EDGES: tuple[float, ...] = (0, 10_000, 50_000, 100_000, 200_000)

#: Runtime bin edges (s): < 1 h, 1-3 h, 3-6 h, 6-12 h, >= 12 h (BBSched Figure 11 does not list
#: its bins in the text; ours). Bins [edge, next).
RUNTIME_EDGES: tuple[float, ...] = (0, 3_600, 10_800, 21_600, 43_200)

BREAKDOWNS: tuple[str, ...] = ("size", "bb", "runtime")


def breakdown(
    result: ScheduleResult,
    by: str,
    window: MeasurementWindow = NO_TRIM,
    *,
    bins: Sequence[float] | None = None,
    tau_s: float = DEFAULT_TAU_S,
) -> list[dict[str, Any]]:
    """Average wait (and count, mean bounded slowdown) of the measured jobs per bin of ``by``.

    ``by`` is one of:

    ``"size"``     requested nodes; bins ``[e_k, e_{k+1})``, the last open-ended and capped at the
                   machine size (labels like ``"1-8"``, ``"1024-4392"``); bins starting above the
                   machine are dropped. Default edges :data:`SIZE_EDGES` (BBSched Figure 9).
    ``"bb"``       burst-buffer request; a ``"none"`` bin (bb = 0), then ``(e_k, e_{k+1}]`` GB and
                   the last open-ended, labelled in TB. Default :data:`BB_EDGES` (Figure 10).
    ``"runtime"``  min(trace runtime, requested time), how long the job computes under every
                   policy (so bins hold the same jobs whatever the schedule); bins ``[e_k,
                   e_{k+1})`` s, the last open-ended, labelled in hours. Default
                   :data:`RUNTIME_EDGES` (Figure 11).

    ``bins`` are increasing edges in those units (nodes, GB, seconds); jobs below the first edge
    fall in no bin. Every bin is reported, empty ones with ``jobs = 0`` and None averages. Rows:
    ``{"bin": label, "jobs": int, "wait_mean_s": float|None, "bounded_slowdown_mean": float|None}``.
    """
    if by not in BREAKDOWNS:
        raise MetricsError(f"breakdown by {by!r}: expected one of {', '.join(BREAKDOWNS)}")
    _check_positive("tau_s", tau_s)
    defaults = {"size": SIZE_EDGES, "bb": BB_EDGES, "runtime": RUNTIME_EDGES}
    edges = np.asarray(defaults[by] if bins is None else bins, dtype=np.float64)
    if edges.ndim != 1 or edges.size == 0 or not np.all(np.isfinite(edges)):
        raise MetricsError(
            f"breakdown bins: expected a non-empty list of finite edges, got {bins!r}"
        )
    if np.any(np.diff(edges) <= 0):
        raise MetricsError(f"breakdown bins: edges must increase strictly, got {edges.tolist()}")

    t_lo, t_hi = window.resolve(result)
    mask = _measured_mask(result, t_lo, t_hi)
    wait, run = _wait(result, mask), _run(result, mask)
    bounded = _bounded_slowdown(wait, run, tau_s)
    wl = result.workload

    if by == "size":
        machine = int(result.system.nodes)
        edges = edges[edges <= machine] if edges[0] <= machine else edges[:1]
        labels = _size_labels(edges, machine)
        index = np.searchsorted(edges, wl.nodes[mask].astype(np.float64), side="right") - 1
    elif by == "bb":
        labels = ["none", *_bb_labels(edges)]
        bb = wl.bb_gb[mask]
        # (e_k, e_{k+1}]: side="left" puts a value equal to an edge in the bin it closes
        index = np.searchsorted(edges, bb, side="left")  # 0 = at or below the first edge
        index = np.where(bb == 0, 0, np.where(index == 0, -1, index))
    else:
        labels = _runtime_labels(edges)
        runtime = np.minimum(wl.runtime[mask], wl.requested_time[mask])
        index = np.searchsorted(edges, runtime, side="right") - 1

    nbins = len(labels)
    keep = (index >= 0) & (index < nbins)
    index = index[keep]
    jobs = np.bincount(index, minlength=nbins)
    wait_sum = np.bincount(index, weights=wait[keep], minlength=nbins)
    bounded_sum = np.bincount(index, weights=bounded[keep], minlength=nbins)
    return [
        {
            "bin": labels[k],
            "jobs": int(jobs[k]),
            "wait_mean_s": float(wait_sum[k] / jobs[k]) if jobs[k] else None,
            "bounded_slowdown_mean": float(bounded_sum[k] / jobs[k]) if jobs[k] else None,
        }
        for k in range(nbins)
    ]


def _size_labels(edges: np.ndarray, machine: int) -> list[str]:
    labels = []
    for k, lo in enumerate(int(e) for e in edges):
        hi = int(edges[k + 1]) - 1 if k + 1 < len(edges) else machine
        hi = min(hi, machine)
        labels.append(f"{lo}-{hi}" if hi > lo else f"{lo}")
    return labels


def _bb_labels(edges: np.ndarray) -> list[str]:
    tb = [f"{e / 1000:g}" for e in edges]
    labels = [f"({tb[k]}, {tb[k + 1]}] TB" for k in range(len(edges) - 1)]
    return [*labels, f"> {tb[-1]} TB"]


def _runtime_labels(edges: np.ndarray) -> list[str]:
    h = [f"{e / 3600:g}" for e in edges]
    labels = [
        f"< {h[k + 1]} h" if edges[k] == 0 else f"{h[k]}-{h[k + 1]} h" for k in range(len(h) - 1)
    ]
    return [*labels, f">= {h[-1]} h"]


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _num(value: Any) -> float | None:
    """A plain float, or None for NaN and infinities."""
    v = float(value)
    return v if math.isfinite(v) else None


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, np.integer):
        return int(value)
    return _num(value)


def _mean(a: np.ndarray) -> float | None:
    return _num(a.mean()) if a.size else None


def _max(a: np.ndarray) -> float | None:
    return _num(a.max()) if a.size else None


def _percentiles(a: np.ndarray, q: tuple[float, ...] = (50.0, 95.0)) -> tuple[float | None, ...]:
    if a.size == 0:
        return (None,) * len(q)
    return tuple(_num(v) for v in np.percentile(a, q))


def _check_nonneg(name: str, value: float) -> None:
    if not (_is_real(value) and math.isfinite(value) and value >= 0):
        raise MetricsError(f"{name}: expected a number >= 0, got {value!r}")


def _check_positive(name: str, value: float) -> None:
    if not (_is_real(value) and math.isfinite(value) and value > 0):
        raise MetricsError(f"{name}: expected a number > 0, got {value!r}")
