"""The load knob (``instances/load.py``), offered load, and Cori's persistent
burst-buffer reservation."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances.bbsched import bbsched_scenario, scale_arrivals
from schedbench.instances.load import (
    BB_RTOL,
    LoadError,
    calibrate_load,
    scale_bb,
    window_load,
    with_load,
)
from schedbench.instances.lublin import generate_lublin
from schedbench.instances.systems import (
    CORI,
    CORI_PERSISTENT,
    PRESETS,
    THETA,
    SystemFileError,
    system_from_dict,
)
from schedbench.instances.workloads import WorkloadSpecError, check_workload_spec, load_workload
from schedbench.simcore.engine import simulate
from schedbench.simcore.metrics import MeasurementWindow, compute_metrics, offered_load
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload


def s4(seed: int = 1, n: int = 600) -> Workload:
    return bbsched_scenario(generate_lublin(n, nodes=4392, seed=seed), "S4", seed=seed)


# -- offered load ----------------------------------------------------------------------------
def test_offered_load_by_hand():
    w = Workload.from_columns(
        submit=[0, 50, 100],
        runtime=[100, 10, 40],
        requested_time=[100, 5, 40],  # the second is killed at its request: it holds 5 s
        nodes=[4, 2, 1],
        bb_gb=[10, 0, 30],
    )
    m = System.simple("m", 10, 100.0)
    load = offered_load(w, m)
    assert load["nodes"] == pytest.approx((4 * 100 + 2 * 5 + 1 * 40) / (10 * 100))
    assert load["bb"] == pytest.approx((10 * 100 + 30 * 40) / (100 * 100))
    inner = offered_load(w, m, 25, 75)  # only the job submitted at 50
    assert inner["nodes"] == pytest.approx(2 * 5 / (10 * 50))
    assert offered_load(w, System.simple("n", 10))["bb"] is None


def test_offered_load_does_not_depend_on_the_schedule():
    w = s4(n=200)
    r = simulate(w, THETA, NaivePolicy())
    m = compute_metrics(r, MeasurementWindow.fractions(0.1, 0.1))
    first, last = w.submit[0], w.submit[-1]
    span = last - first
    expect = offered_load(w, THETA, first + 0.1 * span, last - 0.1 * span)
    assert m["offered_node_load"] == pytest.approx(expect["nodes"])
    assert m["offered_bb_load"] == pytest.approx(expect["bb"])


# -- the knob ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_knob_reaches_the_requested_loads_for_every_seed(seed):
    w = s4(seed)
    cal = calibrate_load(w, THETA, nodes=0.85, bb=1.3)
    assert cal.after_nodes == pytest.approx(0.85, rel=1e-12)
    assert abs(cal.after_bb / 1.3 - 1) <= BB_RTOL
    out = cal.apply(w, THETA)
    load = offered_load(out, THETA)
    assert load["nodes"] == pytest.approx(0.85, rel=1e-12)
    assert abs(load["bb"] / 1.3 - 1) <= BB_RTOL
    assert (out.bb_gb <= THETA.bb_gb).all()
    assert ((out.bb_gb > 0) == (w.bb_gb > 0)).all()  # nobody gains or loses a request
    np.testing.assert_array_equal(out.nodes, w.nodes)


def test_a_fixed_arrival_factor_gives_different_loads_per_seed_and_the_knob_does_not():
    raw = [offered_load(s4(seed), THETA)["nodes"] for seed in (1, 2, 3)]
    assert max(raw) - min(raw) > 0.02
    tuned = [
        offered_load(with_load(s4(seed), THETA, nodes=0.8), THETA)["nodes"] for seed in (1, 2, 3)
    ]
    assert tuned == pytest.approx([0.8] * 3)


def test_the_knob_calibrates_the_measurement_window_when_given_fractions():
    w = s4(2)
    out = with_load(w, THETA, nodes=0.9, bb=1.1, warmup=0.1, cooldown=0.2)
    load = window_load(out, THETA, 0.1, 0.2)
    assert load["nodes"] == pytest.approx(0.9)
    assert abs(load["bb"] / 1.1 - 1) <= BB_RTOL
    r = simulate(out, THETA, NaivePolicy())
    m = compute_metrics(r, MeasurementWindow.fractions(0.1, 0.2))
    assert m["offered_node_load"] == pytest.approx(0.9)


def test_factors_of_one_workload_apply_to_another():
    base = generate_lublin(400, nodes=4392, seed=5)
    cal = calibrate_load(bbsched_scenario(base, "S4", seed=5), THETA, nodes=0.8, bb=1.2)
    s1 = cal.apply(bbsched_scenario(base, "S1", seed=5), THETA)
    assert offered_load(s1, THETA)["nodes"] == pytest.approx(0.8)
    assert offered_load(s1, THETA)["bb"] < 1.2  # S1's requests are smaller


def test_knob_errors():
    w = s4()
    with pytest.raises(LoadError, match="nodes: expected an offered load > 0"):
        calibrate_load(w, THETA, nodes=0)
    with pytest.raises(LoadError, match="no burst buffer"):
        calibrate_load(w, System.simple("n", 4392), bb=1.0)
    with pytest.raises(LoadError, match="no job requests burst buffer"):
        calibrate_load(generate_lublin(100, nodes=4392, seed=1), THETA, bb=1.0)
    with pytest.raises(LoadError, match="out of reach"):
        calibrate_load(w, THETA, bb=1e6)
    with pytest.raises(LoadError, match="warmup"):
        calibrate_load(w, THETA, nodes=0.8, warmup=1.0)


def test_scale_bb_rounds_up_to_whole_gb_and_caps():
    w = Workload.from_columns(
        submit=[0, 1, 2], runtime=[1, 1, 1], nodes=[1, 1, 1], bb_gb=[0, 3, 10]
    )
    np.testing.assert_array_equal(scale_bb(w, 0.1).bb_gb, [0, 1, 1])
    np.testing.assert_array_equal(scale_bb(w, 1.5).bb_gb, [0, 5, 15])
    np.testing.assert_array_equal(scale_bb(w, 2.0, capacity_gb=12).bb_gb, [0, 6, 12])
    with pytest.raises(LoadError):
        scale_bb(w, -1)


# -- as workload specs ---------------------------------------------------------------------------
def test_the_load_transform_in_a_spec():
    spec = "lublin:jobs=300,nodes=4392,seed=3+bbsched:S4,seed=3+load:nodes=0.9,bb=1.2,system=theta"
    check_workload_spec(spec)
    w = load_workload(spec)
    assert offered_load(w, THETA)["nodes"] == pytest.approx(0.9)
    assert w.source == spec  # load_workload names a workload by its spec
    direct = with_load(load_workload(spec.rsplit("+", 1)[0]), THETA, nodes=0.9, bb=1.2)
    assert "+load(nodes=0.9,bb=1.2 on theta: arrivals x" in direct.source
    np.testing.assert_array_equal(direct.bb_gb, w.bb_gb)
    nodes_only = load_workload("lublin:jobs=300,nodes=4392,seed=3+load:nodes=0.7")
    assert offered_load(nodes_only, THETA)["nodes"] == pytest.approx(0.7)  # machine from the spec


@pytest.mark.parametrize(
    ("transform", "match"),
    [
        ("load:nodes=0.9,bb=1.2", "bb needs the machine"),
        ("load:nodes=0.9,watts=3", "unknown key 'watts'"),
        ("load:nodes=-1", "expected an offered load in \\(0, 100\\]"),
        ("load:", "expected nodes=LOAD and/or bb=LOAD"),
        ("load:nodes=0.8,warmup=2", "fraction of the submit span"),
        ("bbscale:x", "expected a number"),
        ("bbscale:0", "expected a factor in \\(0, "),
    ],
)
def test_bad_load_transforms_name_what_is_wrong(transform, match):
    spec = f"lublin:jobs=50,nodes=4392,seed=1+bbsched:S4+{transform}"
    with pytest.raises(WorkloadSpecError, match=match):
        check_workload_spec(spec)
    with pytest.raises(WorkloadSpecError, match=match):
        load_workload(spec)


def test_bbscale_transform():
    base = load_workload("lublin:jobs=50,nodes=4392,seed=1+bbsched:S4")
    w = load_workload("lublin:jobs=50,nodes=4392,seed=1+bbsched:S4+bbscale:2")
    np.testing.assert_array_equal(w.bb_gb, np.ceil(base.bb_gb * 2))
    assert scale_arrivals(w, 1.0) is w


# -- Cori's persistent reservation -----------------------------------------------------------
def test_cori_persistent_preset():
    assert PRESETS["cori-persistent"] is CORI_PERSISTENT
    assert CORI_PERSISTENT.nodes == CORI.nodes
    assert CORI_PERSISTENT.bb_gb == pytest.approx(CORI.bb_gb * 2 / 3)
    assert "persistently" in CORI_PERSISTENT.description


def test_a_machine_file_can_reserve_burst_buffer_persistently():
    s = system_from_dict({"name": "c", "nodes": 10, "bb_gb": 900, "bb_persistent_gb": 300})
    assert s.bb_gb == 600 and "300 of 900 GB" in s.description
    with pytest.raises(SystemFileError, match="bb_persistent_gb"):
        system_from_dict({"name": "c", "nodes": 10, "bb_gb": 900, "bb_persistent_gb": 900})
