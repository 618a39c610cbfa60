"""Run a locality scheduler by name or as an object (the entry point callers use)."""

from __future__ import annotations

from typing import Any

from schedbench.simcore.locality.engine import LocalityResult, LocalityScheduler, run_locality
from schedbench.simcore.locality.model import LocalityOptions, LocalityPlatform, LocalityWorkload
from schedbench.simcore.locality.registry import make_locality_scheduler

__all__ = ["simulate_locality"]


def simulate_locality(
    workload: LocalityWorkload,
    scheduler: LocalityScheduler | str,
    platform: LocalityPlatform | None = None,
    options: LocalityOptions | None = None,
    **kwargs: Any,
) -> LocalityResult:
    """Run ``scheduler`` (an object or a registered name, ``simcore/locality/registry.py``) on
    ``workload``; ``platform`` defaults to the evaluated cluster (486 × 20 cores, 0.1 GB/s)."""
    sched = make_locality_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
    return run_locality(workload, sched, platform, options, **kwargs)
