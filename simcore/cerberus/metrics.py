"""Cerberus metrics (``papers/cerberus-evaluation-model.md`` §6–§7), each defined once here.

They register with the metric catalogue through the entry-point group ``schedbench.metrics``
(``cerberus = "schedbench.simcore.cerberus.metrics:CERBERUS_METRICS"``). The solver-latency
statistics reuse the simulation metrics' definitions and names (``decisions``,
``decision_latency_*``, ``decision_within_budget``; ``simcore/metrics.py``).

Definitions that need care:

Makespan
    The largest completion time; the clock starts at 0 (the arrival clock), so it is not the
    engine's ``makespan_s`` (last release − first submit).
Throughput per 500 s (§7)
    *Clean*: bins (0, 500], (500, 1000], … up to the first multiple of 500 at or above the
    makespan; every completion in exactly one bin; mean over bins and the peak bin.
    *Paper-compatible*: the bin edges are 0, 500, … up to the largest multiple of 500 below
    ⌊makespan⌋ + 500; each bin counts completions c with lower ≤ c ≤ upper (both ends), gets one
    extra count when some completion lies exactly on its lower edge, and the final bin one more.
Utilisation (§7)
    A sample (t, 1 − free cores / cores, 1 − free BB / BB) after every scheduling pass; the
    time-weighted mean of that step function between the first and the last event (each sample
    holds until the next), and the plain mean of the samples. CPU utilisation may exceed 1 a
    little under ``units="floor"`` (over-allocation). 1-Phase IO has no BB series (None).
Solver statistics
    ``knapsack_solves``: per-queue knapsack decisions (one per non-empty knapsack queue per pass;
    those settled by a negative capacity count too, as upstream called its DP then);
    ``knapsack_time_s``: the wall time of the solver calls (``timed_solve`` latencies).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from schedbench.simcore.cerberus.sim import CerberusResult, CerberusState
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.metrics import decision_latency_stats
from schedbench.simcore.problem import DEFAULT_DEADLINE_S

_SRC = "Cerberus model note §7"
_SRC6 = "Cerberus model note §6"

#: Bin width of the throughput counts (model note §7).
THROUGHPUT_BIN_S = 500.0


def _spec(
    name: str, definition: str, unit: str, direction: Any, source: str = _SRC, label: str = ""
) -> MetricSpec:
    return MetricSpec(name, definition, unit=unit, direction=direction, source=source, label=label)


CERBERUS_METRICS: tuple[MetricSpec, ...] = (
    _spec("cerberus_jobs", "jobs in the Cerberus workload", "count", "none", ""),
    _spec("cerberus_jobs_done", "jobs that completed (Cerberus run)", "count", "none", ""),
    _spec(
        "cerberus_jobs_rejected",
        "jobs that can never fit the machine, rejected at submission (reject_unfit)",
        "count",
        "none",
        "",
    ),
    _spec(
        "cerberus_jobs_stuck",
        "jobs still queued or running when no event was left (head-of-line blocking by a job "
        "that never fits, or a deadlock)",
        "count",
        "lower",
        "",
    ),
    _spec(
        "makespan_from_zero_s",
        "largest completion time, the clock starting at 0 (Cerberus/BBSim makespan)",
        "s",
        "lower",
        label="makespan",
    ),
    _spec(
        "response_mean_s",
        "mean of completion - submit over completed jobs",
        "s",
        "lower",
        _SRC6,
        label="response",
    ),
    _spec("response_median_s", "median response over completed jobs", "s", "lower", _SRC6),
    _spec("response_max_s", "largest response over completed jobs", "s", "lower", _SRC6),
    _spec(
        "wait_total_mean_s",
        "mean of the summed waits (input + run + output queue; one-phase: before the start)",
        "s",
        "lower",
        _SRC6,
    ),
    _spec("wait_total_max_s", "largest summed wait", "s", "lower", _SRC6),
    _spec("wait_in_mean_s", "mean input-queue wait, stage-in start - submit", "s", "lower", _SRC6),
    _spec("wait_in_max_s", "largest input-queue wait", "s", "lower", _SRC6),
    _spec("wait_run_mean_s", "mean run-queue wait, run start - stage-in end", "s", "lower", _SRC6),
    _spec("wait_run_max_s", "largest run-queue wait", "s", "lower", _SRC6),
    _spec(
        "wait_out_mean_s",
        "mean output-queue wait, stage-out start - execution end (cores still held)",
        "s",
        "lower",
        _SRC6,
    ),
    _spec("wait_out_max_s", "largest output-queue wait", "s", "lower", _SRC6),
    _spec(
        "throughput_500s_mean",
        "completions per 500 s bin, mean over the bins (0,500], (500,1000], ... up to the "
        "makespan; each completion counted once",
        "count",
        "higher",
    ),
    _spec("throughput_500s_peak", "completions in the busiest 500 s bin", "count", "higher"),
    _spec(
        "throughput_500s_paper_mean",
        "paper-compatible completions per 500 s bin, mean: both bin ends included, +1 for a "
        "completion on a lower edge, +1 in the final bin",
        "count",
        "higher",
    ),
    _spec(
        "throughput_500s_paper_peak",
        "paper-compatible completions in the busiest 500 s bin",
        "count",
        "higher",
    ),
    _spec(
        "cpu_util_time_weighted",
        "1 - free cores / cores, sampled after every pass, time-weighted between the first and "
        "last event",
        "share",
        "higher",
        label="CPU",
    ),
    _spec("cpu_util_sample_mean", "plain mean of the CPU utilisation samples", "share", "higher"),
    _spec(
        "bb_util_time_weighted",
        "1 - free BB / BB, sampled after every pass, time-weighted between the first and last "
        "event; None without a burst buffer",
        "share",
        "higher",
        label="BB",
    ),
    _spec(
        "bb_util_sample_mean",
        "plain mean of the BB utilisation samples; None without a burst buffer",
        "share",
        "higher",
    ),
    _spec(
        "knapsack_solves",
        "per-queue knapsack decisions (one per non-empty knapsack queue per pass)",
        "count",
        "none",
    ),
    _spec("knapsack_time_s", "wall time of the knapsack solver calls", "s", "lower"),
    _spec(
        "core_overallocations",
        "starts that left the free-core count negative (units=floor rounds core units down)",
        "count",
        "lower",
        "Cerberus model note §5",
    ),
)


def _stat(values: np.ndarray, fn: Any) -> float | None:
    v = values[np.isfinite(values)]
    return float(fn(v)) if v.size else None


def throughput_clean(
    complete: np.ndarray, makespan: float, bin_s: float = THROUGHPUT_BIN_S
) -> np.ndarray:
    """Completions per bin (0, b], (b, 2b], … up to the first multiple of ``bin_s`` at or above
    ``makespan`` (module docstring); every completion in exactly one bin."""
    c = complete[np.isfinite(complete)]
    bins = max(1, math.ceil(makespan / bin_s))
    idx = np.clip(np.ceil(c / bin_s).astype(np.int64) - 1, 0, bins - 1)
    return np.bincount(idx, minlength=bins)


def throughput_paper(
    complete: np.ndarray, makespan: float, bin_s: float = THROUGHPUT_BIN_S
) -> np.ndarray:
    """Completions per bin as the published evaluation counted them (module docstring)."""
    c = np.sort(complete[np.isfinite(complete)])
    top = math.floor(makespan) + bin_s
    edges = np.arange(0.0, top, bin_s)  # multiples of bin_s below floor(makespan) + bin_s
    if edges.size < 2:
        return np.array([c.size + 1], dtype=np.int64)
    lo, hi = edges[:-1], edges[1:]
    counts = np.searchsorted(c, hi, side="right") - np.searchsorted(c, lo, side="left")
    on_lower = np.isin(lo, c)
    counts = counts + on_lower.astype(np.int64)
    counts[-1] += 1
    return counts.astype(np.int64)


def utilisation(t: np.ndarray, u: np.ndarray) -> tuple[float | None, float | None]:
    """(time-weighted mean, plain mean) of the samples ``u`` taken at ``t`` (module docstring)."""
    if u.size == 0:
        return None, None
    span = float(t[-1] - t[0])
    plain = float(u.mean())
    if span <= 0:
        return plain, plain
    weighted = float(np.sum(u[:-1] * np.diff(t)) / span)
    return weighted, plain


def compute_cerberus_metrics(
    result: CerberusResult, *, budget_s: float = DEFAULT_DEADLINE_S
) -> dict[str, Any]:
    """Every metric of :data:`CERBERUS_METRICS` plus the decision-latency statistics, as plain
    JSON-safe numbers (None where undefined)."""
    done = result.state == CerberusState.DONE
    complete = np.where(done, result.complete, np.nan)
    makespan = float(np.nanmax(complete)) if done.any() else None
    waits = result.waits()
    resp = np.where(done, result.response(), np.nan)
    out: dict[str, Any] = {
        "cerberus_jobs": len(result.workload),
        "cerberus_jobs_done": int(done.sum()),
        "cerberus_jobs_rejected": int((result.state == CerberusState.REJECTED).sum()),
        "cerberus_jobs_stuck": int((result.state == CerberusState.STUCK).sum()),
        "makespan_from_zero_s": makespan,
        "response_mean_s": _stat(resp, np.mean),
        "response_median_s": _stat(resp, np.median),
        "response_max_s": _stat(resp, np.max),
    }
    for key, col in (
        ("wait_total", "wait"),
        ("wait_in", "wait_in"),
        ("wait_run", "wait_run"),
        ("wait_out", "wait_out"),
    ):
        w = np.where(done, waits[col], np.nan)
        out[f"{key}_mean_s"] = _stat(w, np.mean)
        out[f"{key}_max_s"] = _stat(w, np.max)
    if makespan is not None:
        clean = throughput_clean(complete, makespan)
        paper = throughput_paper(complete, makespan)
        out.update(
            throughput_500s_mean=float(clean.mean()),
            throughput_500s_peak=int(clean.max()),
            throughput_500s_paper_mean=float(paper.mean()),
            throughput_500s_paper_peak=int(paper.max()),
        )
    else:
        out.update(
            throughput_500s_mean=None,
            throughput_500s_peak=None,
            throughput_500s_paper_mean=None,
            throughput_500s_paper_peak=None,
        )
    cpu_w, cpu_m = utilisation(result.sample_t, result.sample_cpu)
    out["cpu_util_time_weighted"], out["cpu_util_sample_mean"] = cpu_w, cpu_m
    if result.sample_bb is not None:
        bb_w, bb_m = utilisation(result.sample_t, result.sample_bb)
    else:
        bb_w = bb_m = None
    out["bb_util_time_weighted"], out["bb_util_sample_mean"] = bb_w, bb_m
    calls = [c for c in result.calls if c.called]
    out["knapsack_solves"] = len(result.calls)
    out["knapsack_time_s"] = float(sum(c.latency_s for c in calls))
    out["core_overallocations"] = int(result.counters.get("core_overallocations", 0))
    out.update(decision_latency_stats(np.array([c.latency_s for c in calls]), budget_s=budget_s))
    return out
