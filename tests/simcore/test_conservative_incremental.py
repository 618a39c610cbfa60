"""Conservative backfilling's incremental pass gives the schedules of the pass that rebuilds
everything (``ConservativeBackfill(incremental=False)``, the plain path kept beside it):
same starts, ends, counters and wake-ups, bit for bit, on random workloads (nodes-only
machines, where the incremental pass runs, and the others, where it must step aside), FCFS
and WFP, the naive and the window start rules, and on Lublin and KTH-SP2 workloads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances import datasets
from schedbench.instances.lublin import generate_lublin
from schedbench.simcore.backfill import ConservativeBackfill
from schedbench.simcore.engine import SimOptions, simulate
from schedbench.simcore.policies import NaivePolicy, WindowPolicy
from schedbench.simcore.schedule import ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver
from tests._hyp import examples
from tests.simcore.test_engine_properties import machines, workloads

KTH = datasets.path("kth-sp2")  # shipped with the package (gzip SWF)


def _run(w: Workload, system: System, incremental: bool, priority: str, window: bool = False):
    bf = ConservativeBackfill(incremental=incremental)
    if window:
        policy = WindowPolicy(make_solver("naive"), window=3, backfill=bf)
    else:
        policy = NaivePolicy(backfill=bf)
    return simulate(w, system, policy, SimOptions(priority=priority)), bf


def _same(a: ScheduleResult, b: ScheduleResult) -> None:
    np.testing.assert_array_equal(a.start, b.start)
    np.testing.assert_array_equal(a.end, b.end)
    np.testing.assert_array_equal(a.wake_times, b.wake_times)
    assert a.counters == b.counters


@st.composite
def plain_cases(draw):
    """Nodes-only machines, bursts of arrivals, requests far above the runtimes (many early
    ends: the incremental pass's growth), zero-length jobs and jobs killed at their request."""
    system = System.simple("plain", draw(st.integers(1, 16)))
    n = draw(st.integers(5, 60))
    ints = st.integers
    gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 5, 20]), min_size=n, max_size=n))
    runtime = np.array(draw(st.lists(ints(0, 50), min_size=n, max_size=n)), float)
    factor = np.array(
        draw(st.lists(st.sampled_from([0.5, 1, 1, 2, 4, 10]), min_size=n, max_size=n))
    )
    nodes = draw(st.lists(ints(1, system.nodes), min_size=n, max_size=n))
    w = Workload.from_columns(
        submit=np.cumsum(gaps).astype(float),
        runtime=runtime,
        requested_time=np.round(runtime * factor),
        nodes=nodes,
    )
    return system, w


@settings(max_examples=examples(200))
@given(case=plain_cases(), priority=st.sampled_from(["fcfs", "wfp"]))
def test_incremental_conservative_equals_the_full_pass_on_nodes_only_machines(case, priority):
    system, w = case
    new, bf = _run(w, system, True, priority)
    old, _ = _run(w, system, False, priority)
    _same(new, old)
    assert bf._eligible  # the incremental pass ran


@settings(max_examples=examples(100))
@given(
    data=st.data(),
    priority=st.sampled_from(["fcfs", "wfp"]),
    window=st.booleans(),
)
def test_incremental_conservative_equals_the_full_pass_everywhere(data, priority, window):
    """Other machines (burst buffer, SSD groups: the full pass runs) and the window start rule
    (its starts make the incremental pass start again from scratch)."""
    system = data.draw(machines())
    w = data.draw(workloads(system, 30))
    new, _ = _run(w, system, True, priority, window)
    old, _ = _run(w, system, False, priority, window)
    _same(new, old)


@pytest.mark.parametrize("priority", ["fcfs", "wfp"])
def test_incremental_conservative_equals_the_full_pass_on_lublin(priority):
    w = generate_lublin(1500, nodes=128, seed=3)
    system = System.simple("lublin", 128)
    new, bf = _run(w, system, True, priority)
    old, _ = _run(w, system, False, priority)
    _same(new, old)
    assert bf._eligible


@pytest.mark.slow
@pytest.mark.parametrize("priority", ["fcfs", "wfp"])
def test_incremental_conservative_equals_the_full_pass_on_kth(priority):
    from schedbench.instances.swf import read_swf

    w = read_swf(KTH)
    system = System.simple("kth", w.machine_size or int(w.nodes.max()))
    new, _ = _run(w, system, True, priority)
    old, _ = _run(w, system, False, priority)
    _same(new, old)


def test_the_incremental_pass_steps_aside_where_it_does_not_apply():
    w = Workload.from_columns(submit=[0, 0], runtime=[5, 5], requested_time=[9, 9], nodes=[1, 1])
    _, bf = _run(w, System.simple("bb", 2, 100.0), True, "fcfs")
    assert bf._eligible is False  # two resources: the from-scratch pass
    _, bf = _run(w, System.simple("plain", 2), True, "fcfs")
    assert bf._eligible is True
