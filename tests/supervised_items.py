"""Item functions for tests/bench/test_supervisor.py (importable by spawned workers)."""

from __future__ import annotations

import os
import signal
import sys
import time

from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve


class _Hanger:
    name = "hanger"
    id = "hanger"

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        while True:  # ignores its deadline entirely
            time.sleep(0.05)


def run(item):
    """``item`` = (what, value): one behaviour per test."""
    what, value = item
    if what == "ok":
        return value * 2
    if what == "pid":
        return os.getpid()
    if what == "hang-in-solver":
        problem = SelectionProblem(capacities=[1], demands=[[1]])
        return timed_solve(_Hanger(), problem, Budget(deadline_s=value)).status
    if what == "hang-before-solver":
        time.sleep(3600)
    if what == "exit":
        sys.exit(value)
    if what == "interrupt":
        raise KeyboardInterrupt
    if what == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "raise":
        raise ValueError(value)
    if what == "write-fd1":  # as a library would, outside any solver call
        os.write(1, value.encode())
        return None
    if what == "child":  # as the MIP backends and --isolate do: start a process of its own
        import multiprocessing as mp

        child = mp.get_context("spawn").Process(target=sys.exit, args=(value,))
        child.start()
        child.join(60)
        return child.exitcode
    if what == "sleep":
        time.sleep(value)
        return Decision(Status.FEASIBLE).status.value
    raise AssertionError(what)
