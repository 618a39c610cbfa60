"""Scheduling policies: what a pass starts, and how the holes are backfilled.

A policy is a plug-in (``simcore/policy.py``: the protocol, the read-only machine view, the
actions). The built-in ones are a *start rule* plus a *backfiller* (``simcore/backfill.py``):
:class:`BasePolicy` asks the view for the run queue in the base scheduler's order
(``simcore/priority.py``), runs the start rule — a generator that yields
:class:`~simcore.policy.Start` actions and returns the jobs it leaves, head first — and hands
those to the backfiller, which yields its own starts. The engine applies each action before the
generator resumes, so the backfiller sees the start rule's starts in ``view.free``. Neither this
module nor the engine imports the other. Policies register by name (``naive``, ``window``, and
third-party ones: ``simcore/policy_registry.py``); :data:`POLICIES` maps the built-in names to
their classes, each taking keyword options.

A policy object keeps its state (the window's starvation counters, conservative backfilling's
reservations) itself, never in the engine: use one policy object per simulation run (it resets
its state when it sees a new run).

Start rules
-----------
``naive`` — the Slurm-like baseline of BBSched §4.3: start jobs in priority order while each
fits every resource; stop at the first that does not (it becomes the head).

``window`` — BBSched §3.1: the first ``window`` jobs of the ordered queue form a
:class:`~simcore.problem.SelectionProblem` (capacities = the free resource vector; demands per
job; objectives = nodes, burst buffer and, with local SSD, SSD GB·nodes, normalised by the
machine's totals); a registered solver and the decision maker choose; the chosen jobs start.
Choices, documented:

* Only window jobs that fit the free resources on their own enter the problem (a job that does
  not fit alone can never be selected; removing it is exact and makes the problem smaller).
  When none fits, no problem is posed. When all of them fit together, they all start without a
  solver call — every objective is a non-negative utilisation, so "all" is the only Pareto
  point — and the pass is counted as a trivial decision.
* Starvation (BBSched §3.1, bound 50): each pass increments a counter for every window job not
  started; a job whose counter has reached the bound must start. Starved jobs enter the problem
  as ``must_include``; if they do not fit together, they start in priority order while they fit
  and the first that does not becomes the backfilling head, so the machine drains for it. The
  counters are the policy's own state (``WindowPolicy.window_passes``).
* Every decision is validated by the core (indices in the window, no job twice, forced jobs
  included, every resource within the free capacity, and again job by job as they start, most
  SSD-demanding first so node groups can be assigned — the engine checks each ``Start`` once
  more). An invalid decision is reported as a :class:`~simcore.policy.Fault`: by default the
  engine raises ``InvalidDecisionError``; with ``on_invalid="fallback"`` the pass uses the naive
  rule instead and the fault is counted. A solver that raises or answers ``error`` is a fault
  too.

Backfilling
-----------
``easy``, ``conservative`` and ``none`` are objects in ``simcore/backfill.py`` (their semantics
are documented there) that compose with any start rule: ``NaivePolicy(backfill="easy")``,
``WindowPolicy(solver, backfill="conservative")``, or a backfiller object of one's own.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from typing import Any
from weakref import ReferenceType, ref

import numpy as np

from schedbench.simcore.backfill import BACKFILLS as BACKFILLS
from schedbench.simcore.backfill import Backfiller, make_backfiller
from schedbench.simcore.errors import ConfigError, InvalidDecisionError
from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.policy import (
    Action,
    Count,
    DecisionLatency,
    Fault,
    LogDecision,
    MachineView,
    RecordProblem,
    Start,
    fits,
)
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve

#: What a start rule is: a generator of actions that returns the jobs it did not start, the
#: backfilling head first.
StartRule = Generator[Action, None, Sequence[int]]


class BasePolicy:
    """Start rule + backfiller. Subclasses write :meth:`start_jobs` (a generator).

    ``backfill``: ``"easy"`` (default), ``"conservative"``, ``"none"``, or a backfiller object
    (``simcore/backfill.py``). One object per simulation run: the state of a previous run (the
    backfiller's, a subclass's :meth:`reset`) is dropped when a new run's view is seen.
    """

    name = "policy"

    def __init__(self, *, backfill: str | Backfiller = "easy"):
        self.backfiller: Backfiller = make_backfiller(backfill)
        self._run: ReferenceType[MachineView] | None = None

    @property
    def backfill(self) -> str:
        """The backfiller's name (``easy``, ``conservative``, ``none``, or a custom one)."""
        return str(getattr(self.backfiller, "name", type(self.backfiller).__name__))

    def describe(self) -> str:
        return f"{self.name}+{self.backfill}"

    def reset(self) -> None:
        """Forget the state of a previous simulation run (called when a new run starts)."""
        reset = getattr(self.backfiller, "reset", None)
        if reset is not None:
            reset()

    def schedule(self, view: MachineView, now: float) -> Iterator[Action]:
        """One pass: the start rule, then (when jobs are left and a node is free, or the
        backfiller runs on a full machine) the backfiller."""
        run = self._run
        if run is None or run() is not view:  # a new simulation run
            self._run = ref(view)
            self.reset()
        order = view.ordered_queue()
        rest = yield from self.start_jobs(view, order, now)
        if rest and (view.free[0] >= 1 or self.backfiller.runs_on_full_machine):
            yield from self._backfill(view, rest, now)

    def start_jobs(self, view: MachineView, order: list[int], now: float) -> StartRule:
        """Yield the starts of this pass (``order``: the run queue in the base scheduler's
        order, the caller's own list) and return the jobs left, head first."""
        raise NotImplementedError(f"{type(self).__name__} does not implement start_jobs()")

    def _backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        return self.backfiller.backfill(view, rest, now)


def naive_start(view: MachineView, order: Sequence[int]) -> Generator[Action, None, int]:
    """Start in order while each job fits; return how many started (the rest is
    ``order[k:]``)."""
    K, b, eps = view.K, view.bb_index, view.bb_eps
    dem, free = view.demands, view.free
    k = 0
    n = len(order)
    while k < n and fits(dem[order[k]], free, K, b, eps):
        yield Start(order[k])
        k += 1
    return k


class NaivePolicy(BasePolicy):
    """BBSched's baseline: priority order while jobs fit, then backfilling (EASY by default)."""

    name = "naive"

    def start_jobs(self, view: MachineView, order: list[int], now: float) -> StartRule:
        if self.backfiller.plans_all_starts:
            return order  # every start goes through the reservations (conservative)
        k = yield from naive_start(view, order)
        return order[k:]

    def __init__(self, *, backfill: str | Backfiller = "easy"):
        super().__init__(backfill=backfill)
        if type(self).start_jobs is NaivePolicy.start_jobs:  # not a subclass's own start rule
            # the engine calls the generator function directly: one frame less per pass
            self.schedule = self._schedule  # type: ignore[method-assign]

    def _schedule(self, view: MachineView, now: float) -> Iterator[Action]:
        """``BasePolicy.schedule`` with the naive start rule inlined: the hot path of the
        simulator (one generator per pass instead of three, no frame in between)."""
        run = self._run
        if run is None or run() is not view:  # a new simulation run
            self._run = ref(view)
            self.reset()
        order = view.ordered_queue()
        backfiller = self.backfiller
        free = view.free
        k = 0
        if not backfiller.plans_all_starts:
            n = len(order)
            dem = view.demands
            K = view.K
            if K == 1:  # nodes only: "fits" is one comparison
                while k < n and dem[order[k]][0] <= free[0]:
                    yield Start(order[k])
                    k += 1
            else:
                b, eps = view.bb_index, view.bb_eps
                while k < n and fits(dem[order[k]], free, K, b, eps):
                    yield Start(order[k])
                    k += 1
            if k:
                order = order[k:]
        if order and (free[0] >= 1 or backfiller.runs_on_full_machine):
            yield from backfiller.backfill(view, order, now)


class WindowPolicy(BasePolicy):
    """BBSched §3.1 window-based selection with any solver (see the module docstring)."""

    name = "window"

    def __init__(
        self,
        solver: Any,
        *,
        window: int = 20,
        starvation_bound: int = 50,
        budget: Budget | None = None,
        backfill: str | Backfiller = "easy",
    ):
        super().__init__(backfill=backfill)
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ConfigError(f"window: expected an integer >= 1, got {window!r}")
        if not isinstance(starvation_bound, int) or starvation_bound < 1:
            raise ConfigError(
                f"starvation_bound: expected an integer >= 1, got {starvation_bound!r}"
            )
        self.solver = solver
        self.window = window
        self.starvation_bound = starvation_bound
        self.budget = budget or Budget()
        #: starvation counters (BBSched §3.1): queued job -> passes it spent in the window
        #: without starting; the policy's own state
        self.window_passes: dict[int, int] = {}

    def describe(self) -> str:
        sid = getattr(self.solver, "id", getattr(self.solver, "name", "?"))
        return f"window[{sid},w={self.window}]+{self.backfill}"

    def reset(self) -> None:
        super().reset()
        self.window_passes = {}

    # -- the pass --------------------------------------------------------------------
    def start_jobs(self, view: MachineView, order: list[int], now: float) -> StartRule:
        K, b, eps = view.K, view.bb_index, view.bb_eps
        dem, free = view.demands, view.free
        win = order[: self.window]
        passes = self.window_passes
        bound = self.starvation_bound
        starved = [j for j in win if passes.get(j, 0) >= bound]
        started: set[int] = set()
        head: int | None = None
        if starved:
            total = [sum(dem[j][k] for j in starved) for k in range(K)]
            if not fits(total, free, K, b, eps):
                for j in starved:
                    if fits(dem[j], free, K, b, eps):
                        yield Start(j)
                        started.add(j)
                        yield Count("starved_forced")
                    else:
                        head = j
                        break
        if head is None:
            cands = [j for j in win if fits(dem[j], free, K, b, eps)]
            if cands:
                started |= yield from self._decide(view, win, cands, starved, now)
        for j in win:
            if j in started:
                passes.pop(j, None)
            else:
                passes[j] = passes.get(j, 0) + 1
        rest = [j for j in order if j not in started]
        if head is not None:
            rest.remove(head)
            rest.insert(0, head)
        return rest

    def _backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        passes = self.window_passes
        for action in self.backfiller.backfill(view, rest, now):
            if isinstance(action, Start):
                passes.pop(action.job, None)  # a started job never starves
            yield action

    def _decide(
        self,
        view: MachineView,
        win: list[int],
        cands: list[int],
        starved: list[int],
        now: float,
    ) -> Generator[Action, None, set[int]]:
        K, b, eps = view.K, view.bb_index, view.bb_eps
        dem = view.demands
        total = tuple(sum(dem[j][k] for j in cands) for k in range(K))
        if fits(total, view.free, K, b, eps):
            yield Count("trivial_decisions")
            yield from self._start_set(view, cands)
            forced = sum(1 for j in starved if j in cands)
            if forced:
                yield Count("starved_forced", forced)
            return set(cands)
        problem = self._problem(view, cands, starved)
        if view.records_problems:
            yield RecordProblem(
                problem,
                {
                    "t": now,
                    "queue_length": view.queue_length,
                    "window": self.window,
                    "policy": self.describe(),
                    "priority": view.priority,
                },
            )
        free_before = list(view.free)
        yield Count("decisions")
        fault = None
        chosen: list[int] = []
        decision = None
        try:
            decision = timed_solve(self.solver, problem, self.budget)
            if decision.status in (Status.ERROR, Status.INFEASIBLE):
                raise InvalidDecisionError(
                    f"solver answered {decision.status.value}: {'; '.join(decision.notes) or 'no reason given'}"
                )
            problem.check_selection(decision.selected)
            chosen = [cands[i] for i in decision.selected]
        except InvalidDecisionError as exc:
            fault = str(exc)
        except Exception as exc:  # a plug-in solver crashed: same handling as an invalid answer
            fault = f"solver raised {type(exc).__name__}: {exc}"
        if decision is not None:
            yield DecisionLatency(decision.latency_s)
        if fault is None:
            # The core's own check, job by job, in the order they will be started.
            free = list(view.free)
            ssd = view.ssd
            for j in sorted(chosen, key=lambda j: -ssd[j]):
                if not fits(dem[j], free, K, b, eps):
                    fault = f"job {view.job_id(j)} does not fit the free resources"
                    break
                for k in range(K):
                    free[k] -= dem[j][k]
        if fault is not None:
            if view.logs_decisions:
                yield LogDecision(
                    self._log_entry(
                        view, now, win, cands, starved, decision, [], fault, free_before
                    )
                )
            sid = getattr(self.solver, "id", self.solver)
            # the engine raises (on_invalid="raise") or counts the fallback and resumes us
            yield Fault(f"decision by {sid!r} rejected: {fault}", "the naive rule")
            k = yield from naive_start(view, cands)
            return set(cands[:k])
        yield from self._start_set(view, chosen)
        forced = sum(1 for j in starved if j in chosen)
        if forced:
            yield Count("starved_forced", forced)
        if view.logs_decisions:
            yield LogDecision(
                self._log_entry(view, now, win, cands, starved, decision, chosen, None, free_before)
            )
        return set(chosen)

    @staticmethod
    def _start_set(view: MachineView, jobs: list[int]) -> Iterator[Action]:
        # most SSD-demanding first, so node groups can always be assigned (simcore/system.py)
        ssd = view.ssd
        for j in sorted(jobs, key=lambda j: -ssd[j]):
            yield Start(j)

    @staticmethod
    def _problem(view: MachineView, cands: list[int], starved: list[int]) -> SelectionProblem:
        system = view.system
        dem = np.array([view.demands[j] for j in cands], dtype=np.float64)
        nodes = dem[:, 0]
        rows = [nodes]
        names = ["nodes"]
        scales = [float(system.nodes)]
        if view.bb_index >= 0:
            rows.append(dem[:, view.bb_index])
            names.append("bb_gb")
            scales.append(float(system.bb_gb))
        if system.has_ssd:
            rows.append(np.array([view.ssd[j] for j in cands]) * nodes)
            names.append("ssd_gb")
            scales.append(float(system.ssd_total_gb))
        pos = {j: i for i, j in enumerate(cands)}
        return SelectionProblem(
            capacities=np.maximum(np.array(view.free, dtype=np.float64), 0.0),
            demands=dem,
            objectives=np.vstack(rows),
            must_include=tuple(pos[j] for j in starved if j in pos),
            resources=view.resource_names,
            objective_names=tuple(names),
            objective_scales=np.array(scales),
        )

    def _log_entry(
        self,
        view: MachineView,
        now: float,
        win: list[int],
        cands: list[int],
        starved: list[int],
        decision: Decision | None,
        chosen: list[int],
        fault: str | None,
        free: list[float],
    ) -> dict[str, Any]:
        ids = view.job_id
        return {
            "t": now,
            "window": [ids(j) for j in win],
            "candidates": [ids(j) for j in cands],
            "must_include": [ids(j) for j in starved if j in cands],
            "selected": [ids(j) for j in chosen],
            "status": decision.status.value if decision is not None else "error",
            "objectives": list(decision.objectives) if decision is not None else [],
            "pareto_points": len(decision.pareto) if decision is not None else 0,
            "latency_s": decision.latency_s if decision is not None else None,
            "solver": decision.solver if decision is not None else getattr(self.solver, "id", ""),
            "free": free,
            "fault": fault,
        }


POLICIES: dict[str, type[BasePolicy]] = {"naive": NaivePolicy, "window": WindowPolicy}
