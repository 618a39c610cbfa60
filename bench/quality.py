"""Per-decision quality and latency metrics (DESIGN.md "Quality metrics (per decision)").

One definition of each indicator for every benchmark script; all objectives are MAXIMISED in
schedbench, so every function here takes maximised objective values unless it says otherwise.

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
mean with shift 1 s, failures charged the budget.

:func:`decision_quality` assembles the per-decision record (flat, JSON-safe); a metric whose exact
reference is missing is reported as ``None`` with ``reference: "missing"``, never guessed.
:class:`ReferenceCache` stores exact references on disk, keyed by
``SelectionProblem.fingerprint()`` and the reference solver's id, so each is computed once.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench._io import atomic_write_text
from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.metrics import MetricsError
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.problem import Decision, ParetoPoint, SelectionProblem, Status, TracePoint

#: Hypervolume reference point, in every normalised (minimised) objective (DESIGN.md).
HV_REFERENCE = 1.1

#: Shift of the shifted geometric mean of latencies, in seconds (DESIGN.md).
SGM_SHIFT_S = 1.0

#: Default directory of the reference cache.
DEFAULT_CACHE_DIR = Path.home() / ".cache" / "schedbench" / "references"

#: Statuses that make a decision an exact reference (and that the cache stores).
EXACT_STATUSES = (Status.OPTIMAL, Status.INFEASIBLE)

# ---------------------------------------------------------------------------------------------
# Single objective: primal gap and primal integral (Berthold 2013)
# ---------------------------------------------------------------------------------------------


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise MetricsError(f"{name}: expected a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise MetricsError(f"{name}: expected a finite number, got {value!r}")
    return x


def primal_gap(z: float | None, z_star: float) -> float:
    """Berthold's (2013) primal gap γ ∈ [0, 1] of the value ``z`` against the optimum
    ``z_star`` (DESIGN.md: γ = |z* − z| / max(|z*|, |z|)).

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
        except (TypeError, ValueError):
            raise MetricsError(
                f"trace[{i}]: expected a TracePoint or a (time_s, value) pair, got {item!r}"
            ) from None
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
    f ↦ (ideal − f) / (ideal − nadir), per objective (DESIGN.md: "normalised by Z's ideal and
    nadir").

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
    reference point 1.1 in every objective (DESIGN.md). 1 when the answer covers the whole
    front, 0 for an empty answer. HV(Z) > 0 always, since Z's normalised points lie in [0, 1].
    Subsets of Z score at most 1; a value above 1 means the answer dominates the "exact" front,
    i.e. the reference is wrong.
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


def is_failure(decision: Decision) -> bool:
    """True when a decision delivered no answer: status ``error``, or ``timeout`` with neither
    an objective vector nor a Pareto set (a timeout that returns its best selection, even the
    empty one, answered). ``infeasible`` is an answer, not a failure."""
    if decision.status == Status.ERROR:
        return True
    return decision.status == Status.TIMEOUT and not decision.objectives and not decision.pareto


def latency_stats(
    latencies: Sequence[float] | np.ndarray,
    budget_s: float,
    *,
    failed: Sequence[bool] | np.ndarray | None = None,
) -> dict[str, float | int | None]:
    """Latency summary over decisions (DESIGN.md "Quality metrics"), JSON-safe.

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


# ---------------------------------------------------------------------------------------------
# Per-decision record
# ---------------------------------------------------------------------------------------------


def _n_objectives(
    decision: Decision, reference: Decision | None, problem: SelectionProblem | None
) -> int:
    if problem is not None:
        return problem.M
    for d in (reference, decision):
        if d is None:
            continue
        if d.objectives:
            return len(d.objectives)
        if d.pareto:
            return len(d.pareto[0].objectives)
    raise MetricsError(
        "cannot tell the number of objectives from the decision or the reference; pass problem="
    )


def _answer(decision: Decision, m: int, problem: SelectionProblem | None) -> tuple[bool, str]:
    """(feasible, reason if not): the decision holds an answer that, given the problem, fits."""
    if decision.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT):
        return False, f"status {decision.status.value}: no answer"
    if not decision.objectives and not decision.pareto:
        return False, f"status {decision.status.value} without an answer"
    if decision.objectives and len(decision.objectives) != m:
        return False, f"answer has {len(decision.objectives)} objectives, expected {m}"
    if problem is not None:
        for sel in [decision.selected, *(p.selected for p in decision.pareto)]:
            try:
                problem.check_selection(sel)
            except InvalidDecisionError as exc:
                return False, f"infeasible answer: {exc}"
    return True, ""


def decision_quality(
    decision: Decision,
    reference: Decision | None,
    *,
    budget_s: float | None = None,
    problem: SelectionProblem | None = None,
) -> dict[str, Any]:
    """The quality record of one decision against an exact reference, flat and JSON-safe.

    ``reference`` is the exact answer to the same problem (status ``optimal``), or ``None``. Keys:

    * always: ``n_objectives``, ``status``, ``feasible`` (the decision holds an answer — status
      optimal/feasible/timeout with objectives or a Pareto set — and, when ``problem`` is given,
      every selection in it fits), ``reference`` (``"exact"`` or ``"missing"``), ``note``;
    * M = 1: ``primal_gap`` and ``primal_integral`` (needs ``budget_s``, the decision's budget;
      the integral uses the trace and the returned value from ``decision.latency_s`` on);
    * M >= 2: ``igd_plus``, ``gd``, ``hv_ratio``, ``front_found`` (share of Z found) of the
      answer's Pareto set (its single objective vector if it has none), and ``front_size`` |Z|.

    With no usable reference (``None``, or a status other than optimal — an infeasible problem
    has no front to compare with) the metrics are ``None`` and ``reference`` is ``"missing"``: a
    metric is never guessed. A decision without a (feasible) answer scores γ = 1 and a primal
    integral of 1 (nothing delivered), or, for M >= 2, hv_ratio = front_found = 0 and
    IGD+ = GD = infinite, reported as ``None`` with a note since JSON has no infinity. The
    primal integral is ``None`` when the latency was not measured. The recorded objective values
    are used as they stand; ``problem`` only adds the feasibility check.
    """
    m = _n_objectives(decision, reference, problem)
    feasible, why = _answer(decision, m, problem)
    notes = [why] if why else []
    record: dict[str, Any] = {
        "n_objectives": m,
        "status": decision.status.value,
        "feasible": feasible,
        "reference": "exact",
    }
    keys = ("primal_gap", "primal_integral") if m == 1 else ("igd_plus", "gd", "hv_ratio")
    keys = keys if m == 1 else (*keys, "front_found", "front_size")

    usable = reference is not None and reference.status == Status.OPTIMAL
    if (
        reference is None
        or (usable and m >= 2 and not (reference.pareto or reference.objectives))
        or (usable and m == 1 and len(reference.objectives) != 1)
    ):
        usable = False
    if not usable or reference is None:
        record["reference"] = "missing"
        if reference is not None:
            notes.append(f"reference status {reference.status.value} is not an exact answer")
        record.update(dict.fromkeys(keys))
        record["note"] = "; ".join(notes) or None
        return record

    if m == 1:
        if budget_s is None:
            raise MetricsError("budget_s: the primal integral needs the decision's budget")
        z_star = reference.objectives[0]
        if not feasible:
            record["primal_gap"] = 1.0
            record["primal_integral"] = 1.0
        else:
            z = decision.objectives[0] if decision.objectives else None
            record["primal_gap"] = primal_gap(z, z_star)
            if math.isnan(decision.latency_s):
                record["primal_integral"] = None
                notes.append("latency_s not measured: no primal integral")
            else:
                record["primal_integral"] = primal_integral(
                    decision.trace,
                    z_star,
                    budget_s,
                    latency_s=decision.latency_s,
                    final=z,
                )
    else:
        exact = as_points(reference.pareto or [reference.objectives], m, name="reference front")
        if not feasible:
            found = np.zeros((0, m))
        elif decision.pareto:
            found = as_points(decision.pareto, m, name="decision pareto")
        else:
            found = as_points([decision.objectives], m, name="decision objectives")
        igd = igd_plus(found, exact)
        dist = gd(found, exact)
        if math.isinf(igd) or math.isinf(dist):
            notes.append("empty answer: IGD+ and GD are infinite, reported as null")
        record["igd_plus"] = None if math.isinf(igd) else igd
        record["gd"] = None if math.isinf(dist) else dist
        record["hv_ratio"] = hypervolume_ratio(found, exact)
        record["front_found"] = front_fraction(found, exact)
        record["front_size"] = int(exact.shape[0])
    record["note"] = "; ".join(notes) or None
    return record


# ---------------------------------------------------------------------------------------------
# Decisions as JSON, and the reference cache
# ---------------------------------------------------------------------------------------------


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = data.get(key, default)
    if not isinstance(value, kind):
        raise MetricsError(f"decision JSON key {key!r}: expected {kind}, got {value!r}")
    return value


def decision_from_dict(data: Any) -> Decision:
    """Rebuild a ``Decision`` from :meth:`Decision.to_dict` output (the inverse, up to whole
    float stats becoming ints and a ``None`` latency becoming NaN). Malformed data raises
    ``MetricsError`` naming the key."""
    if not isinstance(data, Mapping):
        raise MetricsError(f"decision JSON: expected an object, got {type(data).__name__}")
    try:
        status = Status(data["status"])
    except (KeyError, ValueError):
        raise MetricsError(
            f"decision JSON key 'status': expected one of {[s.value for s in Status]}, "
            f"got {data.get('status')!r}"
        ) from None
    latency = data.get("latency_s")
    try:
        pareto = tuple(
            ParetoPoint(tuple(p["selected"]), tuple(float(x) for x in p["objectives"]))
            for p in _field(data, "pareto", list, [])
        )
        trace = tuple(
            TracePoint(float(t["time_s"]), tuple(float(x) for x in t["objectives"]))
            for t in _field(data, "trace", list, [])
        )
        return Decision(
            status=status,
            selected=tuple(_field(data, "selected", list, [])),
            objectives=tuple(float(x) for x in _field(data, "objectives", list, [])),
            pareto=pareto,
            trace=trace,
            stats=dict(_field(data, "stats", dict, {})),
            notes=tuple(str(n) for n in _field(data, "notes", list, [])),
            solver=str(_field(data, "solver", str, "")),
            latency_s=math.nan if latency is None else float(latency),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, MetricsError):
            raise
        raise MetricsError(f"decision JSON: malformed pareto, trace or selection ({exc})") from None


class ReferenceCacheWarning(UserWarning):
    """A cached reference could not be read (and is treated as missing) or written."""


class ReferenceCache:
    """Exact references on disk, one JSON file per problem and reference solver (DESIGN.md:
    "Exact references are computed once and cached by instance hash").

    A file ``<fingerprint>-<solver_id>.json`` under ``directory`` (default
    ``~/.cache/schedbench/references``) holds ``{"format": 1, "fingerprint", "solver",
    "decision": Decision.to_dict()}``. Writes are atomic (temporary file in the same directory,
    then ``os.replace``), so a crash never leaves half a file. A file that cannot be read or does
    not match (bad JSON, another problem or solver, a malformed decision) counts as missing and
    raises a :class:`ReferenceCacheWarning`; it never crashes the run and is overwritten by the
    next ``put``. Only exact answers (status optimal or infeasible) are stored.
    """

    FORMAT = 1

    def __init__(self, solver_id: str, directory: str | os.PathLike[str] | None = None):
        if not isinstance(solver_id, str) or not solver_id:
            raise MetricsError(f"solver_id: expected a non-empty string, got {solver_id!r}")
        self.solver_id = solver_id
        self.directory = Path(directory) if directory is not None else DEFAULT_CACHE_DIR

    def path_for(self, problem: SelectionProblem) -> Path:
        """The file that holds (or would hold) the reference for ``problem``."""
        safe = re.sub(r"[^A-Za-z0-9._=-]", "_", self.solver_id)
        return self.directory / f"{problem.fingerprint()}-{safe}.json"

    def get(self, problem: SelectionProblem) -> Decision | None:
        """The cached reference for ``problem``, or ``None`` (missing or unreadable)."""
        path = self.path_for(problem)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._warn(f"cannot read {path}: {exc}; treated as missing")
            return None
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != self.FORMAT:
                raise MetricsError(f"expected format {self.FORMAT}")
            if data.get("fingerprint") != problem.fingerprint():
                raise MetricsError("the file belongs to another problem")
            if data.get("solver") != self.solver_id:
                raise MetricsError(f"the file belongs to solver {data.get('solver')!r}")
            return decision_from_dict(data.get("decision"))
        except (ValueError, TypeError, KeyError) as exc:  # JSONDecodeError is a ValueError
            self._warn(f"corrupt reference {path}: {exc}; treated as missing")
            return None

    def put(self, problem: SelectionProblem, decision: Decision) -> Path:
        """Store ``decision`` as the reference for ``problem`` atomically; returns the file."""
        if decision.status not in EXACT_STATUSES:
            raise MetricsError(
                f"decision status {decision.status.value!r}: only exact answers "
                f"({', '.join(s.value for s in EXACT_STATUSES)}) are cached as references"
            )
        if decision.solver and decision.solver != self.solver_id:
            raise MetricsError(
                f"decision from solver {decision.solver!r} put into the cache of {self.solver_id!r}"
            )
        path = self.path_for(problem)
        payload = {
            "format": self.FORMAT,
            "fingerprint": problem.fingerprint(),
            "solver": self.solver_id,
            "decision": decision.to_dict(),
        }
        return atomic_write_text(path, json.dumps(payload, sort_keys=True))

    def get_or_compute(
        self, problem: SelectionProblem, compute_fn: Callable[[SelectionProblem], Decision]
    ) -> Decision:
        """The cached reference, or ``compute_fn(problem)`` stored for next time.

        A computed decision that is not exact (timeout, error) is returned but not stored, so a
        later run may try again; :func:`decision_quality` treats it as a missing reference. A
        failure to write warns and still returns the decision.
        """
        cached = self.get(problem)
        if cached is not None:
            return cached
        decision = compute_fn(problem)
        if decision.status in EXACT_STATUSES:
            try:
                self.put(problem, decision)
            except OSError as exc:
                self._warn(f"cannot write reference {self.path_for(problem)}: {exc}")
        return decision

    @staticmethod
    def _warn(message: str) -> None:
        warnings.warn(message, ReferenceCacheWarning, stacklevel=3)
