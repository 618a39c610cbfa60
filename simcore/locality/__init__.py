"""The data-locality model: nodes with cores and file caches, the locality schedulers (FCFS,
EFT, LEA, LEO, LEM, each with backfilling), their metrics (``papers/locality-evaluation-model.md``).

* ``model.py`` — platform, workload columns, run options (reference / paper mode);
* ``engine.py`` — the node-level simulation core and the planner view schedulers act through;
* ``schedulers.py`` — the ten schedulers, each posing per-job ``placement`` problems;
* ``registry.py`` — schedulers by name (``schedbench.locality_schedulers``);
* ``metrics.py`` — stretch, transfer + wait, core time, user sessions (§8).
"""

from __future__ import annotations

from schedbench.simcore.locality.engine import (
    JobNeverStartsError,
    LocalityResult,
    LocalitySimulator,
    Planner,
    run_locality,
)
from schedbench.simcore.locality.model import (
    EVALUATED,
    LocalityOptions,
    LocalityPlatform,
    LocalityWorkload,
    LocalityWorkloadError,
    load_seconds,
)
from schedbench.simcore.locality.run import simulate_locality

__all__ = [
    "EVALUATED",
    "JobNeverStartsError",
    "LocalityOptions",
    "LocalityPlatform",
    "LocalityResult",
    "LocalitySimulator",
    "LocalityWorkload",
    "LocalityWorkloadError",
    "Planner",
    "load_seconds",
    "run_locality",
    "simulate_locality",
]
