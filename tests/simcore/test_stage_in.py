"""The three-phase stage-in pass (``simcore/_stage_in_kernel.py``, O((S + Q) log(S + Q)))
gives the schedules of the plain pass it replaced (kept in ``bench/benchmarks/plain_stage_in.py``:
a sort of the staged jobs per candidate, the banker's check from scratch), on random three-phase workloads: whole GB and
fractional GB, every backfiller, FCFS and WFP, and crowded buffers where the safety check
defers stage-ins."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.simcore.engine import SimOptions, Simulation
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.schedule import ScheduleResult
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload
from tests._benchmarks import load_benchmark_module
from tests._hyp import examples
from tests.simcore.test_engine_properties import machines, workloads

PlainStageIn = load_benchmark_module("plain_stage_in").PlainStageIn


def _both(w: Workload, system: System, backfill: str, priority: str):
    options = SimOptions(lifecycle="three-phase", priority=priority)
    new = Simulation(w, system, NaivePolicy(backfill=backfill), options).run()
    old = PlainStageIn(w, system, NaivePolicy(backfill=backfill), options).run()
    return new, old


def _same(a: ScheduleResult, b: ScheduleResult) -> None:
    np.testing.assert_array_equal(a.start, b.start)
    np.testing.assert_array_equal(a.end, b.end)
    np.testing.assert_array_equal(a.first_alloc, b.first_alloc)
    np.testing.assert_array_equal(a.last_release, b.last_release)
    assert a.counters == b.counters


@st.composite
def bb_cases(draw):
    """A machine with a burst buffer and a workload whose jobs stage data, some of it in
    fractions of a GB (``scale``)."""
    system = draw(machines().filter(lambda s: s.bb_gb > 0))
    w = draw(workloads(system, max_jobs=50))
    scale = draw(st.sampled_from([1.0, 1.0, 0.37, 1.13]))
    if scale != 1.0:
        w = w.replace(data_in_gb=w.data_in_gb * scale, data_out_gb=w.data_out_gb * scale)
    return system, w


@settings(max_examples=examples(150))
@given(
    case=bb_cases(),
    backfill=st.sampled_from(["easy", "conservative", "none"]),
    priority=st.sampled_from(["fcfs", "wfp"]),
)
def test_stage_in_pass_gives_the_plain_pass_schedules(case, backfill, priority):
    system, w = case
    new, old = _both(w, system, backfill, priority)
    _same(new, old)


def test_a_crowded_buffer_defers_unsafe_stage_ins_as_the_plain_pass_does():
    """Many jobs staging large inputs into a small buffer, run buffers close to its size: the
    banker's check defers stage-ins (the counter is non-zero) and both passes agree."""
    rng = np.random.default_rng(5)
    n = 400
    system = System.simple("bb", 16, 100.0)
    w = Workload.from_columns(
        submit=np.sort(rng.integers(0, 2_000, n)).astype(float),
        runtime=rng.integers(1, 200, n).astype(float),
        requested_time=rng.integers(200, 400, n).astype(float),
        nodes=rng.integers(1, 8, n),
        bb_gb=rng.integers(0, 40, n).astype(float),
        data_in_gb=rng.integers(1, 45, n).astype(float),
        data_out_gb=rng.integers(0, 20, n).astype(float),
    )
    new, old = _both(w, system, "easy", "fcfs")
    _same(new, old)
    assert new.counters["stage_in_deferred_unsafe"] > 0
    assert (new.state <= 1).all()  # every job ran to its end
