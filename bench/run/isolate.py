"""Solve in a child process killed at deadline + grace: for untrusted plug-ins, for latency
measured without the runner in the same process, and for the hard deadline of ``schedbench
solve`` and ``simulate --isolate`` (docs/design.md#trust-boundaries-and-bounded-work).

Who goes where when a command is told neither ``--isolate`` nor ``--no-isolate``
(:func:`contained_solver`, :func:`isolates_by_default`): untrusted code — a ``module:Class``
plug-in, a third-party entry point — in an isolated child, one for all the calls of a run (a
"solver server"); the project's own solvers (:func:`trusted`) in the caller under the soft
deadline of :class:`SoftDeadlineSolver`, because a child costs a few milliseconds a decision
(docs/figures.md#isolation, ``bench/benchmarks/isolation_cost.py``), several times a built-in's
own latency on a small window, and because their runs' schedules must not change.

:class:`IsolatedSolver` is a solver that answers through such a child. The child builds and
warms up the solver once, then answers one problem after another (a simulation asks it many
times); it is replaced only when it had to be killed. Each call:

* sends the problem (its kind's JSON form, so any registered kind travels); the child rebuilds
  it, says so, and the deadline clock starts: the solver has ``deadline + grace`` seconds;
* past that, or when the child dies (segfault, ``os._exit``, out of memory), the child and
  everything it started is killed (``supervisor.kill_tree``) and the call is answered
  ``timeout`` or ``error`` with the reason; a solver that raises anything (``SystemExit`` and
  ``KeyboardInterrupt`` included) is answered ``error`` and the child goes on;
* the answer is checked again here, against the problem this process posed
  (``simcore.solver.timed_solve``): nothing the child says is taken on trust.

The child runs under a memory cap (``RLIMIT_AS``, ``supervisor.memory_limit``: by default half
of the machine's RAM), writes nothing on our stdout, and is not daemonic, so that a solver may
start processes of its own (the MIP backends run CBC and HiGHS in a worker process,
solvers/mip.py). It is tied to the caller instead (``supervisor.contain_this_process``): it
leads a process group of its own and adopts its orphaned descendants, the caller kills all of it
at deadline + grace, when the caller is interrupted and when the solver is closed, and when the
caller dies outright (SIGKILL) Linux kills the child (``PR_SET_PDEATHSIG``) and a watchman in the
child's group kills the rest of the group. A solver's own worker that leads a group of its own
(the MIP worker) watches its parent and exits with it.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import multiprocessing as mp
import signal
import threading
import time
import weakref
from collections.abc import Iterator
from functools import partial
from multiprocessing.connection import wait
from typing import Any

from schedbench.bench._exit import flush_std_streams, leave
from schedbench.bench._fork import fork_is_safe
from schedbench.bench.run.supervisor import (
    contain_this_process,
    exit_reason,
    kill_tree,
    limit_memory,
    memory_limit,
)
from schedbench.bench.run.supervisor import memory_limit as memory_limit_of
from schedbench.bench.suite.schema import SolverSpec
from schedbench.simcore.fdcapture import stdout_to_stderr
from schedbench.simcore.kinds.base import get_kind, kind_of, kind_ref
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import GRACE_S, solve_here, timed_solve, warm_up
from schedbench.solvers.registry import SOLVERS, make_solver, parse_solver_id, solver_kinds

__all__ = [
    "EXIT_WAIT_S",
    "GRACE_S",
    "ISOLATION_STARTUP_S",
    "TRUSTED_PACKAGE",
    "Child",
    "ContainedSolvers",
    "IsolatedSolver",
    "SoftDeadlineSolver",
    "contained_solver",
    "fork_is_safe",
    "isolates_by_default",
    "solve_isolated",
    "start_child",
    "stop_child",
    "trusted",
]
#: The package whose solvers are trusted: the project's own, reviewed and tested here
#: (docs/design.md#trust-boundaries-and-bounded-work).
TRUSTED_PACKAGE = "schedbench"
#: Time a spawned isolation child may take to import and warm up before its clock starts, and
#: to rebuild a problem it was sent.
ISOLATION_STARTUP_S = 120.0
#: Time a child that was told to stop gets to exit by itself (stopping the processes it
#: started) before everything it leads is killed.
EXIT_WAIT_S = 5.0


def _isolated_child(
    spec: SolverSpec, memory_bytes: int | None, conn: Any, forked: bool = False
) -> None:
    _OPEN.clear()  # a forked child's copy of the caller's solvers: not this process's to close
    contain_this_process()
    limit_memory(memory_bytes)
    stdout_to_stderr()  # the parent's stdout is not ours to write on (simcore/fdcapture.py)
    try:
        solver = make_solver(spec.name, dict(spec.params))
        warm_up(solver)
        conn.send(("ready", None))
    except BaseException as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        conn.close()
        return
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return  # the caller is gone
        if request is None:
            break
        name, ref, problem, budget = request
        try:
            pk = get_kind(name, ref)
            built = pk.problem_from_dict(problem)
            conn.send(("started", None))
            decision = solve_here(solver, built, Budget(*budget))
            # Field by field, not the JSON form: a NaN claim must reach the caller's check.
            fields = {f.name: getattr(decision, f.name) for f in dataclasses.fields(decision)}
            message: tuple[str, Any] = ("done", {**fields, "stats": dict(decision.stats)})
        except BaseException as exc:  # the call failed, the child goes on
            message = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(message)
        except (BrokenPipeError, OSError):
            return
    conn.close()
    if not forked:  # (a forked child leaves through os._exit already, hooks not run)
        leave(0)  # told to stop: without the interpreter's teardown, which outlasts a solve


@dataclasses.dataclass(frozen=True, slots=True)
class Child:
    """A started isolation child (:func:`start_child`): the process and our end of its pipe."""

    proc: Any
    conn: Any


def start_child(
    spec: SolverSpec, memory_bytes: int | str | None = "default", *, fork: bool = False
) -> Child | str:
    """Start an isolation child for ``spec`` (only its name and parameters are read there)
    without waiting for it: the child or, when none can start, the reason. ``memory_bytes``:
    the cap (``"default"``: ``supervisor.memory_limit()``; None: none).

    A child is a fresh interpreter (``spawn``), which imports the solver's libraries again;
    with ``fork`` (only where :func:`fork_is_safe`) it is a copy of this process, which has
    imported them already: the child then only loads the solver's kernels, a second or more
    sooner (docs/design.md#compiled-kernels). Either way it builds and warms up the solver
    itself, so nothing this process started is shared with it."""
    if memory_bytes == "default":
        memory_bytes = memory_limit()
    ctx: Any = mp.get_context("fork" if fork else "spawn")  # (typeshed: one type per name)
    if fork:  # what is buffered here would be written again by the copy
        flush_std_streams()
    recv, send = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=_isolated_child, args=(spec, memory_bytes, send, fork), daemon=False)
    try:
        proc.start()
    except (AssertionError, OSError) as exc:  # a daemonic caller, no processes left
        recv.close()
        send.close()
        return f"could not start an isolated solver process ({type(exc).__name__}: {exc})"
    send.close()
    return Child(proc, recv)


def stop_child(child: Child) -> None:
    """Kill a child :func:`start_child` started that no solver adopted, with what it started."""
    kill_tree(child.proc.pid)
    child.proc.join(EXIT_WAIT_S)
    child.conn.close()


#: Live isolated solvers, closed at exit.
_OPEN: weakref.WeakSet[IsolatedSolver] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for solver in list(_OPEN):
        solver.close()


class IsolatedSolver:
    """A solver that answers through a contained child process (module docstring).

    ``spec`` names the solver and its parameters; ``inner`` is the same solver built in this
    process (its ``name``, ``id``, ``kinds`` and ``supports``; built from ``spec`` when not
    given). ``grace_s`` defaults to :data:`GRACE_S`; ``memory_bytes`` to
    ``supervisor.memory_limit()``. Use it as a context manager, or :meth:`close` it.
    """

    def __init__(
        self,
        spec: SolverSpec,
        *,
        inner: Any = None,
        grace_s: float | None = None,
        memory_bytes: int | str | None = "default",
    ):
        self.spec = spec
        self.inner = inner if inner is not None else make_solver(spec.name, dict(spec.params))
        self.grace_s = GRACE_S if grace_s is None else grace_s
        self.memory_bytes = memory_limit() if memory_bytes == "default" else memory_bytes
        self.name = self.inner.name
        self.id = self.inner.id
        self.kinds = getattr(self.inner, "kinds", ("selection",))
        #: Children started (1 unless one had to be killed), for the cost measurements.
        self.starts = 0
        self._proc: Any = None
        self._conn: Any = None
        self._ready = False
        self._broken: str | None = None

    def supports(self, problem: Any) -> tuple[bool, str]:
        ok, reason = self.inner.supports(problem)
        return bool(ok), str(reason)

    def solve(self, problem: Any, budget: Budget) -> Any:
        """The contained call (a solver called directly answers as through ``timed_solve``)."""
        return timed_solve(self, problem, budget)

    def __enter__(self) -> IsolatedSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the child ---------------------------------------------------------------------------
    def _start(self) -> str | None:
        """Start the child (unless :meth:`adopt` gave one) and wait until its solver is warm;
        the reason when it is not."""
        if self._proc is None:
            started = start_child(self.spec, self.memory_bytes)
            if isinstance(started, str):
                return started
            self._take(started)
        recv = self._conn
        if not recv.poll(ISOLATION_STARTUP_S):
            self._kill()
            return f"isolated solver did not start within {ISOLATION_STARTUP_S:g} s"
        try:
            what, payload = recv.recv()
        except EOFError:
            return self._died()
        if what != "ready":
            self._kill()
            return str(payload)
        self._ready = True
        return None

    def adopt(self, child: Child) -> None:
        """Answer through ``child``, a child :func:`start_child` started ahead for this
        solver's spec (it imports and warms up while this process does its own work)."""
        if self._proc is not None:
            raise RuntimeError(f"{self.id}: a child is already running")
        self._take(child)

    def _take(self, child: Child) -> None:
        self._proc, self._conn, self._ready = child.proc, child.conn, False
        self.starts += 1
        _OPEN.add(self)

    def _kill(self) -> None:
        """Kill the child and everything it started; reap it."""
        proc, self._proc = self._proc, None
        self._ready = False
        if proc is None:
            return
        kill_tree(proc.pid)  # before the join: its pid is ours until reaped
        proc.join(5)
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _died(self) -> str:
        """The child is gone by itself: how, after killing what it left."""
        proc = self._proc
        wait([proc.sentinel], EXIT_WAIT_S)  # not reaped yet: its group still ours
        self._kill()
        return f"isolated solver died ({exit_reason(proc.exitcode)})"

    def close(self) -> None:
        """Stop the child (it may stop what it started), then kill what is left of it."""
        proc, conn = self._proc, self._conn
        _OPEN.discard(self)
        if proc is None:
            return
        try:
            if conn is not None:
                conn.send(None)
            wait([proc.sentinel], EXIT_WAIT_S)
        except (OSError, ValueError):
            pass  # already gone
        self._kill()

    # -- one call ----------------------------------------------------------------------------
    def solve_contained(self, problem: Any, budget: Budget) -> Any:
        """The child's answer to ``problem`` (not yet checked: ``timed_solve`` does that), or a
        ``timeout`` / ``error`` decision with the reason."""
        kind = kind_of(problem)
        start = time.perf_counter()  # restarted once the child holds the problem

        def failed(reason: str, status: Status = Status.ERROR) -> Any:
            latency = time.perf_counter() - start
            return kind.error_decision(reason, solver=self.id, status=status, latency_s=latency)

        if not self._ready:
            reason = self._start()
            if reason is not None:
                return failed(reason)
        request = (kind.name, kind_ref(kind), kind.problem_to_dict(problem))
        try:
            self._conn.send((*request, (budget.deadline_s, budget.seed)))
            if not self._conn.poll(ISOLATION_STARTUP_S):
                self._kill()
                return failed(
                    f"isolated solver did not take the problem in {ISOLATION_STARTUP_S:g} s"
                )
            what, payload = self._conn.recv()
            if what != "started":
                return failed(str(payload))
            start = time.perf_counter()
            limit = budget.deadline_s + self.grace_s
            if not self._conn.poll(limit):
                reason = f"killed at deadline + grace ({limit:g} s), with what it started"
                decision = failed(reason, Status.TIMEOUT)
                self._kill()
                return decision
            what, payload = self._conn.recv()
        except (EOFError, OSError):  # the child died (segfault, os._exit, out of memory)
            decision = failed("")
            return dataclasses.replace(decision, notes=(self._died(),))
        if what == "error":
            return failed(str(payload))
        try:
            return kind.decision_type(**payload)
        except Exception as exc:  # an answer the kind's type refuses
            return failed(f"unreadable answer: {type(exc).__name__}: {exc}")


def solve_isolated(
    spec: SolverSpec, problem: Any, budget: Budget, grace_s: float | None = None
) -> Any:
    """Solve once in a child process (:class:`IsolatedSolver`); kill it at ``deadline + grace``
    (a hang becomes ``timeout``). The answer is checked against ``problem``.

    The clock starts when the child has imported and warmed up its solver and rebuilt the
    problem (spawn start-up is not the solver's latency); ``grace_s`` defaults to
    :data:`GRACE_S`.
    """
    if mp.current_process().daemon:
        # A daemonic process (e.g. a worker of someone else's Dask cluster) may not start
        # children: solve here, unprotected, and say so.
        decision = timed_solve(make_solver(spec.name, dict(spec.params)), problem, budget)
        note = "not isolated: this worker process is daemonic and may not start children"
        return dataclasses.replace(decision, notes=(*decision.notes, note))
    with IsolatedSolver(spec, grace_s=grace_s) as solver:
        return timed_solve(solver, problem, budget)


def trusted(solver: Any) -> bool:
    """Whether ``solver`` (a built solver) is one of the project's own: its class is defined in
    :data:`TRUSTED_PACKAGE`. Everything else (a ``module:Class`` plug-in, a third-party entry
    point) is untrusted code."""
    module = str(getattr(type(solver), "__module__", ""))
    return module == TRUSTED_PACKAGE or module.startswith(TRUSTED_PACKAGE + ".")


def isolates_by_default(name: str, solver: Any) -> bool:
    """Whether a command that was told neither ``--isolate`` nor ``--no-isolate`` asks the
    solver ``name`` (built as ``solver``) in an isolated child: yes for untrusted code
    (:func:`trusted`) that a fresh process can find by ``name`` (``module:Class`` or an installed
    entry point). The project's own solvers stay in the caller, warm, under the soft deadline:
    through a child every decision costs a few milliseconds more (docs/figures.md#isolation),
    several times a built-in's own latency on small windows. A class registered only in this
    process (``register_solver``) cannot be found by a child and stays in the caller too."""
    if trusted(solver):
        return False
    return ":" in name or name in SOLVERS.entry_points() or name in SOLVERS.builtins


def contained_solver(
    name: str,
    params: Any = None,
    *,
    isolate: bool | None = None,
    memory_limit: str | None = None,
    built: Any = None,
    grace_s: float | None = None,
    child: Child | None = None,
) -> Any:
    """The solver ``name`` with ``params`` as every command asks it: an :class:`IsolatedSolver`
    (``isolate``: one child for all its calls, a hard deadline, a memory cap of
    ``memory_limit``), or a warm :class:`SoftDeadlineSolver` in this process (``isolate=False``);
    ``None`` chooses by trust (:func:`isolates_by_default`). ``built`` is the solver already
    built from ``name`` and ``params``; ``child`` one :func:`start_child` started ahead for
    them (given with ``isolate`` only). Close what it returns (``close``) when done."""
    memory = memory_limit_of(memory_limit)  # checked in both modes: a bad value is an error
    if built is None:
        built = make_solver(name, dict(params or {}))
    if isolate is None:
        isolate = isolates_by_default(name, built)
    if isolate:
        items = tuple(sorted(dict(params or {}).items()))
        spec = SolverSpec(name, items, built.id, kinds=solver_kinds(built))
        isolated = IsolatedSolver(spec, inner=built, grace_s=grace_s, memory_bytes=memory)
        if child is not None:
            isolated.adopt(child)
        return isolated
    warm_up(built)
    return SoftDeadlineSolver(built, grace_s=grace_s)


class ContainedSolvers:
    """The contained solvers (:func:`contained_solver`) of one command's run, each built (and,
    isolated, given its child) once, by name or by id (``cpsat[time_limit_s=5]``, what a core
    asks for), all closed by :meth:`close`. Use it as a context manager."""

    def __init__(self, *, isolate: bool | None = None, memory_limit: str | None = None):
        self.isolate = isolate
        self.memory_limit = memory_limit
        self._made: dict[tuple[str, str], Any] = {}

    def named(self, name: str, params: Any = None, built: Any = None) -> Any:
        key = (name, repr(sorted(dict(params or {}).items())))
        if key not in self._made:
            self._made[key] = contained_solver(
                name, params, isolate=self.isolate, memory_limit=self.memory_limit, built=built
            )
        return self._made[key]

    def by_id(self, ident: str) -> Any:
        name, params = parse_solver_id(ident)
        return self.named(name, params)

    def close(self) -> None:
        for solver in self._made.values():
            solver.close()

    def __enter__(self) -> ContainedSolvers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Overrun(BaseException):
    """Raised in a solver call that ran past deadline + grace in-process (a BaseException, so
    that a solver's ``except Exception`` does not swallow it)."""


@contextlib.contextmanager
def _alarm(limit_s: float) -> Iterator[None]:
    """Raise :class:`_Overrun` in this (main) thread after ``limit_s`` seconds."""

    def fire(_signum: int, _frame: Any) -> None:
        raise _Overrun

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class SoftDeadlineSolver:
    """A solver called in this process under a soft deadline: the in-process mode of
    ``simulate`` (docs/design.md#trust-boundaries-and-bounded-work).

    In the main thread, a call still running at ``deadline + grace`` is interrupted (SIGALRM)
    and answered ``timeout``: that stops a solver sleeping or looping in Python, not one held in
    compiled code, which answers late; a late answer is kept but recorded as ``timeout``, with
    the overrun in ``stats["overrun_s"]``. An exception is answered ``error`` with its text
    (``KeyboardInterrupt`` is left to stop the run: here it cannot be told from Ctrl-C). The
    problem is a private copy and the answer is
    checked as everywhere (``simcore.solver.timed_solve``). What this mode cannot contain — a
    crash of the process, a hang in compiled code, memory — needs an :class:`IsolatedSolver`.
    """

    def __init__(self, inner: Any, *, grace_s: float | None = None):
        self.inner = inner
        self.grace_s = GRACE_S if grace_s is None else grace_s
        self.name = inner.name
        self.id = inner.id
        self.kinds = getattr(inner, "kinds", ("selection",))

    def supports(self, problem: Any) -> tuple[bool, str]:
        ok, reason = self.inner.supports(problem)
        return bool(ok), str(reason)

    def solve(self, problem: Any, budget: Budget) -> Any:
        return timed_solve(self, problem, budget)

    def close(self) -> None:
        """Nothing to stop (an :class:`IsolatedSolver` has its child)."""

    def solve_contained(self, problem: Any, budget: Budget) -> Any:
        limit = budget.deadline_s + self.grace_s
        main = threading.current_thread() is threading.main_thread()
        guard = partial(_alarm, limit) if main and hasattr(signal, "setitimer") else None
        start = time.perf_counter()
        kind = kind_of(problem)
        try:
            decision = solve_here(self.inner, problem, budget, guard=guard)
        except _Overrun:
            return kind.error_decision(
                f"stopped at deadline + grace ({limit:g} s) in this process",
                solver=self.id,
                status=Status.TIMEOUT,
                latency_s=time.perf_counter() - start,
            )
        except Exception as exc:  # the call failed; KeyboardInterrupt stays the user's
            return kind.error_decision(
                f"the solver raised {type(exc).__name__}: {exc}",
                solver=self.id,
                latency_s=time.perf_counter() - start,
            )
        if decision.latency_s <= limit:
            return decision
        overrun = decision.latency_s - limit
        return dataclasses.replace(
            decision,
            status=Status.TIMEOUT,
            stats={**decision.stats, "overrun_s": overrun, "claimed_status": str(decision.status)},
            notes=(
                *decision.notes,
                f"answered {overrun:.3g} s after deadline + grace ({limit:g} s); in-process, so "
                "it could not be stopped (--isolate stops it)",
            ),
        )
