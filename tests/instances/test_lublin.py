"""The Lublin–Feitelson generator (instances/lublin.py) against the reference trace and its spec.

The reference ``lublin_256.swf`` (10,000 jobs, 256 nodes, written by the reference C program
``m_lublin99.c``) ships with the package (dataset ``lublin-256``). It is a
*typeless* output (field 15 is the same for every job, and its sizes fit the typeless
parameters with UMed = UHi − 2.5 = 5.5), so it is compared with ``model="typeless"``.

Thresholds were calibrated on 40 seeds of 20,000 generated jobs against the 10,000 reference
jobs: the largest value seen is given next to each threshold. Deliberately wrong generators
(the other model, unscaled UMed, runtime/size/arrival parameters of another stream, no daily
cycle, denser arrivals) exceed at least one of them by a wide margin (``test_wrong_generator``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from scipy.stats import ks_2samp

import schedbench.instances.lublin as lublin
from schedbench.instances import datasets
from schedbench.instances.lublin import (
    LUBLIN_PARAMS,
    MAX_RUNTIME_S,
    bucket_weights,
    generate_lublin,
)
from schedbench.simcore.workload import SWF_INDEX, WorkloadError

TRACE = datasets.path("lublin-256")  # gzip: np.loadtxt and read_bytes take it as it is
N_COMPARE = 20_000  # generated jobs per comparison with the 10,000 reference jobs

#: check -> threshold (largest value over 40 correct seeds in the comment).
THRESHOLDS = {
    "ks_log_runtime": 0.02,  # 0.012
    "ks_log2_nodes": 0.03,  # 0.020
    "ks_interarrival": 0.03,  # 0.017
    "ks_hour_of_day": 0.10,  # 0.078 (the reference's day looks ~45 min earlier; see report)
    "serial_fraction": 0.02,  # |difference| 0.012
    "pow2_fraction": 0.025,  # |difference| among parallel jobs, 0.012
}


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    return np.loadtxt(TRACE, comments=";", ndmin=2)


def _fractions(nodes: np.ndarray) -> tuple[float, float]:
    parallel = nodes[nodes > 1].astype(np.int64)
    return float(np.mean(nodes == 1)), float(np.mean((parallel & (parallel - 1)) == 0))


def _compare(submit: np.ndarray, runtime: np.ndarray, nodes: np.ndarray, ref: np.ndarray) -> dict:
    r_submit, r_runtime, r_nodes = ref[:, 1], ref[:, 3], ref[:, 4]
    serial, pow2 = _fractions(nodes)
    r_serial, r_pow2 = _fractions(r_nodes)
    return {
        "ks_log_runtime": ks_2samp(np.log(runtime), np.log(r_runtime)).statistic,
        "ks_log2_nodes": ks_2samp(np.log2(nodes), np.log2(r_nodes)).statistic,
        "ks_interarrival": ks_2samp(np.diff(submit), np.diff(r_submit)).statistic,
        "ks_hour_of_day": ks_2samp(submit % 86_400, r_submit % 86_400).statistic,
        "serial_fraction": abs(serial - r_serial),
        "pow2_fraction": abs(pow2 - r_pow2),
    }


def _failed(stats: dict) -> set[str]:
    return {name for name, limit in THRESHOLDS.items() if stats[name] > limit}


def _typeless_with(fields: tuple[str, ...], source: str) -> Any:
    """LUBLIN_PARAMS whose typeless stream takes ``fields`` from stream ``source``."""
    params = dict(LUBLIN_PARAMS)
    donor = LUBLIN_PARAMS[source]
    params["typeless"] = dataclasses.replace(
        LUBLIN_PARAMS["typeless"], **{f: getattr(donor, f) for f in fields}
    )
    return MappingProxyType(params)


RUNTIME = ("a1", "b1", "a2", "b2", "pa", "pb")
SIZES = ("serial_prob", "pow2_prob", "ulow", "umed", "uhi", "uprob")
ARRIVALS = ("aarr", "barr", "anum", "bnum", "arar")


# ------------------------------------------------------------------------------ reference
def test_reference_is_a_typeless_256_node_trace(reference: np.ndarray) -> None:
    header = dict(
        line[1:].split(":", 1)
        for line in datasets.read_bytes(TRACE).decode().splitlines()
        if line.startswith(";")
    )
    assert int(header[" MaxNodes"]) == 256
    assert reference.shape == (10_000, 18)
    assert np.unique(reference[:, 14]).size == 1  # one stream: the typeless model
    typeless = generate_lublin(2_000, model="typeless", seed=3)
    assert set(np.unique(typeless.swf[:, 14])) == {-1.0}


def test_typeless_matches_reference(reference: np.ndarray) -> None:
    w = generate_lublin(N_COMPARE, nodes=256, model="typeless", seed=1)
    stats = _compare(w.submit, w.runtime, w.nodes, reference)
    assert not _failed(stats), stats


def test_max_runtime_and_sizes_like_reference(reference: np.ndarray) -> None:
    w = generate_lublin(N_COMPARE, nodes=256, model="typeless", seed=2)
    assert reference[:, 3].max() <= MAX_RUNTIME_S and w.runtime.max() <= MAX_RUNTIME_S
    assert reference[:, 3].min() >= 1 and w.runtime.min() >= 1
    assert reference[:, 4].max() == w.nodes.max() == 256


WRONG: dict[str, tuple[dict, Callable[[], Any] | None, str]] = {
    # name: (generate_lublin kwargs, replacement LUBLIN_PARAMS, a check that must fail)
    "two-stream model": ({"model": "two-stream"}, None, "ks_log_runtime"),
    "unscaled umed 4.5": ({"umed": 4.5}, None, "ks_log2_nodes"),
    "denser arrivals x1.2": ({"arrival_factor": 1.2}, None, "ks_interarrival"),
    "batch runtime": ({}, lambda: _typeless_with(RUNTIME, "batch"), "ks_log_runtime"),
    "interactive runtime": ({}, lambda: _typeless_with(RUNTIME, "interactive"), "ks_log_runtime"),
    "batch sizes": ({}, lambda: _typeless_with(SIZES, "batch"), "pow2_fraction"),
    "interactive sizes": ({}, lambda: _typeless_with(SIZES, "interactive"), "ks_log2_nodes"),
    "batch arrivals": ({}, lambda: _typeless_with(ARRIVALS, "batch"), "ks_interarrival"),
    "interactive arrivals": (
        {},
        lambda: _typeless_with(ARRIVALS, "interactive"),
        "ks_interarrival",
    ),
    "flat day": (
        {},
        lambda: MappingProxyType(
            {
                **LUBLIN_PARAMS,
                "typeless": dataclasses.replace(LUBLIN_PARAMS["typeless"], anum=1e-3, bnum=1e6),
            }
        ),
        "ks_hour_of_day",
    ),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_generator_fails_the_reference_check(
    name: str, reference: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    kwargs, params, must_fail = WRONG[name]
    if params is not None:
        monkeypatch.setattr(lublin, "LUBLIN_PARAMS", params())
    options = {"nodes": 256, "model": "typeless", "seed": 1, **kwargs}
    w = generate_lublin(N_COMPARE, **options)
    stats = _compare(w.submit, w.runtime, w.nodes, reference)
    assert must_fail in _failed(stats), stats


# ------------------------------------------------------------------------------ two streams
def test_two_stream_types_and_batch_share() -> None:
    w = generate_lublin(50_000, seed=5)
    types = w.swf[:, SWF_INDEX["queue"]]
    assert set(np.unique(types)) == {0.0, 1.0}
    # Long-run share of batch = rate_b / (rate_b + rate_i); mean capped gaps 3,517 s and 619 s.
    assert abs(np.mean(types == 1) - 0.1497) < 0.035
    batch, interactive = w.nodes[types == 1], w.nodes[types == 0]
    # Published shapes: batch has more serial jobs and larger parallel ones.
    assert np.mean(batch == 1) > np.mean(interactive == 1) + 0.08
    assert np.median(np.log2(batch[batch > 1])) > np.median(np.log2(interactive[interactive > 1]))


def test_bucket_weights_follow_the_day() -> None:
    for stream in LUBLIN_PARAMS.values():
        w = bucket_weights(stream)
        assert w.shape == (48,) and np.all(w > 0) and w.mean() == pytest.approx(1.0)
        assert 2 <= int(np.argmin(w)) <= 14  # night: between 01:00 and 07:30
        assert 20 <= int(np.argmax(w)) <= 36  # day: between 10:00 and 18:30


# ------------------------------------------------------------------------------ properties
@pytest.mark.parametrize("model", ["two-stream", "typeless"])
def test_same_seed_same_workload_other_seed_differs(model: str) -> None:
    a = generate_lublin(3_000, seed=11, model=model)
    b = generate_lublin(3_000, seed=11, model=model)
    c = generate_lublin(3_000, seed=12, model=model)
    for col in ("submit", "runtime", "nodes", "requested_time", "swf"):
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
    assert not np.array_equal(a.submit, c.submit)
    assert not np.array_equal(a.runtime, c.runtime)
    assert a.header == b.header and a.source == b.source


@pytest.mark.parametrize("model", ["two-stream", "typeless"])
@pytest.mark.parametrize("nodes", [1, 3, 100, 256, 1024, 4392])
def test_bounds_and_order(model: str, nodes: int) -> None:
    w = generate_lublin(20_000, nodes=nodes, model=model, seed=7)
    assert len(w) == 20_000 and w.max_nodes == nodes
    assert w.nodes.min() >= 1 and w.nodes.max() <= nodes
    assert w.runtime.min() >= 1 and w.runtime.max() <= np.exp(12)
    assert np.all(w.runtime == np.floor(w.runtime))
    assert np.all(np.diff(w.submit) >= 0) and w.submit[0] >= 0
    assert np.array_equal(w.requested_time, w.runtime)
    assert np.array_equal(w.job_id, np.arange(1, 20_001))


@pytest.mark.parametrize(("nodes", "largest"), [(100, 100), (128, 128), (1024, 1024), (4392, 4096)])
def test_large_jobs_reach_the_machine(nodes: int, largest: int) -> None:
    w = generate_lublin(20_000, nodes=nodes, model="typeless", seed=4)
    assert w.nodes.max() >= largest  # 4392 = 2^12.1: the full size is practically never drawn
    assert np.mean(w.nodes > nodes // 8) > 0.02


def test_machine_scaling_keeps_published_values_at_128_and_scales_umed() -> None:
    def same(a: Any, b: Any) -> bool:
        return np.array_equal(a.nodes, b.nodes) and np.array_equal(a.runtime, b.runtime)

    kw = {"model": "typeless", "seed": 9}
    assert same(
        generate_lublin(5_000, nodes=128, **kw), generate_lublin(5_000, nodes=128, umed=4.5, **kw)
    )
    assert same(
        generate_lublin(5_000, nodes=256, **kw), generate_lublin(5_000, nodes=256, umed=5.5, **kw)
    )
    assert not same(
        generate_lublin(5_000, nodes=256, **kw), generate_lublin(5_000, nodes=256, umed=4.5, **kw)
    )
    small = generate_lublin(20_000, nodes=256, umed=3.0, uprob=0.95, **kw)
    default = generate_lublin(20_000, nodes=256, **kw)
    assert np.median(small.nodes[small.nodes > 1]) < np.median(default.nodes[default.nodes > 1])
    floor = generate_lublin(20_000, nodes=256, ulow=3.0, **kw)
    assert floor.nodes[floor.nodes > 1].min() >= 8  # 2^3: the smallest parallel job


@pytest.mark.parametrize("model", ["two-stream", "typeless"])
def test_arrival_factor_two_halves_the_span(model: str) -> None:
    base = generate_lublin(20_000, seed=3, model=model)
    dense = generate_lublin(20_000, seed=3, model=model, arrival_factor=2.0)
    assert 0.45 < dense.span_s / base.span_s < 0.55
    if model == "typeless":  # one stream: only the arrival clock changes, not the jobs
        assert np.array_equal(base.nodes, dense.nodes)
    # The day/night cycle stays in wall-clock hours: the busiest hour is the same afternoon hour.
    busy = [
        np.bincount((x.submit % 86_400 // 3_600).astype(int), minlength=24) for x in (base, dense)
    ]
    assert abs(int(np.argmax(busy[0])) - int(np.argmax(busy[1]))) <= 2


def test_requested_factor_start_time_and_swf_table() -> None:
    w = generate_lublin(2_000, seed=8, requested_factor=1.5, start_time=86_400.0)
    plain = generate_lublin(2_000, seed=8)
    assert np.array_equal(w.submit, plain.submit + 86_400.0)
    assert np.all(w.requested_time >= 1.5 * w.runtime)
    assert np.all(w.requested_time < 1.5 * w.runtime + 1)
    swf = w.swf
    assert np.array_equal(swf[:, SWF_INDEX["job_id"]], w.job_id)
    assert np.array_equal(swf[:, SWF_INDEX["submit"]], w.submit)
    assert np.array_equal(swf[:, SWF_INDEX["run_time"]], w.runtime)
    assert np.array_equal(swf[:, SWF_INDEX["allocated_procs"]], w.nodes)
    assert np.array_equal(swf[:, SWF_INDEX["requested_procs"]], w.nodes)
    assert np.array_equal(swf[:, SWF_INDEX["requested_time"]], w.requested_time)
    assert np.all(swf[:, SWF_INDEX["status"]] == 1)
    unknown = [SWF_INDEX[f] for f in ("wait", "avg_cpu_time", "user_id", "think_time")]
    assert np.all(swf[:, unknown] == -1)
    header = dict(w.header)
    assert header["MaxNodes"] == "256" and header["MaxRuntime"] == "162754"
    assert "two-stream" in header["Note"] and "seed 8" in header["Note"]
    assert w.source == "lublin:jobs=2000,nodes=256,seed=8,model=two-stream"


def test_empty_and_invalid_arguments() -> None:
    assert len(generate_lublin(0)) == 0
    bad: list[dict] = [
        {"n_jobs": -1},
        {"nodes": 0},
        {"model": "batch"},
        {"arrival_factor": 0.0},
        {"requested_factor": 0.5},
        {"uprob": 1.5},
        {"umed": 9.0},  # above log2(256)
        {"ulow": 4.0, "umed": 3.0},
        {"start_time": float("nan")},
    ]
    for kwargs in bad:
        args = {"n_jobs": 10, **kwargs}
        with pytest.raises(WorkloadError):
            generate_lublin(args.pop("n_jobs"), **args)


@pytest.mark.slow
def test_generation_speed() -> None:
    for n, budget in ((100_000, 2.0), (1_000_000, 20.0)):
        t0 = time.perf_counter()
        generate_lublin(n, seed=0)
        assert time.perf_counter() - t0 < budget, n
