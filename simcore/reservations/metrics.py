"""Metrics of a served advance-reservation stream (``papers/advance-reservation-with-deadlines.txt``,
Section 6.1; utilisation and the offline bound are ours), each defined once here and described by a
``MetricSpec`` in :data:`AR_METRICS` (registered under the entry-point group ``schedbench.metrics``
as ``ar``).

* **acceptance** = accepted / submitted (every request of the stream, invalid ones included:
  they were submitted and rejected);
* **slowdown** of an accepted job = (t_s − t_r + t_du) / t_du (waiting counted from the ready
  time, Section 6.1); the mean over accepted jobs (NaN when none was accepted);
* **utilisation** = Σ n_pe · t_du over accepted jobs / (PEs × (last end of an accepted job −
  first arrival)); 0 when nothing was accepted;
* over independent seeds, the mean and the half-width of the 95 % confidence interval,
  t_{0.975, n−1} · s / √n (Student's t; the paper reports 95 % intervals without saying how),
  NaN for a single seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.reservations.driver import ReservationRun

_SRC = "AR paper §6.1"

AR_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "ar_acceptance",
        "accepted / submitted advance-reservation requests (invalid requests count as submitted "
        "and rejected)",
        unit="share",
        direction="higher",
        source=_SRC,
        label="acceptance",
    ),
    MetricSpec(
        "ar_acceptance_ci95",
        "half-width of the 95 % confidence interval of ar_acceptance over independent seeds "
        "(Student t)",
        unit="share",
        direction="none",
        source=_SRC,
        label="acceptance ±",
    ),
    MetricSpec(
        "ar_slowdown",
        "mean over accepted requests of (t_s - t_r + t_du) / t_du (waiting from the ready time)",
        unit="",
        direction="lower",
        source=_SRC,
        label="slowdown",
        short="mean slowdown of the accepted requests, waiting counted from the ready time",
    ),
    MetricSpec(
        "ar_slowdown_ci95",
        "half-width of the 95 % confidence interval of ar_slowdown over independent seeds "
        "(Student t)",
        unit="",
        direction="none",
        source=_SRC,
        label="slowdown ±",
    ),
    MetricSpec(
        "ar_utilisation",
        "sum of n_pe * t_du over accepted requests / (PEs * (last accepted end - first arrival))",
        unit="share",
        direction="higher",
        source="schedbench, beyond the paper",
        label="PE utilisation",
        short="accepted PE-seconds over the machine's, first arrival to last accepted end",
    ),
    MetricSpec(
        "ar_offline_bound",
        "largest acceptance any schedule reaches with every request known in advance (CP-SAT, "
        "cumulative model; its proven upper bound when not proven optimal)",
        unit="share",
        direction="none",
        source="schedbench, beyond the paper (docs/design.md#beyond-the-papers)",
        label="offline bound",
    ),
)


def acceptance(run: ReservationRun) -> float:
    """accepted / submitted; NaN for an empty stream."""
    n = len(run.outcomes)
    return sum(o.accepted for o in run.outcomes) / n if n else math.nan


def slowdowns(run: ReservationRun) -> np.ndarray:
    """(t_s − t_r + t_du) / t_du of every accepted job, in service order."""
    return np.array(
        [o.slowdown for o in run.outcomes if o.accepted and o.slowdown is not None], dtype=float
    )


def mean_slowdown(run: ReservationRun, rejected: str = "accepted") -> float:
    """The mean slowdown of the accepted jobs (the paper's, Section 6.1); ``rejected="deadline"``
    (the ``slowdown`` reading, ``reading.py``): over every valid request, a rejected one counted
    as if it ran at its latest start, (t_dl − t_r) / t_du."""
    if rejected == "deadline":
        vals = [
            o.slowdown
            if o.accepted and o.slowdown is not None
            else (o.request.deadline - o.request.ready) / o.request.duration
            for o in run.outcomes
            if o.accepted or (o.request.duration > 0 and not o.note)
        ]
        return float(np.mean(vals)) if vals else math.nan
    s = slowdowns(run)
    return float(s.mean()) if s.size else math.nan


def utilisation(run: ReservationRun) -> float:
    """Accepted PE-seconds over the machine's PE-seconds from the first arrival to the last
    accepted end."""
    accepted = [o for o in run.outcomes if o.accepted and o.start is not None]
    if not accepted:
        return 0.0
    first = min(o.request.arrival for o in run.outcomes)
    last = max(o.start + o.request.duration for o in accepted if o.start is not None)
    if last <= first:
        return 0.0
    area = sum(o.request.area for o in accepted)
    return area / (run.pes * (last - first))


def summary(run: ReservationRun) -> dict[str, Any]:
    """The run's numbers: submitted, accepted, invalid, faults, acceptance, mean slowdown,
    utilisation."""
    return {
        "submitted": len(run.outcomes),
        "accepted": sum(o.accepted for o in run.outcomes),
        "invalid": run.invalid,
        "faults": run.faults,
        "acceptance": acceptance(run),
        "mean_slowdown": mean_slowdown(run),
        "utilisation": utilisation(run),
    }


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95 % confidence interval) over independent samples (NaN values
    are left out); the half-width is NaN with fewer than two samples."""
    x = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan
    # scipy.stats costs about 2 s to import: only when an interval is asked for.
    from scipy.stats import t as student_t

    half = float(student_t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, half
