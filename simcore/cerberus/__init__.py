"""Cerberus on BBSim: the three-queue burst-buffer scheduler (Cerberus §3-Phase Scheduler) and
its one-phase baselines, on a compact simulation core of their own.

Why a core of its own, not the engine's ``three-phase`` lifecycle
----------------------------------------------------------------
``simcore/engine.py`` already has a BBSim-like lifecycle, but its semantics are the engine's:
a first-come first-fit stage-in queue run by the engine itself, the stage-out buffer reserved when
the job starts, a safe-state check, nodes, completions before arrivals at one instant. The
published Cerberus runs behaved differently in ways that change every number
(``papers/cerberus-evaluation-model.md``): three queues, each decided by the scheduler and served
output → run → input; cores held through the output-queue wait until the drain ends; events
batched by *exact* float equality and applied in creation order; data in TB as floating point;
free cores allowed to go negative. Bending the engine to all of that would touch the code behind
the 44 pinned schedules (``tests/simcore/test_schedule_digests.py``) for no gain, so the faithful loop
lives here (about 400 lines), imports nothing from the engine, and the engine is unchanged.

What is shared with the rest of schedbench: every per-queue decision is a ``selection`` problem
(``simcore/kinds/selection``) answered by any registered solver through
``simcore.solver.timed_solve`` (latency measured, answer vetted), recorded for replay by
``simcore.recording.DecisionRecorder``; the machine is a ``simcore.system.System`` (preset
``cerberus`` in ``instances/systems.py``); metrics are ``MetricSpec``s in the catalogue.

Modules
-------
``config``    the faithful and corrected modes as named switches (``config_for``)
``workload``  ``CerberusWorkload``: the jobs (readers and generator: ``instances/cerberus.py``)
``policy``    what a variant sees and answers; the variants ``cerberus-fcfs``, ``cerberus-maxt``,
              ``cerberus-maxp``, ``cerberus-1d``, ``one-phase-bb``, ``one-phase-io``; registry
``sim``       the event loop (``CerberusSimulation``) and its ``CerberusResult``
``metrics``   ``CERBERUS_METRICS`` and ``compute_cerberus_metrics``
"""

from __future__ import annotations

from schedbench.simcore.cerberus.config import (
    CORRECTED,
    FAITHFUL,
    MODES,
    CerberusConfig,
    config_for,
)
from schedbench.simcore.cerberus.policy import (
    CerberusPolicy,
    KnapsackCall,
    QueueView,
    known_variants,
    make_variant,
    register_variant,
    takes_solver,
)
from schedbench.simcore.cerberus.sim import CerberusResult, CerberusSimulation, CerberusState
from schedbench.simcore.cerberus.workload import CerberusWorkload, CerberusWorkloadError

__all__ = [
    "CORRECTED",
    "FAITHFUL",
    "MODES",
    "CerberusConfig",
    "CerberusPolicy",
    "CerberusResult",
    "CerberusSimulation",
    "CerberusState",
    "CerberusWorkload",
    "CerberusWorkloadError",
    "KnapsackCall",
    "QueueView",
    "config_for",
    "known_variants",
    "make_variant",
    "register_variant",
    "takes_solver",
]
