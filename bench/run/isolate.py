"""Solve in a child process killed at deadline + grace: for untrusted plug-ins and for latency
measured without the runner in the same process
(docs/design.md#quality-and-latency-of-a-decision)."""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import time
from typing import Any

from schedbench.bench.run.supervisor import exit_reason
from schedbench.bench.suite.schema import SolverSpec
from schedbench.simcore.fdcapture import stdout_to_stderr
from schedbench.simcore.kinds.base import get_kind, kind_of, kind_ref
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve, warm_up
from schedbench.solvers.registry import make_solver

#: Seconds a killed-at-deadline solve gets beyond its budget (the supervised pool's too).
GRACE_S = 5.0
#: Time a spawned isolation child may take to import and warm up before its clock starts.
ISOLATION_STARTUP_S = 120.0


def _isolated_child(
    spec: SolverSpec, kind: tuple[str, str], problem: dict, budget: tuple[float, int], conn: Any
) -> None:
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
        daemon=True,
    )
    proc.start()
    send.close()
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
        if what == "error":
            return kind.error_decision(
                str(payload), solver=spec.id, latency_s=time.perf_counter() - start
            )
        return kind.decision_from_dict(payload)
    except EOFError:  # the child died (segfault, os._exit)
        proc.join(5)  # exitcode is None until the child has been reaped
        return kind.error_decision(
            f"isolated solver died ({exit_reason(proc.exitcode)})", solver=spec.id
        )
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        recv.close()
