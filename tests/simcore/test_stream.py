"""The streamed engine against the in-memory one: same schedule, same metrics, any chunk size.

Memory is not measured here (``bench/benchmarks/stream_scale.py`` does, in child processes);
what is checked is that the window of rows the engine holds stays far below the workload.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.instances.lublin import generate_lublin
from schedbench.simcore.engine import ConfigError, SimOptions, simulate
from schedbench.simcore.metrics import compute_metrics
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.schedule import JobState
from schedbench.simcore.stream import (
    RECORD_COLUMNS,
    JobChunk,
    chunks_of,
    read_records,
    simulate_stream,
)
from schedbench.simcore.system import System
from schedbench.simcore.workload import Workload, WorkloadError

#: The metrics both runs compute; the usage and the means may differ in the last bits (the
#: online sums add in another order).
EXACT = (
    "jobs_total",
    "jobs_measured",
    "jobs_completed",
    "jobs_killed",
    "jobs_rejected",
    "jobs_unfinished",
    "wait_median_s",
    "wait_p95_s",
    "wait_max_s",
    "slowdown_median",
    "slowdown_max",
    "slowdown_excluded",
    "bounded_slowdown_median",
    "bounded_slowdown_max",
    "makespan_s",
    "throughput_jobs_per_s",
    "window_start_s",
    "window_end_s",
    "ssd_usage",
    "ssd_waste",
)
CLOSE = ("node_usage", "bb_usage", "wait_mean_s", "slowdown_mean", "bounded_slowdown_mean")
SCHEDULE_COUNTERS = ("passes", "instants", "started", "backfilled", "rejected", "killed")


def _busy_lublin(n: int, seed: int, nodes: int = 64) -> Workload:
    """A Lublin workload with a queue (arrivals 3x denser) and under-estimated requests for
    some jobs (killed ones): the backfiller has work to do."""
    w = generate_lublin(n, nodes=nodes, seed=seed, arrival_factor=3.0, requested_factor=1.5)
    req = w.requested_time.copy()
    req[::13] = np.maximum(1.0, np.floor(w.runtime[::13] / 2))  # every 13th job is killed
    return w.replace(requested_time=req)


def _both(w: Workload, system: System, backfill: str, chunk: int, tmp_path):
    mem = simulate(w, system, NaivePolicy(backfill=backfill), SimOptions())
    path = tmp_path / f"jobs-{backfill}-{chunk}.csv"
    streamed = simulate_stream(
        chunks_of(w, chunk), system, NaivePolicy(backfill=backfill), records=path
    )
    return mem, streamed, read_records(path)


@pytest.mark.parametrize("backfill", ["easy", "none"])
@pytest.mark.parametrize("chunk", [1, 37, 1000, 10**6])
def test_streamed_schedule_and_metrics_equal_the_in_memory_engine(backfill, chunk, tmp_path):
    w = _busy_lublin(2500, seed=3)
    system = System.simple("m64", 64)
    mem, streamed, rec = _both(w, system, backfill, chunk, tmp_path)
    assert mem.counters["killed"] > 0 and mem.counters["backfilled"] > (backfill == "easy") - 1
    # same schedule, job by job, in job order
    np.testing.assert_array_equal(rec["id"], w.job_id)
    np.testing.assert_array_equal(rec["submit"], w.submit)
    np.testing.assert_array_equal(rec["start"], mem.start)
    np.testing.assert_array_equal(rec["end"], mem.end)
    np.testing.assert_array_equal(rec["wait"], mem.start - w.submit)
    names = np.array([JobState(int(s)).name.lower() for s in mem.state], dtype=object)
    np.testing.assert_array_equal(rec["status"], names)
    for key in SCHEDULE_COUNTERS:
        assert streamed.counters[key] == mem.counters[key], key
    expected = compute_metrics(mem)
    for key in EXACT:
        assert streamed.metrics[key] == expected[key], key
    assert expected["bb_usage"] is None and expected["node_usage"] > 0.3
    for key in CLOSE:
        if expected[key] is None:
            assert streamed.metrics[key] is None, key
        else:
            assert streamed.metrics[key] == pytest.approx(expected[key], rel=1e-12), key


def test_rejected_jobs_and_a_burst_buffer_machine(tmp_path):
    """Jobs wider than the machine are rejected on arrival in both engines; a machine with a
    burst buffer (jobs asking none) reports its usage as 0 in both."""
    w = _busy_lublin(1500, seed=5, nodes=128)
    system = System.simple("m64bb", 64, bb_gb=100.0)
    mem, streamed, rec = _both(w, system, "easy", 100, tmp_path)
    assert mem.counters["rejected"] > 0
    np.testing.assert_array_equal(rec["start"], mem.start)  # NaN where rejected
    expected = compute_metrics(mem)
    assert streamed.metrics["jobs_rejected"] == expected["jobs_rejected"] > 0
    assert streamed.metrics["bb_usage"] == expected["bb_usage"] == 0.0
    assert streamed.metrics["node_usage"] == pytest.approx(expected["node_usage"], rel=1e-12)


def test_chunk_size_does_not_change_anything(tmp_path):
    w = _busy_lublin(3000, seed=11)
    system = System.simple("m64", 64)
    runs = []
    for chunk in (3, 512, 5000):
        path = tmp_path / f"c{chunk}.csv"
        r = simulate_stream(chunks_of(w, chunk), system, NaivePolicy(), records=path)
        runs.append((r, path.read_bytes()))
    (first, data), *rest = runs
    for r, other in rest:
        assert other == data
        assert r.metrics == first.metrics
        assert r.counters == first.counters


def test_the_window_stays_small_and_records_are_optional():
    """Finished jobs leave the engine: the rows held at once stay far below the workload."""
    w = generate_lublin(20_000, nodes=256, seed=2)
    r = simulate_stream(chunks_of(w, 500), System.simple("m256", 256), NaivePolicy())
    assert r.jobs == 20_000 and r.records is None
    assert r.max_window < 2_000  # a chunk of look-ahead plus the queued and running jobs
    assert r.metrics["jobs_measured"] == 20_000


def test_a_crashed_run_leaves_the_records_retired_so_far(tmp_path):
    w = _busy_lublin(3000, seed=7)
    system = System.simple("m64", 64)
    mem = simulate(w, system, NaivePolicy(), SimOptions())

    class Crash(Exception):
        pass

    passes = 0

    def crash_after(done: int) -> None:
        nonlocal passes
        passes += 1
        if done >= 2000:
            raise Crash

    path = tmp_path / "jobs.csv"
    options = SimOptions(progress=crash_after, progress_every=100)
    with pytest.raises(Crash):
        simulate_stream(chunks_of(w, 250), system, NaivePolicy(), options, records=path)
    rec = read_records(path)
    k = rec["id"].size
    assert 0 < k < len(w)
    np.testing.assert_array_equal(rec["start"], mem.start[:k])
    # a line cut in the middle (a crash during a write) is dropped, the rest is read
    data = path.read_bytes()
    path.write_bytes(data + b"99999,12,13")
    assert read_records(path)["id"].size == k


def test_read_records_checks_the_header(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("id,submit\n1,2\n")
    with pytest.raises(WorkloadError, match="expected the header"):
        read_records(path)
    path.write_text(",".join(RECORD_COLUMNS) + "\n")
    assert read_records(path)["id"].size == 0


@pytest.mark.parametrize(
    ("policy", "options", "match"),
    [
        (NaivePolicy(backfill="conservative"), SimOptions(), "keeps nothing between passes"),
        (NaivePolicy(), SimOptions(priority="wfp"), "FCFS"),
        (NaivePolicy(), SimOptions(lifecycle="three-phase"), "classic lifecycle"),
    ],
)
def test_what_a_streamed_run_refuses(policy, options, match):
    w = generate_lublin(10, nodes=8, seed=1)
    with pytest.raises(ConfigError, match=match):
        simulate_stream(chunks_of(w, 5), System.simple("m8", 8), policy, options)


def test_chunks_out_of_order_are_refused():
    def chunk(submit):
        m = len(submit)
        return JobChunk(
            job_id=np.arange(m),
            submit=np.asarray(submit, dtype=float),
            runtime=np.ones(m),
            nodes=np.ones(m, dtype=np.int64),
            requested_time=np.ones(m),
        )

    with pytest.raises(WorkloadError, match="comes before"):
        simulate_stream([chunk([0, 5]), chunk([4])], System.simple("m1", 1), NaivePolicy())
    with pytest.raises(WorkloadError, match="non-decreasing"):
        simulate_stream([chunk([3, 2])], System.simple("m1", 1), NaivePolicy())
    empty = simulate_stream([chunk([]), chunk([])], System.simple("m1", 1), NaivePolicy())
    assert empty.jobs == 0 and empty.metrics["jobs_measured"] == 0
