"""The policy protocol (simcore/policy.py): the read-only view, the actions and their validation,
backfillers composing with any start rule, and the policy registry (simcore/policy_registry.py).
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import math
import operator
import weakref
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances.systems import resolve_system
from schedbench.instances.units import fit_units
from schedbench.instances.workloads import load_workload
from schedbench.simcore.backfill import BACKFILLS, Backfiller, make_backfiller
from schedbench.simcore.engine import SimOptions, Simulation, simulate
from schedbench.simcore.errors import (
    ConfigError,
    InvalidActionError,
    PolicyOptionError,
    UnknownPolicyError,
)
from schedbench.simcore.policies import BasePolicy, NaivePolicy, WindowPolicy, naive_start
from schedbench.simcore.policy import (
    Count,
    DecisionLatency,
    LogDecision,
    Policy,
    Start,
    WakeAt,
    fits,
)
from schedbench.simcore.policy_registry import (
    known_policies,
    make_policy,
    register_policy,
    unregister_policy,
)
from schedbench.simcore.schedule import JobState
from schedbench.simcore.system import NodeGroup, System
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver
from tests._hyp import examples
from tests.simcore.test_engine_properties import check_schedule, scenarios

M10 = System.simple("m10", 10)


def jobs(**columns) -> Workload:
    return Workload.from_columns(**columns)


def same_schedule(a, b) -> None:
    np.testing.assert_array_equal(a.start, b.start)
    np.testing.assert_array_equal(a.end, b.end)
    np.testing.assert_array_equal(a.state, b.state)
    assert a.counters == b.counters
    np.testing.assert_array_equal(a.usage, b.usage)
    np.testing.assert_array_equal(a.wake_times, b.wake_times)


# ----------------------------------------------------------------------------- the view is read-only
def _must_raise(what: str, fn, kinds) -> None:
    try:
        fn()
    except kinds:
        return
    raise AssertionError(f"the view let a policy {what}")


def prod(view) -> None:
    """Try every way a policy might change the engine through the view; each must raise."""
    public = [name for name in dir(view) if not name.startswith("_")]
    assert {"free", "demands", "releases", "ordered_queue", "effective_demand"} <= set(public)
    for name in [*public, "brand_new"]:
        _must_raise(f"set {name}", lambda name=name: setattr(view, name, 0), AttributeError)
    for name in public:
        _must_raise(f"delete {name}", lambda name=name: delattr(view, name), AttributeError)
    _must_raise("write free", lambda: operator.setitem(view.free, 0, 1e9), TypeError)
    for name in ("demands", "hold", "requested_time", "submit", "ssd", "capacity"):
        seq = getattr(view, name)
        _must_raise(f"write {name}", lambda seq=seq: operator.setitem(seq, 0, 1), TypeError)
    _must_raise("write a demand", lambda: operator.setitem(view.demands[0], 0, 0.0), TypeError)
    for name in ("demand_matrix", "hold_array"):
        arr = getattr(view, name)
        _must_raise(f"write {name}", lambda arr=arr: operator.setitem(arr, 0, 0.0), ValueError)
        _must_raise(
            f"make {name} writeable",
            lambda arr=arr: setattr(arr.flags, "writeable", True),
            ValueError,
        )
        _must_raise(
            f"write a view of {name}", lambda arr=arr: operator.setitem(arr[:1], 0, 0.0), ValueError
        )
        base = arr.base
        while isinstance(base, np.ndarray):
            _must_raise(
                f"make the base of {name} writeable",
                lambda base=base: setattr(base.flags, "writeable", True),
                ValueError,
            )
            base = base.base
    for name in ("queue", "running", "releases", "staged", "stage_queue", "resource_names"):
        seq = getattr(view, name)
        assert isinstance(seq, tuple), name
        _must_raise(f"append to {name}", lambda seq=seq: seq.append(0), AttributeError)
    for _t, _seq, delta in view.releases[:3]:
        assert isinstance(delta, tuple)
    _must_raise("resize the machine", lambda: setattr(view.system, "bb_gb", 1e12), AttributeError)
    group = view.system.node_groups[0]
    _must_raise("resize a node group", lambda: setattr(group, "count", 10**6), AttributeError)
    # what a method hands out is the caller's own: emptying it changes nothing in the engine
    order = view.ordered_queue()
    assert sorted(order) == sorted(view.queue)
    order.clear()
    assert view.queue_length == len(view.queue)
    if view.queue and view.has_groups:
        j = view.queue[0]
        assert isinstance(view.effective_demand(j), tuple)
        taken, _need = view.group_plan(j)
        assert isinstance(taken, tuple)


class Prodder:
    """Wraps a policy: before its pass and after every action, tries to change the engine."""

    def __init__(self, inner):
        self.inner = inner
        self.prodded = 0

    def describe(self) -> str:
        return self.inner.describe()

    def schedule(self, view, now):
        prod(view)
        self.prodded += 1
        for action in self.inner.schedule(view, now):
            yield action
            prod(view)
            self.prodded += 1


def builtin_policies(backfill: str) -> dict[str, object]:
    """One fresh object per built-in policy (window: with the naive and the dp solver)."""
    out = {}
    for name in known_policies():
        if name == "window":
            for solver in ("naive", "dp"):
                out[f"window[{solver}]"] = make_policy(
                    "window", solver=make_solver(solver), window=8, backfill=backfill
                )
        else:
            out[name] = make_policy(name, backfill=backfill)
    return out


def _scenario(system: str, spec: str, staging: bool = False):
    w = load_workload(spec)
    s = resolve_system(system, workload=w)
    w, _ = fit_units(w, s)
    if staging:
        w = w.replace(data_in_gb=np.round(w.bb_gb * 0.6), data_out_gb=np.round(w.bb_gb * 0.3))
    return w, s


LUB = "lublin:jobs=250,nodes=4392,seed=3+bbsched:{},seed=3+arrivals:3"
SCENARIOS = {
    "bb": ("theta", LUB.format("S4"), False, "classic"),
    "ssd-groups": ("theta-ssd", LUB.format("S6"), False, "classic"),
    # the buffer cannot keep up here and the stage queue grows: fewer jobs keep this one quick
    "three-phase": ("theta", LUB.format("S4").replace("jobs=250", "jobs=120"), True, "three-phase"),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("backfill", BACKFILLS)
@pytest.mark.parametrize("priority", ["fcfs", "wfp"])
def test_no_builtin_policy_can_change_the_engine_through_the_view(scenario, backfill, priority):
    system, spec, staging, lifecycle = SCENARIOS[scenario]
    w, s = _scenario(system, spec, staging)
    options = SimOptions(lifecycle=lifecycle, priority=priority)
    plain = builtin_policies(backfill)
    prodded = {name: Prodder(p) for name, p in builtin_policies(backfill).items()}
    assert {"naive", "window[naive]", "window[dp]"} <= set(plain)
    for name in plain:
        ref = simulate(w, s, plain[name], options)
        check_schedule(ref, lifecycle == "three-phase")
        got = simulate(w, s, prodded[name], options)
        assert prodded[name].prodded > len(w) // 2
        same_schedule(ref, got)


@settings(max_examples=examples(25))
@given(case=scenarios(max_jobs=25), backfill=st.sampled_from(BACKFILLS), tp=st.booleans())
def test_prodding_changes_no_schedule_on_any_machine(case, backfill, tp):
    system, w = case
    options = SimOptions(lifecycle="three-phase" if tp else "classic")
    for make in (
        lambda: NaivePolicy(backfill=backfill),
        lambda: WindowPolicy(make_solver("naive"), window=4, starvation_bound=2, backfill=backfill),
    ):
        same_schedule(
            simulate(w, system, make(), options), simulate(w, system, Prodder(make()), options)
        )


def test_writing_through_the_memoryview_owner_cannot_fool_the_engine():
    """``view.free`` is a read-only memoryview over a mirror of the engine's free vector; even a
    policy that writes to the mirror (``memoryview.obj``) cannot start a job that does not fit:
    the engine validates against its own state."""

    class Cheat:
        def schedule(self, view, now):
            yield Start(0)
            view.free.obj[0] = 1e9  # the mirror says 1e9 nodes are free
            yield Start(1)  # 10 nodes while 6 are taken

    w = jobs(submit=[0, 0], runtime=[10, 10], nodes=[6, 10])
    sim = Simulation(w, M10, Cheat())
    with pytest.raises(InvalidActionError, match="does not fit"):
        sim.run()
    r = sim.snapshot()
    assert math.isnan(r.start[1])


# ----------------------------------------------------------------------------- actions and validation
class Scripted:
    """Yields, at the pass at ``t``, what ``script(view, now)`` returns (an iterable)."""

    def __init__(self, script):
        self.script = script

    def describe(self) -> str:
        return "scripted"

    def schedule(self, view, now):
        yield from self.script(view, now)
        # then the naive rule, so the simulation can finish
        yield from naive_start(view, view.ordered_queue())


W3 = jobs(submit=[0, 0, 5], runtime=[10, 10, 10], nodes=[6, 6, 2], job_id=[101, 102, 103])


@pytest.mark.parametrize(
    ("script", "match"),
    [
        (lambda v, t: [Start(2)] if t == 0 else [], r"job 103 \(row 2\) refused: has not arrived"),
        (lambda v, t: [Start(0), Start(0)] if t == 0 else [], r"job 101 .*already started"),
        (lambda v, t: [Start(0), Start(1)] if t == 0 else [], r"job 102 .*does not fit"),
        (lambda v, t: [Start(7)], r"names no job: index 7"),
        (lambda v, t: [Start(True)], r"names no job: expected a job index"),
        (lambda v, t: [Start("0")], r"names no job"),
        (lambda v, t: [Start(0, cuts=(6.0,))], r"cuts, but the machine has no SSD node groups"),
        (lambda v, t: [WakeAt(t)], r"WakeAt refused: wake-up at 0: expected a time after now"),
        (lambda v, t: [WakeAt(math.nan)], r"expected a finite number"),
        (lambda v, t: [WakeAt(math.inf)], r"expected a finite number"),
        (lambda v, t: [Count("started")], r"counter 'started' is the engine's own"),
        (lambda v, t: [Count("rejected_nodes")], r"is the engine's own"),
        (lambda v, t: [Count("mine", -1)], r"expected a count >= 0"),
        (lambda v, t: [DecisionLatency(-1.0)], r"expected a number of seconds"),
        (lambda v, t: ["start 0"], r"str refused: is not an action .*known: Start, WakeAt"),
        (lambda v, t: [object()], r"not an action"),
    ],
)
def test_refused_actions_name_the_policy_the_time_and_the_job(script, match):
    sim = Simulation(W3, M10, Scripted(script))
    with pytest.raises(InvalidActionError, match=match) as info:
        sim.run()
    assert "policy 'scripted'" in str(info.value) and "t=" in str(info.value)
    assert "not applied" in str(info.value)


def test_a_refused_start_is_not_applied():
    sim = Simulation(W3, M10, Scripted(lambda v, t: [Start(0), Start(1)] if t == 0 else []))
    with pytest.raises(InvalidActionError):
        sim.run()
    r = sim.snapshot()
    assert r.start[0] == 0 and math.isnan(r.start[1])
    assert r.counters["started"] == 1
    assert list(sim.machine_view().free) == [4.0]  # only job 101's 6 nodes are taken


def test_accepted_actions_and_action_subclasses():
    class MyStart(Start):
        pass

    log = []

    def script(view, now):
        if now == 0:
            yield MyStart(np.int64(0))  # a numpy index and a subclass of Start are fine
            yield Count("mine", 2)
            yield DecisionLatency(0.25)
            yield LogDecision({"t": now, "note": "hello"})
            yield WakeAt(3.0)

    r = simulate(W3, M10, Scripted(script), SimOptions(decision_log=log.append))
    assert r.start[0] == 0 and r.counters["mine"] == 2
    np.testing.assert_array_equal(r.decision_latency_s, [0.25])
    assert log == [{"t": 0, "note": "hello"}]
    assert 3.0 in r.wake_times.tolist()


def test_a_policy_returning_none_is_refused():
    class Old:
        def schedule(self, view, now):
            return None

    with pytest.raises(InvalidActionError, match="schedule\\(\\) returned None"):
        simulate(W3, M10, Old())


def test_a_job_staging_in_cannot_be_started():
    w = jobs(submit=[0, 0], runtime=[10, 10], nodes=[1, 1], bb_gb=[0, 0], data_in_gb=[0, 50])
    script = Scripted(lambda v, t: [Start(1)] if t == 0 else [])
    with pytest.raises(InvalidActionError, match="staging in"):
        simulate(w, System.simple("bb", 10, 100.0), script, SimOptions(lifecycle="three-phase"))


def test_cuts_are_checked_against_the_node_groups():
    system = System("g", (NodeGroup("small", 2, 0.0), NodeGroup("big", 2, 256.0)))
    w = jobs(submit=[0], runtime=[10], nodes=[2], ssd_gb=[200.0])
    for cuts, match in [
        ((3.0, 2.0), "place 3 nodes, the job has 2"),
        ((2.0, 0.0), "SSD levels below its request"),
        ((2.0, 2.5), "whole number of nodes"),
        ((2.0,), "expected 2 numbers"),
    ]:
        with pytest.raises(InvalidActionError, match=match):
            simulate(w, system, Scripted(lambda v, t, cuts=cuts: [Start(0, cuts=cuts)]))
    r = simulate(w, system, Scripted(lambda v, t: [Start(0, cuts=(2.0, 2.0))]))
    assert r.start[0] == 0


# ----------------------------------------------------------------------------- composition
class NaiveClone(BasePolicy):
    """The naive start rule written as a user would: through BasePolicy's composition."""

    name = "naive-clone"

    def start_jobs(self, view, order, now):
        if self.backfiller.plans_all_starts:
            return order
        k = yield from naive_start(view, order)
        return order[k:]


class LargestFirst(BasePolicy):
    """The module docstring's example start rule."""

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


class Greedy:
    """The protocol alone, no base class (the module docstring's first example)."""

    def describe(self) -> str:
        return "greedy"

    def schedule(self, view, now):
        K, b, eps = view.K, view.bb_index, view.bb_eps
        for j in view.ordered_queue():
            if fits(view.demands[j], view.free, K, b, eps):
                yield Start(j)


@pytest.mark.parametrize("backfill", BACKFILLS)
@pytest.mark.parametrize("priority", ["fcfs", "wfp"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_composed_start_rule_equals_the_inlined_naive_policy(backfill, priority, scenario):
    system, spec, staging, lifecycle = SCENARIOS[scenario]
    w, s = _scenario(system, spec, staging)
    options = SimOptions(lifecycle=lifecycle, priority=priority)
    a = simulate(w, s, NaivePolicy(backfill=backfill), options)
    b = simulate(w, s, NaiveClone(backfill=backfill), options)
    same_schedule(a, b)
    assert b.config["policy"] == f"naive-clone+{backfill}"


@pytest.mark.parametrize("backfill", BACKFILLS)
def test_the_composed_start_rule_equals_the_inlined_naive_policy_on_kth(backfill):
    w = load_workload("kth-sp2+head:1500")
    s = resolve_system(None, workload=w)
    a = simulate(w, s, NaivePolicy(backfill=backfill), SimOptions(priority="wfp"))
    b = simulate(w, s, NaiveClone(backfill=backfill), SimOptions(priority="wfp"))
    same_schedule(a, b)


@settings(max_examples=examples(30))
@given(case=scenarios(max_jobs=30), backfill=st.sampled_from(BACKFILLS), tp=st.booleans())
def test_any_start_rule_composes_with_every_backfiller(case, backfill, tp):
    system, w = case
    options = SimOptions(lifecycle="three-phase" if tp else "classic")
    for policy in (LargestFirst(backfill=backfill), NaiveClone(backfill=backfill)):
        check_schedule(simulate(w, system, policy, options), tp)
    if not tp:  # a policy without backfilling may deadlock the three-phase lifecycle
        check_schedule(simulate(w, system, Greedy(), options), tp)
    assert isinstance(Greedy(), Policy)


def test_a_backfiller_object_of_ones_own():
    class Nothing(Backfiller):
        name = "nothing"

        def backfill(self, view, rest, now):
            return iter(())

    # A (6 nodes, 100 s), B (6 nodes), C (4 nodes, 10 s): EASY would backfill C at 0
    w = jobs(submit=[0, 0, 0], runtime=[100, 10, 10], nodes=[6, 6, 4])
    assert simulate(w, M10, NaivePolicy(backfill="easy")).start.tolist() == [0, 100, 0]
    r = simulate(w, M10, NaivePolicy(backfill=Nothing()))
    assert r.start.tolist() == [0, 100, 100]
    assert r.config["policy"] == "naive+nothing"
    with pytest.raises(ConfigError, match="backfill: expected one of easy, conservative, none"):
        NaivePolicy(backfill="eazy")
    with pytest.raises(ConfigError, match="backfiller object"):
        make_backfiller(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("backfill", BACKFILLS)
def test_one_policy_object_run_twice_starts_afresh(backfill):
    """Policy state (bookings, starvation counters) belongs to one run; a second run with the
    same object resets it and gives the same schedule."""
    w, s = _scenario(*SCENARIOS["bb"][:3])
    for policy in (
        NaivePolicy(backfill=backfill),
        WindowPolicy(make_solver("naive"), window=5, starvation_bound=2, backfill=backfill),
    ):
        first = simulate(w, s, policy, SimOptions(priority="wfp"))
        second = simulate(w, s, policy, SimOptions(priority="wfp"))
        same_schedule(first, second)


def test_policy_state_lives_in_the_policy():
    w = jobs(submit=[0, 0, 1, 2], runtime=[30, 20, 100, 20], nodes=[5, 5, 10, 5])
    policy = WindowPolicy(
        make_solver("naive"), window=2, starvation_bound=50, backfill="conservative"
    )
    sim = Simulation(w, M10, policy)
    assert not any(hasattr(sim, a) for a in ("reservations", "window_passes"))
    sim.run()
    assert isinstance(policy.backfiller.reservations, dict)
    assert isinstance(policy.window_passes, dict)
    assert all(JobState(s) is JobState.COMPLETED for s in sim.state)


# ----------------------------------------------------------------------------- the registry
def test_builtin_policies_are_registered_by_entry_point():
    assert {"naive", "window"} <= set(known_policies())
    assert make_policy("naive", backfill="none").describe() == "naive+none"
    p = make_policy("window", solver=make_solver("naive"), window=5, backfill="conservative")
    assert isinstance(p, WindowPolicy) and p.describe() == "window[naive,w=5]+conservative"
    assert isinstance(make_policy("schedbench.simcore.policies:NaivePolicy"), NaivePolicy)


def test_unknown_names_and_options_are_errors_that_list_what_is_known():
    with pytest.raises(UnknownPolicyError, match=r"unknown policy 'naiv'; known policies: .*naive"):
        make_policy("naiv")
    with pytest.raises(LookupError):
        make_policy("naiv")
    with pytest.raises(
        PolicyOptionError, match="policy 'naive' has no option 'backfil'; its options: backfill"
    ):
        make_policy("naive", backfil="easy")
    with pytest.raises(
        PolicyOptionError,
        match="policy 'window' has no option 'windw'; its options: solver, window, "
        "starvation_bound, starvation, ageing, optimise_around_head, budget, backfill",
    ):
        make_policy("window", solver=make_solver("naive"), windw=3)
    with pytest.raises(PolicyOptionError, match="missing a required argument: 'solver'"):
        make_policy("window")
    with pytest.raises(ConfigError, match="window: expected an integer"):
        make_policy("window", solver=make_solver("naive"), window=0)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("os:system", "not a class"),
        ("subprocess:Popen", "no schedule\\(\\) method"),
        ("no_such_module_xyz:P", "cannot import module"),
        ("schedbench.simcore.policies:Nope", "has no 'Nope'"),
        ("schedbench.simcore.policies:", "expected module:Class"),
    ],
)
def test_module_colon_class_must_name_a_policy_class(spec, match):
    with pytest.raises(PolicyOptionError, match=match):
        make_policy(spec)


def test_register_policy_in_process():
    try:
        register_policy("greedy", Greedy)
        assert "greedy" in known_policies()
        assert isinstance(make_policy("greedy"), Greedy)
        with pytest.raises(
            PolicyOptionError, match="policy 'greedy' has no option 'x'; its options: \\(none\\)"
        ):
            make_policy("greedy", x=1)
        register_policy("greedy", Greedy)  # the same class again: fine
        with pytest.raises(PolicyOptionError, match="already registered"):
            register_policy("greedy", LargestFirst)
        register_policy("greedy", LargestFirst, replace=True)
        assert isinstance(make_policy("greedy", backfill="none"), LargestFirst)
        with pytest.raises(PolicyOptionError, match="registered by an installed package"):
            register_policy("naive", Greedy)
        with pytest.raises(PolicyOptionError, match="no schedule\\(\\) method"):
            register_policy("bad", dict)
        with pytest.raises(PolicyOptionError, match="without ':'"):
            register_policy("a:b", Greedy)
    finally:
        unregister_policy("greedy")
    assert "greedy" not in known_policies()


def test_the_builtin_policies_accept_their_documented_constructor_signatures():
    # bench/ builds them this way (until it switches to make_policy)
    NaivePolicy(backfill="conservative")
    WindowPolicy(make_solver("dp"), window=10, starvation_bound=5, budget=None, backfill="none")
    assert dataclasses.is_dataclass(Start) and Start(3) == Start(3, False, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Start(3).job = 4  # type: ignore[misc]


def test_builtin_policies_read_no_private_field_of_anything_but_themselves():
    """Policies and backfillers see the engine only through the view's public members."""
    root = Path(__file__).resolve().parents[2] / "simcore"
    problems = []
    for module in ("policies.py", "backfill.py"):
        tree = ast.parse((root / module).read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                problems.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backfill", BACKFILLS)
def test_a_finished_simulation_is_freed_without_the_cycle_collector(backfill):
    """No reference cycle through the view or the action handlers: a run's state (per-job lists
    of a million-job workload) goes away when the last reference does, not at the next full
    garbage collection (which also made later runs in the same process slower)."""
    w, s = _scenario(*SCENARIOS["bb"][:3])
    for policy in builtin_policies(backfill).values():
        gc.disable()
        try:
            sim = Simulation(w, s, policy)
            ref = weakref.ref(sim)
            sim.run()
            del sim
            assert ref() is None
        finally:
            gc.enable()
