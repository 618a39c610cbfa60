"""pytest-benchmark suite for the simulator (not in the default test pass).

Run: ``make bench-pytest``. Jobs per second go into ``extra_info``; the side-by-side ratios and
the 1M-job memory figure are in ``bench/benchmarks/sim_speed.py``.
"""

from __future__ import annotations

import pytest

from schedbench.instances import datasets
from schedbench.instances.lublin import generate_lublin
from schedbench.simcore.engine import SimOptions, simulate
from schedbench.simcore.policies import NaivePolicy
from schedbench.simcore.system import System

KTH = datasets.path("kth-sp2")  # shipped with the package


@pytest.mark.parametrize(
    ("priority", "backfill"), [("fcfs", "easy"), ("wfp", "easy"), ("fcfs", "conservative")]
)
def test_kth(benchmark, priority, backfill):
    from schedbench.instances.swf import read_swf

    benchmark.group = "simulate: KTH-SP2 (28k jobs, 100 nodes)"
    w = read_swf(KTH)
    system = System.simple("kth", w.max_nodes)
    run = lambda: simulate(w, system, NaivePolicy(backfill=backfill), SimOptions(priority=priority))  # noqa: E731
    result = benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["jobs_per_s"] = round(len(w) / benchmark.stats.stats.median)
    assert result.counters["started"] == len(w)


def test_lublin_100k_fcfs_easy(benchmark):
    benchmark.group = "simulate: Lublin 100k jobs, 256 nodes"
    w = generate_lublin(100_000, nodes=256, seed=1)
    system = System.simple("lublin", 256)
    result = benchmark.pedantic(lambda: simulate(w, system, NaivePolicy()), rounds=3, iterations=1)
    benchmark.extra_info["jobs_per_s"] = round(len(w) / benchmark.stats.stats.median)
    assert result.counters["started"] == len(w)
