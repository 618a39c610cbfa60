"""The interval verdicts every reproduction shares (bench/reproduce/_intervals.py)."""

from __future__ import annotations

import math

import pytest

from schedbench.bench.reproduce._intervals import (
    Estimate,
    combine,
    estimate,
    interval_verdict,
    negate,
)


def e(low: float, high: float) -> Estimate:
    return Estimate((low + high) / 2, low, high, 5)


@pytest.mark.parametrize(
    ("low", "high", "lo", "hi", "expected"),
    [
        (0.1, 0.2, 0.0, math.inf, "yes"),  # wholly above the threshold
        (-0.2, -0.1, 0.0, math.inf, "no"),  # wholly below
        (-0.1, 0.1, 0.0, math.inf, "inconclusive"),  # straddles it
        (0.0, 0.0, 0.0, math.inf, "no"),  # equal on every seed: not above
        (-0.005, 0.005, -0.01, 0.01, "yes"),  # within the margin
        (0.02, 0.03, -0.01, 0.01, "no"),  # beyond it
        (0.0, 0.02, -0.01, 0.01, "inconclusive"),
    ],
)
def test_interval_verdict(low, high, lo, hi, expected):
    assert interval_verdict(e(low, high), lo, hi) == expected


def test_nothing_measured_is_inconclusive_and_negation_keeps_it():
    assert interval_verdict(None, 0.0) == "inconclusive"
    assert negate("inconclusive") == "inconclusive"
    assert (negate("yes"), negate("no")) == ("no", "yes")


def test_combine_refutes_on_one_no_and_confirms_only_all_yes():
    assert combine(["yes", "yes"]) == "yes"
    assert combine(["yes", "inconclusive"]) == "inconclusive"
    assert combine(["inconclusive", "no", "yes"]) == "no"
    assert combine([]) == "yes"


def test_opposite_verdicts_need_disjoint_intervals():
    # one claim, two runs: "yes" and "no" only when the two intervals do not overlap
    for a in (e(0.01, 0.05), e(-0.01, 0.05), e(-0.05, -0.01)):
        for b in (e(0.0, 0.02), e(-0.03, 0.01), e(-0.04, -0.02)):
            v = {interval_verdict(a, 0.0), interval_verdict(b, 0.0)}
            overlap = a.low <= b.high and b.low <= a.high
            assert not (v == {"yes", "no"} and overlap)


def test_estimate_single_value_is_its_own_interval():
    one = estimate([2.0])
    assert one is not None and (one.low, one.high, one.n) == (2.0, 2.0, 1)
    assert estimate([math.nan, None]) is None
