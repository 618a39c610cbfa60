"""Stand-in knapsack instances (instances/knapsack_recipes.py) and the OR-Library readers for the
files performance target 4 names (mknapcb*, mknap2) on synthetic files in their layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedbench.instances.knapsack_files import (
    read_knapsack_collection,
    read_mknap,
    read_sac94,
)
from schedbench.instances.knapsack_recipes import (
    CHU_BEASLEY_TIGHTNESS,
    chu_beasley,
    zitzler_thiele,
)
from schedbench.simcore.errors import ProblemError


@pytest.mark.parametrize("tightness", CHU_BEASLEY_TIGHTNESS)
def test_chu_beasley_follows_the_recipe(tightness: float) -> None:
    p = chu_beasley(3, tightness=tightness)
    assert (p.w, p.K, p.M) == (100, 5, 1)
    r = p.demands.T  # m × n
    assert r.min() >= 0 and r.max() <= 1000 and np.all(r == np.round(r))
    assert np.array_equal(p.capacities, np.floor(tightness * r.sum(axis=1)))
    # profit = Σ_i r_ij / m + 500 q_j, q_j in (0, 1), rounded: within [mean, mean + 500] ± 0.5
    excess = p.objectives[0] - r.sum(axis=0) / 5
    assert np.all(excess >= -0.5) and np.all(excess <= 500.5)
    assert np.all(p.objectives[0] == np.round(p.objectives[0]))
    assert excess.std() > 100  # the uniform part is there (std of U(0, 500) is 144)


def test_zitzler_thiele_follows_the_recipe() -> None:
    p = zitzler_thiele(0)
    assert (p.w, p.K, p.M) == (250, 2, 2)
    for values in (p.demands, p.objectives):
        assert values.min() >= 10 and values.max() <= 100
        assert np.all(values == np.round(values))
    assert np.array_equal(p.capacities, np.floor(p.demands.sum(axis=0) / 2))
    small = zitzler_thiele(1, n=7, knapsacks=3)
    assert (small.w, small.K, small.M) == (7, 3, 3)


def test_recipes_are_seeded_and_reproducible() -> None:
    a, b, c = chu_beasley(5), chu_beasley(5), chu_beasley(6)
    assert np.array_equal(a.demands, b.demands) and np.array_equal(a.objectives, b.objectives)
    assert not np.array_equal(a.demands, c.demands)
    assert not np.array_equal(chu_beasley(5, tightness=0.5).demands, a.demands)
    z1, z2 = zitzler_thiele(2), zitzler_thiele(2)
    assert np.array_equal(z1.demands, z2.demands) and np.array_equal(z1.objectives, z2.objectives)
    assert not np.array_equal(zitzler_thiele(3).objectives, z1.objectives)
    # pinned, so that a numpy or recipe change that alters the stand-ins is noticed
    assert zitzler_thiele(0).capacities.tolist() == [6708.0, 6867.0]


def test_recipes_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="tightness"):
        chu_beasley(0, tightness=1.0)
    with pytest.raises(ValueError, match="n and m"):
        chu_beasley(0, n=0)
    with pytest.raises(ValueError, match="knapsacks"):
        zitzler_thiele(0, knapsacks=0)


#: Two instances in OR-Library's mknapcb layout (the second with optimum 0 = not known), values
#: wrapped over several lines as in the real files.
MKNAPCB = """ 2
 4 2 0
 10 7
 5 3
 3 4 2 5
 2 1 2 3
 6 4
 3 1 17
 4 5 6
 1 1 1
 2
"""


def test_mknapcb_layout(tmp_path: Path) -> None:
    path = tmp_path / "mknapcb1.txt"
    path.write_text(MKNAPCB, encoding="utf-8")
    first, second = read_knapsack_collection(path)
    assert not first.known and second.known and second.optimum == 17
    assert first.problem.w == 4 and first.problem.K == 2
    assert first.problem.objectives[0].tolist() == [10, 7, 5, 3]
    assert first.problem.demands[:, 1].tolist() == [2, 1, 2, 3]
    assert first.problem.capacities.tolist() == [6, 4]
    assert read_mknap(path)[1].problem.capacities.tolist() == [2]


#: The SAC-94 layout of mknap2.txt: name lines, then m n, profits, capacities, matrix, optimum.
SAC94 = """// a comment
PB-TOY1.DAT
2 3
10 20 30
4 5
1 2 3
3 2 1
40

WEING-TOY
1 2
7 8
1
1 1
8
"""


def test_sac94_layout(tmp_path: Path) -> None:
    path = tmp_path / "mknap2.txt"
    path.write_text(SAC94, encoding="utf-8")
    first, second = read_knapsack_collection(path)
    assert first.name.endswith("PB-TOY1.DAT") and second.name.endswith("WEING-TOY")
    assert (first.problem.w, first.problem.K, first.optimum) == (3, 2, 40)
    assert first.problem.capacities.tolist() == [4, 5]
    assert first.problem.demands[:, 0].tolist() == [1, 2, 3]
    assert (second.problem.w, second.problem.K, second.optimum) == (2, 1, 8)
    # the optimum is right: exhaustive over 3 items
    best = max(
        sum(p * x for p, x in zip(first.problem.objectives[0], bits, strict=True))
        for bits in np.ndindex(2, 2, 2)
        if np.all(first.problem.demands.T @ np.array(bits) <= first.problem.capacities)
    )
    assert best == 40


def test_sac94_truncated_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "mknap2.txt"
    path.write_text("NAME\n2 3\n1 2 3\n4\n", encoding="utf-8")
    with pytest.raises(ProblemError, match=r"mknap2\.txt"):
        read_sac94(path)
