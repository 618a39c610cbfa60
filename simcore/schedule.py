"""What a simulation produces: per-job times and states, a resource-usage timeline, counters.

:class:`ScheduleResult` is the single hand-off from the simulator (``simcore/engine.py``) to the
metrics (``simcore/metrics.py``), the writers (per-job CSV, metrics JSON, decision log) and the
benchmark store. Everything is a numpy column aligned with the workload's rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


class JobState(IntEnum):
    """Final state of a job; the CSV writes the lower-case name."""

    COMPLETED = 0  # ran its full trace runtime
    KILLED = 1  # ran longer than requested; killed at the request (docs/design.md#one-engine-semantics-stated-once)
    REJECTED = 2  # can never fit the machine (too many nodes / too much BB or SSD); never queued
    UNFINISHED = 3  # still queued or running when the simulation stopped


#: Columns of the usage timeline, in order.
USAGE_COLUMNS: tuple[str, ...] = ("nodes", "bb_gb", "ssd_requested_gb", "ssd_assigned_gb")


@dataclass(frozen=True, slots=True, eq=False)
class ScheduleResult:
    """The outcome of one simulation.

    Per job (aligned with ``workload`` rows; NaN where a time never happened):

    ``start``       when the job's compute phase began (nodes allocated)
    ``end``         when its nodes were released (start + min(runtime, requested) in the
                    classic lifecycle; after the output is written to the BB in BBSim's)
    ``state``       :class:`JobState` codes (int8)
    ``first_alloc`` when the job first held any resource (stage-in start in the three-phase
                    lifecycle, otherwise equal to ``start``)
    ``last_release``when it released its last resource (end of stage-out, otherwise ``end``)

    Usage timeline: ``usage_t`` (T,) event instants, ``usage`` (T, 4) resources in use from
    that instant until the next one, columns :data:`USAGE_COLUMNS`; ``capacity`` (4,) the
    machine's totals in the same order (SSD totals are Σ count·ssd over node groups).

    ``counters`` (passes, decisions, faults, fallbacks, ...) and ``config`` (what was run)
    are plain dictionaries for the JSON output.
    """

    workload: Workload
    system: System
    start: np.ndarray
    end: np.ndarray
    state: np.ndarray
    first_alloc: np.ndarray
    last_release: np.ndarray
    usage_t: np.ndarray
    usage: np.ndarray
    capacity: np.ndarray
    counters: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    decision_latency_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: Instants at which a scheduling pass ran although nothing ended or arrived then
    #: (conservative bookings, a ``WakeAt`` action), sorted.
    wake_times: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def wait(self) -> np.ndarray:
        """start − submit (NaN for jobs that never started)."""
        return self.start - self.workload.submit

    @property
    def run(self) -> np.ndarray:
        """Time the job held its nodes: end − start."""
        return self.end - self.start

    def started(self) -> np.ndarray:
        return ~np.isnan(self.start)
