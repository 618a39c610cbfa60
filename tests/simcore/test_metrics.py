"""Tests for simcore/metrics.py: hand-built schedules with hand-computed expected values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedbench.bench.report.terminal import format_summary
from schedbench.simcore.metrics import (
    HALF_MONTH_S,
    METRIC_DEFINITIONS,
    MeasurementWindow,
    MetricsError,
    bb_usage,
    bounded_slowdowns,
    breakdown,
    compute_metrics,
    decision_latency_stats,
    integrate_usage,
    makespan,
    node_usage,
    slowdowns,
    ssd_usage,
    ssd_waste,
    state_counts,
    throughput,
    wait_times,
)
from schedbench.simcore.schedule import JobState, ScheduleResult
from schedbench.simcore.system import NodeGroup, System
from schedbench.simcore.workload import Workload

NAN = math.nan
C, K, R, U = JobState.COMPLETED, JobState.KILLED, JobState.REJECTED, JobState.UNFINISHED


def make_result(
    submit,
    start,
    end,
    state=None,
    *,
    nodes=None,
    runtime=None,
    requested_time=None,
    bb_gb=None,
    system: System | None = None,
    usage_t=(),
    usage=None,
    last_release=None,
    latency=(),
) -> ScheduleResult:
    """A ScheduleResult built by hand; the usage timeline defaults to empty."""
    submit = np.asarray(submit, dtype=float)
    start = np.asarray(start, dtype=float)
    end = np.asarray(end, dtype=float)
    n = submit.size
    runtime = end - start if runtime is None else runtime
    runtime = np.nan_to_num(np.asarray(runtime, dtype=float), nan=1.0)
    workload = Workload.from_columns(
        submit=submit,
        runtime=runtime,
        requested_time=requested_time,
        nodes=np.ones(n, dtype=int) if nodes is None else nodes,
        bb_gb=bb_gb,
    )
    system = System.simple("t", 10) if system is None else system
    state = np.full(n, C, dtype=np.int8) if state is None else np.asarray(state, dtype=np.int8)
    usage = np.zeros((len(usage_t), 4)) if usage is None else np.asarray(usage, dtype=float)
    return ScheduleResult(
        workload=workload,
        system=system,
        start=start,
        end=end,
        state=state,
        first_alloc=start,
        last_release=end if last_release is None else np.asarray(last_release, dtype=float),
        usage_t=np.asarray(usage_t, dtype=float),
        usage=usage,
        capacity=np.array(
            [system.nodes, system.bb_gb, system.ssd_total_gb, system.ssd_total_gb], dtype=float
        ),
        decision_latency_s=np.asarray(latency, dtype=float),
    )


def timeline(rows: list[tuple[float, float, float, float, float]]):
    """(t, nodes, bb, ssd_requested, ssd_assigned) rows -> (usage_t, usage)."""
    a = np.array(rows, dtype=float)
    return a[:, 0], a[:, 1:]


# --------------------------------------------------------------------------- usage


def step_result(window_submits=(0.0, 100.0)) -> ScheduleResult:
    # nodes: 4 on [0,10), 10 on [10,30), 2 on [30,60), 0 after; bb: 50, 0, 100, 0
    t, u = timeline([(0, 4, 50, 0, 0), (10, 10, 0, 0, 0), (30, 2, 100, 0, 0), (60, 0, 0, 0, 0)])
    return make_result(
        window_submits,
        window_submits,
        [s + 1 for s in window_submits],
        system=System.simple("t", 10, bb_gb=100),
        usage_t=t,
        usage=u,
    )


def test_usage_integrates_the_step_function_exactly():
    res = step_result()  # window [0, 100]
    # nodes: 4*10 + 10*20 + 2*30 = 300 node-s of 10 * 100
    assert node_usage(res) == pytest.approx(0.3, abs=1e-15)
    # bb: 50*10 + 100*30 = 3500 GB-s of 100 * 100
    assert bb_usage(res) == pytest.approx(0.35, abs=1e-15)


def test_usage_clips_the_steps_to_the_window():
    res = step_result()
    window = MeasurementWindow(warmup_s=5, cooldown_s=60)  # [5, 40]
    # nodes: 4*5 + 10*20 + 2*10 = 240 over 10 * 35
    assert node_usage(res, window) == pytest.approx(240 / 350, rel=1e-14)
    # bb: 50*5 + 0*20 + 100*10 = 1250 over 100 * 35
    assert bb_usage(res, window) == pytest.approx(1250 / 3500, rel=1e-14)
    m = compute_metrics(res, window)
    assert (m["window_start_s"], m["window_end_s"]) == (5.0, 40.0)
    assert m["node_usage"] == pytest.approx(240 / 350, rel=1e-14)


def test_integrate_usage_edges():
    t = np.array([20.0, 50.0])
    u = np.array([[3.0], [5.0]])
    # nothing before t[0]; the last row holds to the window's end
    assert integrate_usage(t, u, 0.0, 100.0)[0] == 3 * 30 + 5 * 50
    # window entirely inside one step
    assert integrate_usage(t, u, 25.0, 35.0)[0] == 3 * 10
    # window before the first event
    assert integrate_usage(t, u, 0.0, 10.0)[0] == 0
    assert integrate_usage(np.zeros(0), np.zeros((0, 1)), 0.0, 10.0)[0] == 0
    with pytest.raises(MetricsError, match=r"usage_t\[1\]"):
        integrate_usage(np.array([5.0, 1.0]), u, 0.0, 10.0)


def test_fully_busy_machine_has_usage_one_and_no_bb_is_none():
    t, u = timeline([(0, 10, 0, 0, 0)])
    res = make_result([0, 500, 1000], [0, 500, 1000], [10, 510, 1010], usage_t=t, usage=u)
    assert node_usage(res) == 1.0
    assert node_usage(res, MeasurementWindow(warmup_s=100, cooldown_s=300)) == 1.0
    assert bb_usage(res) is None  # System.simple("t", 10): no burst buffer
    m = compute_metrics(res)
    assert m["node_usage"] == 1.0 and m["bb_usage"] is None


@given(
    st.lists(
        st.tuples(
            st.floats(0, 1000, allow_nan=False),
            st.integers(0, 16),
            st.floats(0, 50, allow_nan=False),
        ),
        min_size=0,
        max_size=30,
    ),
    st.floats(0, 400, allow_nan=False),
    st.floats(0, 400, allow_nan=False),
)
def test_usage_in_unit_interval_when_never_over_capacity(steps, warmup, cooldown):
    steps.sort(key=lambda s: s[0])
    usage_t = np.array([s[0] for s in steps], dtype=float)
    usage = np.zeros((len(steps), 4))
    usage[:, 0] = [s[1] for s in steps]
    usage[:, 1] = [s[2] for s in steps]
    res = make_result(
        [0.0, 1000.0],
        [0.0, 1000.0],
        [1.0, 1001.0],
        system=System.simple("t", 16, bb_gb=50),
        usage_t=usage_t,
        usage=usage,
    )
    window = MeasurementWindow(warmup_s=warmup, cooldown_s=cooldown)
    for value in (node_usage(res, window), bb_usage(res, window)):
        assert value is not None
        assert -1e-12 <= value <= 1 + 1e-12  # rounding of the clipped durations only


# --------------------------------------------------------------------------- SSD


def ssd_system() -> System:
    return System("s", (NodeGroup("small", 2, 128.0), NodeGroup("large", 2, 256.0)), bb_gb=0.0)


def test_ssd_usage_and_waste():
    # total SSD = 2*128 + 2*256 = 768 GB
    # [0, 50): requested 200, assigned 256; [50, 100): requested 300, assigned 512
    t, u = timeline([(0, 2, 0, 200, 256), (50, 3, 0, 300, 512), (100, 0, 0, 0, 0)])
    res = make_result([0, 100], [0, 50], [100, 100], system=ssd_system(), usage_t=t, usage=u)
    requested = 200 * 50 + 300 * 50
    assigned = 256 * 50 + 512 * 50
    assert ssd_usage(res) == pytest.approx(requested / (768 * 100), rel=1e-14)
    assert ssd_waste(res) == pytest.approx((assigned - requested) / assigned, rel=1e-14)
    # a window with SSD but none assigned: waste undefined (0/0), usage 0
    t0, u0 = timeline([(0, 0, 0, 0, 0)])
    idle = make_result([0, 100], [0, 50], [100, 100], system=ssd_system(), usage_t=t0, usage=u0)
    assert ssd_usage(idle) == 0.0
    assert ssd_waste(idle) is None


def test_no_ssd_gives_none():
    res = step_result()
    m = compute_metrics(res)
    assert m["ssd_usage"] is None and m["ssd_waste"] is None
    assert ssd_usage(res) is None and ssd_waste(res) is None


# --------------------------------------------------------------------------- per job

# four jobs: (submit, start, end) -> wait, run
#   j1: 0,   0,    1000 -> 0,   1000
#   j2: 0,   50,   150  -> 50,  100
#   j3: 100, 400,  405  -> 300, 5      (abnormal: run < 60 s)
#   j4: 200, 205,  1205 -> 5,   1000
SUBMIT = [0.0, 0.0, 100.0, 200.0]
START = [0.0, 50.0, 400.0, 205.0]
END = [1000.0, 150.0, 405.0, 1205.0]


def test_wait_slowdown_bounded_slowdown_formulas():
    res = make_result(SUBMIT, START, END)
    np.testing.assert_array_equal(wait_times(res), [0, 50, 300, 5])
    slow, excluded = slowdowns(res)
    np.testing.assert_allclose(slow, [1.0, 1.5, 1.005])
    assert excluded == 1
    # j3: (300 + 5) / max(5, 10) = 30.5
    np.testing.assert_allclose(bounded_slowdowns(res), [1.0, 1.5, 30.5, 1.005])

    m = compute_metrics(res)
    assert m["wait_mean_s"] == pytest.approx(355 / 4)
    assert m["wait_median_s"] == pytest.approx(27.5)
    assert m["wait_p95_s"] == pytest.approx(50 + 0.85 * 250)  # linear, rank 0.95 * 3 = 2.85
    assert m["wait_max_s"] == 300.0
    assert m["slowdown_mean"] == pytest.approx(3.505 / 3)
    assert m["slowdown_median"] == pytest.approx(1.005)
    assert m["slowdown_max"] == pytest.approx(1.5)
    assert m["slowdown_excluded"] == 1
    assert m["bounded_slowdown_mean"] == pytest.approx(34.005 / 4)
    assert m["bounded_slowdown_max"] == pytest.approx(30.5)
    assert m["jobs_measured"] == 4


def test_abnormal_threshold_is_a_parameter():
    res = make_result(SUBMIT, START, END)
    slow, excluded = slowdowns(res, abnormal_run_s=0.0)
    assert excluded == 0
    np.testing.assert_allclose(slow, [1.0, 1.5, 61.0, 1.005])  # j3: 305 / 5
    m = compute_metrics(res, abnormal_run_s=150.0)  # j2 (run 100) is now abnormal too
    assert m["slowdown_excluded"] == 2
    assert m["slowdown_mean"] == pytest.approx((1.0 + 1.005) / 2)
    assert m["parameters"]["abnormal_run_s"] == 150.0


def test_zero_run_is_always_excluded_from_slowdown():
    res = make_result([0, 0], [10, 0], [10, 100])  # first job ran 0 s after waiting 10 s
    slow, excluded = slowdowns(res, abnormal_run_s=0.0)
    assert excluded == 1
    np.testing.assert_allclose(slow, [1.0])
    assert bounded_slowdowns(res)[0] == pytest.approx(1.0)  # (10 + 0) / max(0, 10)


def test_bounded_slowdown_is_at_least_one_and_tau_applies():
    res = make_result([0, 0], [3, 0], [5, 100])  # wait 3, run 2: (3 + 2) / 10 = 0.5 -> 1
    np.testing.assert_allclose(bounded_slowdowns(res), [1.0, 1.0])
    np.testing.assert_allclose(bounded_slowdowns(res, tau_s=1.0), [2.5, 1.0])  # 5 / 2


def test_rejected_and_unfinished_are_counted_not_averaged():
    res = make_result(
        [0, 0, 10, 20, 30],
        [0, 10, NAN, 40, NAN],
        [100, 20, NAN, NAN, NAN],
        [C, K, R, U, U],
    )
    m = compute_metrics(res)
    assert (m["jobs_completed"], m["jobs_killed"], m["jobs_rejected"], m["jobs_unfinished"]) == (
        1,
        1,
        1,
        2,
    )
    assert m["jobs_in_window"] == m["jobs_total"] == 5
    assert m["jobs_measured"] == 2
    assert m["wait_mean_s"] == 5.0  # (0 + 10) / 2: only the jobs that ran
    assert state_counts(res) == {"completed": 1, "killed": 1, "rejected": 1, "unfinished": 2}


def test_killed_jobs_are_measured():
    res = make_result([0, 0], [0, 0], [60, 120], [K, C])
    assert compute_metrics(res)["jobs_measured"] == 2


def test_measured_job_without_times_is_an_error():
    res = make_result([0, 0], [0, NAN], [10, NAN], [C, C])
    with pytest.raises(MetricsError, match=r"job 2 \(row 1\) is COMPLETED"):
        compute_metrics(res)


# --------------------------------------------------------------------------- window


def window_result() -> ScheduleResult:
    # submits 0..40 step 10, waits 1, 2, 3, 4, 5
    submit = np.arange(0, 50, 10, dtype=float)
    wait = np.arange(1, 6, dtype=float)
    return make_result(submit, submit + wait, submit + wait + 100)


def test_window_excludes_warmup_and_cooldown_jobs():
    res = window_result()
    w = MeasurementWindow(warmup_s=10, cooldown_s=10)  # [10, 30]: jobs 2, 3, 4 (inclusive)
    assert w.resolve(res) == (10.0, 30.0)
    np.testing.assert_array_equal(wait_times(res, w), [2, 3, 4])
    m = compute_metrics(res, w)
    assert m["jobs_in_window"] == m["jobs_measured"] == 3
    assert m["jobs_total"] == 5
    assert m["wait_mean_s"] == 3.0
    assert m["parameters"]["warmup_s"] == 10.0 and m["parameters"]["cooldown_s"] == 10.0
    # fractions of the 40 s submit span give the same window
    assert MeasurementWindow.fractions(0.25, 0.25).resolve(res) == (10.0, 30.0)


def test_bbsched_window_is_half_a_month_each_side():
    w = MeasurementWindow.bbsched()
    assert w.warmup_s == w.cooldown_s == HALF_MONTH_S == 1_296_000.0
    month = 30 * 86_400.0
    res = make_result(
        [0, month / 2, 2 * month], [0, month / 2, 2 * month], [1, month / 2 + 1, 2 * month + 1]
    )
    assert w.resolve(res) == (HALF_MONTH_S, 2 * month - HALF_MONTH_S)
    assert compute_metrics(res, w)["jobs_measured"] == 1


def test_empty_window_is_an_error_naming_the_values():
    res = window_result()
    with pytest.raises(
        MetricsError, match=r"t_lo = first submit 0 \+ warm-up 30 = 30.*t_hi = .*= 20"
    ):
        MeasurementWindow(warmup_s=30, cooldown_s=20).resolve(res)
    with pytest.raises(MetricsError, match="empty"):
        compute_metrics(res, MeasurementWindow(warmup_s=20, cooldown_s=20))  # t_lo == t_hi
    with pytest.raises(MetricsError, match="warmup_s or warmup_fraction"):
        MeasurementWindow(warmup_s=1, warmup_fraction=0.1)
    with pytest.raises(MetricsError, match="cooldown_s"):
        MeasurementWindow(cooldown_s=-1)


def test_single_submit_instant_without_trimming_is_allowed():
    res = make_result([5, 5], [5, 6], [10, 11])
    m = compute_metrics(res)
    assert m["node_usage"] is None  # zero-length window
    assert m["jobs_measured"] == 2 and m["wait_mean_s"] == 0.5


# --------------------------------------------------------------------------- whole run


def test_makespan_and_throughput():
    res = make_result(
        [10, 20, 30], [10, 25, NAN], [50, 60, NAN], [C, K, R], last_release=[55, 90, NAN]
    )
    assert makespan(res) == 80.0  # last release 90 - first submit 10
    assert throughput(res) == pytest.approx(2 / 80)
    m = compute_metrics(res)
    assert m["makespan_s"] == 80.0 and m["throughput_jobs_per_s"] == pytest.approx(0.025)


def test_decision_latency_stats():
    stats = decision_latency_stats(np.array([0.1, 0.2, 0.3, 20.0]), budget_s=15.0)
    assert stats["decisions"] == 4
    assert stats["decision_latency_median_s"] == pytest.approx(0.25)
    assert stats["decision_latency_p95_s"] == pytest.approx(0.3 + 0.85 * 19.7)
    assert stats["decision_latency_max_s"] == 20.0
    assert stats["decision_latency_total_s"] == pytest.approx(20.6)
    assert stats["decision_within_budget"] == 0.75
    assert (
        decision_latency_stats(np.array([0.1, 20.0]), budget_s=30.0)["decision_within_budget"]
        == 1.0
    )
    empty = decision_latency_stats(np.zeros(0))
    assert empty["decisions"] == 0 and empty["decision_latency_median_s"] is None
    res = make_result(SUBMIT, START, END, latency=[0.1, 0.2, 0.3, 20.0])
    assert compute_metrics(res, budget_s=0.25)["decision_within_budget"] == 0.5


# --------------------------------------------------------------------------- JSON


def test_metrics_are_json_safe_and_self_documenting():
    t, u = timeline([(0, 3, 0, 0, 0), (500, 0, 0, 0, 0)])
    res = make_result(SUBMIT, START, END, usage_t=t, usage=u, latency=[0.5])
    m = compute_metrics(res)
    text = json.dumps(m, allow_nan=False)
    assert json.loads(text) == m
    flat = {k: v for k, v in m.items() if k not in ("definitions", "parameters")}
    assert set(flat) == set(METRIC_DEFINITIONS) == set(m["definitions"])
    assert all(v is None or type(v) in (int, float) for v in flat.values())
    assert all(type(v) is float for v in m["parameters"].values())


def test_no_measured_jobs_gives_none_not_nan():
    res = make_result([0, 10], [NAN, NAN], [NAN, NAN], [R, U])
    m = compute_metrics(res)
    json.dumps(m, allow_nan=False)
    assert m["jobs_measured"] == 0
    for key in (
        "wait_mean_s",
        "wait_p95_s",
        "slowdown_mean",
        "bounded_slowdown_mean",
        "makespan_s",
    ):
        assert m[key] is None
    assert m["throughput_jobs_per_s"] is None
    assert m["node_usage"] == 0.0  # empty timeline: nothing in use


def test_format_summary():
    res = step_result()
    text = format_summary(compute_metrics(res))
    assert "node usage" in text and "30.00 %" in text
    assert "local-SSD usage" in text and "n/a" in text
    assert format_summary({"node_usage": 0.5}).count("\n") == 2  # header, rule, one row


# --------------------------------------------------------------------------- breakdowns


def breakdown_result() -> ScheduleResult:
    nodes = [1, 8, 9, 100, 2000, 4392]
    bb = [0, 5_000, 10_000, 10_001, 150_000, 250_000]
    runtime = [100, 3_600, 7_200, 30_000, 50_000, 50_000]
    requested = [100, 3_600, 7_200, 30_000, 50_000, 20_000]  # last job killed at 20,000 s
    wait = [10, 20, 30, 40, 50, 60]
    submit = np.zeros(6)
    start = submit + wait
    end = start + np.minimum(runtime, requested)
    return make_result(
        submit,
        start,
        end,
        [C, C, C, C, C, K],
        nodes=nodes,
        runtime=runtime,
        requested_time=requested,
        bb_gb=bb,
        system=System.simple("theta", 4392, bb_gb=2_160_000),
    )


def rows_of(rows):
    return [(r["bin"], r["jobs"], r["wait_mean_s"]) for r in rows]


def test_breakdown_by_size():
    rows = breakdown(breakdown_result(), "size")
    assert rows_of(rows) == [
        ("1-8", 2, 15.0),
        ("9-64", 1, 30.0),
        ("65-256", 1, 40.0),
        ("257-1023", 0, None),
        ("1024-4392", 2, 55.0),
    ]
    assert rows[3]["bounded_slowdown_mean"] is None
    # j1: (10 + 100) / 100, j2: (20 + 3600) / 3600
    assert rows[0]["bounded_slowdown_mean"] == pytest.approx((1.1 + 3620 / 3600) / 2)


def test_breakdown_by_size_is_capped_to_the_machine():
    res = make_result(
        [0, 0, 0], [0, 1, 2], [10, 10, 10], nodes=[1, 50, 100], system=System.simple("s", 100)
    )
    assert rows_of(breakdown(res, "size")) == [
        ("1-8", 1, 0.0),
        ("9-64", 1, 1.0),
        ("65-100", 1, 2.0),
    ]


def test_breakdown_by_bb():
    rows = breakdown(breakdown_result(), "bb")
    assert rows_of(rows) == [
        ("none", 1, 10.0),
        ("(0, 10] TB", 2, 25.0),  # 5 TB and exactly 10 TB
        ("(10, 50] TB", 1, 40.0),  # 10.001 TB
        ("(50, 100] TB", 0, None),
        ("(100, 200] TB", 1, 50.0),
        ("> 200 TB", 1, 60.0),
    ]


def test_breakdown_by_runtime_uses_runtime_capped_at_request():
    rows = breakdown(breakdown_result(), "runtime")
    # runs: 100 s, 1 h, 2 h, 8.33 h, 13.9 h, and the killed job 5.6 h (not its 13.9 h trace runtime)
    assert rows_of(rows) == [
        ("< 1 h", 1, 10.0),
        ("1-3 h", 2, 25.0),
        ("3-6 h", 1, 60.0),
        ("6-12 h", 1, 40.0),
        (">= 12 h", 1, 50.0),
    ]


def test_breakdown_custom_bins_window_and_errors():
    res = breakdown_result()
    rows = breakdown(res, "size", bins=[1, 100])
    assert rows_of(rows) == [("1-99", 3, 20.0), ("100-4392", 3, 50.0)]
    rows = breakdown(res, "size", MeasurementWindow(), bins=[9])  # jobs below 9 nodes: no bin
    assert rows_of(rows) == [("9-4392", 4, 45.0)]
    with pytest.raises(MetricsError, match="expected one of size, bb, runtime"):
        breakdown(res, "user")
    with pytest.raises(MetricsError, match="increase"):
        breakdown(res, "bb", bins=[0, 10, 5])
    assert all(json.dumps(r, allow_nan=False) for r in breakdown(res, "bb"))


@pytest.mark.slow
def test_a_million_jobs_is_fast():
    import time

    n = 1_000_000
    rng = np.random.default_rng(1)
    submit = np.sort(rng.uniform(0, 1e7, n))
    start = submit + rng.exponential(3600, n)
    end = start + rng.exponential(3600, n)
    t = np.sort(rng.uniform(0, 1.1e7, 2 * n))
    usage = np.zeros((2 * n, 4))
    usage[:, 0] = rng.integers(0, 10, 2 * n)
    res = make_result(submit, start, end, usage_t=t, usage=usage, latency=rng.random(10_000))
    t0 = time.perf_counter()
    compute_metrics(res, MeasurementWindow.fractions(0.05, 0.05))
    breakdown(res, "runtime")
    assert time.perf_counter() - t0 < 1.0
