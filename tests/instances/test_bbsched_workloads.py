"""BBSched's synthetic workloads (instances/bbsched.py): S1–S7 shares and ranges, conditioning on
the lower bound, determinism, immutability of the input, SSD mixes, the arrival-rate factor and
the errors for unknown names and empty bases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances.bbsched import (
    BB_BASE_DISTRIBUTIONS,
    SCENARIOS,
    EmpiricalBB,
    LogUniformBB,
    MixtureBB,
    PointMassBB,
    ScenarioError,
    UnknownScenarioError,
    bbsched_scenario,
    bbsched_ssd_system,
    scale_arrivals,
    with_bb_requests,
    with_ssd_requests,
)
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.workload import SWF_INDEX, Workload
from tests._hyp import examples

N = 4000
# Expected definitions, restated from the paper rather than read from SCENARIOS.
PAPER = {  # name: (BB share, BB lower bound in GB, share of jobs with 0-128 GB SSD or None)
    "S1": (0.50, 5000.0, None),
    "S2": (0.75, 5000.0, None),
    "S3": (0.50, 20000.0, None),
    "S4": (0.75, 20000.0, None),
    "S5": (0.75, 5000.0, 0.8),
    "S6": (0.75, 5000.0, 0.5),
    "S7": (0.75, 5000.0, 0.2),
}
RANGES = {"theta": (1.0, 285000.0), "cori": (1.0, 165000.0)}


def make_workload(n: int = N, seed: int = 7, **cols) -> Workload:
    rng = np.random.default_rng(seed)
    return Workload.from_columns(
        submit=np.sort(rng.integers(0, 10**6, n)).astype(float),
        runtime=rng.uniform(1, 5e4, n),
        nodes=rng.integers(1, 512, n),
        source="synthetic.swf",
        **cols,
    )


@pytest.fixture(scope="module")
def workload() -> Workload:
    return make_workload()


def snapshot(w: Workload) -> dict[str, np.ndarray]:
    return {
        k: getattr(w, k).copy()
        for k in ("job_id", "submit", "runtime", "nodes", "bb_gb", "ssd_gb", "swf")
    }


# --------------------------------------------------------------------------- scenarios


def test_scenario_table_matches_the_paper():
    assert list(SCENARIOS) == list(PAPER)
    for name, (share, min_gb, small) in PAPER.items():
        sc = SCENARIOS[name]
        assert (sc.bb_share, sc.bb_min_gb, sc.ssd_small_share) == (share, min_gb, small)


@pytest.mark.parametrize("base", ["theta", "cori"])
@pytest.mark.parametrize("name", list(PAPER))
def test_scenario_shares_and_ranges(workload, name, base):
    share, min_gb, small = PAPER[name]
    out = bbsched_scenario(workload, name, base=base, seed=3)
    bb = out.bb_gb
    assert np.count_nonzero(bb) == round(share * N)
    req = bb[bb > 0]
    lo, hi = RANGES[base]
    assert req.min() > min_gb and req.min() >= lo
    assert req.max() <= hi
    assert np.array_equal(req, np.round(req))  # whole GB
    if small is None:
        assert np.array_equal(out.ssd_gb, workload.ssd_gb)
    else:
        assert np.count_nonzero(out.ssd_gb <= 128) == round(small * N)
    assert out.source == f"synthetic.swf+bbsched:{name},base={base},seed=3"


def test_s3_s4_requests_are_larger_than_s1_s2(workload):
    # BBSched Figure 5: S3/S4 draw from > 20 TB, so their requests are larger.
    med = {}
    for s in ("S1", "S2", "S3", "S4"):
        bb = bbsched_scenario(workload, s, seed=1).bb_gb
        med[s] = np.median(bb[bb > 0])
    assert med["S3"] > med["S1"] and med["S4"] > med["S2"]


def test_s5_to_s7_carry_s2_bb_column_exactly(workload):
    s2 = bbsched_scenario(workload, "S2", base="cori", seed=11)
    for name, small in (("S5", 0.8), ("S6", 0.5), ("S7", 0.2)):
        out = bbsched_scenario(workload, name, base="cori", seed=11)
        assert np.array_equal(out.bb_gb, s2.bb_gb)
        assert np.count_nonzero(out.ssd_gb <= 128) == round(small * N)
        assert np.count_nonzero((out.ssd_gb >= 129) & (out.ssd_gb <= 256)) == N - round(small * N)


def test_ssd_choice_is_independent_of_bb_choice(workload):
    # With a shared random stream the two selections would coincide; here they must not.
    out = bbsched_scenario(workload, "S5", seed=0)
    has_bb = out.bb_gb > 0
    small = out.ssd_gb <= 128
    # Independent 75 % and 80 % selections overlap in ~60 % of jobs (sd ~0.4 % at N=4000).
    assert abs(np.mean(has_bb & small) - 0.75 * 0.8) < 0.02


def test_scenario_name_is_case_insensitive(workload):
    a = bbsched_scenario(workload, "s4", seed=5)
    b = bbsched_scenario(workload, "S4", seed=5)
    assert np.array_equal(a.bb_gb, b.bb_gb)


def test_unknown_scenario_lists_known_names(workload):
    with pytest.raises(UnknownScenarioError) as info:
        bbsched_scenario(workload, "S8")
    err = info.value
    assert isinstance(err, SchedbenchError) and isinstance(err, ValueError)
    msg = str(err)
    assert "'S8'" in msg
    for name in PAPER:
        assert name in msg


def test_unknown_base_name_lists_known_bases(workload):
    with pytest.raises(UnknownScenarioError, match=r"cori.*theta"):
        bbsched_scenario(workload, "S1", base="summit")


def test_scenario_with_arrival_factor(workload):
    out = bbsched_scenario(workload, "S1", seed=2, arrival_factor=4)
    ref = bbsched_scenario(workload, "S1", seed=2)
    assert np.array_equal(out.bb_gb, ref.bb_gb)
    assert out.span_s == pytest.approx(workload.span_s / 4)
    assert out.source.endswith(",arrival_factor=4")


# --------------------------------------------------------------------------- BB requests


def test_bb_determinism_and_seed_sensitivity(workload):
    a = with_bb_requests(workload, share=0.5, min_gb=5000, seed=42)
    b = with_bb_requests(workload, share=0.5, min_gb=5000, seed=42)
    c = with_bb_requests(workload, share=0.5, min_gb=5000, seed=43)
    assert np.array_equal(a.bb_gb, b.bb_gb)
    assert not np.array_equal(a.bb_gb > 0, c.bb_gb > 0)
    assert not np.array_equal(a.bb_gb[a.bb_gb > 0], c.bb_gb[c.bb_gb > 0])


def test_input_is_not_modified():
    w = make_workload(2000, bb_gb=np.full(2000, 3.0), ssd_gb=np.full(2000, 64.0))
    before = snapshot(w)
    bbsched_scenario(w, "S6", seed=9, arrival_factor=2.0)
    with_bb_requests(w, share=0.3, min_gb=0, base=np.arange(50.0))
    with_ssd_requests(w, small_share=0.1)
    scale_arrivals(w, 0.5)
    after = snapshot(w)
    for key, col in before.items():
        assert np.array_equal(after[key], col), key
    assert w.source == "synthetic.swf"
    assert not w.bb_gb.flags.writeable


def test_existing_bb_requests_are_replaced():
    w = make_workload(2001, bb_gb=np.full(2001, 7.0))
    out = with_bb_requests(w, share=0.5, min_gb=5000, seed=0)
    assert np.count_nonzero(out.bb_gb) == round(0.5 * 2001)  # 1000: halves round to even
    assert not np.any(out.bb_gb == 7.0)


def test_other_columns_are_kept(workload):
    out = with_bb_requests(workload, share=0.75, min_gb=20000, seed=1)
    for key in ("job_id", "submit", "runtime", "nodes", "ssd_gb", "swf", "data_in_gb"):
        assert np.array_equal(getattr(out, key), getattr(workload, key)), key


def test_conditioning_follows_the_log_uniform_law(workload):
    # Theta base conditioned on > 5 TB is log-uniform on [5 TB, 285 TB]: its median is the
    # geometric mean, and a quarter of the requests lie below 5 TB · 57^(1/4).
    out = with_bb_requests(workload, share=1.0, min_gb=5000, seed=4)
    req = out.bb_gb
    assert np.median(req) == pytest.approx(math.sqrt(5000 * 285000), rel=0.08)
    q1 = 5000 * 57**0.25
    assert np.mean(req < q1) == pytest.approx(0.25, abs=0.03)


def test_prob_above_agrees_with_unconditioned_draws():
    rng = np.random.default_rng(0)
    for name, sampler in BB_BASE_DISTRIBUTIONS.items():
        draws = sampler.sample(rng, 40000)
        lo, hi = RANGES[name]
        assert draws.min() >= lo and draws.max() <= hi
        for m in (0.0, 1000.0, 5000.0, 20000.0):
            assert np.mean(draws > m) == pytest.approx(sampler.prob_above(m), abs=0.01), (name, m)


def test_cori_has_rare_165_tb_requests_and_bulk_below_65_tb():
    rng = np.random.default_rng(1)
    draws = BB_BASE_DISTRIBUTIONS["cori"].sample(rng, 20000, min_gb=20000)
    rare = draws == 165000
    assert 0 < rare.sum() < 0.03 * draws.size
    assert draws[~rare].max() <= 65000 and draws.min() > 20000


def test_array_base_draws_from_qualifying_entries(workload):
    observed = np.array([0.0, 0.0, 12.0, 4000.0, 6000.0, 6000.0, 90000.0])
    out = with_bb_requests(workload, share=0.5, min_gb=5000, base=observed, seed=2)
    req = out.bb_gb[out.bb_gb > 0]
    assert req.size == N // 2
    assert set(np.unique(req)) == {6000.0, 90000.0}
    # Uniform over entries: 6000 appears twice, so it is drawn about twice as often.
    assert np.mean(req == 6000.0) == pytest.approx(2 / 3, abs=0.04)
    assert "observed[7]" in out.source


def test_array_base_without_qualifying_entries_names_the_argument(workload):
    with pytest.raises(ScenarioError, match=r"^base: none of the 3 observed requests.*4000"):
        with_bb_requests(workload, share=0.5, min_gb=5000, base=[0.0, 100.0, 4000.0, 2000.0])
    with pytest.raises(ScenarioError, match=r"^base:"):
        bbsched_scenario(workload, "S3", base=np.zeros(10))


def test_distribution_base_without_mass_names_the_argument(workload):
    with pytest.raises(ScenarioError, match=r"^base:.*min_gb=300000"):
        with_bb_requests(workload, share=0.5, min_gb=300000)


def test_custom_sampler_base(workload):
    base = MixtureBB(((1.0, LogUniformBB(1, 100)), (3.0, PointMassBB(500.0))))
    out = with_bb_requests(workload, share=0.5, min_gb=50, base=base, seed=0)
    req = out.bb_gb[out.bb_gb > 0]
    assert req.min() > 50 and req.max() <= 500
    small_mass = 0.25 * math.log(100 / 50) / math.log(100)
    expected_small = small_mass / (small_mass + 0.75)
    assert np.mean(req <= 100) == pytest.approx(expected_small, abs=0.03)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (dict(share=1.2, min_gb=0), "^share:"),
        (dict(share=-0.1, min_gb=0), "^share:"),
        (dict(share=0.5, min_gb=-1), "^min_gb:"),
        (dict(share=0.5, min_gb=float("nan")), "^min_gb:"),
        (dict(share=0.5, min_gb=0, seed=-1), "^seed:"),
        (dict(share=0.5, min_gb=0, base=[[1.0, 2.0]]), "^base:"),
        (dict(share=0.5, min_gb=0, base=[1.0, -2.0]), "^base:.*entry 1"),
    ],
)
def test_bad_bb_arguments(workload, kwargs, pattern):
    with pytest.raises(ScenarioError, match=pattern):
        with_bb_requests(workload, **kwargs)


def test_empirical_sampler_ignores_zeros():
    e = EmpiricalBB(np.array([0.0, 5.0, 0.0, 10.0]))
    assert e.prob_above(0) == 1.0 and e.prob_above(5) == 0.5 and e.prob_above(10) == 0.0


@settings(max_examples=examples(40))
@given(
    n=st.integers(0, 300),
    share=st.floats(0, 1),
    min_gb=st.floats(0, 284999.5),
    base=st.sampled_from(["theta", "cori"]),
    seed=st.integers(0, 2**32),
)
def test_bb_share_and_bounds_property(n, share, min_gb, base, seed):
    if base == "cori" and min_gb >= 165000:
        min_gb = 164999.0
    w = make_workload(n, seed=1)
    out = with_bb_requests(w, share=share, min_gb=min_gb, base=base, seed=seed)
    bb = out.bb_gb
    assert np.count_nonzero(bb) == round(share * n)
    req = bb[bb > 0]
    assert np.all(req > min_gb) and np.all(req <= RANGES[base][1]) and np.all(req >= 1)


# --------------------------------------------------------------------------- SSD requests


@pytest.mark.parametrize("small_share", [0.0, 0.2, 0.5, 0.8, 1.0])
def test_ssd_shares_and_ranges(workload, small_share):
    out = with_ssd_requests(workload, small_share=small_share, seed=6)
    ssd = out.ssd_gb
    k = round(small_share * N)
    assert np.count_nonzero(ssd <= 128) == k
    assert np.all((ssd >= 0) & (ssd <= 256))
    assert np.array_equal(ssd, np.round(ssd))
    if 0 < k < N:
        # Uniform over the whole inclusive ranges: both ends are reachable.
        small, large = ssd[ssd <= 128], ssd[ssd > 128]
        assert small.mean() == pytest.approx(64, abs=5) and large.mean() == pytest.approx(
            192.5, abs=5
        )
        assert large.min() == 129 and large.max() == 256
    assert np.array_equal(out.bb_gb, workload.bb_gb)


def test_ssd_determinism_and_custom_ranges(workload):
    a = with_ssd_requests(
        workload, small_share=0.5, seed=1, small_range=(0, 10), large_range=(20, 30)
    )
    b = with_ssd_requests(
        workload, small_share=0.5, seed=1, small_range=(0, 10), large_range=(20, 30)
    )
    c = with_ssd_requests(
        workload, small_share=0.5, seed=2, small_range=(0, 10), large_range=(20, 30)
    )
    assert np.array_equal(a.ssd_gb, b.ssd_gb) and not np.array_equal(a.ssd_gb, c.ssd_gb)
    assert set(np.unique(a.ssd_gb)) <= set(range(11)) | set(range(20, 31))


@pytest.mark.parametrize("bad", [(10, 5), (-1, 5), (0.5, 4), (1,), "ab"])
def test_bad_ssd_range(workload, bad):
    with pytest.raises(ScenarioError, match=r"^small_range:"):
        with_ssd_requests(workload, small_share=0.5, small_range=bad)


# --------------------------------------------------------------------------- arrivals


def test_scale_arrivals_halves_the_span(workload):
    out = scale_arrivals(workload, 2)
    assert out.span_s == pytest.approx(workload.span_s / 2)
    assert out.submit[0] == workload.submit[0]
    assert np.all(np.diff(out.submit) >= 0)
    assert np.array_equal(
        np.argsort(out.submit, kind="stable"), np.argsort(workload.submit, kind="stable")
    )
    assert np.allclose(out.submit - out.submit[0], (workload.submit - workload.submit[0]) / 2)
    assert np.array_equal(out.swf[:, SWF_INDEX["submit"]], out.submit)
    for key in ("job_id", "runtime", "requested_time", "nodes", "bb_gb", "ssd_gb"):
        assert np.array_equal(getattr(out, key), getattr(workload, key)), key


def test_scale_arrivals_slower_and_identity(workload):
    assert scale_arrivals(workload, 0.5).span_s == pytest.approx(2 * workload.span_s)
    assert scale_arrivals(workload, 1.0) is workload
    empty = make_workload(0)
    assert len(scale_arrivals(empty, 3.0)) == 0


@pytest.mark.parametrize("factor", [0, -1.0, float("nan"), float("inf")])
def test_scale_arrivals_rejects_bad_factor(workload, factor):
    with pytest.raises(ScenarioError, match=r"^factor:"):
        scale_arrivals(workload, factor)


# --------------------------------------------------------------------------- SSD system


def test_bbsched_ssd_system():
    s = bbsched_ssd_system()
    assert s.nodes == 4392 and s.bb_gb == 2.16e6
    assert [(g.count, g.ssd_gb) for g in s.node_groups] == [(2196, 128.0), (2196, 256.0)]
    odd = bbsched_ssd_system(11, 1000.0)
    assert [(g.count, g.ssd_gb) for g in odd.node_groups] == [(6, 128.0), (5, 256.0)]
    # Every S5-S7 request fits some node: large requests need the 256 GB group.
    assert s.fits_alone(2196, 0.0, 256.0) is None and s.fits_alone(2197, 0.0, 129.0) is not None
    with pytest.raises(ScenarioError, match=r"^nodes:"):
        bbsched_ssd_system(1)
