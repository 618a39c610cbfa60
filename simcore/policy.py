"""The policy protocol: what a scheduling policy sees of the machine, and what it may do.

A scheduling policy is a plug-in (docs/design.md#plug-ins-not-branches): it sees a read-only view of
the machine and returns actions that the engine validates and applies. It acts on the simulation
only through the actions it returns, as a SimPy process acts only through events: the engine
(``simcore/engine.py``) owns every piece of state, and neither the engine nor the policies import
each other — both import this module.

What a policy sees
------------------
``schedule(view, now)`` receives a :class:`MachineView`: the clock; the machine (resource
names, capacities, the ``System``); the free resource vector (a *live*, read-only view: it
changes as the engine applies the policy's starts); the run queue, in arrival order or in the
base scheduler's order (``fcfs`` / ``wfp``, ``simcore/priority.py``); per-job data a real
scheduler knows — demand vectors, requested times, how long a run phase holds what it takes by
its request (``hold``), SSD requests, submit times, job ids — but never the actual runtimes;
the running jobs' expected releases by their *requested* times; the three-phase staging state;
and the SSD node-group queries the backfillers need (``effective_demand``, ``group_plan``,
``level_plan``). Everything it hands out is immutable (tuples, read-only memoryviews and numpy
arrays) or a fresh copy the caller owns; assigning to the view raises ``AttributeError``.
Underscore names are not part of the view: a policy reads none.

What a policy does
------------------
``schedule`` returns an iterable of *actions* (frozen dataclasses below). The engine consumes
it one action at a time and validates and applies each before it asks for the next, so a
generator policy sees the updated view after every ``Start`` it yields — this is how a start
rule and then a backfiller share one pass. The actions:

* :class:`Start` — start a queued job's run phase now (optionally ``backfilled``, and with
  SSD node groups the exact nodes per SSD cut to take, ``cuts``);
* :class:`WakeAt` — make sure a pass happens at a later instant even if nothing ends then;
* :class:`Count`, :class:`DecisionLatency`, :class:`LogDecision`, :class:`RecordProblem` —
  report what the policy decided (policy counters, solver latencies, decision-log entries, the
  decision problems for ``--record-decisions``) without touching engine state;
* :class:`Fault` — the policy's own decision maker (a solver) answered something invalid: the
  engine counts it and, with ``SimOptions(on_invalid="raise")`` (the default), stops the run
  with ``InvalidDecisionError``; with ``"fallback"`` the policy is resumed and must fall back.

Validation. Every action is checked before it is applied; a refused action raises
:class:`~simcore.errors.InvalidActionError` naming the policy, the time and the job, and is
never applied: a ``Start`` of a job that is not in the run queue (not arrived, staging,
running, finished, or an index out of range), of a job whose demand does not fit the free
resources (the burst buffer with a relative slack of 1e-9 of its size), of a job the node
groups cannot hold (on machines with SSD node groups, start the most SSD-demanding jobs first,
``simcore/system.py``), or with ``cuts`` that do not place exactly the job's nodes on adequate,
free SSD levels; a ``WakeAt`` that is not a finite time after now; a ``Count`` of an
engine-owned counter; an object of no known action type.

Actions are dispatched on their type through a table in the engine, not an if-chain, so the set
can grow — advance reservations with a start time and a PE set, data staging for a three-queue
burst-buffer scheduler (Cerberus), file loads for a locality scheduler — by adding a dataclass
here and one handler entry there.

State and lifetime. A policy object keeps its own state between passes (starvation counters,
conservative backfilling's reservations): use **one policy object per simulation run**. The
built-in policies reset their state when they see a new view (a new run), so running them again
sequentially is safe; sharing one object between simulations that run at the same time is not.

Writing a policy
----------------
The shortest form implements the protocol directly::

    from schedbench.simcore.policy import Start, fits

    class Greedy:
        \"\"\"Start every queued job that fits, in the base scheduler's order.\"\"\"

        def describe(self) -> str:
            return "greedy"

        def schedule(self, view, now):
            K, b, eps = view.K, view.bb_index, view.bb_eps
            for j in view.ordered_queue():
                if fits(view.demands[j], view.free, K, b, eps):
                    yield Start(j)  # applied before the loop resumes: view.free is updated

Most policies are a *start rule* plus a *backfiller* (``simcore/backfill.py``: EASY,
conservative, none), which compose with any start rule: subclass
``simcore.policies.BasePolicy`` and write the start rule as a generator that yields its starts
and returns the jobs left, head first::

    from schedbench.simcore.policies import BasePolicy

    class LargestFirst(BasePolicy):
        name = "largest-first"

        def start_jobs(self, view, order, now):
            order = sorted(order, key=lambda j: -view.demands[j][0])
            k = 0
            while k < len(order) and fits(
                view.demands[order[k]], view.free, view.K, view.bb_index, view.bb_eps
            ):
                yield Start(order[k])
                k += 1
            return order[k:]

    LargestFirst(backfill="conservative")

Register it by name with ``register_policy`` or the entry-point group ``schedbench.policies``
(``simcore/policy_registry.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schedbench.simcore.system import System

__all__ = [
    "POLICY_COUNTERS",
    "Action",
    "Count",
    "DecisionLatency",
    "Fault",
    "LogDecision",
    "MachineView",
    "Policy",
    "RecordProblem",
    "Start",
    "WakeAt",
    "fits",
]


def fits(d: Sequence[float], f: Sequence[float], K: int, b: int, eps: float) -> bool:
    """Every entry of demand ``d`` within ``f`` (burst buffer, entry ``b``, with slack ``eps``).

    The one definition of "fits" for policies and for the engine's validation of a start.
    """
    if d[0] > f[0]:  # nodes first: the usual reason, and cheap
        return False
    for k in range(1, K):  # noqa: SIM110 - a plain loop; all() with a generator is slower here
        if d[k] > f[k] + (eps if k == b else 0.0):
            return False
    return True


# ---------------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action a policy may return (the engine dispatches on the concrete type)."""


@dataclass(frozen=True, slots=True)
class Start(Action):
    """Start queued job ``job``'s run phase now.

    ``backfilled`` counts it as a backfilled start (counter ``backfilled``). ``cuts`` (machines
    with SSD node groups only): the nodes to take per SSD cut, as a resource vector whose
    entries ``0..n_cuts`` are read (entry 0 all nodes, entry k the nodes with SSD >= the k-th
    threshold, ``MachineView.resource_names``) — conservative backfilling starts a job on
    exactly the nodes its booking planned. Default: the smallest adequate SSD first
    (BBSched §5).
    """

    job: int
    backfilled: bool = False
    cuts: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class WakeAt(Action):
    """Make sure a scheduling pass happens at ``t`` (> now) even if nothing ends then.

    A conservative booking promises a start at an instant that no completion or arrival may
    visit (docs/design.md#one-engine-semantics-stated-once). The engine adds no pass when one is due
    by then anyway."""

    t: float


@dataclass(frozen=True, slots=True)
class Count(Action):
    """Add ``n`` to the policy counter ``name`` of the result (``ScheduleResult.counters``).

    ``decisions``, ``trivial_decisions`` and ``starved_forced`` are the window policy's; any
    other name not owned by the engine (see :data:`POLICY_COUNTERS`) is added as an extra
    counter."""

    name: str
    n: int = 1


#: The counters of ``ScheduleResult`` that policies report through :class:`Count`; every other
#: built-in counter (passes, starts, backfilled, faults, rejections, ...) is the engine's own.
POLICY_COUNTERS = ("decisions", "trivial_decisions", "starved_forced")


@dataclass(frozen=True, slots=True)
class DecisionLatency(Action):
    """A solver call's wall latency in seconds (``ScheduleResult.decision_latency_s``)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class LogDecision(Action):
    """One JSON-ready decision-log entry, passed to ``SimOptions.decision_log`` (if set; see
    ``MachineView.logs_decisions``)."""

    entry: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RecordProblem(Action):
    """A decision problem about to be solved and its context, passed to
    ``SimOptions.record_problem`` (if set; see ``MachineView.records_problems``)."""

    problem: Any
    context: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Fault(Action):
    """The policy's decision (a solver's answer) was invalid: ``reason`` says why.

    The engine counts a fault; with ``on_invalid="raise"`` it raises ``InvalidDecisionError``
    ("t=<now>: <reason> (use on_invalid='fallback' to fall back to <fallback>)") and the policy
    is not resumed; with ``"fallback"`` it counts a fallback and resumes the policy, which then
    applies ``fallback`` itself."""

    reason: str
    fallback: str = "the naive rule"


# ---------------------------------------------------------------------- the view
class MachineView(Protocol):
    """What a policy may read: the engine's state, read-only (see the module docstring).

    Job indices are workload rows (``0..n-1``, submit order). Sequences handed out are tuples,
    read-only memoryviews or read-only numpy arrays; methods return fresh objects.
    """

    # -- the machine ------------------------------------------------------------
    @property
    def system(self) -> System:
        """The machine (frozen)."""

    @property
    def resource_names(self) -> tuple[str, ...]:
        """Entries of the resource vector: ``nodes``, ``nodes_ssd>=t`` per SSD cut, ``bb_gb``."""

    @property
    def capacity(self) -> tuple[float, ...]:
        """The machine's total per resource."""

    @property
    def K(self) -> int:
        """Length of the resource vector."""

    @property
    def bb_index(self) -> int:
        """Index of ``bb_gb`` in the resource vector, -1 without a burst buffer."""

    @property
    def bb_eps(self) -> float:
        """Slack allowed on the burst buffer when testing a fit (1e-9 of its size)."""

    @property
    def n_cuts(self) -> int:
        """Number of ``nodes_ssd>=t`` entries (SSD cuts), right after ``nodes``."""

    @property
    def has_groups(self) -> bool:
        """Node groups are tracked (several SSD sizes, or local SSD at all): a job may take more
        of the cut entries than its demand says (it spills onto larger-SSD nodes)."""

    @property
    def three_phase(self) -> bool:
        """The BBSim three-phase lifecycle is simulated (stage-in, run, stage-out)."""

    # -- the clock and the state --------------------------------------------------
    @property
    def now(self) -> float:
        """The current instant."""

    @property
    def free(self) -> Sequence[float]:
        """The free resource vector: a live, read-only view (it follows the engine's starts).

        A read-only ``memoryview`` of a mirror the engine updates with every change; the engine
        itself validates against its own copy, so not even writing to ``free.obj`` changes what
        it believes is free."""

    @property
    def queue(self) -> tuple[int, ...]:
        """The run queue in arrival order (a snapshot)."""

    @property
    def queue_length(self) -> int:
        """Number of jobs in the run queue."""

    def ordered_queue(self) -> list[int]:
        """The run queue in the base scheduler's order (``fcfs``/``wfp``, BBSched §2.1, §4.3):
        a fresh list the caller owns."""

    def is_queued(self, j: int) -> bool:
        """Job ``j`` is in the run queue (a ``Start`` of it is allowed if it fits)."""

    @property
    def started_count(self) -> int:
        """How many run phases have started so far (only grows: a policy that keeps per-job
        state can tell whether anybody started jobs since it last looked)."""

    @property
    def running(self) -> tuple[int, ...]:
        """Jobs whose run phase has started and whose resources are not all released."""

    @property
    def releases(self) -> tuple[tuple[float, int, tuple[float, ...]], ...]:
        """The running jobs' expected releases by their *requested* times, in time order:
        ``(time, seq, delta)`` with ``delta`` the amounts given back per resource and ``seq`` the
        engine's tie-break among releases at the same time (a snapshot)."""

    @property
    def staged(self) -> tuple[int, ...]:
        """Three-phase: jobs that hold their stage-in buffer and wait in the run queue."""

    @property
    def stage_queue(self) -> tuple[int, ...]:
        """Three-phase: jobs waiting for their stage-in (not yet in the run queue)."""

    # -- per job -------------------------------------------------------------------
    @property
    def demands(self) -> Sequence[tuple[float, ...]]:
        """Each job's run-phase demand vector (three-phase: ``bb_gb + data_out_gb`` in the
        burst buffer, the stage-out buffer being reserved when the run phase starts)."""

    @property
    def demand_matrix(self) -> np.ndarray:
        """The same as a read-only ``(n, K)`` array (for vectorised pre-filters)."""

    @property
    def hold(self) -> Sequence[float]:
        """How long a run phase holds what it takes at its start, by the request: the request
        (classic); load-in + request + load-out + drain (three-phase)."""

    @property
    def hold_array(self) -> np.ndarray:
        """``hold`` as a read-only array."""

    @property
    def requested_time(self) -> Sequence[float]:
        """Each job's requested (estimated) run time."""

    @property
    def submit(self) -> Sequence[float]:
        """Each job's submit time."""

    @property
    def ssd(self) -> Sequence[float]:
        """Each job's local-SSD request per node (GB)."""

    def job_id(self, j: int) -> int:
        """Job ``j``'s id in the workload (the SWF job number)."""

    # -- SSD node groups (read-only queries) ---------------------------------------
    def effective_demand(self, j: int) -> tuple[float, ...]:
        """Job ``j``'s demand vector if it started now, with the ``nodes_ssd>=t`` entries it
        would really occupy (a small-SSD job spills onto larger-SSD nodes when the small ones
        are busy); its nominal demand when it does not fit now or without node groups."""

    def group_plan(self, j: int) -> tuple[tuple[int, ...], int]:
        """Nodes job ``j`` would take from each node group now (smallest adequate SSD first,
        BBSched §5), and how many it would still lack."""

    def level_plan(self, cuts: Sequence[float]) -> tuple[tuple[int, ...], int]:
        """Nodes per node group for an allocation given per SSD cut (``Start.cuts``), and how
        many of them are not free now."""

    # -- what is listening ------------------------------------------------------------
    @property
    def priority(self) -> str:
        """The base scheduler's name (``fcfs``, ``wfp``)."""

    @property
    def logs_decisions(self) -> bool:
        """A decision log is attached: :class:`LogDecision` entries are used."""

    @property
    def records_problems(self) -> bool:
        """Decision problems are recorded: :class:`RecordProblem` actions are used."""


@runtime_checkable
class Policy(Protocol):
    """A scheduling policy: one pass at a time, through actions (see the module docstring).

    ``schedule`` is called once per scheduling pass, with the run queue non-empty; the engine
    applies the returned actions in order, each before the next is asked for. Optional:
    ``describe() -> str``, the label recorded with the result (``config["policy"]``).
    """

    def schedule(self, view: MachineView, now: float) -> Iterable[Action]: ...
