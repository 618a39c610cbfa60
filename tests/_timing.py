"""Deadlines tested by behaviour, not by the machine's speed or load.

A test's verdict must not depend on how fast or how busy the machine is. Three tools:

* :func:`ticking_clock`: every solve's clock (``solvers.base.Clock``) advances by a fixed step
  each time the solver reads it, so *when* a solver stops depends only on how often it looks at
  its clock: a deadline or ``time_limit_s`` then expires after a fixed amount of work, on any
  machine.
* :func:`cpu_seconds`: the CPU time the calling thread spends in a call. A solver that stops at
  its deadline spends at most the deadline plus its bookkeeping in CPU time whatever the load
  (a busy machine gives it *less* CPU by the deadline, never more), while one that ignores the
  deadline keeps computing. For solvers that compute in the calling thread.
* :func:`tree_cpu_seconds`: the same for a call whose work may run in other threads or in
  child processes (a MIP worker and the CBC it starts): the CPU time of this process, every
  thread, and of its descendants, living or ended, during the call.
* :data:`GRACE_S`: for what only wall time can show (a child process, a sleeping plug-in), a
  call is on time when it returns by its budget plus the harness's grace: later than that the
  harness kills it (``bench/run/isolate.py``). Seconds of slack, not a fraction of one.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import psutil
import pytest

from schedbench.bench.run.isolate import GRACE_S
from schedbench.solvers import base as solver_base

__all__ = ["GRACE_S", "cpu_seconds", "ticking_clock", "tree_cpu_seconds"]


def ticking_clock(monkeypatch: pytest.MonkeyPatch, step_s: float) -> list[int]:
    """Make every solve's clock advance ``step_s`` per reading (starting at the real time, so
    kernels comparing it with ``time.perf_counter`` still agree at the start); returns a
    one-element list counting the readings."""
    readings = [0]
    counter = itertools.count(1)
    origin = time.perf_counter()

    def now() -> float:
        readings[0] = next(counter)
        return origin + readings[0] * step_s

    monkeypatch.setattr(solver_base, "Clock", partial(solver_base.Clock, now=now))
    return readings


def cpu_seconds(call: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``call(*args)`` and the CPU seconds the calling thread spent in it."""
    start = time.thread_time()
    out = call(*args)
    return out, time.thread_time() - start


def _tree_cpu() -> float:
    """CPU seconds so far of this process and its descendants: a living process counts its own
    time and that of the children it has reaped; an ended one is in its reaper's count."""
    me = psutil.Process()
    total = 0.0
    for proc in (me, *me.children(recursive=True)):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):  # ended meanwhile
            t = proc.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
    return total


def tree_cpu_seconds(call: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``call(*args)`` and the CPU seconds this process and its descendants spent meanwhile."""
    start = _tree_cpu()
    out = call(*args)
    return out, _tree_cpu() - start
