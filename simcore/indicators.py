"""Indicators: quality of an answer against an exact reference, and latency summaries.

Pure functions of recorded numbers, as pymoo's ``Indicator``: nothing here runs a solver, so a
report can recompute any of them from stored results. One definition of each for the whole project —
the problem kinds' quality records (``simcore/kinds/``), the simulation metrics
(``simcore/metrics.py``), the report and the regression gate all call these. All objectives are
MAXIMISED in schedbench, so every function takes maximised objective values unless it says
otherwise.

Single objective (M = 1), after Berthold (2013), "Measuring the impact of primal heuristics",
Operations Research Letters 41(6):

* :func:`primal_gap` — γ(z) = |z* − z| / max(|z*|, |z|), 0 when both are 0, 1 when the signs
  differ or there is no solution;
* :func:`primal_integral` — ∫₀ᵀ γ(t) dt / T over the budget T, from the anytime trace, in [0, 1].

Multi-objective (M >= 2), against the exact Pareto front Z, with objectives normalised by Z's
ideal and nadir (:func:`normalise`, which also turns them into minimisation):

* :func:`igd_plus` — IGD+ (Ishibuchi, Masuda, Tanigaki & Nojima 2015, "Modified distance
  calculation in generational distance and inverted generational distance", EMO 2015), the
  primary indicator: weakly Pareto compliant, 0 exactly when the answer weakly dominates Z;
* :func:`gd` — generational distance (Van Veldhuizen & Lamont 1998);
* :func:`hypervolume` / :func:`hypervolume_ratio` — the hypervolume (S metric) of Zitzler &
  Thiele (1998/1999) with reference point 1.1 in every normalised objective;
* :func:`front_fraction` — the share of Z whose objective vectors the answer found.

Latency (:func:`latency_stats`): median, p95, max, share within budget and the shifted geometric
mean with shift 1 s, failures charged the budget (docs/design.md#quality-and-latency-of-a-decision).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from schedbench.simcore.errors import MetricsError
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.problem import TracePoint

#: Hypervolume reference point, in every normalised (minimised) objective: beyond the nadir, so
#: that the front's extreme points count ({QUAL}).
HV_REFERENCE = 1.1

#: Shift of the shifted geometric mean of latencies, in seconds: decisions far below a second
#: count as about equal.
SGM_SHIFT_S = 1.0


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise MetricsError(f"{name}: expected a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise MetricsError(f"{name}: expected a finite number, got {value!r}")
    return x


def primal_gap(z: float | None, z_star: float) -> float:
    """Berthold's (2013) primal gap γ ∈ [0, 1] of the value ``z`` against the optimum
    ``z_star``: γ = |z* − z| / max(|z*|, |z|).

    * γ = 0 when ``z == z_star`` (in particular when both are 0);
    * γ = 1 when ``z`` and ``z_star`` have opposite signs (z · z* < 0), or when there is no
      solution (``z is None``);
    * otherwise γ = |z* − z| / max(|z*|, |z|), which lies in [0, 1] because both have the same
      sign. A value 0 against a non-zero optimum gives γ = 1.

    The formula is symmetric, so a value *better* than ``z_star`` (a wrong reference) also has a
    positive gap; the direction of optimisation does not enter.
    """
    zs = _finite(z_star, "z_star")
    if z is None:
        return 1.0
    zv = _finite(z, "z")
    if zv == zs:
        return 0.0
    if zv * zs < 0:
        return 1.0
    return abs(zs - zv) / max(abs(zs), abs(zv))


def _trace_value(item: Any, i: int) -> tuple[float, float]:
    """(time_s, value) of one trace entry: a ``TracePoint`` or a ``(time_s, value)`` pair."""
    if isinstance(item, TracePoint) or hasattr(item, "time_s"):
        t, value = item.time_s, item.objectives
    else:
        try:
            t, value = item
        except (TypeError, ValueError) as exc:
            raise MetricsError(
                f"trace[{i}]: expected a TracePoint or a (time_s, value) pair, got {item!r}"
            ) from exc
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)):
        if len(value) != 1:
            raise MetricsError(
                f"trace[{i}]: expected one objective value (the primal integral is for M = 1), "
                f"got {len(value)}"
            )
        value = value[0]
    return _finite(t, f"trace[{i}].time_s"), _finite(value, f"trace[{i}] objective")


def primal_integral(
    trace: Iterable[TracePoint | tuple[float, Any]],
    z_star: float,
    budget_s: float,
    *,
    latency_s: float | None = None,
    final: float | None = None,
) -> float:
    """Berthold's (2013) primal integral over the budget, divided by the budget: in [0, 1].

    γ(t) is the step function of the incumbent's primal gap (:func:`primal_gap`): 1 until the
    first incumbent, then the gap of the best value found so far (the incumbent; objectives are
    maximised). The result is ∫₀ᵀ γ(t) dt / T with T = ``budget_s``; 0 means the optimum was
    known at once, 1 that nothing useful was found within the budget.

    ``trace`` holds the anytime trace, as the project's ``TracePoint`` objects (``time_s`` and a
    one-element ``objectives``) or as ``(time_s, value)`` pairs; order does not matter. Times are
    clipped to [0, T]. With ``latency_s`` (the wall time of the solve) they are also clipped to
    ``latency_s``: the trace is recorded inside the solve, so nothing can be found after it
    returned, and clipping absorbs the difference between the solver's clock and the caller's.
    ``final`` is the value of the answer the solver returned; it becomes the incumbent at
    ``min(latency_s, T)`` (a solver that reports no trace still gets credit from the moment it
    answered), so it needs ``latency_s``. After the solver returned, the final incumbent holds
    until the budget ends: the answer stays in force for the rest of the decision's time.
    """
    zs = _finite(z_star, "z_star")
    budget = _finite(budget_s, "budget_s")
    if budget <= 0:
        raise MetricsError(f"budget_s: expected a positive number of seconds, got {budget_s!r}")
    horizon = budget
    if latency_s is not None and not (isinstance(latency_s, float) and math.isnan(latency_s)):
        lat = _finite(latency_s, "latency_s")
        if lat < 0:
            raise MetricsError(f"latency_s: expected a number >= 0, got {latency_s!r}")
        horizon = min(horizon, lat)
    elif final is not None:
        raise MetricsError("final: the returned value needs latency_s (when it was returned)")

    events = [_trace_value(item, i) for i, item in enumerate(trace)]
    if final is not None:
        events.append((horizon, _finite(final, "final")))
    events = [(min(max(t, 0.0), horizon), v) for t, v in events]
    events.sort(key=lambda e: e[0])  # stable: entries at one instant keep their order

    area, prev_t, gamma, best = 0.0, 0.0, 1.0, -math.inf
    for t, value in events:
        area += gamma * (t - prev_t)
        best = max(best, value)
        gamma = primal_gap(best, zs)
        prev_t = t
    area += gamma * (budget - prev_t)
    return min(max(area / budget, 0.0), 1.0)


# ---------------------------------------------------------------------------------------------
# Multi-objective: normalisation, IGD+, GD, hypervolume, share of the front found
# ---------------------------------------------------------------------------------------------


def as_points(points: Any, m: int | None = None, *, name: str = "points") -> np.ndarray:
    """Objective vectors as a float (n × M) array.

    Accepts an array, a sequence of vectors, or a sequence of objects with ``.objectives``
    (``ParetoPoint``, ``Decision``). An empty input becomes shape (0, ``m``).
    """
    if isinstance(points, np.ndarray):
        rows: Any = points
    else:
        rows = [p.objectives if hasattr(p, "objectives") else p for p in points]
    array = np.asarray(rows, dtype=np.float64)
    if array.size == 0:
        return np.zeros((0, m if m is not None else 0))
    if array.ndim != 2:
        raise MetricsError(f"{name}: expected a list of objective vectors, got shape {array.shape}")
    if m is not None and array.shape[1] != m:
        raise MetricsError(f"{name}: expected vectors of {m} objectives, got {array.shape[1]}")
    if not np.all(np.isfinite(array)):
        i = int(np.argwhere(~np.isfinite(array))[0][0])
        raise MetricsError(f"{name}[{i}]: expected finite objective values, got {array[i]}")
    return array


def ideal_nadir(front: Any) -> tuple[np.ndarray, np.ndarray]:
    """Ideal (best, i.e. largest, value of each objective) and nadir (worst value over the
    front's points) of a Pareto front of maximised objectives."""
    z = as_points(front, name="exact front")
    if z.shape[0] == 0:
        raise MetricsError("exact front: expected at least one point")
    return z.max(axis=0), z.min(axis=0)


def normalise(points: Any, ideal: Any, nadir: Any) -> np.ndarray:
    """Map maximised objective vectors to minimised ones with the ideal at 0 and the nadir at 1:
    f ↦ (ideal − f) / (ideal − nadir), per objective (normalised by Z's ideal and nadir).

    Points of the front lie in [0, 1]; worse points map above 1, better ones below 0. A
    degenerate objective (ideal == nadir, e.g. a one-point front) has no range to divide by:
    there the front's points map to 0, so the objective contributes nothing to the front's own
    distances, and other points are divided by max(|ideal|, 1) instead — a shortfall on that
    objective is still measured (relative to its magnitude) rather than silently ignored, which
    would score any answer to a one-point front as perfect.
    """
    ideal_v = np.asarray(ideal, dtype=np.float64).ravel()
    nadir_v = np.asarray(nadir, dtype=np.float64).ravel()
    if ideal_v.shape != nadir_v.shape:
        raise MetricsError(f"ideal and nadir: expected equal lengths, got {ideal_v} and {nadir_v}")
    p = as_points(points, ideal_v.size)
    span = ideal_v - nadir_v
    if np.any(span < 0):
        raise MetricsError(f"ideal {ideal_v} below nadir {nadir_v} (objectives are maximised)")
    span = np.where(span > 0, span, np.maximum(np.abs(ideal_v), 1.0))
    return (ideal_v - p) / span


def _normalised_pair(approx: Any, exact: Any) -> tuple[np.ndarray, np.ndarray]:
    ideal, nadir = ideal_nadir(exact)
    z = normalise(exact, ideal, nadir)
    a = normalise(as_points(approx, ideal.size, name="approximation"), ideal, nadir)
    return a, z


def _min_distances(rows: np.ndarray, cols: np.ndarray, *, plus: bool) -> np.ndarray:
    """For each row r: min over c of ‖c − r‖ (``plus``: of ‖max(c − r, 0)‖), in blocks of rows
    so the |rows| × |cols| × M difference never takes more than ~16 MB."""
    out = np.empty(rows.shape[0])
    block = max(1, 2_000_000 // max(1, cols.shape[0] * rows.shape[1]))
    for start in range(0, rows.shape[0], block):
        diff = cols[None, :, :] - rows[start : start + block, None, :]
        if plus:
            diff = np.maximum(diff, 0.0)
        out[start : start + block] = np.sqrt((diff**2).sum(axis=2)).min(axis=1)
    return out


def igd_plus(approx: Any, exact: Any, *, normalised: bool = True) -> float:
    """IGD+ (Ishibuchi et al. 2015) of the answer ``approx`` against the exact front ``exact``.

    In minimisation form, IGD+(A, Z) = (1/|Z|) Σ_{z∈Z} min_{a∈A} d⁺(z, a) with
    d⁺(z, a) = sqrt(Σ_i max(a_i − z_i, 0)²): only the amount by which a is *worse* than z
    counts. Computed after :func:`normalise` by Z's ideal and nadir (``normalised=False``: on the
    raw maximised values, d⁺ = sqrt(Σ_i max(z_i − a_i, 0)²)). 0 exactly when every point of Z is
    weakly dominated by some answer point; dominated answer points never change the value.

    An empty answer has IGD+ = ``math.inf`` (:func:`decision_quality` reports it as ``None``,
    since JSON has no infinity). Both arguments take anything :func:`as_points` accepts.
    """
    if normalised:
        a, z = _normalised_pair(approx, exact)
    else:
        z = as_points(exact, name="exact front")
        if z.shape[0] == 0:
            raise MetricsError("exact front: expected at least one point")
        a, z = -as_points(approx, z.shape[1], name="approximation"), -z
    if a.shape[0] == 0:
        return math.inf
    return float(_min_distances(z, a, plus=True).mean())


def gd(approx: Any, exact: Any, *, normalised: bool = True) -> float:
    """Generational distance: (1/|A|) Σ_{a∈A} min_{z∈Z} ‖a − z‖₂, the mean Euclidean distance
    from each answer point to the nearest point of the exact front (Van Veldhuizen & Lamont
    1998; the p = 1 form pymoo uses), after :func:`normalise` by Z's ideal and nadir unless
    ``normalised=False``. Unlike IGD+ it is not Pareto compliant: it does not see how much of Z
    is missing. An empty answer gives ``math.inf``.
    """
    if normalised:
        a, z = _normalised_pair(approx, exact)
    else:
        z = as_points(exact, name="exact front")
        if z.shape[0] == 0:
            raise MetricsError("exact front: expected at least one point")
        a = as_points(approx, z.shape[1], name="approximation")
    if a.shape[0] == 0:
        return math.inf
    return float(_min_distances(a, z, plus=False).mean())


def _hv_sweep(points: np.ndarray, ref: np.ndarray) -> float:
    """Hypervolume of points that are all strictly below ``ref`` (minimisation), M >= 1."""
    n, m = points.shape
    if n == 0:
        return 0.0
    if m == 1:
        return float(ref[0] - points[:, 0].min())
    if m == 2:
        # Sweep along f1: each point's strip reaches to the next point's f1 (or the reference),
        # and its height is set by the lowest f2 seen so far.
        p = points[np.lexsort((points[:, 1], points[:, 0]))]
        low = np.minimum.accumulate(p[:, 1])
        right = np.append(p[1:, 0], ref[0])
        return float(np.sum((right - p[:, 0]) * (ref[1] - low)))
    # Slice along the last objective (HSO, While et al. 2006): between consecutive values of f_M,
    # the dominated region is the (M − 1)-dimensional hypervolume of the points at or below.
    p = points[np.argsort(points[:, -1], kind="stable")]
    tops = np.append(p[1:, -1], ref[-1])
    total = 0.0
    for i in range(n):
        depth = tops[i] - p[i, -1]
        if depth > 0:
            total += depth * _hv_sweep(p[: i + 1, :-1], ref[:-1])
    return total


def hypervolume(points: Any, ref: Any) -> float:
    """Hypervolume (Zitzler & Thiele 1998) of MINIMISED objective vectors (as after
    :func:`normalise`): the Lebesgue measure of the region they dominate, bounded by ``ref``.

    A point contributes only where it is strictly better than ``ref`` in every objective; an
    empty set has volume 0. Exact: M = 1 and 2 by a sort-and-sweep in O(n log n); M >= 3 by
    slicing along the last objective (Hypervolume by Slicing Objectives) after removing dominated
    points, O(n^(M−1) log n) — instant for M = 3 and a few hundred points, about a second for
    M = 4 and 200 points; meant for the small fronts of scheduling windows, not for M >= 5.
    """
    r = np.asarray(ref, dtype=np.float64).ravel()
    if r.size == 0 or not np.all(np.isfinite(r)):
        raise MetricsError(f"ref: expected a finite reference point, got {ref!r}")
    p = as_points(points, r.size)
    p = p[np.all(p < r, axis=1)]
    if p.shape[0] == 0:
        return 0.0
    if r.size >= 3:
        p = p[nondominated_mask(-p)]  # nondominated_mask maximises
    return _hv_sweep(p, r)


def hypervolume_ratio(approx: Any, exact: Any) -> float:
    """HV(A) / HV(Z) in the space normalised by Z's ideal and nadir (:func:`normalise`), with
    reference point 1.1 in every objective (docs/design.md#quality-and-latency-of-a-decision). 1
    when the answer covers the whole front, 0 for an empty answer. HV(Z) > 0 always, since Z's
    normalised points lie in [0, 1]. Subsets of Z score at most 1; a value above 1 means the answer
    dominates the "exact" front, i.e. the reference is wrong.
    """
    a, z = _normalised_pair(approx, exact)
    ref = np.full(z.shape[1], HV_REFERENCE)
    return hypervolume(a, ref) / hypervolume(z, ref)


def front_fraction(approx: Any, exact: Any, *, rtol: float = 1e-9) -> float:
    """The share of the exact front's points whose objective vector some answer point matches,
    each objective within ``rtol`` · max(1, |z_i|) (tolerance for float sums; integer problems
    match exactly). Each row of ``exact`` counts once; an empty answer finds 0.
    """
    z = as_points(exact, name="exact front")
    if z.shape[0] == 0:
        raise MetricsError("exact front: expected at least one point")
    a = as_points(approx, z.shape[1], name="approximation")
    if a.shape[0] == 0:
        return 0.0
    tol = rtol * np.maximum(1.0, np.abs(z))
    found = np.zeros(z.shape[0], dtype=bool)
    for point in a:  # |A| passes over Z keep memory at |Z| × M
        found |= np.all(np.abs(z - point) <= tol, axis=1)
    return float(found.mean())


# ---------------------------------------------------------------------------------------------
# Latency
# ---------------------------------------------------------------------------------------------


def latency_stats(
    latencies: Sequence[float] | np.ndarray,
    budget_s: float,
    *,
    failed: Sequence[bool] | np.ndarray | None = None,
) -> dict[str, float | int | None]:
    """Latency summary over decisions (docs/design.md#quality-and-latency-of-a-decision), JSON-safe.

    ``failed`` is a boolean mask of decisions that delivered no answer (:func:`is_failure`).
    A failure is charged the budget: its latency counts as max(latency, ``budget_s``), and as the
    budget when it is NaN (not measured), so failing never looks faster than answering. The
    statistics use the charged latencies:

    * ``median_s``, ``p95_s`` (linear interpolation, as ``numpy.percentile``), ``max_s``;
    * ``share_within_budget`` — answered (not failed) decisions with latency <= budget, over all;
    * ``sgm_s`` — shifted geometric mean exp(mean(log(t_i + s))) − s with s = 1 s, which damps
      both the tiny and the huge (as in Achterberg's 2007 thesis and Mittelmann's benchmarks).

    Plus ``decisions`` and ``failures`` counts. Without decisions the statistics are ``None``.
    A non-failed latency that is negative or not finite raises ``MetricsError``.
    """
    budget = _finite(budget_s, "budget_s")
    if budget <= 0:
        raise MetricsError(f"budget_s: expected a positive number of seconds, got {budget_s!r}")
    lat = np.asarray(latencies, dtype=np.float64).ravel()
    if failed is None:
        fail = np.zeros(lat.size, dtype=bool)
    else:
        fail = np.asarray(failed, dtype=bool).ravel()
        if fail.shape != lat.shape:
            raise MetricsError(
                f"failed: expected {lat.size} flags (one per latency), got {fail.size}"
            )
    bad = ~fail & ~(np.isfinite(lat) & (lat >= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MetricsError(f"latencies[{i}]: expected a finite number >= 0, got {lat[i]!r}")
    charged = np.where(fail, np.fmax(np.nan_to_num(lat, nan=budget), budget), lat)
    if charged.size == 0:
        return {
            "decisions": 0,
            "failures": 0,
            "median_s": None,
            "p95_s": None,
            "max_s": None,
            "share_within_budget": None,
            "sgm_s": None,
        }
    median, p95 = np.percentile(charged, [50.0, 95.0])
    sgm = math.exp(float(np.mean(np.log(charged + SGM_SHIFT_S)))) - SGM_SHIFT_S
    return {
        "decisions": int(charged.size),
        "failures": int(fail.sum()),
        "median_s": float(median),
        "p95_s": float(p95),
        "max_s": float(charged.max()),
        "share_within_budget": float(np.mean(~fail & (lat <= budget))),
        "sgm_s": max(sgm, 0.0),
    }
