"""The solver protocol, as the simulation core sees it.

A solver is any object with

* ``name: str`` — its registry name, and ``id: str`` — name plus non-default parameters,
  e.g. ``dp[unit_nodes=512]`` (deterministic; recorded with every result);
* ``supports(problem) -> (bool, reason)`` — capabilities as data: whether it can answer this
  problem, and if not, why (a reason a person can act on);
* ``solve(problem, budget) -> Decision`` — the answer, by ``budget.deadline_s`` seconds.

Optionally ``warm_up()``, called once before any timed call (JIT compilation, licence checks,
imports). What is timed is exactly ``solve()``: ``timed_solve`` measures wall time around it and
writes it into the decision's ``latency_s``; ``warm_up`` is never timed.

A solver declares the problem kinds it answers in ``kinds`` (default ``("selection",)``;
``simcore/kinds/``). simcore imports nothing from ``solvers/``; concrete solvers live there and register through the
entry-point group ``schedbench.solvers`` (see ``solvers.registry``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schedbench.simcore.fdcapture import captured_output
from schedbench.simcore.kinds.base import kind_of
from schedbench.simcore.problem import Budget


@runtime_checkable
class Solver(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def id(self) -> str: ...

    def supports(self, problem: Any) -> tuple[bool, str]: ...

    def solve(self, problem: Any, budget: Budget) -> Any: ...


def warm_up(solver: object) -> None:
    """Run the solver's optional, untimed ``warm_up()`` (its output captured like a solve's)."""
    hook = getattr(solver, "warm_up", None)
    if callable(hook):
        with captured_output(f"{getattr(solver, 'id', 'solver')} warm-up"):
            hook()


#: Seconds a solver call may run past its deadline before the harness kills it (isolated solves
#: and the supervised worker pool, bench/run/); the conformance suite holds a solver to the same
#: line. Seconds, not a fraction of the budget: what a solver does after its deadline stretches
#: with the machine's load, and whether it is on time must not depend on that.
GRACE_S = 5.0

#: Called with the budget's deadline (seconds) when a solver call starts and with None when it
#: ends; set by a supervising process (``bench/run/supervisor.py``) to enforce a hard deadline.
_call_watch: Callable[[float | None], None] | None = None


def set_call_watch(watch: Callable[[float | None], None] | None) -> None:
    """Install (or remove, with None) the process-wide solver-call watch (see ``_call_watch``)."""
    global _call_watch
    _call_watch = watch


@contextlib.contextmanager
def watched_call(deadline_s: float) -> Iterator[None]:
    """Tell the call watch (``_call_watch``) that a solver call with ``deadline_s`` runs for
    the time of the ``with`` block: for code that calls ``solver.solve`` itself (the conformance
    suite, solvers/testing.py) and wants the supervisor's hard deadline all the same."""
    watch = _call_watch
    if watch is not None:
        watch(deadline_s)
    try:
        yield
    finally:
        if watch is not None:
            watch(None)


def private_copy(problem: Any) -> Any:
    """A copy of ``problem`` for a solver to work on, its arrays copied and read-only: a solver
    that changes the problem it was handed (writable again, or rebuilt through
    ``object.__setattr__``) changes its own copy, never the problem the core checks the answer
    against (docs/design.md#the-core-checks-every-answer). Arrays are copied as arrays, other
    mutable fields deeply, immutable ones shared (tens of microseconds for a window of 20
    jobs); a problem type that is not a dataclass is copied deeply."""
    cls = type(problem)
    if not dataclasses.is_dataclass(cls):
        return copy.deepcopy(problem)
    own = object.__new__(cls)
    for f in dataclasses.fields(cls):
        value = getattr(problem, f.name)
        if isinstance(value, np.ndarray):
            value = value.copy()
            value.setflags(write=False)
        elif not _immutable(value):
            value = copy.deepcopy(value)
        object.__setattr__(own, f.name, value)
    return own


def _immutable(value: Any) -> bool:
    if isinstance(value, (int, float, str, bytes, type(None))):
        return True
    return isinstance(value, (tuple, frozenset)) and all(_immutable(v) for v in value)


def solve_here(
    solver: Solver,
    problem: Any,
    budget: Budget,
    *,
    guard: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> Any:
    """Call ``solver.solve`` in this process on a private copy of ``problem``, timed, its output
    captured; the answer as the solver gave it, with ``latency_s`` and ``solver`` set (not yet
    vetted: :func:`timed_solve` does that). ``guard`` wraps exactly the call (a deadline)."""
    kind = kind_of(problem)
    own = private_copy(problem)
    watch = _call_watch
    if watch is not None:
        watch(budget.deadline_s)
    # What the solver's libraries print goes to a log, not into a command's output
    # (simcore/fdcapture.py); the capture sits outside the timed region.
    deadline = guard() if guard is not None else contextlib.nullcontext()
    with captured_output(getattr(solver, "id", "solver")), deadline:
        start = time.perf_counter()
        try:
            decision = solver.solve(own, budget)
        finally:
            latency = time.perf_counter() - start
            if watch is not None:
                watch(None)
    if not isinstance(decision, kind.decision_type):
        raise TypeError(
            f"solver {getattr(solver, 'id', solver)!r} returned {type(decision).__name__}, not a "
            f"{kind.decision_type.__name__} (the answer type of kind {kind.name!r})"
        )
    answer: Any = decision  # a frozen dataclass of the kind's decision type (checked above)
    return dataclasses.replace(answer, latency_s=latency, solver=answer.solver or solver.id)


def timed_solve(solver: Solver, problem: Any, budget: Budget) -> Any:
    """Call ``solver.solve`` and record the wall latency around it, then let the problem's kind
    check the answer (``ProblemKind.vet``); docs/design.md#quality-and-latency-of-a-decision.

    The solver works on a private copy of ``problem`` (:func:`private_copy`), and the answer is
    checked against ``problem`` itself. A solver object with a ``solve_contained(problem,
    budget)`` method (a solver run in another process or under a deadline,
    ``bench/run/isolate.py``) is asked through it instead; its answer, already timed where it
    ran, is checked here all the same.
    """
    kind = kind_of(problem)
    contained = getattr(solver, "solve_contained", None)
    if callable(contained):
        decision = contained(problem, budget)
        if not isinstance(decision, kind.decision_type):
            raise TypeError(
                f"{getattr(solver, 'id', solver)!r} returned {type(decision).__name__}, not a "
                f"{kind.decision_type.__name__}"
            )
    else:
        decision = solve_here(solver, problem, budget)
    return kind.vet(problem, decision)  # nothing downstream takes a solver's word
