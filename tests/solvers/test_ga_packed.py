"""``ga``'s packed kernels (``packed=true``, performance target 3) against the byte-per-gene kernels
they replaced (``packed=false``).

* With ``repair="none"`` (``bbsched-ga``) the two draw the same numbers and reach the same state,
  gene for gene, on windows of one word, of several words and of odd sizes.
* The packed Set-1 tests (dominance, copies) agree with the byte kernel's on random chromosomes.
* With repair and fill, every chromosome is feasible and maximal and its sums are its own, and
  the fill's outcome has the distribution of the byte kernel's fill (a greedy pass over a
  uniformly random order of the unselected jobs), checked exactly on a small window.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from schedbench.instances.conflict_windows import conflict_candidate
from schedbench.simcore.errors import SolverParameterError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import ga
from schedbench.solvers._numba_rng import new_state
from schedbench.solvers.ga import BBSCHED_GA, GASolver, _GAState
from schedbench.solvers.registry import make_solver, parse_solver_id
from schedbench.solvers.testing import random_problem


def pack(bits: np.ndarray) -> np.ndarray:
    """Rows of 0/1 genes (n × w) as packed words (n × ⌈w/64⌉)."""
    n, w = bits.shape
    words = np.zeros((n, ga._words(w)), np.uint64)
    for j in range(w):
        words[:, j >> 6] |= bits[:, j].astype(np.uint64) << np.uint64(j & 63)
    return words


def unpacked(state: _GAState) -> np.ndarray:
    return np.array(
        [[int(j in set(state.jobs(r))) for j in range(state.w)] for r in range(len(state.genes))]
    )


def problems() -> list[SelectionProblem]:
    out = [conflict_candidate(w, seed) for w in (20, 64, 65, 130) for seed in (0, 1)]
    out += [random_problem(seed, w, 2, 2) for seed in range(2) for w in (1, 2, 63, 100)]
    out += [random_problem(3, 30, 3, 1), random_problem(4, 70, 1, 3, fractional=True)]
    return out


@pytest.mark.parametrize("problem", problems(), ids=lambda p: f"w{p.w}k{p.K}m{p.M}")
@pytest.mark.parametrize("mutation", [0.0005, 0.05, 1.0])
def test_without_repair_packed_and_byte_kernels_reach_the_same_state(problem, mutation):
    for by_violation in (True, False):
        states = []
        for packed in (False, True):
            s = _GAState.start(problem, 6, 5, 11, repair=False, packed=packed)
            s.run(7, mutation, by_violation)
            s.run(13, mutation, by_violation)
            states.append(s)
        old, new = states
        assert np.array_equal(old.genes, unpacked(new))
        for field in ("age", "value", "usage", "feasible", "violation", "members", "rng", "skip"):
            assert np.array_equal(getattr(old, field), getattr(new, field)), field
        assert old.set1_selections() == new.set1_selections()


@pytest.mark.parametrize("w", [5, 64, 65, 200])
def test_packed_set1_tests_agree_with_the_byte_kernels(w):
    rng = np.random.default_rng(w)
    for _ in range(20):
        bits = (rng.random((12, w)) < 0.5).astype(np.uint8)
        bits[1] = bits[0]  # copies
        bits[3, : w // 2] = bits[2, : w // 2]
        words = pack(bits)
        value = rng.integers(0, 3, size=(12, 2)).astype(float)  # many ties
        value[1] = value[0]
        for a, b in itertools.product(range(12), repeat=2):
            same = bool(ga._same_rows(value, bits, a, b))
            assert ga._same_genes(words, a, b) == bool(np.array_equal(bits[a], bits[b]))
            assert ga._dominates(value, a, b) == bool(ga._dom_rows(value, a, b))
            assert ga._blocks(value, words, a, b) == (bool(ga._dom_rows(value, a, b)) or same)


@pytest.mark.parametrize("w", [1, 63, 64, 65, 129])
def test_words_and_jobs_round_trip(w):
    rng = np.random.default_rng(w)
    bits = (rng.random((4, w)) < 0.3).astype(np.uint8)
    problem = SelectionProblem(capacities=[1.0], demands=np.ones((w, 1)))
    state = _GAState.start(problem, 2, 2, 0, packed=True)
    state.genes[:] = pack(bits)
    assert state.genes.shape == (4, (w + 63) // 64)
    for r in range(4):
        assert state.jobs(r) == np.flatnonzero(bits[r]).tolist()
    assert all(ga._valid(w, q) == ga._valid(w, q) for q in range(state.genes.shape[1]))
    last = ga._valid(w, (w - 1) // 64)
    assert int(last).bit_count() == w - 64 * ((w - 1) // 64)


@pytest.mark.parametrize("problem", problems(), ids=lambda p: f"w{p.w}k{p.K}m{p.M}")
def test_repaired_chromosomes_are_feasible_maximal_and_carry_their_sums(problem):
    state = _GAState.start(problem, 8, 8, 5, repair=True, packed=True)
    state.run(30, 0.01, True)
    for row in range(len(state.genes)):
        sel = state.jobs(row)
        use = problem.usage(sel)
        assert np.allclose(state.usage[row], use)
        assert np.allclose(state.value[row], problem.evaluate(sel))
        assert problem.fits(use) and state.feasible[row]
        rest = [j for j in range(problem.w) if j not in set(sel)]
        assert not any(problem.fits(use + problem.demands[j]) for j in rest), "not maximal"
    # whole-number windows take the parent-difference sums, fractional ones the full sums
    assert state.exact == (not np.any(problem.demands % 1) and not np.any(problem.objectives % 1))


def greedy_outcomes(demands, limit, chosen):
    """The exact distribution of a greedy fill over a uniformly random order of the unselected
    jobs (the byte kernel's fill)."""
    rest = [j for j in range(len(demands)) if j not in chosen]
    counts: Counter[tuple[int, ...]] = Counter()
    for order in itertools.permutations(rest):
        sel, use = set(chosen), demands[list(chosen)].sum(axis=0)
        for j in order:
            if np.all(use + demands[j] <= limit):
                sel.add(j)
                use = use + demands[j]
        counts[tuple(sorted(sel))] += 1
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()}


def test_fill_has_the_byte_kernels_distribution():
    demands = np.array([[3, 0], [2, 2], [2, 1], [1, 3], [4, 1], [1, 1], [2, 0]], float)
    gains = demands.copy()
    limit = np.array([7.0, 4.0])
    chosen = [5]
    expect = greedy_outcomes(demands, limit, chosen)
    by_demand = np.ascontiguousarray(np.argsort(demands, axis=0, kind="stable").T)
    draws = 12000
    seen = {False: Counter(), True: Counter()}
    for packed in (False, True):
        w = len(demands)
        genes = np.zeros((1, ga._words(w)), np.uint64) if packed else np.zeros((1, w), np.uint8)
        for seed in range(draws):
            genes[:] = 0
            for j in chosen:
                if packed:
                    genes[0, 0] |= np.uint64(1) << np.uint64(j)
                else:
                    genes[0, j] = 1
            usage = demands[chosen].sum(axis=0)[None, :].copy()
            value = gains[chosen].sum(axis=0)[None, :].copy()
            rng, order = new_state(seed), np.zeros(w, np.int64)
            if packed:
                ga._pk_repair_fill(
                    genes, usage, value, 0, demands, gains, limit, rng, order, by_demand
                )
                sel = tuple(j for j in range(w) if int(genes[0, 0]) >> j & 1)
            else:
                ga._repair_fill(genes, usage, value, 0, demands, gains, limit, rng, order)
                sel = tuple(np.flatnonzero(genes[0]).tolist())
            assert np.allclose(usage[0], demands[list(sel)].sum(axis=0))
            seen[packed][sel] += 1
    assert len(expect) >= 3  # the check has something to tell apart
    for packed, counts in seen.items():
        assert set(counts) <= set(expect), packed
        for outcome, p in expect.items():
            sd = (p * (1 - p) / draws) ** 0.5
            assert abs(counts[outcome] / draws - p) < 5 * sd + 1e-9, (packed, outcome)


def test_whole_sums():
    assert ga._whole_sums(np.array([[1.0, 2.0], [3.0, -4.0]]))
    assert not ga._whole_sums(np.array([[1.5, 2.0]]))
    assert not ga._whole_sums(np.array([[2.0**52], [2.0**52]]))
    assert ga._whole_sums(np.zeros((0, 2)))


@pytest.mark.parametrize("w", [65, 150])
def test_ga_on_windows_beyond_one_word(w):
    problem = conflict_candidate(w, 3)
    for solver in (GASolver(generations=60), GASolver(generations=60, packed=False)):
        d = solver.solve(problem, Budget(seed=1))
        assert d.status == Status.FEASIBLE
        for point in d.pareto:
            problem.check_selection(point.selected)
            assert point.objectives == problem.evaluate(point.selected)
    a = BBSCHED_GA(generations=60).solve(problem, Budget(seed=2))
    b = BBSCHED_GA(generations=60, packed=False).solve(problem, Budget(seed=2))
    assert a.pareto == b.pareto and a.selected == b.selected


def test_packed_is_a_bool_and_seeded():
    with pytest.raises(SolverParameterError):
        GASolver(packed="yes")
    assert GASolver().packed and not make_solver(*parse_solver_id("ga[packed=false]")).packed
    problem = conflict_candidate(20, 5)
    a, b = (GASolver().solve(problem, Budget(seed=3)) for _ in range(2))
    assert a.pareto == b.pareto
