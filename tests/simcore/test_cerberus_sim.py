"""The Cerberus/BBSim core (simcore/cerberus/sim.py) on hand-worked traces: the lifecycle and
its resource holding, the event batching, the queue order, each variant, each switch of the two
modes, bad plug-in answers; plus properties on generated workloads."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances.cerberus import generate_cerberus_workload
from schedbench.instances.systems import CERBERUS
from schedbench.simcore.cerberus import (
    CerberusSimulation,
    CerberusState,
    CerberusWorkload,
    config_for,
    make_variant,
    register_variant,
)
from schedbench.simcore.cerberus.config import FAITHFUL, CerberusConfig
from schedbench.simcore.cerberus.policy import QueueView, head_of_line, unregister_variant
from schedbench.simcore.errors import ConfigError, InvalidActionError, PolicyOptionError
from schedbench.simcore.system import System
from schedbench.solvers.registry import make_solver
from tests._hyp import examples

NAN = math.nan


def wl(rows, source="test"):
    """rows: (submit, cores, runtime, requested, in_gb, run_tb, out_tb[, max_tb])."""
    cols = list(zip(*[tuple(r) + (NAN,) * (8 - len(r)) for r in rows], strict=True))
    return CerberusWorkload(
        job_id=np.arange(1, len(rows) + 1),
        submit=cols[0],
        cores=cols[1],
        runtime=cols[2],
        requested=cols[3],
        in_gb=cols[4],
        run_tb=cols[5],
        out_tb=cols[6],
        max_tb=cols[7],
        source=source,
    )


def machine(cores=1024, bb_tb=100.0):
    return System.simple(
        "m", cores, bb_tb * 1000, bw_bb_gbps=8.0, bw_io_gbps=2.5, unit="processors"
    )


def run(workload, policy="cerberus-fcfs", mode="faithful", system=None, solver=None, **switches):
    cfg = config_for(mode, **switches)
    opts = {}
    if "max" in policy:
        opts["solver"] = make_solver(solver or cfg.solver)
    pol = make_variant(policy, **opts)
    return CerberusSimulation(workload, system or machine(), pol, cfg).run()


# ----------------------------------------------------------------------------- lifecycle
def test_one_job_walks_the_three_phases_with_the_model_notes_durations():
    # in 8 GB = 0.008 TB: stage-in and fetch 1 s each; run 16 TB: checkpoint 2000 s;
    # out 8 TB: drain and write 1000 s each (B = 0.008 TB/s)
    res = run(wl([(0, 256, 100, 200, 8, 16, 8)]))
    t = {k: float(v[0]) for k, v in res.times.items()}
    assert t == {
        "in_start": 0.0,
        "in_end": 1.0,
        "run_start": 1.0,
        "fetch_end": 2.0,
        "exec_end": 2.0 + (100 + 16 / 0.008),
        "out_start": 2102.0,
        "drain_end": 3102.0,
        "complete": 4102.0,
    }
    assert res.state[0] == CerberusState.DONE


def test_cores_are_held_through_the_output_queue_wait_until_the_drain_ends():
    # 768 cores, 20 TB. A (512 cores) and B (256 cores, 10 TB run BB, long) run from t = 1; C
    # (512 cores) waits. A's execution ends at 1102 but its 15 TB stage-out does not fit while
    # B holds its run BB: A waits in the output queue *holding its cores* until B's execution
    # ends; C can start only when A's drain ends.
    m = machine(cores=768, bb_tb=20.0)
    jobs = wl(
        [
            (0, 512, 100, 200, 8, 8, 15),
            (0, 256, 5000, 6000, 8, 10, 1),
            (0, 512, 10, 20, 8, 1, 1),
        ]
    )
    t = run(jobs, system=m).times
    assert t["exec_end"][0] == 1102.0
    assert t["out_start"][0] == t["exec_end"][1] > t["exec_end"][0]  # waited for B's BB
    assert t["run_start"][2] == t["drain_end"][0]  # A's cores came back at its drain end


def test_output_queue_is_served_before_the_run_queue_at_one_instant():
    # BB 10 TB. At t=0 job 1 (run 9 TB) starts; at its exec end it wants out 9 TB while job 2
    # (run 9 TB, stage-in done long ago) waits in the run queue: both need the 9 TB freed at
    # that instant; the output queue is served first and takes it.
    m = machine(cores=1024, bb_tb=10.0)
    res = run(wl([(0, 256, 100, 200, 1, 9, 9), (0, 256, 100, 200, 1, 9, 1)]), system=m)
    t = res.times
    assert t["out_start"][0] == t["exec_end"][0]
    assert t["run_start"][1] > t["exec_end"][0]


def test_events_of_one_instant_are_batched_then_one_pass():
    # Three jobs submitted at the same instant: one pass sees all three in the input queue and
    # the sample count is one per distinct timestamp.
    res = run(wl([(5, 256, 10, 10, 8, 1, 1)] * 3))
    assert list(res.times["in_start"]) == [5.0, 5.0, 5.0]
    assert len(set(res.sample_t)) == len(res.sample_t)


def test_simultaneous_phase_ends_keep_their_creation_order():
    # Two identical jobs start their run phase in one pass (FCFS: job 1 then job 2); their
    # executions end at the same instant; only one stage-out fits the BB at a time, so the
    # output queue order (= event creation order) decides: job 1 first.
    m = machine(cores=1024, bb_tb=20.0)
    res = run(wl([(0, 256, 100, 200, 8, 1, 15), (0, 256, 100, 200, 8, 1, 15)]), system=m)
    t = res.times
    assert t["exec_end"][0] == t["exec_end"][1]
    assert t["out_start"][0] < t["out_start"][1]


def test_strict_head_of_line_blocking_in_fcfs():
    # Job 1 needs all cores, job 2 holds half; job 3 (small) waits behind job 1.
    m = machine(cores=512)
    res = run(
        wl([(0, 256, 1000, 2000, 8, 1, 1), (1, 512, 10, 20, 8, 1, 1), (2, 256, 10, 20, 8, 1, 1)]),
        system=m,
    )
    t = res.times
    assert t["run_start"][2] >= t["run_start"][1]


# ----------------------------------------------------------------------------- switches
def test_floor_units_over_allocate_cores_and_a_negative_capacity_selects_nothing():
    # 768 cores = 3 units of 256; three 500-core jobs are one unit each: faithful starts all
    # three (free cores -732), corrected only one at a time.
    m = machine(cores=768)
    jobs = wl([(0, 500, 100, 200, 8, 1, 1)] * 3 + [(50, 256, 10, 20, 8, 1, 1)])
    faithful = run(jobs, "cerberus-maxt", "faithful", system=m)
    assert faithful.counters["core_overallocations"] >= 1
    assert faithful.counters["free_cores_min"] == 768 - 1500
    assert list(faithful.times["run_start"][:3]) == [1.0, 1.0, 1.0]
    skipped = [c for c in faithful.calls if not c.called]
    assert skipped and all(c.queue == "run" and c.selected == 0 for c in skipped)
    assert faithful.sample_cpu.max() > 1.0  # utilisation above 1, as the note says
    corrected = run(jobs, "cerberus-maxt", "corrected", system=m)
    assert corrected.counters["core_overallocations"] == 0
    assert corrected.sample_cpu.max() <= 1.0
    assert len(set(corrected.times["run_start"][:3])) == 3


def test_the_input_queue_stays_fcfs_unless_the_stage_in_knapsack_is_on():
    # BB 10 TB: job 1 stages in 6 TB... the stage-in volume is GB, so make the BB tiny: 10 GB.
    m = machine(cores=1024, bb_tb=0.06)
    jobs = wl(
        [
            (0, 256, 10, 20, 50, 0.01, 0.01),
            (0, 256, 10, 20, 30, 0.01, 0.01),
            (0, 256, 10, 20, 20, 0.01, 0.01),
        ]
    )
    # head (50 GB) fits; then 30 GB does not (10 left) and blocks the 20 GB job in FCFS...
    fcfs_in = run(jobs, "cerberus-maxt", "faithful", system=m)
    assert fcfs_in.times["in_start"][2] > 0.0
    # ...a stage-in knapsack (max data) takes 30 + 20 = 50 or 50 alone; with MaxP two jobs
    knap = run(jobs, "cerberus-maxp", "faithful", system=m, stage_in_knapsack=True, units="exact")
    assert (knap.times["in_start"] == 0.0).sum() == 2


def test_one_size_stage_in_is_d_over_1000_in_faithful_mode_and_d_in_corrected_mode():
    jobs = wl([(0, 256, 100, 200, NAN, NAN, NAN, 40)])
    f = run(jobs, "cerberus-1d", "faithful")
    c = run(jobs, "cerberus-1d", "corrected")
    assert f.times["in_end"][0] == pytest.approx(40 / 1000 / 0.008)  # 5 s
    assert c.times["in_end"][0] == pytest.approx(40 * 1000 / 8.0)  # 5000 s
    # run and out are d in both
    assert f.times["exec_end"][0] - f.times["fetch_end"][0] == pytest.approx(100 + 40 / 0.008)


def test_one_phase_durations_follow_the_model_note_sum_by_sum():
    d, runtime, B, IO = 40.0, 100.0, 0.008, 0.0025
    jobs = wl([(0, 256, runtime, 200, NAN, NAN, NAN, d)])
    bb = run(jobs, "one-phase-bb")
    x = d / 1000
    assert bb.times["complete"][0] == 0.0 + (x / B + (runtime + d / B + x / B + d / B) + d / B)
    io = run(jobs, "one-phase-io")
    assert io.times["complete"][0] == 0.0 + (x / IO + (runtime + d / IO) + d / IO)
    assert io.sample_bb is None


def test_tb_float_accounting_reproduces_the_rounding_noise_of_the_published_runs():
    # 0.3 - 0.1 - 0.1 < 0.1 in floating point: upstream could stage in only two 100 GB jobs
    # into a 300 GB burst buffer at once; exact GB accounting stages in all three.
    m = System.simple("m", 1024, 300.0, unit="processors")
    jobs = wl([(0, 256, 10, 20, 100, 0.001, 0.001)] * 3)
    tb = run(jobs, system=m, mode="faithful")
    gb = run(jobs, system=m, mode="faithful", bb_accounting="gb-exact")
    assert (tb.times["in_start"] == 0.0).sum() == 2
    assert (gb.times["in_start"] == 0.0).sum() == 3


def test_external_bandwidth_switch_moves_stage_in_and_write_at_the_io_bandwidth():
    jobs = wl([(0, 256, 100, 200, 8, 16, 8)])
    io = run(jobs, external_bandwidth="io")
    t = io.times
    assert t["in_end"][0] == pytest.approx(0.008 / 0.0025)
    assert t["complete"][0] - t["drain_end"][0] == pytest.approx(8 / 0.0025)
    assert t["fetch_end"][0] - t["run_start"][0] == pytest.approx(1.0)


def test_run_value_switch_changes_which_job_the_run_knapsack_prefers():
    # two jobs, only one fits: A 512 cores x 1 TB, requested 100 s; B 1024 cores x 2 TB,
    # requested 10,000 s. product/rt^2 prefers A, the product alone prefers B.
    m = machine(cores=1024)
    jobs = wl([(0, 512, 50, 100, 8, 1, 1), (0, 1024, 50, 10_000, 8, 2, 1)])
    rt2 = run(jobs, "cerberus-maxt", system=m)
    prod = run(jobs, "cerberus-maxt", system=m, run_value="product")
    assert rt2.times["run_start"][0] < rt2.times["run_start"][1]
    assert prod.times["run_start"][1] < prod.times["run_start"][0]


def test_walk_back_order_creates_the_later_window_job_first():
    view = _view([0, 1, 2], free_cores=10_000)
    pol = make_variant("cerberus-maxt", solver=make_solver("cerberus-dp"))
    assert list(pol.serve(view)) == [2, 1, 0]
    view = _view([0, 1, 2], free_cores=10_000, config=config_for("faithful", start_order="queue"))
    assert list(pol.serve(view)) == [0, 1, 2]


def test_the_window_bounds_the_knapsack():
    view = _view(list(range(15)), free_cores=10**6, config=config_for("faithful", window=4))
    pol = make_variant("cerberus-maxt", solver=make_solver("cerberus-dp"))
    assert sorted(pol.serve(view)) == [0, 1, 2, 3]
    whole = _view(list(range(15)), free_cores=10**6, config=config_for("faithful", window=None))
    assert sorted(pol.serve(whole)) == list(range(15))


def _view(jobs, free_cores, config: CerberusConfig = FAITHFUL, queue="run"):
    n = max(jobs) + 1
    calls = []
    return QueueView(
        now=0.0,
        queue=queue,
        jobs=tuple(jobs),
        free_cores=free_cores,
        free_bb=1000.0,
        capacity_cores=10**6,
        capacity_bb=1000.0,
        bb_unit="TB",
        cores=np.full(n, 256),
        bb=np.full(n, 1.0),
        requested=np.full(n, 100.0),
        config=config,
        report=calls.append,
    )


# ----------------------------------------------------------------------------- never fit
def test_corrected_1d_can_deadlock_when_stage_ins_fill_the_burst_buffer():
    # 100 TB of BB, d = 40 TB: stage-ins of 40 TB each (the paper's max in every phase) take
    # 80 TB; the run queue's head needs 40 TB more and nothing runs: both jobs stay stuck.
    m = machine(cores=1024, bb_tb=100.0)
    jobs = wl([(0, 256, 10, 20, NAN, NAN, NAN, 40)] * 2 + [(0, 256, 10, 20, NAN, NAN, NAN, 15)])
    res = run(jobs, "cerberus-1d", "corrected", system=m)
    assert (res.state == CerberusState.STUCK).sum() >= 2
    assert run(jobs, "cerberus-1d", "faithful", system=m).state.tolist() == [0, 0, 0]


def test_a_job_that_never_fits_is_rejected_and_counted_in_corrected_mode():
    m = machine(cores=512)
    jobs = wl([(0, 1024, 10, 20, 8, 1, 1), (0, 256, 10, 20, 8, 1, 1), (1, 256, 10, 20, 8, 1, 5000)])
    res = run(jobs, mode="corrected", system=m)
    assert list(res.state) == [CerberusState.REJECTED, CerberusState.DONE, CerberusState.REJECTED]
    assert res.rejected == {"cores": 1, "bb": 1}


def test_in_faithful_fcfs_a_job_that_never_fits_blocks_its_queue_and_is_reported_stuck():
    m = machine(cores=512)
    jobs = wl([(0, 256, 10, 20, 8, 1, 1), (1, 1024, 10, 20, 8, 1, 1), (2, 256, 10, 20, 8, 1, 1)])
    res = run(jobs, mode="faithful", system=m)
    assert list(res.state) == [CerberusState.DONE, CerberusState.STUCK, CerberusState.STUCK]
    assert res.counters["stuck_by_place"] == {"run": 2}
    # a knapsack never selects it: only a window slot is lost, the others finish
    knap = run(jobs, "cerberus-maxt", mode="faithful", system=m)
    assert list(knap.state) == [CerberusState.DONE, CerberusState.STUCK, CerberusState.DONE]


# ----------------------------------------------------------------------------- plug-ins
class _Greedy:
    """A plug-in written in a test: starts every queued job (ignores resources)."""

    name = "greedy-test"
    lifecycle = "three-phase"
    data = "triple"
    uses_bb = True

    def serve(self, view):
        return list(view.jobs)


def test_a_plug_in_policy_runs_by_name_and_its_invalid_answers_are_refused():
    register_variant("greedy-test", _Greedy)
    try:
        pol = make_variant("greedy-test")
        fine = wl([(0, 256, 10, 20, 8, 1, 1)])
        assert CerberusSimulation(fine, machine(), pol, config_for("corrected")).run().state[0] == 0
        crowded = wl([(0, 1024, 10, 20, 8, 1, 1)] * 2)
        with pytest.raises(InvalidActionError, match="needs 1024 cores"):
            CerberusSimulation(crowded, machine(cores=1024), pol, config_for("corrected")).run()
    finally:
        unregister_variant("greedy-test")


def test_an_answer_naming_a_job_not_in_the_queue_is_refused():
    class Wrong(_Greedy):
        def serve(self, view):
            return [view.jobs[0], view.jobs[0]]

    with pytest.raises(InvalidActionError, match="named twice"):
        CerberusSimulation(wl([(0, 256, 10, 20, 8, 1, 1)]), machine(), Wrong(), FAITHFUL).run()


def test_registry_errors_name_the_option_and_the_known_names():
    with pytest.raises(PolicyOptionError, match="no option 'windw'"):
        make_variant("cerberus-maxt", windw=3)
    with pytest.raises(LookupError, match="cerberus-fcfs"):
        make_variant("cerberus-nope")
    with pytest.raises(PolicyOptionError, match="no solver"):
        CerberusSimulation(
            wl([(0, 256, 10, 20, 8, 1, 1)]),
            machine(),
            make_variant("cerberus-maxt"),
            config_for("corrected"),
        ).run()


def test_switch_errors_name_the_switch():
    with pytest.raises(ConfigError, match="'units'"):
        config_for("faithful", units="round")
    with pytest.raises(ConfigError, match="unknown"):
        config_for("faithful", windows=3)
    with pytest.raises(ConfigError, match="mode"):
        config_for("paper")
    assert config_for("faithful", window=20).label == "faithful[window=20]"


def test_a_variant_missing_its_data_is_an_error_naming_the_column():
    jobs = wl([(0, 256, 10, 20, NAN, NAN, NAN, 40)])
    with pytest.raises(ConfigError, match="data_in_gb"):
        run(jobs, "cerberus-fcfs")
    assert run(jobs, "cerberus-1d").state[0] == CerberusState.DONE


def test_fcfs_helper_stops_at_the_first_job_that_does_not_fit():
    view = _view([0, 1, 2], free_cores=600)
    assert head_of_line(view) == [0, 1]


# ----------------------------------------------------------------------------- properties
@st.composite
def generated(draw):
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    base = CerberusWorkload(
        job_id=np.arange(1, n + 1),
        submit=np.zeros(n),
        cores=rng.choice([1, 256, 512, 2048, 8192, 65536, 163840], size=n),
        runtime=rng.integers(1, 20000, size=n).astype(float),
        requested=rng.integers(300, 40000, size=n).astype(float),
        in_gb=np.full(n, np.nan),
        run_tb=np.full(n, np.nan),
        out_tb=np.full(n, np.nan),
        max_tb=np.full(n, np.nan),
    )
    return generate_cerberus_workload(base, seed=seed)


POLICIES = [
    "cerberus-fcfs",
    "cerberus-maxt",
    "cerberus-maxp",
    "cerberus-1d",
    "one-phase-bb",
    "one-phase-io",
]


@given(
    generated(),
    st.sampled_from(POLICIES),
    st.sampled_from(["faithful", "corrected"]),
    st.integers(120, 400),
)
@settings(max_examples=examples(40))
def test_every_job_ends_phases_are_ordered_and_exact_mode_never_over_commits(
    w, policy, mode, bb_tb
):
    m = System.simple("m", 300_000, bb_tb * 1000.0, unit="processors")
    res = run(w, policy, mode, system=m)
    if policy == "cerberus-1d" and mode == "corrected":
        # stage-ins of d TB can fill the burst buffer: a deadlock, reported as stuck jobs
        assert set(res.state.tolist()) <= {CerberusState.DONE, CerberusState.STUCK}
        return
    assert (res.state == CerberusState.DONE).all()  # every job fits alone, none can deadlock
    t = res.times
    if res.lifecycle == "three-phase":
        order = [
            "in_start",
            "in_end",
            "run_start",
            "fetch_end",
            "exec_end",
            "out_start",
            "drain_end",
            "complete",
        ]
        for a, b in itertools.pairwise(order):
            assert np.all(t[a] <= t[b])
        assert np.all(t["in_start"] >= w.submit)
    else:
        assert np.all(t["run_start"] >= w.submit) and np.all(t["complete"] >= t["run_start"])
    if mode == "corrected":
        assert res.sample_cpu.max() <= 1.0 + 1e-12
        if res.sample_bb is not None:
            assert res.sample_bb.max() <= 1.0 + 1e-12
    assert res.sample_cpu[-1] == pytest.approx(0.0, abs=1e-9)


@given(generated(), st.sampled_from(POLICIES))
@settings(max_examples=examples(15))
def test_same_input_same_schedule(w, policy):
    a, b = run(w, policy), run(w, policy)
    for col in a.times:
        np.testing.assert_array_equal(a.times[col], b.times[col])


def test_the_preset_machine_has_the_model_notes_sizes():
    from schedbench.simcore.cerberus.sim import Machine

    tb = Machine.of(CERBERUS, FAITHFUL)
    assert (tb.cores, tb.bb, tb.bw_bb, tb.bw_io, tb.bb_unit) == (
        300_000,
        4000.0,
        0.008,
        0.0025,
        "TB",
    )
    gb = Machine.of(CERBERUS, config_for("corrected"))
    assert (gb.bb, gb.bw_bb, gb.bb_unit) == (4_000_000, 8.0, "GB")


def test_a_solver_without_an_answer_is_a_counted_fault_served_fcfs_or_skipped():
    from dataclasses import dataclass

    from schedbench.simcore.problem import Status
    from schedbench.solvers.base import Answer, BaseSolver

    @dataclass(frozen=True, kw_only=True, slots=True)
    class Declines(BaseSolver):
        name = "declines-test"

        def _supports(self, problem):
            return False, "never"

        def _solve(self, problem, budget, clock):  # pragma: no cover - never called
            return Answer(Status.ERROR)

    jobs = wl([(0, 256, 10, 20, 8, 1, 1)] * 3)
    fcfs = CerberusSimulation(
        jobs, machine(), make_variant("cerberus-maxt", solver=Declines()), FAITHFUL
    ).run()
    assert (fcfs.state == CerberusState.DONE).all()
    assert fcfs.counters["solver_faults"] > 0
    skip = make_variant("cerberus-maxt", solver=Declines(), on_fault="skip")
    stalled = CerberusSimulation(jobs, machine(), skip, FAITHFUL).run()
    assert (stalled.state == CerberusState.STUCK).all()
    with pytest.raises(PolicyOptionError, match="on_fault"):
        make_variant("cerberus-maxt", solver=Declines(), on_fault="retry")


# ----------------------------------------------------------------------------- zero values
def test_zero_value_jobs_that_fit_are_started_unless_the_switch_is_off():
    # job 2 has no run-phase data: its run-queue value (core units x BB units / rt^2) is 0, so
    # an exact solver's optimum leaves it out although it fits; job 3's zero stage-out volume is
    # worth 0 to MaxT's stage-out knapsack.
    jobs = wl([(0, 256, 10, 20, 8, 1, 1), (0, 256, 10, 20, 8, 0, 1), (0, 256, 10, 20, 8, 1, 0)])
    for policy in ("cerberus-maxt", "cerberus-maxp"):
        res = run(jobs, policy, "corrected", solver="dp")
        assert list(res.state) == [CerberusState.DONE] * 3
    off = run(jobs, "cerberus-maxt", "corrected", solver="dp", zero_value_fill=False)
    assert list(off.state) == [CerberusState.DONE, CerberusState.STUCK, CerberusState.STUCK]
    # the run-queue value is 0 for MaxP too; its stage-out value is 1 per job
    off = run(jobs, "cerberus-maxp", "corrected", solver="dp", zero_value_fill=False)
    assert list(off.state) == [CerberusState.DONE, CerberusState.STUCK, CerberusState.DONE]


def test_a_stage_in_knapsack_in_whole_tb_units_starts_its_sub_tb_stage_ins():
    # units="floor" with the stage-in knapsack on: 8 GB floors to 0 TB, so every MaxT stage-in
    # value is 0 and, without the fill, no job would ever stage in.
    jobs = wl([(0, 256, 10, 20, 8, 1, 1), (1, 512, 10, 20, 20, 2, 3)])
    res = run(jobs, "cerberus-maxt", "corrected", solver="dp", units="floor")
    assert list(res.state) == [CerberusState.DONE] * 2
    off = run(jobs, "cerberus-maxt", "corrected", solver="dp", units="floor", zero_value_fill=False)
    assert list(off.state) == [CerberusState.STUCK] * 2


def test_the_zero_value_fill_respects_the_real_burst_buffer():
    # 0.5 TB of BB; floor units see each 300 GB stage-in as 0 TB, but only one fits for real
    m = machine(cores=1024, bb_tb=0.5)
    jobs = wl([(0, 256, 10, 20, 300, 0, 0), (0, 256, 10, 20, 300, 0, 0)])
    res = run(jobs, "cerberus-maxt", "corrected", system=m, solver="dp", units="floor")
    assert list(res.state) == [CerberusState.DONE] * 2
    assert res.times["in_start"][1] >= res.times["in_end"][0]  # the second waited for the first
