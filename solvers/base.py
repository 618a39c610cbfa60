"""``BaseSolver``: the template every built-in solver (and any plug-in that wants it) builds on.

A subclass is a frozen, keyword-only dataclass: its fields *are* its parameters, so they can be
listed (``schedbench solvers``), validated (``__post_init__``), set from the command line
(``--set k=v``) and recorded in a deterministic id such as ``dp[unit_nodes=512]``. A subclass
writes only ``_solve`` (template method); the public ``solve`` does the rest, the same way for
every solver:

1. declines a problem ``supports()`` rejects with status ``error`` and the reason;
2. takes the ``must_include`` jobs out (their demands leave the capacities; if they alone do not
   fit, the answer is ``infeasible``) so that ``_solve`` sees a plain problem;
3. maps the answer back to window indices, re-evaluates every selection in the original problem
   and checks it (a solver bug raises ``InvalidDecisionError``, never a silent bad answer);
4. for ``M >= 2`` keeps the non-dominated selections and asks the decision maker
   (``simcore.decision_maker``) for the one to apply.

What is timed is ``solve`` as a whole (``simcore.solver.timed_solve``); ``warm_up`` is not. A
subclass writes its preparation (compiling numba kernels on a tiny problem, starting a worker
process) in ``_warm_up``; ``warm_up`` runs it once per process for each solver id, and ``solve``
runs it first, before its clock starts, when nobody has: a solve's deadline never pays for a
compilation, even when the caller did not warm up (the caller's wall time around that first call
still does: the harness warms up before it measures).
"""

from __future__ import annotations

import dataclasses
import threading
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from schedbench.simcore.decision_maker import bbsched_decision_maker, window_order_key
from schedbench.simcore.errors import SolverParameterError
from schedbench.simcore.kinds.base import kind_of
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.plugins import Alias
from schedbench.simcore.problem import Budget, Status, TracePoint, capacity_slack

#: (class, id) of every solver whose ``warm_up`` has run in this process.
_WARM: set[tuple[type, str]] = set()
#: Re-entrant: a solver's warm-up may warm up another (``weighted`` warms its engine).
_WARM_LOCK = threading.RLock()


class Clock:
    """Wall clock of one solve: time since start and time left before the deadline.

    ``now`` is the time source (``time.perf_counter``; ``start`` and ``deadline`` are on its
    scale): a test can put in one that advances by a fixed step per reading, so that when a
    solver stops depends on how often it looks at the clock, not on the machine's speed."""

    __slots__ = ("deadline", "now", "start")

    def __init__(self, budget: Budget, now: Callable[[], float] = time.perf_counter):
        self.now = now
        self.start = now()
        self.deadline = self.start + budget.deadline_s

    def elapsed(self) -> float:
        return self.now() - self.start

    def remaining(self) -> float:
        return self.deadline - self.now()

    def expired(self) -> bool:
        return self.now() >= self.deadline


@dataclass(slots=True)
class Answer:
    """What ``_solve`` returns, in the indices of the problem it was given.

    ``selections``: for ``M = 1`` the best selection found (more than one is allowed; the best is
    kept); for ``M >= 2`` candidate selections whose non-dominated subset is the Pareto set.
    ``trace`` holds (seconds since start, objectives) of successive incumbents.
    """

    status: Status
    selections: Sequence[Sequence[int]] = field(default_factory=list)
    trace: Sequence[tuple[float, Sequence[float]]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def param(default: Any, help: str) -> Any:
    """Declare a solver parameter: a dataclass field with a help text."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True, kw_only=True, slots=True)
class ParamSolver:
    """What every solver dataclass shares, whatever kind of problem it answers: its fields are
    its parameters (listed, validated, recorded in a deterministic ``id``), its ``kinds`` say
    which problem kinds it answers (``simcore/kinds/``). Subclass it directly for a kind other
    than ``selection`` and write ``supports`` and ``solve``; for selection use ``BaseSolver``."""

    name: ClassVar[str] = ""
    #: One line for ``schedbench solvers``: what it does and what it supports.
    summary: ClassVar[str] = ""
    #: The problem kinds this solver answers.
    kinds: ClassVar[tuple[str, ...]] = ("selection",)
    #: The alias this solver was built as (``pe-b`` for ``fit[policy=pe-b]``), or None: not a
    #: parameter; it gives the solver the alias' name in its id, so results keep the paper's
    #: names (``registry.make_solver``, ``Alias``).
    alias: Alias | None = field(
        default=None, repr=False, compare=False, metadata={"internal": True}
    )

    @classmethod
    def from_alias(cls, alias: Alias, params: dict[str, Any]) -> Any:
        """The solver ``alias`` names: its presets, overridden by ``params``."""
        return cls(**{**alias.params, **params}, alias=alias)

    # -- parameters --------------------------------------------------------------------------
    @classmethod
    def parameters(cls) -> list[tuple[str, type, Any, str]]:
        """(name, type, default, help) of every parameter."""
        hints = typing.get_type_hints(cls)
        return [
            (f.name, hints[f.name], f.default, f.metadata.get("help", ""))
            for f in _parameter_fields(cls)
        ]

    def params(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in _parameter_fields(self)}

    @property
    def id(self) -> str:
        """Registry name plus every parameter that differs from its default, sorted by name; for
        an alias, the alias' name plus what differs from its presets (``pe-b``,
        ``weighted-cpu[engine=cpsat]``)."""
        presets: Mapping[str, Any] = self.alias.params if self.alias else {}
        changed = [
            f"{f.name}={_format_value(getattr(self, f.name))}"
            for f in sorted(_parameter_fields(self), key=lambda f: f.name)
            if getattr(self, f.name) != presets.get(f.name, f.default)
        ]
        name = self.alias.name if self.alias else self.name
        return f"{name}[{','.join(changed)}]" if changed else name

    def _require(self, ok: bool, param_name: str, expected: str) -> None:
        """Raise ``SolverParameterError`` naming this solver and the parameter unless ``ok``."""
        if not ok:
            name = self.alias.name if self.alias else self.name
            raise SolverParameterError(
                f"solver {name!r} parameter {param_name!r}: expected {expected}, "
                f"got {getattr(self, param_name)!r}"
            )

    def _require_int(
        self, param_name: str, minimum: int, expected: str, maximum: int | None = None
    ) -> None:
        """The parameter is an int (not a bool) >= ``minimum`` and, when given, <= ``maximum``
        (a size a solver allocates is bounded, the bound in the error)."""
        value = getattr(self, param_name)
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= minimum
        if maximum is not None:
            ok = ok and value <= maximum
            expected = f"{expected} and <= {maximum:,}"
        self._require(ok, param_name, expected)

    def _require_number(self, param_name: str, low: float, high: float, expected: str) -> None:
        """The parameter is an int or float (not a bool) in [low, high]."""
        value = getattr(self, param_name)
        ok = (
            isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high
        )
        self._require(ok, param_name, expected)

    def supports(self, problem: Any) -> tuple[bool, str]:
        """Whether this solver answers ``problem``: by default any problem of its kinds."""
        kind = getattr(type(problem), "kind", None)
        if kind not in self.kinds:
            return False, f"answers {', '.join(self.kinds)} problems, not {kind}"
        return True, ""

    def warm_up(self) -> None:
        """Untimed preparation: ``_warm_up`` once per process for this solver's class and
        parameters; later calls return at once."""
        key = (type(self), self.id)
        with _WARM_LOCK:
            if key not in _WARM:
                self._warm_up()
                _WARM.add(key)

    def _warm_up(self) -> None:
        """Override with what must happen before the first timed call (compile the kernels on a
        tiny problem, start a worker). Default: nothing."""

    def _ensure_warm(self) -> None:
        """``warm_up()`` unless it has run for this solver in this process (a plug-in that
        overrides ``warm_up`` itself gets it called once here)."""
        key = (type(self), self.id)
        if key not in _WARM:
            with _WARM_LOCK:
                if key not in _WARM:  # another thread may have warmed it meanwhile
                    self.warm_up()
                    _WARM.add(key)


@dataclass(frozen=True, kw_only=True, slots=True)
class BaseSolver(ParamSolver):
    """Base class for selection solvers; see the module docstring for the contract."""

    #: The decision maker used when ``M >= 2`` (replaceable in a subclass).
    decision_maker: ClassVar[Callable[..., ParetoPoint | None]] = staticmethod(
        bbsched_decision_maker
    )

    # -- protocol ------------------------------------------------------------------------------
    def supports(self, problem: Any) -> tuple[bool, str]:
        """Selection problems only; then what ``_supports`` says (template method)."""
        if not isinstance(problem, SelectionProblem):
            return ParamSolver.supports(self, problem)
        return self._supports(problem)

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        """Override to decline selection problems this solver cannot do, with a reason."""
        return True, ""

    def solve(self, problem: SelectionProblem, budget: Budget) -> Decision:
        self._ensure_warm()  # compiling is no part of the decision's budget (module docstring)
        clock = Clock(budget)
        ok, reason = self.supports(problem)
        if not ok:  # an answer of the problem's own kind, which says why
            return kind_of(problem).error_decision(f"not supported: {reason}", solver=self.id)

        forced = problem.must_include
        sub, free = problem, np.arange(problem.w)
        if forced:
            forced_usage = problem.usage(forced)
            if not problem.fits(forced_usage):
                return Decision(
                    Status.INFEASIBLE,
                    notes=("the must_include jobs alone exceed the capacities",),
                    solver=self.id,
                )
            free = np.setdiff1d(np.arange(problem.w), np.asarray(forced))
            sub = SelectionProblem(
                capacities=np.maximum(problem.capacities - forced_usage, 0.0),
                demands=problem.demands[free],
                objectives=problem.objectives[:, free],
                resources=problem.resources,
                objective_names=problem.objective_names,
                objective_scales=problem.objective_scales,
            )
        answer = self._solve(sub, budget, clock)
        return self._finish(problem, answer, free, forced)

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        raise NotImplementedError(f"{type(self).__name__} must implement _solve")

    # -- assembling the decision -----------------------------------------------------------------
    def _finish(
        self,
        problem: SelectionProblem,
        answer: Answer,
        free: np.ndarray,
        forced: tuple[int, ...],
    ) -> Decision:
        selections = [
            tuple(sorted([int(free[i]) for i in sel] + list(forced))) for sel in answer.selections
        ]
        if not selections and answer.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT):
            selections = [tuple(forced)]
        for sel in selections:
            problem.check_selection(sel)
        offset = np.asarray(problem.evaluate(forced)) if forced else np.zeros(problem.M)
        trace = tuple(
            TracePoint(float(t), tuple(float(x) for x in np.asarray(obj) + offset))
            for t, obj in answer.trace
        )
        common: dict[str, Any] = dict(
            trace=trace, stats=answer.stats, notes=tuple(answer.notes), solver=self.id
        )
        if not selections:
            return Decision(answer.status, **common)

        # One representative per objective vector: the one holding earlier jobs.
        selections = sorted(set(selections), key=lambda s: window_order_key(s, problem.w))
        values = np.array([problem.evaluate(s) for s in selections])
        if problem.M == 1:
            best = int(np.argmax(values[:, 0]))  # first maximum = earliest in window order
            return Decision(
                answer.status, selected=selections[best], objectives=tuple(values[best]), **common
            )
        keep = np.flatnonzero(nondominated_mask(values))
        pareto = [ParetoPoint(selections[i], tuple(values[i])) for i in keep]
        chosen = type(self).decision_maker(problem, pareto)
        if chosen is None:  # cannot happen: ``pareto`` holds at least one point
            raise RuntimeError(f"{self.id}: the decision maker chose nothing from {pareto}")
        return Decision(
            answer.status,
            selected=chosen.selected,
            objectives=chosen.objectives,
            pareto=tuple(pareto),
            **common,
        )


def _parameter_fields(obj: Any) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(obj) if not f.metadata.get("internal")]


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def run_threads(calls: Sequence[Callable[[], None]]) -> None:
    """Run each call in a daemon thread of its own and return when all have returned (the
    parallel walks of ``cpsat`` and ``bnb``; the calls record their own failures)."""
    threads = [threading.Thread(target=call, daemon=True) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def fits_mask(problem: SelectionProblem, usage: np.ndarray) -> np.ndarray:
    """Row-wise feasibility of usage vectors (n × K) against the capacities, with the slack."""
    return np.all(usage <= problem.capacities + capacity_slack(problem.capacities), axis=-1)
