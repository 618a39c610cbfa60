"""Problem kinds as plug-ins: what a decision asks, what an answer is, how the core checks an
answer and how it is scored against an exact reference.

A scheduling decision is not always a window selection: Cerberus selects per queue, a
locality-aware scheduler places one job on nodes in time, an advance-reservation scheduler picks a
start time and a set of processors inside a deadline window. Each is a *kind*, and everything
downstream — the solver protocol, ``schedbench solve``, the suite runner, the results store, the
report and the regression gate — goes through the kind, never through a concrete problem type,
so a new kind needs no edit there (pymoo keeps ``Problem`` apart from ``Algorithm`` and
``Indicator`` in the same spirit).

A kind is a :class:`ProblemKind` subclass that declares

* ``name`` (``"selection"``), ``problem_type`` and ``decision_type``: frozen dataclasses; the
  problem type carries the same ``kind`` name as a class attribute (that is how the core finds
  the kind of a problem it is handed) and ``to_dict()`` / ``from_dict(data, source=...)``;
  the decision type has ``status``, ``objectives`` (the answer's objective vector, empty when
  there is none), ``notes``, ``stats``, ``solver`` and ``latency_s`` fields and
  ``to_dict()`` / ``from_dict(data)``;
* :meth:`ProblemKind.vet` — the core's check of an answer: an invalid answer comes back as
  status ``error`` with the reason in its notes and ``stats["invalid_answer"] = 1``, never
  applied or scored as valid (the fault is counted, never silently applied:
  docs/design.md#the-core-checks-every-answer);
* :meth:`ProblemKind.quality` — the per-decision quality record against an exact reference
  (flat, JSON-safe; described by the kind's ``metrics``);
* optionally :meth:`ProblemKind.examples` — small problems the solver conformance suite
  (``solvers/testing.py``) runs a solver of this kind on.

Kinds register through the entry-point group ``schedbench.kinds`` (built-ins in this project's
``pyproject.toml``, exactly as a third-party package would) or in-process with
:func:`register_kind`. One rule decides whether a decision delivered an answer, for every kind
and every consumer (:func:`delivered_answer`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, ClassVar

from schedbench.simcore.errors import UnknownKindError
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.plugins import PluginError, Registry, object_ref
from schedbench.simcore.problem import Status

GROUP = "schedbench.kinds"

#: Statuses that are an answer by themselves (``infeasible`` is an answer: nothing can start).
_ANSWERED = frozenset({Status.OPTIMAL.value, Status.FEASIBLE.value, Status.INFEASIBLE.value})


def delivered_answer(status: str, has_answer: bool) -> bool:
    """Whether a decision delivered an answer — THE definition, used by the quality metrics, the
    latency statistics (a failure is charged the budget), the report and the regression gate.

    ``optimal``, ``feasible`` and ``infeasible`` are answers; ``timeout`` is one when it carries
    an answer (its best selection by the deadline, even the empty one, has an objective
    vector); ``error`` and anything else are not.
    """
    if status in _ANSWERED:
        return True
    return status == Status.TIMEOUT.value and has_answer


def stored_answer(decision: Mapping[str, Any] | None) -> bool:
    """Whether a stored decision (its ``to_dict()`` form) holds an answer: an objective vector or
    a Pareto set."""
    return isinstance(decision, Mapping) and bool(
        decision.get("objectives") or decision.get("pareto")
    )


class ProblemKind:
    """Base class of a problem kind (see the module docstring). Subclasses set the class
    attributes and implement :meth:`vet` and :meth:`quality`; the JSON and fingerprint methods
    delegate to the types and rarely need overriding."""

    name: ClassVar[str] = ""
    #: One line for ``schedbench solvers`` / ``schedbench kinds``.
    summary: ClassVar[str] = ""
    problem_type: ClassVar[type]
    decision_type: ClassVar[type]
    #: The quality metrics :meth:`quality` reports (the metric catalogue reads them).
    metrics: ClassVar[tuple[MetricSpec, ...]] = ()

    # -- JSON ------------------------------------------------------------------------------------
    def problem_from_dict(self, data: Any, *, source: str | None = None) -> Any:
        return self.problem_type.from_dict(data, source=source)  # type: ignore[attr-defined]

    def problem_to_dict(self, problem: Any) -> dict[str, Any]:
        data = problem.to_dict()
        data["kind"] = self.name
        return dict(data)

    def decision_from_dict(self, data: Any) -> Any:
        return self.decision_type.from_dict(data)  # type: ignore[attr-defined]

    def decision_to_dict(self, decision: Any) -> dict[str, Any]:
        return dict(decision.to_dict())

    def fingerprint(self, problem: Any) -> str:
        """Stable content hash of a problem (results are keyed and references cached by it)."""
        text = json.dumps(self.problem_to_dict(problem), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # -- answers ---------------------------------------------------------------------------------
    def error_decision(
        self,
        reason: str,
        *,
        solver: str = "",
        status: Status = Status.ERROR,
        latency_s: float = math.nan,
    ) -> Any:
        """A decision of this kind that carries no answer, only ``reason`` (a crash, a timeout
        kill, a worker lost)."""
        return self.decision_type(status, notes=(reason,), solver=solver, latency_s=latency_s)

    def answered(self, decision: Any) -> bool:
        """:func:`delivered_answer` of a decision object."""
        return delivered_answer(
            Status(decision.status).value,
            bool(getattr(decision, "objectives", ())) or bool(getattr(decision, "pareto", ())),
        )

    def vet(self, problem: Any, decision: Any) -> Any:
        """The core's check of ``decision`` against ``problem`` (see the module docstring)."""
        raise NotImplementedError(f"kind {self.name!r} must implement vet")

    def quality(
        self, problem: Any, decision: Any, reference: Any | None, *, budget_s: float
    ) -> dict[str, Any]:
        """The quality record of one decision against an exact ``reference`` (``None``: the
        metrics are ``None`` and ``reference`` is ``"missing"``, never guessed)."""
        raise NotImplementedError(f"kind {self.name!r} must implement quality")

    def is_exact(self, decision: Any) -> bool:
        """Whether a decision can serve as the exact reference (a proven answer)."""
        return Status(decision.status) in (Status.OPTIMAL, Status.INFEASIBLE)

    def describe(self, problem: Any) -> str:
        """A short shape of a problem for tables (``w=20 K=2 M=2``)."""
        return self.name

    def describe_answer(self, problem: Any, decision: Any) -> str:
        """A decision's answer in a few words for tables: what tells two solvers' answers apart
        (by default the objective vector, ``(4053.6)``); "" when it carries none."""
        objectives = ", ".join(f"{x:g}" for x in getattr(decision, "objectives", ()))
        return f"({objectives})" if objectives else ""

    def examples(self) -> list[tuple[str, Any]]:
        """Small problems for the solver conformance suite (label, problem)."""
        return []


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------


def _not_a_kind(obj: object) -> str:
    is_kind = isinstance(obj, ProblemKind) or (
        isinstance(obj, type) and issubclass(obj, ProblemKind)
    )
    if not is_kind:
        return f"is a {type(obj).__name__}, not a ProblemKind subclass"
    kind: Any = obj
    if not kind.name:
        return f"{kind!r} has no name"
    if getattr(kind.problem_type, "kind", None) != kind.name:
        return (
            f"its problem type {kind.problem_type.__qualname__} must carry "
            f"kind = {kind.name!r} as a class attribute"
        )
    return ""


#: The problem kinds: entry points of ``schedbench.kinds`` and in-process registrations
#: (``simcore/plugins.py``: the one registry). A kind is used as one instance per process.
KINDS = Registry(
    GROUP,
    "problem kind",
    protocol="a ProblemKind subclass",
    check=_not_a_kind,
    unknown=UnknownKindError,
    example="my_pkg.kinds:MyKind",
)
_INSTANCES: dict[str, ProblemKind] = {}


def register_kind(kind: type[ProblemKind] | ProblemKind) -> ProblemKind:
    """Register a kind in this process (a class is instantiated); returns the instance. The
    name must be new unless the same class registers again."""
    problem = _not_a_kind(kind)
    if problem:
        raise PluginError(f"{kind!r}: {problem}")
    cls = kind if isinstance(kind, type) else type(kind)
    if KINDS.try_load(cls.name)[0] is not cls:
        KINDS.register(cls.name, cls)
    old = _INSTANCES.get(cls.name)
    if old is None or type(old) is not cls:
        _INSTANCES[cls.name] = kind() if isinstance(kind, type) else kind
    return _INSTANCES[cls.name]


def unregister_kind(name: str) -> None:
    """Forget an in-process registration (tests that add a kind for their own duration)."""
    KINDS.unregister(name)
    _INSTANCES.pop(name, None)


def known_kinds() -> list[str]:
    """Names of the registered kinds (entry points and in-process), sorted."""
    return KINDS.names()


def get_kind(name: str, ref: str | None = None) -> ProblemKind:
    """The kind registered as ``name``. ``ref`` (``module:Class``, see :func:`kind_ref`) lets a
    worker process find a kind that was registered in-process by its parent."""
    if name in _INSTANCES:
        return _INSTANCES[name]
    if name not in KINDS and ref:
        cls = KINDS.load_spec(ref)  # importing its module may register it
        return _INSTANCES[name] if name in _INSTANCES else register_kind(cls)
    return register_kind(KINDS.load(name))


def kind_of(problem: Any) -> ProblemKind:
    """The kind of a problem object, by its type's ``kind`` attribute."""
    name = getattr(type(problem), "kind", None)
    if not isinstance(name, str):
        raise TypeError(
            f"{type(problem).__qualname__} is not a decision problem of a registered kind "
            "(no `kind` class attribute)"
        )
    return get_kind(name)


def kind_ref(kind: ProblemKind) -> str:
    """``module:Class`` of a kind, so a worker process can import it."""
    return object_ref(type(kind))
