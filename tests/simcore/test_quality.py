"""Tests for bench/quality.py: hand-computed values, cross-checks against pymoo's indicators, and
hypothesis properties of IGD+ and the hypervolume ratio."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedbench.bench.run.references import ReferenceCache, ReferenceCacheWarning
from schedbench.simcore.indicators import (
    front_fraction,
    gd,
    hypervolume,
    hypervolume_ratio,
    ideal_nadir,
    igd_plus,
    latency_stats,
    normalise,
    primal_gap,
    primal_integral,
)
from schedbench.simcore.kinds.selection import SelectionKind
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.kinds.selection.quality import decision_quality
from schedbench.simcore.metrics import MetricsError
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.problem import Status, TracePoint

# -- primal gap ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("z", "z_star", "expected"),
    [
        (5.0, 5.0, 0.0),  # equal
        (0.0, 0.0, 0.0),  # both 0
        (0.0, 5.0, 1.0),  # z = 0 against a non-zero optimum
        (5.0, 0.0, 1.0),  # optimum 0, z not
        (-1.0, 2.0, 1.0),  # opposite signs
        (3.0, 4.0, 0.25),  # |4 − 3| / 4
        (-3.0, -4.0, 0.25),  # same sign, negative
        (None, 4.0, 1.0),  # no solution
    ],
)
def test_primal_gap_hand_values(z, z_star, expected):
    assert primal_gap(z, z_star) == pytest.approx(expected)


def test_primal_gap_rejects_non_finite():
    with pytest.raises(MetricsError, match="z_star"):
        primal_gap(1.0, math.inf)


# -- primal integral -------------------------------------------------------------------------


def test_primal_integral_hand_trace():
    # budget 10 s, z* = 4: γ = 1 on [0, 2), γ(2) = 0.5 on [2, 6), γ(4) = 0 on [6, 10].
    expected = (2 * 1 + 4 * 0.5 + 4 * 0) / 10
    assert primal_integral([(2.0, 2.0), (6.0, 4.0)], 4.0, 10.0) == pytest.approx(expected)
    points = [TracePoint(6.0, (4.0,)), TracePoint(2.0, (2.0,))]  # order does not matter
    assert primal_integral(points, 4.0, 10.0) == pytest.approx(expected)


def test_primal_integral_final_value_holds_from_latency_to_budget():
    # trace (2 s, 2), returned 4 at 3 s: 2·1 + 1·0.5 + 7·0 = 2.5 over 10 s.
    got = primal_integral([(2.0, 2.0)], 4.0, 10.0, latency_s=3.0, final=4.0)
    assert got == pytest.approx(0.25)
    # A solver without a trace is credited from the moment it answered.
    assert primal_integral([], 4.0, 10.0, latency_s=1.0, final=4.0) == pytest.approx(0.1)


def test_primal_integral_clips_to_latency_and_budget():
    # the entry at 8 s is clipped to the 5 s latency: 2·1 + 3·0.5 + 5·0 = 3.5.
    got = primal_integral([(2.0, 2.0), (8.0, 4.0)], 4.0, 10.0, latency_s=5.0)
    assert got == pytest.approx(0.35)
    assert primal_integral([(12.0, 4.0)], 4.0, 10.0) == pytest.approx(1.0)
    assert primal_integral([], 4.0, 10.0) == 1.0


def test_primal_integral_uses_the_best_value_so_far():
    assert primal_integral([(1.0, 4.0), (2.0, 2.0)], 4.0, 10.0) == pytest.approx(0.1)


def test_primal_integral_input_errors():
    with pytest.raises(MetricsError, match="M = 1"):
        primal_integral([TracePoint(1.0, (1.0, 2.0))], 4.0, 10.0)
    with pytest.raises(MetricsError, match="budget_s"):
        primal_integral([], 4.0, 0.0)
    with pytest.raises(MetricsError, match="latency_s"):
        primal_integral([], 4.0, 10.0, final=4.0)


# -- normalisation, IGD+, GD -----------------------------------------------------------------


def test_normalise_maps_ideal_to_0_and_nadir_to_1():
    ideal, nadir = ideal_nadir([(10, 0), (0, 10)])
    assert ideal.tolist() == [10, 10] and nadir.tolist() == [0, 0]
    got = normalise([(10, 10), (0, 0), (5, 2.5)], ideal, nadir)
    np.testing.assert_allclose(got, [[0, 0], [1, 1], [0.5, 0.75]])


def test_normalise_degenerate_objective():
    ideal, nadir = ideal_nadir([(5.0, 5.0)])  # one-point front: both objectives degenerate
    np.testing.assert_allclose(normalise([(5, 5)], ideal, nadir), [[0, 0]])
    np.testing.assert_allclose(normalise([(0, 5)], ideal, nadir), [[1, 0]])  # /max(|5|, 1)
    assert igd_plus([(5, 5)], [(5, 5)]) == 0.0
    assert igd_plus([(0, 0)], [(5, 5)]) == pytest.approx(math.sqrt(2))


EXACT = [(0.0, 1.0), (1.0, 0.0)]  # ideal (1, 1), nadir (0, 0): normalising only flips signs


def test_igd_plus_and_gd_by_hand():
    # In the normalised (minimised) space Z = {(1, 0), (0, 1)} and a = (0.5, 0.5):
    # d+ = 0.5 to each z; the Euclidean distance is sqrt(0.5).
    assert igd_plus([(0.5, 0.5)], EXACT) == pytest.approx(0.5)
    assert gd([(0.5, 0.5)], EXACT) == pytest.approx(math.sqrt(0.5))
    # Adding the exact point (1, 0): d+ for it becomes 0; GD averages over A.
    assert igd_plus([(0.5, 0.5), (1.0, 0.0)], EXACT) == pytest.approx(0.25)
    assert gd([(0.5, 0.5), (1.0, 0.0)], EXACT) == pytest.approx(math.sqrt(0.5) / 2)
    assert igd_plus(EXACT, EXACT) == 0.0 and gd(EXACT, EXACT) == 0.0
    # Raw values: Z = {(0, 2), (2, 0)}, a = (1, 1): shortfall 1 on one objective for each z.
    assert igd_plus([(1, 1)], [(0, 2), (2, 0)], normalised=False) == pytest.approx(1.0)
    assert igd_plus([(1, 1)], [(0, 2), (2, 0)]) == pytest.approx(0.5)


def test_igd_plus_of_an_empty_answer_is_infinite():
    assert igd_plus([], EXACT) == math.inf
    assert gd(np.zeros((0, 2)), EXACT) == math.inf
    with pytest.raises(MetricsError, match="exact front"):
        igd_plus(EXACT, [])


def test_igd_plus_and_gd_match_pymoo():
    from pymoo.indicators.gd import GD
    from pymoo.indicators.igd_plus import IGDPlus

    rng = np.random.default_rng(1)
    for m in (2, 3):
        exact = rng.random((15, m))
        exact = exact[nondominated_mask(exact)]
        approx = rng.random((12, m))
        # pymoo minimises: feed it the negated (maximised) values.
        assert igd_plus(approx, exact, normalised=False) == pytest.approx(IGDPlus(-exact)(-approx))
        assert gd(approx, exact, normalised=False) == pytest.approx(GD(-exact)(-approx))


def test_accepts_pareto_points():
    points = [ParetoPoint((0,), (0.0, 1.0)), ParetoPoint((1,), (1.0, 0.0))]
    assert igd_plus(points, EXACT) == 0.0 and front_fraction(points, EXACT) == 1.0


# -- hypervolume -----------------------------------------------------------------------------


def test_hypervolume_2d_rectangles():
    assert hypervolume([(0.0, 0.0)], (1.0, 2.0)) == pytest.approx(2.0)
    # [0.2, 1] × [0.6, 1] ∪ [0.5, 1] × [0.1, 1]: 0.32 + 0.45 − 0.2.
    pts = [(0.2, 0.6), (0.5, 0.1)]
    assert hypervolume(pts, (1.0, 1.0)) == pytest.approx(0.57)
    assert hypervolume([*pts, (0.6, 0.7)], (1.0, 1.0)) == pytest.approx(0.57)  # dominated
    assert hypervolume([(1.0, 0.0), (1.5, -1.0)], (1.0, 1.0)) == 0.0  # not below ref
    assert hypervolume([], (1.0, 1.0)) == 0.0


def test_hypervolume_3d_boxes():
    assert hypervolume([(0.1, 0.2, 0.3)], (1, 1, 1)) == pytest.approx(0.9 * 0.8 * 0.7)
    # 1·1·0.5 + 0.5·0.5·1 − overlap 0.5·0.5·0.5.
    assert hypervolume([(0, 0, 0.5), (0.5, 0.5, 0)], (1, 1, 1)) == pytest.approx(0.625)


@pytest.mark.parametrize("m", [2, 3, 4])
def test_hypervolume_matches_pymoo(m):
    from pymoo.indicators.hv import HV

    rng = np.random.default_rng(m)
    n = 40 if m < 4 else 15
    for _ in range(3):
        points = rng.random((n, m))
        ref = np.full(m, 1.1)
        assert hypervolume(points, ref) == pytest.approx(HV(ref_point=ref)(points), rel=1e-9)


def test_hypervolume_ratio():
    exact = [(0, 10), (4, 8), (7, 5), (10, 0)]
    assert hypervolume_ratio(exact, exact) == pytest.approx(1.0)
    assert 0 < hypervolume_ratio(exact[:2], exact) < 1
    assert hypervolume_ratio([], exact) == 0.0
    # Normalised space: Z ↦ {(1, 0), (0, 1)}, reference 1.1: HV(Z) = 1.1·0.1·2 − 0.01.
    hv_z = 2 * 1.1 * 0.1 - 0.1 * 0.1
    assert hypervolume_ratio([(1.0, 0.0)], EXACT) == pytest.approx(1.1 * 0.1 / hv_z)


# -- share of the front found ---------------------------------------------------------------


def test_front_fraction():
    exact = [(0.0, 10.0), (4.0, 8.0), (10.0, 0.0)]
    approx = [(0.0, 10.0), (4.0 + 1e-12, 8.0), (9.0, 0.0)]
    assert front_fraction(approx, exact) == pytest.approx(2 / 3)
    assert front_fraction(approx, exact, rtol=0.0) == pytest.approx(1 / 3)
    assert front_fraction([], exact) == 0.0
    assert front_fraction(exact, exact) == 1.0


# -- latency ---------------------------------------------------------------------------------


def test_latency_stats_hand_values():
    s = latency_stats([0.0, 3.0], 15.0)
    # sgm = exp((log 1 + log 4) / 2) − 1 = 2 − 1.
    assert s["sgm_s"] == pytest.approx(1.0)
    assert s["median_s"] == pytest.approx(1.5) and s["max_s"] == 3.0
    assert s["share_within_budget"] == 1.0 and s["decisions"] == 2 and s["failures"] == 0
    assert latency_stats(np.arange(11.0), 15.0)["p95_s"] == pytest.approx(9.5)
    assert latency_stats([1.0, 20.0], 15.0)["share_within_budget"] == 0.5


def test_latency_stats_charges_failures_the_budget():
    s = latency_stats([1.0, math.nan], 15.0, failed=[False, True])
    # charged [1, 15]: sgm = sqrt(2 · 16) − 1.
    assert s["sgm_s"] == pytest.approx(math.sqrt(32) - 1)
    assert s["max_s"] == 15.0 and s["failures"] == 1 and s["share_within_budget"] == 0.5
    quick_failure = latency_stats([1.0, 0.1], 15.0, failed=[False, True])
    assert quick_failure["sgm_s"] == pytest.approx(s["sgm_s"])
    assert latency_stats([20.0], 15.0, failed=[True])["max_s"] == 20.0  # never below its time
    json.dumps(s, allow_nan=False)


def test_latency_stats_errors_and_empty():
    assert latency_stats([], 15.0)["median_s"] is None
    with pytest.raises(MetricsError, match=r"latencies\[1\]"):
        latency_stats([1.0, math.nan], 15.0)
    with pytest.raises(MetricsError, match="failed"):
        latency_stats([1.0, 2.0], 15.0, failed=[True])


def is_failure(decision: Decision) -> bool:
    return not SelectionKind().answered(decision)


decision_from_dict = Decision.from_dict


def test_is_failure():
    assert is_failure(Decision(Status.ERROR))
    assert is_failure(Decision(Status.TIMEOUT))
    assert not is_failure(Decision(Status.TIMEOUT, selected=(), objectives=(0.0,)))
    assert not is_failure(Decision(Status.INFEASIBLE))


# -- per-decision record ---------------------------------------------------------------------


def test_decision_quality_missing_reference():
    d1 = Decision(Status.FEASIBLE, selected=(0,), objectives=(3.0,), latency_s=0.1)
    rec = decision_quality(d1, None, budget_s=10.0)
    assert rec["reference"] == "missing" and rec["feasible"] is True
    assert rec["primal_gap"] is None and rec["primal_integral"] is None
    d2 = Decision(Status.FEASIBLE, pareto=[ParetoPoint((0,), (1.0, 0.0))], objectives=(1.0, 0.0))
    rec = decision_quality(d2, None)
    for key in ("igd_plus", "gd", "hv_ratio", "front_found", "front_size"):
        assert key in rec and rec[key] is None
    timeout_ref = Decision(Status.TIMEOUT, objectives=(1.0, 0.0))
    rec = decision_quality(d2, timeout_ref)
    assert rec["reference"] == "missing" and "timeout" in rec["note"]
    json.dumps(rec, allow_nan=False)


def test_decision_quality_single_objective():
    ref = Decision(Status.OPTIMAL, selected=(1,), objectives=(4.0,))
    trace = (TracePoint(2.0, (2.0,)), TracePoint(6.0, (3.0,)))
    d = Decision(Status.TIMEOUT, selected=(0,), objectives=(3.0,), trace=trace, latency_s=7.0)
    rec = decision_quality(d, ref, budget_s=10.0)
    # γ: 1 on [0, 2), 0.5 on [2, 6), 0.25 on [6, 10]: (2 + 2 + 1) / 10.
    assert rec["primal_gap"] == pytest.approx(0.25)
    assert rec["primal_integral"] == pytest.approx(0.5)
    assert rec["reference"] == "exact" and rec["feasible"] is True
    failed = decision_quality(Decision(Status.ERROR), ref, budget_s=10.0)
    assert failed["primal_gap"] == 1.0 and failed["primal_integral"] == 1.0
    assert failed["feasible"] is False
    with pytest.raises(MetricsError, match="budget_s"):
        decision_quality(d, ref)


def test_decision_quality_multi_objective():
    front = [ParetoPoint((0,), (0.0, 1.0)), ParetoPoint((1,), (1.0, 0.0))]
    ref = Decision(Status.OPTIMAL, selected=(0,), objectives=(0.0, 1.0), pareto=front)
    half = Decision(Status.FEASIBLE, selected=(1,), objectives=(1.0, 0.0), pareto=front[1:])
    rec = decision_quality(half, ref)
    assert rec["front_found"] == 0.5 and rec["front_size"] == 2
    assert rec["igd_plus"] == pytest.approx(0.5)  # (0 + 1) / 2
    assert 0 < rec["hv_ratio"] < 1 and rec["gd"] == 0.0
    json.dumps(rec, allow_nan=False)
    none = decision_quality(Decision(Status.ERROR), ref)
    assert none["igd_plus"] is None and none["gd"] is None and "infinite" in none["note"]
    assert none["hv_ratio"] == 0.0 and none["front_found"] == 0.0


def test_decision_quality_checks_feasibility_against_the_problem():
    problem = SelectionProblem(capacities=[5, 5], demands=[[3, 1], [4, 2]])
    ref = Decision(Status.OPTIMAL, selected=(1,), objectives=(4.0, 2.0), pareto=[((1,), (4, 2))])
    bad = Decision(Status.FEASIBLE, selected=(0, 1), objectives=(7.0, 3.0))
    rec = decision_quality(bad, ref, problem=problem)
    assert rec["feasible"] is False and "over capacity" in rec["note"]
    assert rec["front_found"] == 0.0


# -- decisions as JSON and the reference cache ------------------------------------------------


def _problem() -> SelectionProblem:
    return SelectionProblem(capacities=[10, 5], demands=[[3, 1], [4, 2], [5, 4]])


def _reference(solver: str = "dp") -> Decision:
    front = [ParetoPoint((0, 1, 2), (12.0, 7.0)), ParetoPoint((1, 2), (9.0, 6.0))]
    return Decision(
        Status.OPTIMAL,
        selected=(1, 2),
        objectives=(9.0, 6.0),
        pareto=front,
        trace=(TracePoint(0.5, (9.0, 6.0)),),
        stats={"states": 12, "ratio": 0.25},
        notes=("a note",),
        solver=solver,
        latency_s=0.125,
    )


def test_decision_from_dict_round_trip():
    d = _reference()
    back = decision_from_dict(json.loads(json.dumps(d.to_dict())))
    assert back.same_answer(d) and back.trace == d.trace and back.latency_s == d.latency_s
    assert back.stats == d.stats and back.notes == d.notes and back.solver == d.solver
    assert math.isnan(decision_from_dict(Decision(Status.ERROR).to_dict()).latency_s)
    with pytest.raises(MetricsError, match="status"):
        decision_from_dict({"status": "great"})


def test_reference_cache_round_trip(tmp_path):
    cache = ReferenceCache("dp", tmp_path)
    problem = _problem()
    assert cache.get(problem) is None
    path = cache.put(problem, _reference())
    assert path.name.startswith(problem.fingerprint())
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    got = ReferenceCache("dp", tmp_path).get(problem)
    assert got is not None and got.same_answer(_reference())
    assert ReferenceCache("cpsat", tmp_path).get(problem) is None  # keyed by solver too


def test_reference_cache_rejects_non_exact_or_foreign_decisions(tmp_path):
    cache = ReferenceCache("dp", tmp_path)
    with pytest.raises(MetricsError, match="only exact"):
        cache.put(_problem(), Decision(Status.FEASIBLE, objectives=(1.0, 1.0)))
    with pytest.raises(MetricsError, match="cpsat"):
        cache.put(_problem(), _reference(solver="cpsat"))


@pytest.mark.parametrize("content", ["{not json", '{"format": 1}', "[]", ""])
def test_reference_cache_corrupt_file_is_missing_with_a_warning(tmp_path, content):
    cache = ReferenceCache("dp", tmp_path)
    problem = _problem()
    cache.directory.mkdir(exist_ok=True)
    cache.path_for(problem).write_text(content)
    with pytest.warns(ReferenceCacheWarning, match="treated as missing"):
        assert cache.get(problem) is None


def test_reference_cache_file_of_another_problem_is_rejected(tmp_path):
    cache = ReferenceCache("dp", tmp_path)
    other = SelectionProblem(capacities=[9, 5], demands=[[3, 1], [4, 2], [5, 4]])
    cache.put(other, _reference())
    cache.path_for(other).rename(cache.path_for(_problem()))
    with pytest.warns(ReferenceCacheWarning, match="another problem"):
        assert cache.get(_problem()) is None


def test_get_or_compute_computes_once(tmp_path):
    calls = []

    def compute(problem: SelectionProblem) -> Decision:
        calls.append(problem.fingerprint())
        return _reference()

    problem = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = ReferenceCache("dp", tmp_path).get_or_compute(problem, compute)
        second = ReferenceCache("dp", tmp_path).get_or_compute(problem, compute)
    assert len(calls) == 1 and first.same_answer(second)


def test_get_or_compute_does_not_store_a_timeout(tmp_path):
    calls = []

    def compute(problem: SelectionProblem) -> Decision:
        calls.append(1)
        return Decision(Status.TIMEOUT, objectives=(1.0, 1.0), solver="dp")

    cache = ReferenceCache("dp", tmp_path)
    cache.get_or_compute(_problem(), compute)
    cache.get_or_compute(_problem(), compute)
    assert len(calls) == 2 and not any(tmp_path.iterdir())


# -- properties ------------------------------------------------------------------------------

vectors = st.integers(min_value=2, max_value=3).flatmap(
    lambda m: st.lists(
        st.tuples(*[st.integers(min_value=0, max_value=20)] * m), min_size=1, max_size=25
    )
)


def _front(points: list[tuple[int, ...]]) -> np.ndarray:
    values = np.array(points, dtype=float)
    return values[nondominated_mask(values)]


@given(vectors, st.data())
def test_igd_plus_nonnegative_and_zero_for_supersets(points, data):
    exact = _front(points)
    m = exact.shape[1]
    extra = data.draw(st.lists(st.tuples(*[st.integers(-5, 25)] * m), max_size=10))
    others = np.array(extra, dtype=float).reshape(-1, m)
    assert igd_plus(others, exact) >= 0
    assert igd_plus(np.vstack([exact, others]), exact) == 0.0


@given(vectors, st.data())
def test_hv_ratio_of_a_subset_is_in_unit_interval(points, data):
    exact = _front(points)
    keep = data.draw(st.lists(st.booleans(), min_size=len(exact), max_size=len(exact)))
    ratio = hypervolume_ratio(exact[np.array(keep, dtype=bool)], exact)
    assert -1e-12 <= ratio <= 1 + 1e-12
    if all(keep):
        assert ratio == pytest.approx(1.0)
