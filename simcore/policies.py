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
* Starvation (BBSched §3.1: "we define an upper bound for the number of iterations that a job
  can stay in the window. Once a job passes the bound (e.g., 50), it must be selected to run").
  Four documented settings (``WindowPolicy(ageing=..., starvation_bound=...)``):

  - ``ageing="decision"`` (**default**, the paper's reading): a window job's counter rises by
    one at every pass whose window is *optimised* — the solver is called — and that does not
    start it. An "iteration" in BBSched is one run of its optimiser over the window (§3.2:
    "upon a scheduling invocation ... jobs are selected from the window"; §3.3 counts the
    window mechanism and the optimisation as one step); a pass in which nothing in the window
    fits, or everything that fits starts, makes no choice against anybody. Counting every
    scheduling pass instead (CQSim runs one after every event) ages a job once per arrival and
    completion: on a loaded machine almost the whole window is starved within a few hours and
    the optimiser is switched off (98 % of the passes with a choice went down the starvation
    path on Theta-S4; docs/design.md#the-bbsched-regime-starvation-ageing-and-load).
  - ``ageing="pass"``: every scheduling pass in which the job is in the window and does not
    start (the earlier rule, kept as ``starvation="legacy"``).
  - ``ageing="seconds"``: the bound is in seconds the job has spent since it first entered the
    window (whether it stayed in it or not; WFP can move it out and back).
  - ``ageing="candidate"``: as ``"decision"``, but only the jobs the solver could have chosen
    (they fit on their own) and did not age; a job that does not fit is passed over by the
    resources, not by the optimiser. Another reading of "stays in the window", measured
    against the default in bench/reproduce/bbsched.md (the solver's share of the choices).

  A starved job enters the problem as ``must_include``. When the starved jobs do not fit
  together they start in priority order while they fit, and the first that does not becomes
  the backfilling head, so the machine drains for it. With ``optimise_around_head=True``
  (default) the rest of the window is still optimised, *around the head's reservation*: the
  head gets EASY's reservation (the earliest instant its demand is free, from requested
  times), and the problem gets a second block of the K resources, ``<resource>@head``, with
  capacity what the reservation leaves over then; a job that would still run at that instant
  (by its request) demands its vector there too, a job that ends before demands nothing. So
  whatever the solver picks can start without delaying the starved head, exactly EASY's
  condition for a set of jobs. (With SSD node groups the reservation test uses the nominal
  demand, not the larger-SSD nodes a job might spill onto.) Later starved jobs are ordinary
  candidates of that problem. ``optimise_around_head=False`` leaves the rest to the backfiller
  (the earlier rule).
* Named starvation settings (``WindowPolicy(starvation=...)``, :data:`STARVATION`):
  ``"paper"`` (default: ``ageing="decision"``, ``optimise_around_head=True``) and ``"legacy"``
  (``ageing="pass"``, ``optimise_around_head=False``: the window policy's earlier rule, which
  reproduces its schedules exactly; ``tests/simcore/test_schedule_digests.py`` pins them under this
  name). An explicit ``ageing`` or ``optimise_around_head`` overrides the named setting. On the
  command line: ``--policy-set starvation=legacy``. The counters are the policy's
  own state (``WindowPolicy.window_passes``).
* What each run records (policy counters, ``simcore/metrics.py`` turns them into
  ``solver_pass_share``): ``choice_passes`` — passes in which the window jobs that fit on their
  own do not all fit together (a real choice); ``choice_passes_solver`` — those that reached
  the solver; ``starvation_blocked`` — those that did not because starved jobs were started
  first and nothing was left to optimise (or, with ``optimise_around_head=False``, the head
  was starved); ``starved_heads`` — passes in which a starved job that does not fit became the
  head. None of these changes a schedule.
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

import math
from collections.abc import Generator, Iterator, Sequence
from typing import Any
from weakref import ReferenceType, ref

import numpy as np

from schedbench.simcore.backfill import BACKFILLS as BACKFILLS
from schedbench.simcore.backfill import Backfiller, head_reservation, make_backfiller
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


#: How a window job ages towards the starvation bound (see the module docstring).
AGEING = ("decision", "pass", "seconds", "candidate")

#: Named starvation settings (module docstring): name -> (ageing, optimise_around_head).
STARVATION: dict[str, tuple[str, bool]] = {
    "paper": ("decision", True),
    "legacy": ("pass", False),
}

#: Policy counters that describe what the window policy did without changing any schedule (the
#: schedule digests of ``tests/simcore/test_schedule_digests.py`` leave them out).
WINDOW_DIAGNOSTICS = (
    "choice_passes",
    "choice_passes_solver",
    "starvation_blocked",
    "starved_heads",
)


class WindowPolicy(BasePolicy):
    """BBSched §3.1 window-based selection with any solver (see the module docstring).

    ``ageing`` and ``starvation_bound``: how a window job ages and when it is starved
    (``"decision"``, the default, counts the passes whose window went to the solver without
    starting it; ``"pass"`` every pass; ``"seconds"`` the seconds since it entered the window).
    ``optimise_around_head``: when starved jobs do not fit together, still optimise the rest of
    the window around the starved head's reservation (default) or leave it to the backfiller.
    ``starvation``: a named pair of the two (:data:`STARVATION`): ``"paper"`` (default) or
    ``"legacy"`` (the earlier rule, per-pass ageing); explicit ``ageing`` / ``optimise_around_head``
    override it.
    """

    name = "window"

    def __init__(
        self,
        solver: Any,
        *,
        window: int = 20,
        starvation_bound: float = 50,
        starvation: str = "paper",
        ageing: str | None = None,
        optimise_around_head: bool | None = None,
        budget: Budget | None = None,
        backfill: str | Backfiller = "easy",
    ):
        super().__init__(backfill=backfill)
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ConfigError(f"window: expected an integer >= 1, got {window!r}")
        if starvation not in STARVATION:
            raise ConfigError(
                f"starvation: expected one of {', '.join(STARVATION)}, got {starvation!r}"
            )
        if ageing is None:
            ageing = STARVATION[starvation][0]
        if optimise_around_head is None:
            optimise_around_head = STARVATION[starvation][1]
        if ageing not in AGEING:
            raise ConfigError(f"ageing: expected one of {', '.join(AGEING)}, got {ageing!r}")
        if ageing == "seconds":
            ok = (
                isinstance(starvation_bound, int | float)
                and not isinstance(starvation_bound, bool)
                and starvation_bound > 0
            )
            if not ok:
                raise ConfigError(
                    f"starvation_bound: expected a number of seconds > 0, got {starvation_bound!r}"
                )
        elif (
            not isinstance(starvation_bound, int)
            or isinstance(starvation_bound, bool)
            or starvation_bound < 1
        ):
            raise ConfigError(
                f"starvation_bound: expected an integer >= 1, got {starvation_bound!r}"
            )
        if not isinstance(optimise_around_head, bool):
            raise ConfigError(
                f"optimise_around_head: expected true or false, got {optimise_around_head!r}"
            )
        self.solver = solver
        self.window = window
        self.starvation_bound = starvation_bound
        self.starvation = starvation
        self.ageing = ageing
        self.optimise_around_head = optimise_around_head
        self.budget = budget or Budget()
        #: starvation counters (BBSched §3.1): queued job -> its age (passes or decisions it
        #: spent in the window without starting; with ``ageing="seconds"`` the instant it first
        #: entered the window); the policy's own state
        self.window_passes: dict[int, float] = {}
        self._solved = False  # the solver was called in the current pass
        self._announced = False  # the diagnostic counters were reported in this run

    def describe(self) -> str:
        sid = getattr(self.solver, "id", getattr(self.solver, "name", "?"))
        extra = "" if self.ageing == "decision" else f",ageing={self.ageing}"
        if self.starvation_bound != 50:
            extra += f",bound={self.starvation_bound:g}"
        if not self.optimise_around_head:
            extra += ",around_head=no"
        return f"window[{sid},w={self.window}{extra}]+{self.backfill}"

    def reset(self) -> None:
        super().reset()
        self.window_passes = {}
        self._announced = False

    def _starved(self, j: int, now: float) -> bool:
        age = self.window_passes.get(j)
        if age is None:
            return False
        if self.ageing == "seconds":
            return now - age >= self.starvation_bound
        return age >= self.starvation_bound

    # -- the pass --------------------------------------------------------------------
    def start_jobs(self, view: MachineView, order: list[int], now: float) -> StartRule:
        K, b, eps = view.K, view.bb_index, view.bb_eps
        dem, free = view.demands, view.free
        win = order[: self.window]
        passes = self.window_passes
        cands = [j for j in win if fits(dem[j], free, K, b, eps)]
        choice = len(cands) > 1 and not fits(
            [sum(dem[j][k] for j in cands) for k in range(K)], free, K, b, eps
        )
        starved = [j for j in win if self._starved(j, now)]
        started: set[int] = set()
        head: int | None = None
        self._solved = False
        if not self._announced:  # the diagnostics exist (as 0) in every run of this policy
            self._announced = True
            for name in WINDOW_DIAGNOSTICS:
                yield Count(name, 0)
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
            if cands:
                started |= yield from self._decide(view, win, cands, starved, now)
        else:
            yield Count("starved_heads")
            if self.optimise_around_head:
                rest = [
                    j
                    for j in win
                    if j != head and j not in started and fits(dem[j], free, K, b, eps)
                ]
                if rest:
                    started |= yield from self._decide_around(view, win, rest, head, now)
        if choice:
            yield Count("choice_passes")
            if self._solved:
                yield Count("choice_passes_solver")
            elif head is not None or started:
                yield Count("starvation_blocked")
        ageing = self.ageing
        if ageing == "seconds":
            for j in win:
                if j in started:
                    passes.pop(j, None)
                elif j not in passes:
                    passes[j] = now
        elif ageing == "candidate":
            # as "decision", but only the candidates the solver passed over age
            for j in started:
                passes.pop(j, None)
            if self._solved:
                for j in cands:
                    if j not in started:
                        passes[j] = passes.get(j, 0) + 1
        elif ageing == "pass" or self._solved:
            for j in win:
                if j in started:
                    passes.pop(j, None)
                else:
                    passes[j] = passes.get(j, 0) + 1
        else:
            for j in started:
                passes.pop(j, None)
        rest_order = [j for j in order if j not in started]
        if head is not None:
            rest_order.remove(head)
            rest_order.insert(0, head)
        return rest_order

    def _backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        passes = self.window_passes
        for action in self.backfiller.backfill(view, rest, now):
            if isinstance(action, Start):
                passes.pop(action.job, None)  # a started job never starves
            yield action

    def _decide_around(
        self, view: MachineView, win: list[int], rest: list[int], head: int, now: float
    ) -> Generator[Action, None, set[int]]:
        """Optimise ``rest`` (window jobs that fit now) around the starved ``head``'s EASY
        reservation: a job still running at the head's reserved instant (by its request) must
        fit in what the reservation leaves over then (module docstring)."""
        K, b, eps = view.K, view.bb_index, view.bb_eps
        dem, hold = view.demands, view.hold
        shadow, extra = head_reservation(view, dem[head], now)
        long_jobs = {j for j in rest if now + hold[j] > shadow}
        cands = [j for j in rest if j not in long_jobs or fits(dem[j], extra, K, b, eps)]
        if not cands:
            return set()
        reservation = (head, long_jobs, [max(x, 0.0) for x in extra])
        return (yield from self._decide(view, win, cands, [], now, reservation))

    def _decide(
        self,
        view: MachineView,
        win: list[int],
        cands: list[int],
        starved: list[int],
        now: float,
        reservation: tuple[int, set[int], list[float]] | None = None,
    ) -> Generator[Action, None, set[int]]:
        K, b, eps = view.K, view.bb_index, view.bb_eps
        dem = view.demands
        total = tuple(sum(dem[j][k] for j in cands) for k in range(K))
        if fits(total, view.free, K, b, eps) and (
            reservation is None
            or fits(
                tuple(sum(dem[j][k] for j in cands if j in reservation[1]) for k in range(K)),
                reservation[2],
                K,
                b,
                eps,
            )
        ):
            yield Count("trivial_decisions")
            yield from self._start_set(view, cands)
            forced = sum(1 for j in starved if j in cands)
            if forced:
                yield Count("starved_forced", forced)
            return set(cands)
        self._solved = True
        problem = self._problem(view, cands, starved, reservation)
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
            if math.isfinite(decision.latency_s):  # a call that never ran has none
                yield DecisionLatency(decision.latency_s)
            if decision.status == Status.TIMEOUT:  # stopped at its deadline + grace, or late
                yield Count("decision_timeouts")
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
                        view,
                        now,
                        win,
                        cands,
                        starved,
                        decision,
                        [],
                        fault,
                        free_before,
                        reservation,
                    )
                )
            sid = getattr(self.solver, "id", self.solver)
            if reservation is not None:  # the naive rule could delay the starved head
                yield Fault(f"decision by {sid!r} rejected: {fault}", "the backfiller")
                return set()
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
                self._log_entry(
                    view, now, win, cands, starved, decision, chosen, None, free_before, reservation
                )
            )
        return set(chosen)

    @staticmethod
    def _start_set(view: MachineView, jobs: list[int]) -> Iterator[Action]:
        # most SSD-demanding first, so node groups can always be assigned (simcore/system.py)
        ssd = view.ssd
        for j in sorted(jobs, key=lambda j: -ssd[j]):
            yield Start(j)

    @staticmethod
    def _problem(
        view: MachineView,
        cands: list[int],
        starved: list[int],
        reservation: tuple[int, set[int], list[float]] | None = None,
    ) -> SelectionProblem:
        system = view.system
        dem = np.array([view.demands[j] for j in cands], dtype=np.float64)
        capacities = np.maximum(np.array(view.free, dtype=np.float64), 0.0)
        resources = view.resource_names
        if reservation is not None:  # the second block: what each job holds at the head's start
            at_head = np.array([j in reservation[1] for j in cands], dtype=np.float64)
            demands = np.hstack([dem, dem * at_head[:, None]])
            capacities = np.concatenate([capacities, np.array(reservation[2], dtype=np.float64)])
            resources = (*resources, *(f"{r}@head" for r in resources))
        else:
            demands = dem
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
            capacities=capacities,
            demands=demands,
            objectives=np.vstack(rows),
            must_include=tuple(pos[j] for j in starved if j in pos),
            resources=resources,
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
        reservation: tuple[int, set[int], list[float]] | None = None,
    ) -> dict[str, Any]:
        ids = view.job_id
        entry = {
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
        if decision is not None and (
            decision.status in (Status.TIMEOUT, Status.ERROR) or "claimed_status" in decision.stats
        ):
            # why: killed, stopped, raised, rejected, or a claim the core did not believe
            entry["notes"] = list(decision.notes)
        if reservation is not None:  # optimised around a starved head's reservation
            entry["starved_head"] = ids(reservation[0])
            entry["free_at_head"] = list(reservation[2])
        return entry


POLICIES: dict[str, type[BasePolicy]] = {"naive": NaivePolicy, "window": WindowPolicy}
