"""Verdicts on 95 % confidence intervals over seeds, shared by the reproductions (``bbsched.py``,
``ar.py``).

A finding of a paper is judged on our estimate's interval, never on its mean alone, so that a
run with more or longer streams can sharpen a verdict but not reverse it:

* :class:`Estimate` / :func:`estimate` — a mean over independent seeds with its 95 % interval
  (Student's t);
* :func:`verdict` — against a change the paper reports as a number (``yes`` / ``partly`` /
  ``inconclusive`` / ``no``);
* :func:`interval_verdict` — against a claim that the value lies in a range (above a threshold,
  below one, or within a margin of zero): ``yes`` when the whole interval is inside the range,
  ``no`` when it is wholly outside, ``inconclusive`` when it contains an end of the range;
* :func:`combine` — a finding made of several such claims: ``yes`` when all hold, ``no`` when
  one is refuted, ``inconclusive`` otherwise.

Two runs give opposite verdicts on a claim only if their intervals are disjoint (one lies in
the range, the other outside it), which for intervals of the same quantity happens with a
probability of well under 5 %.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

YES, NO, INCONCLUSIVE = "yes", "no", "inconclusive"


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over seeds with its 95 % confidence interval (Student's t); ``n`` seeds."""

    mean: float
    low: float
    high: float
    n: int

    def text(self, fmt: str = "{:+.1f}", unit: str = "") -> str:
        if self.n < 2:
            return fmt.format(self.mean) + unit
        return f"{fmt.format(self.mean)}{unit} [{fmt.format(self.low)}, {fmt.format(self.high)}]"

    @property
    def below_zero(self) -> bool:
        return self.high < 0

    @property
    def above_zero(self) -> bool:
        return self.low > 0


def estimate(values: Iterable[float | None]) -> Estimate | None:
    """Mean and 95 % interval of ``values`` (None when empty; NaN and None values left out). A
    single value is its own interval of width zero."""
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not xs:
        return None
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return Estimate(mean, mean, mean, len(xs))
    # scipy.stats costs about 2 s to import: only when an interval is asked for.
    from scipy.stats import t

    half = float(t.ppf(0.975, len(xs) - 1)) * statistics.stdev(xs) / math.sqrt(len(xs))
    return Estimate(mean, mean - half, mean + half, len(xs))


def verdict(e: Estimate, paper: float) -> str:
    """Our per-seed estimate against a change the paper reports (``paper`` != 0):

    ``yes`` — the interval excludes 0 on the paper's side and contains the paper's value;
    ``partly`` — it excludes 0 on the paper's side but not the paper's value (same direction,
    another size); ``inconclusive`` — it contains both 0 and the paper's value (too few seeds to
    tell); ``no`` — it contains 0 but not the paper's value, or excludes 0 on the other side.
    """
    same_side = e.above_zero if paper > 0 else e.below_zero
    has_paper = e.low <= paper <= e.high
    if same_side:
        return "yes" if has_paper else "partly"
    if e.low <= 0 <= e.high and has_paper:
        return INCONCLUSIVE
    return "no"


def interval_verdict(e: Estimate | None, lo: float = -math.inf, hi: float = math.inf) -> str:
    """The claim "the value lies in the open range (``lo``, ``hi``)" judged on ``e``'s interval
    (module docstring). An interval of width zero (identical values on every seed) on an end of
    the range refutes the claim. None (nothing measured) is inconclusive."""
    if e is None:
        return INCONCLUSIVE
    if lo < e.low and e.high < hi:
        return YES
    if e.high <= lo or e.low >= hi:
        return NO
    return INCONCLUSIVE


def negate(v: str) -> str:
    """The verdict on the opposite claim."""
    return {YES: NO, NO: YES}.get(v, v)


def combine(verdicts: Iterable[str]) -> str:
    """All claims of a finding together: ``no`` if one is refuted, else ``yes`` if all hold,
    else ``inconclusive`` (and ``yes`` for no claim at all)."""
    vs = list(verdicts)
    if NO in vs:
        return NO
    if all(v == YES for v in vs):
        return YES
    return INCONCLUSIVE
