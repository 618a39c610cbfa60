"""Compile every numba kernel once, into the on-disk cache, so that later processes load them.

Each compiled kernel is declared through ``simcore/jit.py`` with ``cache=True``: the first
process that uses a kernel compiles it (seconds to tens of seconds on a small machine), writes it
to the cache and every later process loads it in well under a second. Without a warm step that
first process is whatever the user runs first (a suite's first cell, a test) and each worker of a
parallel run may compile the same kernel at once. :func:`warm` does it in one process, right
after an install (the Makefile's install step runs ``schedbench warm``):

* every registered solver's untimed ``warm_up()`` (the selection kernels of ``dp``, ``moo``,
  ``ga``, ``bnb``, ... on the signatures their solves use);
* one tiny closed-loop run of each simulation core whose event loop has kernels of its own (the
  locality planner, in both scheduler families with and without backfilling; the bbsched
  engine's conservative backfilling and three-phase stage-in pass).

Nothing here is timed against a budget; the times printed are what the cold start costs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import cast

from schedbench.simcore.solver import warm_up
from schedbench.solvers.registry import known_solvers, make_solver

#: Tiny simulations that reach the kernels of the cores' own event loops (not the solvers'):
#: (label, workload, keyword arguments of ``api.simulate``).
CORE_RUNS: tuple[tuple[str, str, dict[str, object]], ...] = (
    *(
        (
            f"locality {scheduler}",
            "locality:jobs=60,nodes=2,days=1,users=3,seed=1",
            cast(dict[str, object], {"policy": scheduler, "options": {"gate_s": 0}}),
        )
        for scheduler in ("fcfs", "lea-bf", "eft", "lem-bf")
    ),
    # conservative backfilling's incremental pass (simcore/_lean_kernels.py)
    (
        "bbsched conservative",
        "lublin:jobs=60,nodes=16,seed=1",
        {"policy": "naive", "options": {"backfill": "conservative"}},
    ),
)


def _three_phase_run() -> None:
    """A tiny three-phase run with staged inputs: the stage-in pass's kernel
    (``simcore/_stage_in_kernel.py``)."""
    import numpy as np

    from schedbench.simcore.engine import SimOptions, simulate
    from schedbench.simcore.policies import NaivePolicy
    from schedbench.simcore.system import System
    from schedbench.simcore.workload import Workload

    n = 8
    w = Workload.from_columns(
        submit=np.zeros(n),
        runtime=np.full(n, 10.0),
        requested_time=np.full(n, 20.0),
        nodes=np.ones(n, dtype=np.int64),
        bb_gb=np.full(n, 4.0),
        data_in_gb=np.full(n, 3.0),
        data_out_gb=np.ones(n),
    )
    simulate(w, System.simple("bb", 4, 20.0), NaivePolicy(), SimOptions(lifecycle="three-phase"))


@dataclass(frozen=True)
class Warmed:
    """One step of :func:`warm`: what, how long, and why it failed ("" when it did not)."""

    what: str
    seconds: float
    error: str = ""


def _step(what: str, fn: Callable[[], object]) -> Warmed:
    t0 = time.perf_counter()
    try:
        fn()
    except Exception as exc:  # a broken plug-in must not stop the others from warming
        return Warmed(what, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}")
    return Warmed(what, time.perf_counter() - t0)


def warm(solvers: Iterable[str] | None = None, *, cores: bool = True) -> Iterable[Warmed]:
    """Warm ``solvers`` (default: every registered one) and, with ``cores``, the cores' own
    kernels; yields one :class:`Warmed` per step as it ends (a progress line each)."""
    from schedbench.bench import api  # the API imports every core; only needed here

    for name in known_solvers() if solvers is None else solvers:
        yield _step(f"solver {name}", partial(_warm_solver, name))
    if cores:
        for label, workload, kwargs in CORE_RUNS:
            yield _step(label, partial(api.simulate, workload, **kwargs))  # type: ignore[arg-type]
        yield _step("bbsched three-phase stage-in", _three_phase_run)


def _warm_solver(name: str) -> None:
    warm_up(make_solver(name, {}))
