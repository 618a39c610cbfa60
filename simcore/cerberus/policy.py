"""Cerberus policies: what a variant sees of one queue at a scheduling instant, what it answers,
and the built-in variants (model note §5), registered by name as plug-ins.

Protocol
--------
A policy is an object with

* ``name`` — its registered name;
* ``lifecycle`` — ``"three-phase"`` (queues ``in``, ``run``, ``out``; model note §3) or
  ``"one-phase"`` (one queue, ``single``);
* ``data`` — ``"triple"`` (the job's three volumes) or ``"one-size"`` (one size d per job);
* ``uses_bb`` — False for a machine without burst buffer (1-Phase IO);
* ``serve(view) -> Sequence[int]`` — the jobs of ``view.queue`` to start now, in the order their
  events are created (that order decides the FIFO order of simultaneous phase ends).

The simulation (``simcore/cerberus/sim.py``) asks each non-empty queue once per scheduling pass,
output → run → input, and checks every answer before applying it: a job must be queued there,
named once, and its burst buffer must fit; its cores must fit too, except under
``units="floor"``, where the rounded-down knapsack units may over-allocate a little, as upstream
(model note §5; counted). A policy never touches simulation state.

A knapsack variant poses each queue's decision as a ``selection`` problem
(``simcore/kinds/selection``) over the first ``config.window`` jobs and hands it to its solver
through ``simcore.solver.timed_solve`` (latency measured, answer checked by the kind's ``vet``) —
any registered solver, or a plug-in. Each call is reported to the simulation (``view.report``)
and the problem to an optional recorder (``view.record``, e.g. ``simcore.recording.DecisionRecorder``).

Registry
--------
Built-ins register through the entry-point group ``schedbench.cerberus`` exactly as a plug-in
would; :func:`register_variant` adds one in-process; :func:`make_variant` also accepts
``module:Class`` (a class with a ``serve`` method written in Python — nothing else is called).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schedbench.simcore.cerberus.config import CerberusConfig
from schedbench.simcore.errors import PolicyOptionError, UnknownNameError
from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.plugins import Registry, class_with, keyword_options
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import Solver, timed_solve

QUEUES_THREE_PHASE: tuple[str, ...] = ("out", "run", "in")  # service order (model note §4)
QUEUES_ONE_PHASE: tuple[str, ...] = ("single",)


@dataclass(frozen=True, slots=True)
class KnapsackCall:
    """One per-queue knapsack decision as the simulation logs it.

    ``called`` is False when the decision was settled without a solver: a negative capacity
    (free cores below zero after an over-allocation, ``units="floor"``) selects nothing, as
    upstream; it still counts as a solve (upstream called its DP, which returned nothing).
    """

    t: float
    queue: str
    window: int
    queue_length: int
    called: bool
    status: str
    latency_s: float
    selected: int
    objective: float | None


@dataclass(frozen=True, slots=True)
class QueueView:
    """What a policy sees of one queue at one scheduling instant (read only).

    ``jobs`` are row indices of the workload in FIFO order (arrival to this queue). ``cores``,
    ``bb`` and ``requested`` are per-row arrays for *all* jobs: ``cores`` already raised to
    ``config.min_cores``, ``bb`` this queue's burst-buffer demand in the accounting unit
    (``bb_unit``: "TB" under ``bb_accounting="tb-float"``, "GB" under "gb-exact"). Free amounts
    are as of this queue's turn in the pass (after the queues served before it). ``free_cores``
    may be negative after an over-allocation (``units="floor"``).
    """

    now: float
    queue: str
    jobs: tuple[int, ...]
    free_cores: int
    free_bb: float
    capacity_cores: int
    capacity_bb: float
    bb_unit: str
    cores: np.ndarray
    bb: np.ndarray
    requested: np.ndarray
    config: CerberusConfig
    report: Callable[[KnapsackCall], None]
    record: Callable[[Any, dict[str, Any]], None] | None = None

    def tb_floor(self, amount: float) -> int:
        """``amount`` (accounting unit) in whole TB, rounded down (model note §5's BB units)."""
        if self.bb_unit == "GB":
            return int(amount // 1000)
        return math.floor(amount)


@runtime_checkable
class CerberusPolicy(Protocol):
    name: str
    lifecycle: str
    data: str
    uses_bb: bool

    def serve(self, view: QueueView) -> Sequence[int]: ...


# ------------------------------------------------------------------------------- FCFS
def head_of_line(view: QueueView) -> list[int]:
    """Strict head-of-line FCFS (model note §5, FCFS Cerberus): start the head while it fits,
    then the next head; stop at the first job that does not fit (no skipping).

    Fit rules: input and output queues need free BB >= the job's volume; the run queue (and the
    one-phase queue) also free cores >= the job's cores.
    """
    uses_cores = view.queue in ("run", "single")
    free_c, free_b = view.free_cores, view.free_bb
    cores, bb = view.cores, view.bb
    started: list[int] = []
    for j in view.jobs:
        need_b = bb[j]
        if free_b < need_b:
            break
        if uses_cores:
            need_c = int(cores[j])
            if free_c < need_c:
                break
            free_c -= need_c
        free_b = free_b - need_b
        started.append(j)
    return started


#: Run-queue values are scaled so that the window's largest lies in [2^19, 2^20).
VALUE_EXPONENT = 20


def power_of_two_scaled(values: list[float]) -> list[float]:
    """``values`` times the power of two that brings the largest into [2^19, 2^20).

    The run-queue values (core units × BB units ÷ requested time², about 1e-7 to 1e-2) are too
    small for solvers that make data integral at six decimals (CP-SAT, MIP: they would see
    zeros and start nothing). Scaling by a power of two is exact in IEEE double — every sum and
    comparison scales alike, overflow and subnormals are far away — so the optimum, the equal
    optima and the upstream tie rule (``cerberus-dp``) are exactly those of the unscaled values.
    """
    top = max(values, default=0.0)
    if not top > 0:
        return values
    exponent = VALUE_EXPONENT - math.frexp(top)[1]
    return [math.ldexp(v, exponent) for v in values]


class _Base:
    name = ""
    lifecycle = "three-phase"
    data = "triple"
    uses_bb = True

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class CerberusFCFS(_Base):
    """FCFS Cerberus: strict head-of-line blocking in each of the three queues (model note §5)."""

    name = "cerberus-fcfs"

    def serve(self, view: QueueView) -> Sequence[int]:
        return head_of_line(view)


class Cerberus1D(CerberusFCFS):
    """1D Cerberus: FCFS Cerberus on one size d per job (model note §5): the triple is
    (``one_size_in`` of d, d, d) — faithful (d/1000, d, d) TB, corrected (d, d, d)."""

    name = "cerberus-1d"
    data = "one-size"


class OnePhaseBB(_Base):
    """1-Phase BB: one FIFO queue, strict head-of-line; cores and the BB demand (``one_size_in``
    of d) held from start to completion (model note §5)."""

    name = "one-phase-bb"
    lifecycle = "one-phase"
    data = "one-size"

    def serve(self, view: QueueView) -> Sequence[int]:
        return head_of_line(view)


class OnePhaseIO(OnePhaseBB):
    """1-Phase IO: no burst buffer; one FIFO queue on cores only (model note §5)."""

    name = "one-phase-io"
    uses_bb = False


class _Knapsack(_Base):
    """Optimised Cerberus (model note §5): a 0/1 knapsack per queue over the first
    ``config.window`` jobs, answered by any solver.

    * output queue: capacity = free BB, weight = ``out``; value ``out`` (MaxT) or 1 (MaxP);
    * run queue (both): capacities free cores and free BB, weights cores and ``run``; value
      (core units × BB units) ÷ requested time² (``run_value``);
    * input queue: FCFS unless ``stage_in_knapsack`` (then as the output queue with ``in``).

    Under ``units="floor"`` cores count in units of ``core_unit`` and BB in whole TB, both
    rounded down, capacities too; under "exact" everything is in the accounting unit.
    ``solver`` answers every queue unless ``in_solver`` / ``run_solver`` / ``out_solver`` name
    one for that queue. A solver answer without a selection (``error``, e.g. a solver that
    declines the problem, or ``timeout`` before any) is a fault, counted; ``on_fault="fcfs"``
    (default) serves that queue head-of-line for that pass instead, so a failing solver cannot
    stall the run; ``"skip"`` starts nothing from it in that pass.
    """

    objective = "maxt"

    def __init__(
        self,
        solver: Solver | None = None,
        *,
        in_solver: Solver | None = None,
        run_solver: Solver | None = None,
        out_solver: Solver | None = None,
        budget: Budget | None = None,
        on_fault: str = "fcfs",
    ) -> None:
        if on_fault not in ("fcfs", "skip"):
            raise PolicyOptionError(
                f"policy {self.name!r} option 'on_fault': expected fcfs or skip, got {on_fault!r}"
            )
        self.on_fault = on_fault
        self.solvers: dict[str, Solver | None] = {
            "in": in_solver or solver,
            "run": run_solver or solver,
            "out": out_solver or solver,
        }
        self.budget = budget or Budget()

    def solver_for(self, queue: str) -> Solver | None:
        return self.solvers.get(queue)

    def serve(self, view: QueueView) -> Sequence[int]:
        cfg = view.config
        if view.queue == "in" and not cfg.stage_in_knapsack:
            return head_of_line(view)
        solver = self.solvers[view.queue]
        if solver is None:
            raise PolicyOptionError(
                f"policy {self.name!r}: no solver for the {view.queue!r} queue "
                "(give solver=..., or run_solver=... etc.)"
            )
        window = view.jobs[: cfg.window] if cfg.window else view.jobs
        problem = self.problem(view, window)
        if problem is None:  # a negative capacity: nothing is selected (model note §5)
            view.report(
                KnapsackCall(
                    view.now,
                    view.queue,
                    len(window),
                    len(view.jobs),
                    False,
                    "skipped",
                    0.0,
                    0,
                    None,
                )
            )
            return []
        if view.record is not None:
            view.record(
                problem,
                {
                    "t": view.now,
                    "queue": view.queue,
                    "queue_length": len(view.jobs),
                    "window": len(window),
                    "policy": self.name,
                    "mode": cfg.label,
                },
            )
        decision: Decision = timed_solve(solver, problem, self.budget)
        answered = decision.status in (Status.OPTIMAL, Status.FEASIBLE) or (
            decision.status == Status.TIMEOUT and bool(decision.selected)
        )
        chosen = list(decision.selected) if answered else []
        view.report(
            KnapsackCall(
                view.now,
                view.queue,
                len(window),
                len(view.jobs),
                True,
                decision.status.value,
                decision.latency_s,
                len(chosen),
                decision.objectives[0] if decision.objectives else None,
            )
        )
        if not answered and self.on_fault == "fcfs":
            return head_of_line(view)
        order = sorted(chosen, reverse=cfg.start_order == "walk-back")
        if cfg.zero_value_fill and answered:
            order += zero_value_fill(view, window, problem, chosen)
        return [window[i] for i in order]

    def problem(self, view: QueueView, window: Sequence[int]) -> SelectionProblem | None:
        """The queue's knapsack over ``window`` (None when a capacity is negative)."""
        cfg = view.config
        floor = cfg.units == "floor"
        bb = view.bb
        if floor:
            bb_w = [view.tb_floor(bb[j]) for j in window]
            bb_cap: float = view.tb_floor(view.free_bb)
        else:
            bb_w = [bb[j].item() for j in window]
            bb_cap = view.free_bb
        if view.queue == "run":
            if floor:
                unit = cfg.core_unit
                c_w = [int(view.cores[j]) // unit for j in window]
                c_cap: float = view.free_cores // unit
            else:
                c_w = [int(view.cores[j]) for j in window]
                c_cap = view.free_cores
            if c_cap < 0 or bb_cap < 0:
                return None
            products = [c * b for c, b in zip(c_w, bb_w, strict=True)]
            if cfg.run_value == "product/rt2":
                values = [
                    p / (float(view.requested[j]) * float(view.requested[j]))
                    for p, j in zip(products, window, strict=True)
                ]
            else:
                values = [float(p) for p in products]
            values = power_of_two_scaled(values)
            return SelectionProblem(
                capacities=[c_cap, bb_cap],
                demands=[[c, b] for c, b in zip(c_w, bb_w, strict=True)],
                objectives=[values],
                resources=("core_units" if floor else "cores", f"bb_{view.bb_unit.lower()}"),
                objective_names=(
                    "cores_x_bb_per_rt2" if cfg.run_value != "product" else "cores_x_bb",
                ),
            )
        if bb_cap < 0:
            return None
        values = [float(b) for b in bb_w] if self.objective == "maxt" else [1.0] * len(bb_w)
        return SelectionProblem(
            capacities=[bb_cap],
            demands=[[b] for b in bb_w],
            objectives=[values],
            resources=(f"bb_{view.bb_unit.lower()}",),
            objective_names=("data_moved" if self.objective == "maxt" else "jobs",),
        )


def zero_value_fill(
    view: QueueView, window: Sequence[int], problem: SelectionProblem, chosen: Sequence[int]
) -> list[int]:
    """Window positions of the zero-value jobs outside ``chosen`` that still fit, in queue
    order (switch ``zero_value_fill``, ``config.py``): each must fit what the selection left in
    the problem's units and in the real free burst buffer; starting them leaves the objective
    unchanged."""
    values = problem.objectives[0]
    used = problem.usage(list(chosen))
    real_bb = float(sum(view.bb[window[i]] for i in chosen))
    taken = set(chosen)
    out: list[int] = []
    for i in range(problem.w):
        if i in taken or values[i] != 0:
            continue
        need = problem.demands[i]
        bb = float(view.bb[window[i]])
        if np.all(used + need <= problem.capacities) and real_bb + bb <= view.free_bb:
            used = used + need
            real_bb += bb
            out.append(i)
    return out


class CerberusMaxT(_Knapsack):
    """Optimised Cerberus, max transfer: the output (and input) knapsack maximises data moved."""

    name = "cerberus-maxt"
    objective = "maxt"


class CerberusMaxP(_Knapsack):
    """Optimised Cerberus, max parallelism: the output (and input) knapsack maximises the
    number of jobs."""

    name = "cerberus-maxp"
    objective = "maxp"


# ------------------------------------------------------------------------------- registry
GROUP = "schedbench.cerberus"


class UnknownVariantError(UnknownNameError):
    what = "cerberus policy"


def _not_a_policy_class(obj: object) -> str:
    return class_with(obj, "serve")


#: The Cerberus policies: entry points of ``schedbench.cerberus`` and in-process registrations
#: (``simcore/plugins.py``).
CERBERUS_POLICIES = Registry(
    GROUP,
    "cerberus policy",
    protocol="a Cerberus policy class with a `serve(view)` method",
    check=_not_a_policy_class,
    unknown=UnknownVariantError,
    error=PolicyOptionError,
    example="my_pkg.policy:MyCerberusPolicy",
)


def known_variants() -> list[str]:
    """Every Cerberus policy name: installed entry points and in-process registrations."""
    return CERBERUS_POLICIES.names()


def register_variant(name: str, cls: type, *, replace: bool = False) -> None:
    """Register ``cls`` (a class with a Python ``serve`` method) as ``name`` in this process."""
    CERBERUS_POLICIES.register(name, cls, replace=replace)


def unregister_variant(name: str) -> None:
    CERBERUS_POLICIES.unregister(name)


def variant_class(name: str) -> type:
    """The class registered as ``name``, or named by ``module:Class``."""
    return CERBERUS_POLICIES.get(name)


def variant_options(cls: type) -> list[str]:
    """The keyword options ``cls`` accepts."""
    return keyword_options(cls)


def takes_solver(name: str) -> bool:
    """Whether the policy decides with a solver (accepts ``solver``)."""
    return "solver" in variant_options(variant_class(name))


def make_variant(name: str, **options: Any) -> CerberusPolicy:
    """A fresh policy: ``make_variant("cerberus-maxt", solver=make_solver("dp"))``. An option
    the class does not take is an error naming it and listing the accepted ones."""
    cls = variant_class(name)
    accepted = variant_options(cls)
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise PolicyOptionError(
            f"cerberus policy {name!r} has no option {unknown[0]!r}; its options: "
            f"{', '.join(accepted) or '(none)'}"
        )
    policy = cls(**options)
    for attr in ("name", "lifecycle", "data", "uses_bb"):
        if not hasattr(policy, attr):
            raise PolicyOptionError(f"cerberus policy {name!r}: has no attribute {attr!r}")
    if policy.lifecycle not in ("three-phase", "one-phase") or policy.data not in (
        "triple",
        "one-size",
    ):
        raise PolicyOptionError(
            f"cerberus policy {name!r}: lifecycle must be three-phase or one-phase and data "
            f"triple or one-size, got {policy.lifecycle!r} / {policy.data!r}"
        )
    return policy
