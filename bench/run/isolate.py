"""Solve in a child process killed at deadline + grace: for untrusted plug-ins and for latency
measured without the runner in the same process
(docs/design.md#quality-and-latency-of-a-decision).

The child is not daemonic, so that a solver may start processes of its own (the MIP backends run
CBC and HiGHS in a worker process, solvers/mip.py; a daemonic process may not start children).
Instead it is tied to the caller another way: it leads a process group of its own, which the
caller kills as a whole at deadline + grace, after the answer (once the child has had a moment
to exit cleanly and stop what it started) and when the caller is interrupted. When the caller
dies outright (SIGKILL), Linux kills the child (``PR_SET_PDEATHSIG``) and a watchman process in
the child's group kills the rest of the group. A solver's own worker that leads a group of its
own (the MIP worker) watches its parent and exits with it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from multiprocessing.connection import wait
from typing import Any

from schedbench.bench.run.supervisor import die_with_parent, exit_reason
from schedbench.bench.suite.schema import SolverSpec
from schedbench.simcore.fdcapture import stdout_to_stderr
from schedbench.simcore.kinds.base import get_kind, kind_of, kind_ref
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import GRACE_S, timed_solve, warm_up
from schedbench.solvers.registry import make_solver

__all__ = ["EXIT_WAIT_S", "GRACE_S", "ISOLATION_STARTUP_S", "solve_isolated"]
#: Time a spawned isolation child may take to import and warm up before its clock starts.
ISOLATION_STARTUP_S = 120.0
#: Time a child that has answered gets to exit by itself (stopping the processes it started)
#: before its process group is killed.
EXIT_WAIT_S = 5.0


def _isolated_child(
    spec: SolverSpec, kind: tuple[str, str], problem: dict, budget: tuple[float, int], conn: Any
) -> None:
    if hasattr(os, "setpgrp"):
        os.setpgrp()  # a group of its own: killed as a whole, with anything the solver started
        _start_watchman()
    die_with_parent()
    stdout_to_stderr()  # the parent's stdout is not ours to write on (simcore/fdcapture.py)
    try:
        solver = make_solver(spec.name, dict(spec.params))
        warm_up(solver)
        conn.send(("ready", None))
        pk = get_kind(*kind)
        decision = timed_solve(solver, pk.problem_from_dict(problem), Budget(*budget))
        conn.send(("done", pk.decision_to_dict(decision)))
    except BaseException as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


#: The watchman: waits until the caller's end of multiprocessing's parent sentinel closes (the
#: caller is gone), then SIGKILLs its process group, which is the isolation child's.
_WATCHMAN = "import os, select, signal; select.select([{fd}], [], []); os.killpg(0, signal.SIGKILL)"


def _start_watchman() -> None:
    """Start, in this (new) process group, a tiny process that kills the whole group when the
    caller dies, however it dies: ``PR_SET_PDEATHSIG`` ends this process only, and what the
    solver started would outlive it. A separate process, because a solver's compiled kernel may
    hold this one's interpreter for seconds; it holds only the sentinel, so it keeps none of our
    pipes open, and the caller's group kill ends it with the rest."""
    parent = mp.parent_process()
    if parent is None:
        return
    fd = parent.sentinel
    subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _WATCHMAN.format(fd=fd)],
        pass_fds=[fd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def solve_isolated(
    spec: SolverSpec, problem: Any, budget: Budget, grace_s: float | None = None
) -> Any:
    """Solve in a child process; kill it at ``deadline + grace`` (a hang becomes ``timeout``).

    The clock starts when the child has imported and warmed up its solver (spawn start-up is not
    the solver's latency); ``grace_s`` defaults to :data:`GRACE_S`.
    """
    grace_s = GRACE_S if grace_s is None else grace_s
    kind = kind_of(problem)
    if mp.current_process().daemon:
        # A daemonic process (e.g. a worker of someone else's Dask cluster) may not start
        # children: solve here, unprotected, and say so.
        decision = timed_solve(make_solver(spec.name, dict(spec.params)), problem, budget)
        note = "not isolated: this worker process is daemonic and may not start children"
        return dataclasses.replace(decision, notes=(*decision.notes, note))
    ctx = mp.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_isolated_child,
        args=(
            spec,
            (kind.name, kind_ref(kind)),
            kind.problem_to_dict(problem),
            (budget.deadline_s, budget.seed),
            send,
        ),
        daemon=False,
    )
    proc.start()
    send.close()
    answered, died = False, False
    try:
        if not recv.poll(ISOLATION_STARTUP_S):
            return kind.error_decision("isolated solver did not start in time", solver=spec.id)
        what, payload = recv.recv()
        if what != "ready":
            return kind.error_decision(str(payload), solver=spec.id)
        start = time.perf_counter()
        limit = budget.deadline_s + grace_s
        if not recv.poll(limit):
            return kind.error_decision(
                f"killed at deadline + grace ({limit:g} s)",
                solver=spec.id,
                status=Status.TIMEOUT,
                latency_s=time.perf_counter() - start,
            )
        what, payload = recv.recv()
        answered = True
        if what == "error":
            return kind.error_decision(
                str(payload), solver=spec.id, latency_s=time.perf_counter() - start
            )
        return kind.decision_from_dict(payload)
    except EOFError:  # the child died (segfault, os._exit): say how, below
        died = True
    finally:
        if answered or died:
            # Let it exit by itself (and stop what it started); ``wait`` on the sentinel does
            # not reap it, so its pid, which is its group's id, stays ours until killed below.
            wait([proc.sentinel], EXIT_WAIT_S)
        _kill_group(proc)
        recv.close()
    return kind.error_decision(
        f"isolated solver died ({exit_reason(proc.exitcode)})", solver=spec.id
    )


def _kill_group(proc: Any) -> None:
    """SIGKILL the child's process group (the child and whatever it started that stayed in its
    group), or the child alone if it has not made its group yet; then reap the child. Called
    once, before anything has reaped the child: until then neither its pid nor its group id can
    belong to another process."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(OSError):  # no such group: the child has not made it yet
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, ValueError):  # already gone
        proc.kill()
    proc.join(5)
