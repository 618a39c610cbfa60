"""The engine's FCFS + EASY schedule equals a straightforward, independently written simulator's.

``bench/benchmarks/reference_sim.py`` implements the same semantics (docs/design.md: releases, then
arrivals, then one pass; reservations from requested times; kill at the request) in the plainest
way. Identical start times on random workloads and on the real KTH-SP2 log are strong evidence that
the optimised engine (lazy reservations, sorted release lists, usage compression) changed speed
and nothing else.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances import datasets
from schedbench.simcore.engine import simulate
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload
from tests._benchmarks import load_benchmark_module
from tests._hyp import examples

simulate_reference = load_benchmark_module("reference_sim").simulate_reference

KTH = datasets.path("kth-sp2")  # shipped with the package (gzip SWF)


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 40))
    machine = draw(st.integers(1, 16))
    gaps = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    runtime = np.array(draw(st.lists(st.integers(0, 200), min_size=n, max_size=n)), float)
    # requests sometimes shorter than the runtime (killed), sometimes much longer
    req = np.array(draw(st.lists(st.integers(1, 300), min_size=n, max_size=n)), float)
    nodes = np.array(draw(st.lists(st.integers(1, machine + 2), min_size=n, max_size=n)))
    return Workload.from_columns(
        submit=submit, runtime=runtime, nodes=nodes, requested_time=req
    ), machine


@settings(max_examples=examples(150), deadline=None)
@given(workloads())
def test_easy_schedule_equals_reference(case):
    w, machine = case
    result = simulate(w, System.simple("m", machine), NaivePolicy(backfill="easy"))
    ref = simulate_reference(w.submit, w.runtime, w.requested_time, w.nodes, machine)
    np.testing.assert_array_equal(result.start, ref)


def test_backfilling_actually_happens_in_the_random_cases():
    """Guard against a vacuous equivalence: the generator must produce backfilled starts."""
    rng = np.random.default_rng(3)
    n = 300
    w = Workload.from_columns(
        submit=np.sort(rng.integers(0, 2000, n)).astype(float),
        runtime=rng.integers(1, 200, n).astype(float),
        nodes=rng.integers(1, 9, n),
        requested_time=rng.integers(1, 300, n).astype(float),
    )
    result = simulate(w, System.simple("m", 8), NaivePolicy(backfill="easy"))
    assert result.counters["backfilled"] > 20
    ref = simulate_reference(w.submit, w.runtime, w.requested_time, w.nodes, 8)
    np.testing.assert_array_equal(result.start, ref)


def test_kth_schedule_equals_reference():
    from schedbench.instances.swf import read_swf

    w = read_swf(KTH)
    result = simulate(w, System.simple("kth", w.max_nodes), NaivePolicy(backfill="easy"))
    ref = simulate_reference(w.submit, w.runtime, w.requested_time, w.nodes, w.max_nodes)
    np.testing.assert_array_equal(result.start, ref)
    assert result.counters["backfilled"] > 10_000  # KTH ran EASY in production; much is backfilled


def test_long_queues_use_the_vectorised_scan_and_agree():
    """Queues longer than the vector-scan threshold take the numpy pre-filter path."""
    from schedbench.simcore import backfill

    rng = np.random.default_rng(5)
    n = 3000
    w = Workload.from_columns(
        submit=np.sort(rng.integers(0, 20000, n)).astype(float),
        runtime=rng.integers(1, 200, n).astype(float),
        nodes=rng.integers(1, 9, n),
        requested_time=rng.integers(1, 300, n).astype(float),
    )
    calls = 0
    original = backfill._backfill_candidates

    def counting(*args, **kw):
        nonlocal calls
        calls += 1
        return original(*args, **kw)

    backfill._backfill_candidates = counting
    try:
        result = simulate(w, System.simple("m", 8), NaivePolicy(backfill="easy"))
    finally:
        backfill._backfill_candidates = original
    assert calls > 100  # the long-queue path really ran
    ref = simulate_reference(w.submit, w.runtime, w.requested_time, w.nodes, 8)
    np.testing.assert_array_equal(result.start, ref)
