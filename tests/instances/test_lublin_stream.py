"""The chunked Lublin generator: deterministic, independent of the chunk size and of the number
of jobs asked for (a prefix), and drawn from the same distributions as ``generate_lublin``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp

from schedbench.instances.lublin import generate_lublin
from schedbench.instances.lublin_stream import BLOCK, iter_lublin, lublin_stream_workload
from schedbench.simcore.workload import WorkloadError

COLUMNS = ("job_id", "submit", "runtime", "nodes", "requested_time")


def _gather(n: int, **kw) -> dict[str, np.ndarray]:
    chunks = list(iter_lublin(n, **kw))
    return {c: np.concatenate([getattr(ch, c) for ch in chunks]) for c in COLUMNS}


def test_chunk_size_does_not_change_the_jobs():
    n = BLOCK + 5_000  # crosses a block boundary of both streams' generators
    ref = _gather(n, chunk=n, seed=4, nodes=512)
    for chunk in (7, 1000, 32_768):
        got = _gather(n, chunk=chunk, seed=4, nodes=512)
        for c in COLUMNS:
            np.testing.assert_array_equal(got[c], ref[c], err_msg=c)
    assert [len(ch) for ch in iter_lublin(2500, chunk=1000)] == [1000, 1000, 500]


def test_a_shorter_run_is_a_prefix_and_the_seed_matters():
    long = _gather(9_000, seed=2)
    short = _gather(4_000, seed=2)
    for c in COLUMNS:
        np.testing.assert_array_equal(short[c], long[c][:4000])
    other = _gather(4_000, seed=3)
    assert not np.array_equal(other["runtime"], short["runtime"])


def test_jobs_are_well_formed():
    w = lublin_stream_workload(20_000, seed=1, nodes=256, requested_factor=1.5, start_time=100.0)
    assert len(w) == 20_000
    np.testing.assert_array_equal(w.job_id, np.arange(1, 20_001))
    assert np.all(np.diff(w.submit) >= 0) and w.submit[0] >= 100.0
    assert np.all(w.submit == np.floor(w.submit))
    assert w.nodes.min() >= 1 and w.nodes.max() <= 256
    assert np.all(w.requested_time >= w.runtime)
    assert np.all(w.requested_time == np.ceil(np.round(w.runtime * 1.5, 6)))


@pytest.mark.parametrize("model", ["two-stream", "typeless"])
def test_same_distributions_as_the_in_memory_generator(model):
    """Not the same jobs (module docstring), the same model: two-sample KS tests on sizes,
    runtimes and inter-arrival gaps at 20,000 jobs (fixed seeds: no flakiness)."""
    a = lublin_stream_workload(20_000, seed=9, nodes=256, model=model)
    b = generate_lublin(20_000, seed=9, nodes=256, model=model)
    for col in ("nodes", "runtime"):
        assert ks_2samp(getattr(a, col), getattr(b, col)).pvalue > 1e-3, col
    assert ks_2samp(np.diff(a.submit), np.diff(b.submit)).pvalue > 1e-3
    # and the spans agree within 5 %: the arrival process is the same
    assert a.span_s == pytest.approx(b.span_s, rel=0.05)


def test_bad_arguments_are_refused():
    with pytest.raises(WorkloadError, match="chunk"):
        iter_lublin(10, chunk=0)
    with pytest.raises(WorkloadError, match="seed"):
        iter_lublin(10, seed=-1)
    with pytest.raises(WorkloadError, match="nodes"):
        iter_lublin(10, nodes=0)
    assert list(iter_lublin(0)) == []
