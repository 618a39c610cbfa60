"""Reports over the results store: leaderboards for the terminal and Markdown, and an HTML report.

Input is a list of row dicts as ``ResultStore.rows()`` returns them (bench/store.py). Nothing here
recomputes a metric: quality numbers are the per-cell records of ``bench.quality.decision_quality``
and ``simcore.metrics.compute_metrics`` that the runner stored, and the latency summaries come
from ``bench.quality.latency_stats`` (failures charged the budget).

Decision leaderboard (:func:`decision_leaderboard`)
    One row per solver id (or per (family, solver) with ``by_family=True``). A cell *failed* when
    its status is not an answer (``error``, or anything the runner wrote that is not one of
    optimal/feasible/timeout/infeasible), when it is a ``timeout`` that returned neither an
    objective vector nor a Pareto set (as ``bench.quality.is_failure``), or when the row carries
    an error text.

    Latency is measured wall time, and cells that ran next to others compete for the cores, so by
    default the latency columns use only the cells that ran alone (``concurrency == 1``). A
    solver with no such cell gets its latency from all its cells instead, and its
    ``latency_from`` column says ``concurrent (N)`` (N = the largest number of cells that ran at
    once, itself included; ``?`` when the store does not know). With ``alone_only=False`` all
    cells are used and the column says ``alone`` or ``mixed (N)``.

    Rows are ranked by quality, then latency:

    1. the share of failed cells (a solver that fails more ranks lower whatever it does on the
       cells it answered);
    2. the mean quality loss over the cells with an exact reference: the primal gap of M = 1
       cells and the IGD+ of M >= 2 cells (0 = exact; a solver without any scored cell last);
    3. the shifted geometric mean of the latency (``sgm_s``);
    4. the solver id, so the order is total.

Simulation leaderboard (:func:`simulation_leaderboard`)
    One row per (family, scenario = instance, solver/policy), averaging the runs (repetitions).
    ``kiviat_score`` is the mean of the Kiviat axes normalised within the scenario (see below);
    rows are sorted by family, scenario, then that score, best first.

Kiviat charts (BBSched Figures 13–14)
    Axes: node usage, BB usage, 1/avg wait, 1/avg slowdown, and SSD usage and 1/SSD waste when
    present. Each axis is normalised across the policies of a scenario to [0, 1] with 1 = best
    and 0 = worst: (v − min) / (max − min) of the (reciprocal) value; every policy gets 1 when all
    are equal. A zero wait, slowdown or waste has an infinite reciprocal: those policies get 1
    and the others 0 on that axis. An axis is drawn only when every policy of the scenario has a
    value for it (no burst buffer, no SSD: no such axis).

The HTML report (:func:`html_report`) is one self-contained file: plots are PNG images made with
matplotlib's Agg canvas and embedded as base64 ``<img>`` elements, each with an ``id``, a
``data-plot`` kind and alt text; a plot without data is replaced by a visible note
(``<p class="no-data" data-note=KIND>``). An inline script marks every image ``data-loaded`` once
the page has loaded, so a headless browser can check that they decode.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

from schedbench.bench._io import atomic_write_text
from schedbench.bench.quality import latency_stats
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.metrics import METRIC_DEFINITIONS
from schedbench.simcore.problem import DEFAULT_DEADLINE_S

__all__ = [
    "DECISION_COLUMNS",
    "PLOT_KINDS",
    "SIMULATION_COLUMNS",
    "TABLE_FORMATS",
    "ReportError",
    "cell_failed",
    "decision_leaderboard",
    "format_table",
    "html_report",
    "kiviat_axes",
    "markdown_report",
    "n_objectives",
    "reference_missing",
    "simulation_leaderboard",
]


class ReportError(SchedbenchError, ValueError):
    """A report cannot be made as asked (unknown table format, matplotlib missing, ...)."""


#: Table formats of :func:`format_table`: terminal, GitHub Markdown, HTML.
TABLE_FORMATS = ("simple", "github", "html")

#: ``data-plot`` kinds of the HTML report, in page order.
PLOT_KINDS = ("quality-latency", "latency-budget", "pareto", "kiviat")

#: Decision statuses that deliver an answer (``simcore.problem.Status`` values, less ``error``).
_ANSWER_STATUSES = frozenset({"optimal", "feasible", "timeout", "infeasible"})

#: Simulation statuses that mean the run did not complete; its metrics are left out.
_SIM_FAILED_STATUSES = frozenset({"error", "timeout", "aborted", "killed", "crashed", "failed"})

#: Decision leaderboard columns and what each holds.
DECISION_COLUMNS: dict[str, str] = {
    "family": "instance family (with by_family=True)",
    "solver": "solver id, parameters included",
    "cells": "decision cells of this solver",
    "failures": "cells that delivered no answer (error, timeout without an answer, runner error)",
    "primal_gap": "mean primal gap over M = 1 cells with an exact reference (Berthold 2013; "
    "a failure counts 1)",
    "igd_plus": "mean IGD+ over M >= 2 cells with an exact reference and an answer "
    "(Ishibuchi et al. 2015; normalised by the front's ideal and nadir)",
    "front_found": "mean share of the exact Pareto front found, M >= 2 cells (a failure counts 0)",
    "hv_ratio": "mean hypervolume ratio HV(answer) / HV(exact front), reference point 1.1, "
    "M >= 2 cells (a failure counts 0)",
    "ref_missing": "share of the cells whose exact reference is missing (not scored)",
    "latency_from": "which cells the latency columns use: 'alone' (concurrency 1), "
    "'concurrent (N)' (no alone cell; up to N cells at once) or 'mixed (N)' (alone_only=False)",
    "lat_n": "cells the latency columns use",
    "median_s": "median latency (s), failures charged the budget",
    "p95_s": "95th percentile of latency (s), failures charged the budget",
    "max_s": "largest latency (s), failures charged the budget",
    "within_budget": "share of cells answered within the budget",
    "sgm_s": "shifted geometric mean of latency, shift 1 s, failures charged the budget",
    "budget_s": "decision budget (s); 'mixed (a-b)' when the cells differ",
}

#: Simulation leaderboard columns that are not metrics of ``simcore.metrics``.
SIMULATION_COLUMNS: dict[str, str] = {
    "family": "scenario family",
    "scenario": "workload / scenario (the cell's instance)",
    "solver": "policy or solver id",
    "runs": "simulation cells (repetitions) of this policy on this scenario",
    "failures": "runs that did not complete; their metrics are left out of the means",
    "decisions": "total scheduling decisions with a recorded latency, over the runs",
    "decision_latency_median_s": "median over the runs of each run's median decision latency (s)",
    "kiviat_score": "mean of the normalised Kiviat axes in this scenario (1 = best on every axis)",
}

#: Simulation metrics averaged over runs, in column order (definitions in METRIC_DEFINITIONS).
_SIM_MEAN_METRICS = (
    "node_usage",
    "bb_usage",
    "ssd_usage",
    "ssd_waste",
    "wait_mean_s",
    "slowdown_mean",
    "bounded_slowdown_mean",
)
_SSD_METRICS = ("ssd_usage", "ssd_waste")

#: Kiviat axes: (label, metric, True when the reciprocal is plotted).
_KIVIAT_AXES: tuple[tuple[str, str, bool], ...] = (
    ("node usage", "node_usage", False),
    ("BB usage", "bb_usage", False),
    ("1/avg wait", "wait_mean_s", True),
    ("1/avg slowdown", "slowdown_mean", True),
    ("SSD usage", "ssd_usage", False),
    ("1/SSD waste", "ssd_waste", True),
)


# ---------------------------------------------------------------------------------------------
# Reading rows
# ---------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (missing, null, bool, text, NaN, infinity)."""
    if value is None or isinstance(value, bool | str):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else None


def _decision(row: Mapping[str, Any]) -> Mapping[str, Any]:
    d = row.get("decision")
    return d if isinstance(d, Mapping) else {}


def _metrics(row: Mapping[str, Any]) -> Mapping[str, Any]:
    m = row.get("metrics")
    return m if isinstance(m, Mapping) else {}


def cell_failed(row: Mapping[str, Any]) -> bool:
    """True when a decision cell delivered no answer (see the module docstring)."""
    if row.get("error"):
        return True
    status = str(row.get("status") or "")
    if status not in _ANSWER_STATUSES:
        return True
    if status == "timeout":
        d = _decision(row)
        return not d.get("objectives") and not d.get("pareto")
    return False


def failed_cells(
    rows: Iterable[Mapping[str, Any]], width: int | None = 100
) -> list[dict[str, Any]]:
    """Cells that produced no usable result, with the reason (the ``error`` column, else the
    decision's notes, else the status), for the table under a leaderboard. ``width`` cuts the
    reason to one terminal line (None: whole)."""
    out = []
    for r in rows:
        failed = cell_failed(r) if r.get("kind") == "decision" else r.get("status") != "completed"
        if not failed:
            continue
        reason = str(r.get("error") or "").strip()
        if not reason:
            notes = _decision(r).get("notes") or []
            reason = "; ".join(map(str, notes)) or f"status {r.get('status')}"
        reason = " ".join(reason.split())  # one line: tracebacks and newlines folded
        if width is not None and len(reason) > width:
            reason = reason[: width - 1] + "…"
        out.append(
            {
                "solver": r.get("solver"),
                "family": r.get("family"),
                "instance": r.get("instance"),
                "rep": r.get("repetition"),
                "status": r.get("status"),
                "reason": reason,
            }
        )
    return out


def n_objectives(row: Mapping[str, Any]) -> int | None:
    """M of a decision cell: from its metrics, else its decision, else which metrics it has."""
    m = _number(_metrics(row).get("n_objectives"))
    if m is not None:
        return int(m)
    d = _decision(row)
    for key in ("objective_names", "objectives"):
        if d.get(key):
            return len(d[key])
    if d.get("pareto"):
        return len(d["pareto"][0].get("objectives") or []) or None
    if d.get("reference_pareto"):
        return len(d["reference_pareto"][0])
    metrics = _metrics(row)
    if "primal_gap" in metrics:
        return 1
    if "igd_plus" in metrics or "hv_ratio" in metrics:
        return 2
    return None


def reference_missing(row: Mapping[str, Any]) -> bool:
    """True when the cell was not scored against an exact reference.

    ``metrics["reference"] == "missing"`` when the runner kept that text; otherwise a decision
    whose ``reference_pareto`` is null; otherwise (neither recorded) when every quality metric is
    null, which ``decision_quality`` only does without a reference.
    """
    metrics = _metrics(row)
    reference = metrics.get("reference")
    if isinstance(reference, str):
        return reference == "missing"
    d = _decision(row)
    if "reference_pareto" in d:
        return not d["reference_pareto"]
    keys = ("primal_gap",) if n_objectives(row) == 1 else ("igd_plus", "hv_ratio", "front_found")
    return all(_number(metrics.get(k)) is None for k in keys)


def _budget(row: Mapping[str, Any]) -> float:
    b = _number(row.get("budget_s"))
    return b if b is not None and b > 0 else DEFAULT_DEADLINE_S


def _latency(row: Mapping[str, Any]) -> float | None:
    lat = _number(row.get("latency_s"))
    return lat if lat is not None else _number(_decision(row).get("latency_s"))


def _concurrency(row: Mapping[str, Any]) -> int | None:
    c = _number(row.get("concurrency"))
    return None if c is None else int(c)


def _charged(row: Mapping[str, Any]) -> float | None:
    """The latency a cell counts with: a failure is charged at least its budget."""
    lat = _latency(row)
    if cell_failed(row):
        return _budget(row) if lat is None else max(lat, _budget(row))
    return lat


# ---------------------------------------------------------------------------------------------
# Decision leaderboard
# ---------------------------------------------------------------------------------------------


def _latency_rows(
    rows: Sequence[Mapping[str, Any]], alone_only: bool
) -> tuple[list[Mapping[str, Any]], str]:
    """The cells whose latency is summarised, and the ``latency_from`` label."""

    def most(cells: Iterable[Mapping[str, Any]]) -> str:
        known = [c for c in (_concurrency(r) for r in cells) if c is not None]
        return str(max(known)) if known else "?"

    alone = [r for r in rows if _concurrency(r) == 1]
    if alone_only:
        if alone:
            return alone, "alone"
        return list(rows), f"concurrent ({most(rows)})"
    if len(alone) == len(rows):
        return list(rows), "alone"
    return list(rows), f"mixed ({most(rows)})"


def _latency_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``latency_stats`` over the cells with a measured latency (or a failure)."""
    used = [r for r in rows if cell_failed(r) or _latency(r) is not None]
    budgets = sorted({_budget(r) for r in used})
    empty = {"lat_n": 0, "median_s": None, "p95_s": None, "max_s": None}
    empty |= {"within_budget": None, "sgm_s": None, "budget_s": None}
    if not used:
        return empty
    failed = [cell_failed(r) for r in used]
    if len(budgets) == 1:
        lat = [math.nan if (x := _latency(r)) is None else x for r in used]
        stats = latency_stats(lat, budgets[0], failed=failed)
        budget: Any = budgets[0]
    else:
        # latency_stats takes one budget: charge each failure its own budget first, then pass
        # every cell as answered (nothing is charged twice) and count "within budget" per cell.
        charged = [math.nan if (x := _charged(r)) is None else x for r in used]
        stats = latency_stats(charged, budgets[-1])
        within = [
            not f and (_latency(r) or 0.0) <= _budget(r) for r, f in zip(used, failed, strict=True)
        ]
        stats["share_within_budget"] = float(np.mean(within))
        budget = f"mixed ({budgets[0]:g}-{budgets[-1]:g})"
    return {
        "lat_n": stats["decisions"],
        "median_s": stats["median_s"],
        "p95_s": stats["p95_s"],
        "max_s": stats["max_s"],
        "within_budget": stats["share_within_budget"],
        "sgm_s": stats["sgm_s"],
        "budget_s": budget,
    }


def _quality_loss(rows: Sequence[Mapping[str, Any]]) -> float:
    """Mean primal gap (M = 1) / IGD+ (M >= 2) over scored cells; inf without any."""
    losses = []
    for r in rows:
        if reference_missing(r):
            continue
        metrics = _metrics(r)
        if n_objectives(r) == 1:
            gap = _number(metrics.get("primal_gap"))
            losses.append(1.0 if gap is None and cell_failed(r) else gap)
        else:
            losses.append(_number(metrics.get("igd_plus")))
    kept = [v for v in losses if v is not None]
    return float(np.mean(kept)) if kept else math.inf


def _decision_entry(rows: Sequence[Mapping[str, Any]], alone_only: bool) -> dict[str, Any]:
    scored = [r for r in rows if not reference_missing(r)]
    single = [r for r in scored if n_objectives(r) == 1]
    multi = [r for r in scored if (n_objectives(r) or 0) >= 2]

    def mean_of(cells: Sequence[Mapping[str, Any]], key: str, failed_value: float | None) -> Any:
        values = []
        for r in cells:
            v = _number(_metrics(r).get(key))
            values.append(failed_value if v is None and cell_failed(r) else v)
        return _mean(values)

    lat_rows, latency_from = _latency_rows(rows, alone_only)
    entry: dict[str, Any] = {
        "cells": len(rows),
        "failures": sum(cell_failed(r) for r in rows),
        "primal_gap": mean_of(single, "primal_gap", 1.0),
        "igd_plus": mean_of(multi, "igd_plus", None),
        "front_found": mean_of(multi, "front_found", 0.0),
        "hv_ratio": mean_of(multi, "hv_ratio", 0.0),
        "ref_missing": (len(rows) - len(scored)) / len(rows) if rows else None,
        "latency_from": latency_from,
    }
    entry.update(_latency_summary(lat_rows))
    return entry


def decision_leaderboard(
    rows: Iterable[Mapping[str, Any]], *, alone_only: bool = True, by_family: bool = False
) -> list[dict[str, Any]]:
    """One row per solver (per (family, solver) with ``by_family``) over the decision cells.

    Columns: see :data:`DECISION_COLUMNS`; order: the module docstring (failure share, quality
    loss, SGM latency, solver id; by family first with ``by_family``). Simulation rows are
    ignored.
    """
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("kind") != "decision":
            continue
        family = str(r.get("family") or "") if by_family else ""
        groups[(family, str(r.get("solver")))].append(r)

    ranked = []
    for (family, solver), cells in groups.items():
        entry = _decision_entry(cells, alone_only)
        sgm = entry["sgm_s"] if entry["sgm_s"] is not None else math.inf
        key = (family, entry["failures"] / len(cells), _quality_loss(cells), sgm, solver)
        head = {"family": family or None, "solver": solver} if by_family else {"solver": solver}
        ranked.append((key, head | entry))
    ranked.sort(key=lambda item: item[0])
    return [entry for _, entry in ranked]


# ---------------------------------------------------------------------------------------------
# Simulation leaderboard and Kiviat normalisation
# ---------------------------------------------------------------------------------------------


def _sim_failed(row: Mapping[str, Any]) -> bool:
    return bool(row.get("error")) or str(row.get("status") or "") in _SIM_FAILED_STATUSES


def _scenario(row: Mapping[str, Any]) -> str:
    return str(row.get("instance") or row.get("family") or "")


def _normalise(values: Sequence[float]) -> list[float]:
    """Min-max to [0, 1] of higher-is-better values (which may be +inf); all equal -> all 1."""
    if any(math.isinf(v) for v in values):
        return [1.0 if math.isinf(v) else 0.0 for v in values]
    lo, hi = min(values), max(values)
    if hi == lo:
        return [1.0] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


def kiviat_axes(
    entries: Sequence[Mapping[str, Any]],
) -> tuple[list[str], dict[str, list[float]]]:
    """Kiviat axes of one scenario: (axis labels, {solver: values in [0, 1], 1 = best}).

    ``entries`` are simulation leaderboard rows of one scenario (one per policy). See the module
    docstring for the axes and the normalisation; an axis some policy has no value for is left
    out.
    """
    labels: list[str] = []
    columns: list[list[float]] = []
    for label, metric, reciprocal in _KIVIAT_AXES:
        raw = [_number(e.get(metric)) for e in entries]
        present = [v for v in raw if v is not None]
        if not entries or len(present) < len(raw):
            continue
        values = [math.inf if v == 0 else 1.0 / v for v in present] if reciprocal else present
        labels.append(label)
        columns.append(_normalise(values))
    by_solver = {str(e["solver"]): [column[i] for column in columns] for i, e in enumerate(entries)}
    return labels, by_solver


def simulation_leaderboard(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (family, scenario, solver/policy) over the simulation cells.

    Metric columns are means over the completed runs (repetitions); ``ssd_usage`` and
    ``ssd_waste`` appear only when some run has them. Columns: :data:`SIMULATION_COLUMNS` and the
    metrics of ``simcore.metrics.METRIC_DEFINITIONS``; order: module docstring.
    """
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("kind") == "simulation":
            key = (str(r.get("family") or ""), _scenario(r), str(r.get("solver")))
            groups[key].append(r)
    with_ssd = any(
        _number(_metrics(r).get(m)) is not None
        for g in groups.values()
        for r in g
        for m in _SSD_METRICS
    )
    metrics = [m for m in _SIM_MEAN_METRICS if with_ssd or m not in _SSD_METRICS]

    entries: list[dict[str, Any]] = []
    for (family, scenario, solver), runs in groups.items():
        done = [r for r in runs if not _sim_failed(r)]
        entry: dict[str, Any] = {
            "family": family or None,
            "scenario": scenario or None,
            "solver": solver,
            "runs": len(runs),
            "failures": len(runs) - len(done),
        }
        for m in metrics:
            entry[m] = _mean(_number(_metrics(r).get(m)) for r in done)
        decisions = [_number(_metrics(r).get("decisions")) for r in done]
        known = [d for d in decisions if d is not None]
        entry["decisions"] = int(sum(known)) if known else None
        medians = [_number(_metrics(r).get("decision_latency_median_s")) for r in done]
        kept = [v for v in medians if v is not None]
        entry["decision_latency_median_s"] = float(np.median(kept)) if kept else None
        entries.append(entry)

    by_scenario: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_scenario[(e["family"] or "", e["scenario"] or "")].append(e)
    for group in by_scenario.values():
        labels, values = kiviat_axes(group)
        for e in group:
            e["kiviat_score"] = float(np.mean(values[e["solver"]])) if labels else None
    entries.sort(
        key=lambda e: (
            e["family"] or "",
            e["scenario"] or "",
            -(e["kiviat_score"] if e["kiviat_score"] is not None else -math.inf),
            e["solver"],
        )
    )
    return entries


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


def _fmt_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:.0f}"
        return f"{value:.4g}" if abs(value) >= 1 else f"{value:.3g}"
    return str(value)


def format_table(rows: Sequence[Mapping[str, Any]], fmt: str = "simple") -> str:
    """``rows`` (dicts with the same keys, e.g. a leaderboard) as a table.

    ``fmt``: ``"simple"`` (terminal), ``"github"`` (Markdown) or ``"html"``. Numbers are shown
    with 3–4 significant digits, missing values as ``-``. No rows gives ``"(no rows)"``.
    """
    if fmt not in TABLE_FORMATS:
        raise ReportError(f"fmt: expected one of {', '.join(TABLE_FORMATS)}, got {fmt!r}")
    if not rows:
        return "(no rows)"
    headers: list[str] = []
    for r in rows:
        headers.extend(k for k in r if k not in headers)
    numeric = [
        all(
            r.get(h) is None
            or (isinstance(r.get(h), int | float) and not isinstance(r.get(h), bool))
            for r in rows
        )
        for h in headers
    ]
    body = [[_fmt_cell(r.get(h)) for h in headers] for r in rows]
    return tabulate(
        body,
        headers=headers,
        tablefmt=fmt,
        disable_numparse=True,
        colalign=["right" if n else "left" for n in numeric],
    )


def _definitions_markdown() -> str:
    lines = ["### Decision leaderboard columns", ""]
    lines += [f"- `{k}`: {v}" for k, v in DECISION_COLUMNS.items()]
    lines += ["", "### Simulation leaderboard columns", ""]
    for key in ("family", "scenario", "solver", "runs", "failures", *_SIM_MEAN_METRICS):
        text = SIMULATION_COLUMNS.get(key) or METRIC_DEFINITIONS[key]
        suffix = "; mean over the completed runs" if key in _SIM_MEAN_METRICS else ""
        lines.append(f"- `{key}`: {text}{suffix}")
    for key in ("decisions", "decision_latency_median_s", "kiviat_score"):
        lines.append(f"- `{key}`: {SIMULATION_COLUMNS[key]}")
    return "\n".join(lines)


_RANKING_NOTE = (
    "Ranked by the share of failed cells, then the mean quality loss (primal gap of M = 1 cells, "
    "IGD+ of M >= 2 cells; 0 = exact), then the shifted geometric mean latency. Latency columns "
    "use only the cells that ran alone (latency_from says otherwise when a solver has none); "
    "failures are charged the budget."
)


def markdown_report(
    store_rows: Iterable[Mapping[str, Any]], *, title: str = "schedbench report"
) -> str:
    """A Markdown report: both leaderboards (decision also by family) and the metric definitions."""
    rows = list(store_rows)
    n_dec = sum(r.get("kind") == "decision" for r in rows)
    n_sim = sum(r.get("kind") == "simulation" for r in rows)
    parts = [f"# {title}", "", f"{n_dec} decision cells, {n_sim} simulation cells.", ""]
    parts += ["## Decision leaderboard", ""]
    if n_dec:
        parts += [_RANKING_NOTE, "", format_table(decision_leaderboard(rows), "github"), ""]
        parts += ["### By family", ""]
        parts += [format_table(decision_leaderboard(rows, by_family=True), "github"), ""]
    else:
        parts += ["_No decision cells._", ""]
    parts += ["## Simulation leaderboard", ""]
    if n_sim:
        parts += [format_table(simulation_leaderboard(rows), "github"), ""]
    else:
        parts += ["_No simulation cells._", ""]
    parts += ["## Metric definitions", "", _definitions_markdown(), ""]
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Plots (matplotlib, Agg canvas; no pyplot global state)
# ---------------------------------------------------------------------------------------------


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is a dependency of reports
        raise ReportError("the HTML report needs matplotlib: pip install matplotlib") from exc
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _matplotlib_at_least(major: int, minor: int) -> bool:
    try:
        from matplotlib import __version__
    except ImportError:  # pragma: no cover
        return False
    found = tuple(int(x) for x in re.findall(r"\d+", __version__)[:2])
    return found >= (major, minor)


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _rows_of_m(rows: Sequence[Mapping[str, Any]], multi: bool) -> list[Mapping[str, Any]]:
    return [
        r for r in rows if r.get("kind") == "decision" and ((n_objectives(r) or 0) >= 2) == multi
    ]


def _plot_quality_latency(rows: Sequence[Mapping[str, Any]]) -> tuple[bytes, str] | None:
    """Mean quality loss against median latency, one labelled point per solver."""
    panels = []
    for multi, key, label in (
        (False, "primal_gap", "mean primal gap (M = 1)"),
        (True, "igd_plus", "mean IGD+ (M >= 2)"),
    ):
        board = decision_leaderboard(_rows_of_m(rows, multi))
        points = [
            (max(e["median_s"], 1e-6), e[key], e["solver"])
            for e in board
            if e["median_s"] is not None and e[key] is not None
        ]
        if points:
            panels.append((label, points))
    if not panels:
        return None
    fig = _figure(6.0 * len(panels), 4.5)
    for i, (label, points) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        xs, ys, _names = zip(*points, strict=True)
        ax.scatter(xs, ys, s=36, color="tab:blue", zorder=3)
        for x, y, name in points:
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("median latency (s, log scale)")
        ax.set_ylabel(label + " (lower is better)")
        ax.set_title(label)
        ax.grid(True, which="both", alpha=0.3)
        top = max(ys)
        ax.set_ylim(-0.05 * (top or 1.0), (top or 1.0) * 1.15)
    alt = "Quality against median latency per solver: " + "; ".join(
        f"{label}: " + ", ".join(f"{n} ({y:.3g} at {x:.3g} s)" for x, y, n in points)
        for label, points in panels
    )
    return _png(fig), alt


def _plot_latency_budget(rows: Sequence[Mapping[str, Any]]) -> tuple[bytes, str] | None:
    """Box plot per solver of the charged latencies, with the budget as a vertical line."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("kind") == "decision":
            groups[str(r.get("solver"))].append(r)
    series = []
    for solver in sorted(groups):
        used, source = _latency_rows(groups[solver], alone_only=True)
        values = [v for v in (_charged(r) for r in used) if v is not None]
        if values:
            series.append((f"{solver} [{source}]", [max(v, 1e-6) for v in values]))
    if not series:
        return None
    budgets = sorted({_budget(r) for g in groups.values() for r in g})
    fig = _figure(7.5, 1.2 + 0.45 * len(series))
    mpl_310 = _matplotlib_at_least(3, 10)
    ax = fig.add_subplot(1, 1, 1)
    # ``orientation`` replaced ``vert`` in matplotlib 3.10 (``vert`` warns from 3.11 on).
    horizontal = {"orientation": "horizontal"} if mpl_310 else {"vert": False}
    ax.boxplot([v for _, v in series], widths=0.6, **horizontal)
    ax.set_yticks(range(1, len(series) + 1), [name for name, _ in series], fontsize=8)
    for b in budgets:
        ax.axvline(b, color="tab:red", linestyle="--", linewidth=1.2, label=f"budget {b:g} s")
    ax.invert_yaxis()  # first solver (alphabetically) on top
    ax.set_xscale("log")
    ax.set_xlabel("latency (s, log scale; failures charged the budget)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    alt = "Latency distribution per solver against the budget ({}): {}".format(
        ", ".join(f"{b:g} s" for b in budgets),
        "; ".join(f"{name} median {float(np.median(v)):.3g} s" for name, v in series),
    )
    return _png(fig), alt


def _pareto_points(decision: Mapping[str, Any]) -> list[list[float]]:
    points = [p.get("objectives") for p in decision.get("pareto") or []]
    if not points and decision.get("objectives"):
        points = [decision["objectives"]]
    return [list(map(float, p)) for p in points if p and len(p) == 2]


def _pareto_instances(
    rows: Sequence[Mapping[str, Any]], limit: int
) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Up to ``limit`` M = 2 instances with an exact front, sorted by (family, instance)."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("kind") == "decision" and n_objectives(r) == 2:
            name = str(r.get("instance") or r.get("instance_hash") or "")
            groups[(str(r.get("family") or ""), name)].append(r)
    chosen = []
    for (family, name), cells in sorted(groups.items()):
        if any(_decision(r).get("reference_pareto") for r in cells):
            chosen.append((f"{family}/{name}" if family else name, cells))
        if len(chosen) == limit:
            break
    return chosen


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _plot_pareto(name: str, cells: Sequence[Mapping[str, Any]]) -> tuple[bytes, str]:
    """The exact front as a line with markers, and each solver's Pareto set (its first
    repetition) as markers."""
    reference = next(
        _decision(r)["reference_pareto"] for r in cells if _decision(r).get("reference_pareto")
    )
    exact = sorted((float(p[0]), float(p[1])) for p in reference)
    names = next(
        (_decision(r).get("objective_names") for r in cells if _decision(r).get("objective_names")),
        None,
    )
    first: dict[str, Mapping[str, Any]] = {}
    for r in sorted(cells, key=lambda r: (r.get("repetition") or 0, r.get("id") or 0)):
        first.setdefault(str(r.get("solver")), r)
    fig = _figure(6.0, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(
        *zip(*exact, strict=True),
        "k-",
        marker="o",
        markersize=7,
        linewidth=1.2,
        label="exact front",
        zorder=2,
    )
    found = []
    for i, solver in enumerate(sorted(first)):
        points = _pareto_points(_decision(first[solver]))
        found.append(f"{solver}: {len(points)} points")
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(
                xs, ys, marker=_MARKERS[i % len(_MARKERS)], s=28, alpha=0.8, label=solver, zorder=3
            )
    ax.set_xlabel(str(names[0]) if names else "objective 1 (maximised)")
    ax.set_ylabel(str(names[1]) if names and len(names) > 1 else "objective 2 (maximised)")
    ax.set_title(name)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    alt = f"Pareto sets on {name} over the exact front of {len(exact)} points; " + ", ".join(found)
    return _png(fig), alt


def _plot_kiviat(
    scenario: str, labels: Sequence[str], values: Mapping[str, Sequence[float]]
) -> tuple[bytes, str]:
    """A Kiviat (radar) chart: one closed polygon per policy over the normalised axes."""
    angles = np.linspace(0.0, 2.0 * math.pi, len(labels), endpoint=False)
    closed = np.append(angles, angles[0])
    fig = _figure(5.5, 5.5)
    ax = fig.add_subplot(1, 1, 1, projection="polar")
    for solver, v in values.items():
        ring = np.append(np.asarray(v, dtype=float), v[0])
        # Markers keep a policy that is worst on every axis (all zeros) visible at the centre.
        ax.plot(closed, ring, linewidth=1.4, marker="o", markersize=4, label=solver)
        ax.fill(closed, ring, alpha=0.08)
    ax.set_xticks(angles, list(labels), fontsize=8)
    ax.tick_params(axis="x", pad=10)  # keep the axis names off the outer ring
    for text, angle in zip(ax.get_xticklabels(), angles, strict=True):
        c = math.cos(angle)
        text.set_horizontalalignment("left" if c > 0.1 else "right" if c < -0.1 else "center")
    ax.set_ylim(0.0, 1.05)
    ax.set_rlabel_position(math.degrees(angles[1]) / 2 if len(angles) > 1 else 0.0)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["", "0.5", "", "1"], fontsize=7)
    ax.set_title(scenario, pad=18)
    ax.legend(loc="upper right", bbox_to_anchor=(1.35, 1.12), fontsize=8)
    alt = f"Kiviat chart of {scenario} over {', '.join(labels)} (1 = best): " + "; ".join(
        f"{solver} area score {float(np.mean(v)):.2f}" for solver, v in values.items()
    )
    return _png(fig), alt


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
th { background: #f2f2f2; }
figure { display: inline-block; margin: 0.5em 1em 1em 0; vertical-align: top; }
figcaption { font-size: 0.8em; color: #555; max-width: 600px; }
.no-data { background: #fff6d6; border-left: 4px solid #e0b400; padding: 0.5em 1em; }
code { background: #f4f4f4; padding: 0 0.2em; }
.table-wrap { overflow-x: auto; max-width: 100%; }
td { white-space: nowrap; }
"""

# Marks every plot once the page has loaded, so a headless browser's DOM dump shows whether the
# embedded images decoded (naturalWidth > 0).
_LOAD_SCRIPT = """
window.addEventListener("load", function () {
  document.querySelectorAll("img[data-plot]").forEach(function (img) {
    img.setAttribute("data-natural-width", String(img.naturalWidth));
    img.setAttribute("data-loaded", img.complete && img.naturalWidth > 0 ? "1" : "0");
  });
  document.body.setAttribute("data-report-ready", "1");
});
"""


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower()[:60] or "x"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _img(plot_id: str, kind: str, png: bytes, alt: str, caption: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure><img id="{html.escape(plot_id)}" data-plot="{kind}" '
        f'alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _note(kind: str, text: str) -> str:
    return f'<p class="no-data" data-note="{kind}">{html.escape(text)}</p>'


def _section(section_id: str, heading: str, body: str, intro: str = "") -> str:
    intro_html = f"<p>{html.escape(intro)}</p>" if intro else ""
    return f'<section id="{section_id}"><h2>{html.escape(heading)}</h2>{intro_html}{body}</section>'


def _table_html(rows: Sequence[Mapping[str, Any]]) -> str:
    return f'<div class="table-wrap">{format_table(rows, "html")}</div>'


def _definitions_html() -> str:
    def items(pairs: Iterable[tuple[str, str]]) -> str:
        return "".join(
            f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>" for k, v in pairs
        )

    sim = [
        (k, SIMULATION_COLUMNS.get(k) or METRIC_DEFINITIONS[k])
        for k in (
            "runs",
            "failures",
            *_SIM_MEAN_METRICS,
            "decisions",
            "decision_latency_median_s",
            "kiviat_score",
        )
    ]
    return (
        "<h3>Decision leaderboard</h3><ul>"
        + items(DECISION_COLUMNS.items())
        + "</ul><h3>Simulation leaderboard</h3><ul>"
        + items(sim)
        + "</ul>"
    )


def _plot_or_note(
    make: Callable[[], tuple[bytes, str] | None], plot_id: str, kind: str, caption: str, note: str
) -> str:
    made = make()
    return _img(plot_id, kind, made[0], made[1], caption) if made else _note(kind, note)


def html_report(
    rows: Iterable[Mapping[str, Any]],
    out_path: str | os.PathLike[str],
    *,
    title: str = "schedbench report",
    pareto_instances: int = 4,
) -> Path:
    """Write the HTML report of ``rows`` to ``out_path`` (atomically) and return its path.

    Sections: the leaderboards as tables, quality against latency (``id="plot-quality-latency"``),
    latency against the budget (``id="plot-latency-budget"``), the Pareto sets of up to
    ``pareto_instances`` M = 2 instances over their exact front (``id="plot-pareto-<slug>"``),
    one Kiviat chart per simulation scenario (``id="plot-kiviat-<slug>"``), and the metric
    definitions. Every image has ``data-plot`` set to its kind (:data:`PLOT_KINDS`).
    """
    rows = list(rows)
    out = Path(out_path)
    decision_rows = [r for r in rows if r.get("kind") == "decision"]
    sim_rows = [r for r in rows if r.get("kind") == "simulation"]
    taken: set[str] = set()

    tables = "<h3>Decision leaderboard</h3>"
    if decision_rows:
        tables += f"<p>{html.escape(_RANKING_NOTE)}</p>"
        tables += _table_html(decision_leaderboard(decision_rows))
        tables += "<h3>Decision leaderboard by family</h3>"
        tables += _table_html(decision_leaderboard(decision_rows, by_family=True))
    else:
        tables += _note("table-decision", "No decision cells in the store.")
    tables += "<h3>Simulation leaderboard</h3>"
    sim_board = simulation_leaderboard(sim_rows)
    if sim_board:
        tables += _table_html(sim_board)
    else:
        tables += _note("table-simulation", "No simulation cells in the store.")

    failures = failed_cells(rows, width=None)
    tables += "<h3>Failed cells</h3>"
    if failures:
        tables += _table_html(failures)
    else:
        tables += _note("table-failed", "No failed cells.")

    quality = _plot_or_note(
        lambda: _plot_quality_latency(decision_rows),
        "plot-quality-latency",
        "quality-latency",
        "One point per solver: x = median latency of its cells (log), y = its mean quality loss.",
        "No decision cell with both a latency and an exact reference: no quality/latency plot.",
    )
    latency = _plot_or_note(
        lambda: _plot_latency_budget(decision_rows),
        "plot-latency-budget",
        "latency-budget",
        "Latency per solver (cells that ran alone when there are any; the label says which), "
        "failures charged the budget; dashed line: the budget.",
        "No decision cell with a latency: no latency plot.",
    )

    chosen = _pareto_instances(decision_rows, pareto_instances)
    if chosen:
        pareto = ""
        for name, cells in chosen:
            png, alt = _plot_pareto(name, cells)
            plot_id = "plot-pareto-" + _slug(name, taken)
            pareto += _img(plot_id, "pareto", png, alt, f"{name}: first repetition of each solver")
    else:
        pareto = _note("pareto", "No M = 2 decision cell with an exact front: no Pareto plots.")

    kiviat = ""
    scenarios: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in sim_board:
        scenarios[(e["family"] or "", e["scenario"] or "")].append(e)
    for (family, scenario), group in scenarios.items():
        name = f"{family}/{scenario}" if family and family != scenario else scenario
        labels, values = kiviat_axes(group)
        if len(labels) < 3:
            kiviat += _note("kiviat", f"{name}: fewer than 3 metrics every policy has; no chart.")
            continue
        png, alt = _plot_kiviat(name, labels, values)
        plot_id = "plot-kiviat-" + _slug(name, taken)
        kiviat += _img(
            plot_id,
            "kiviat",
            png,
            alt,
            f"{name}: each axis normalised 0-1 across policies, 1 = best",
        )
    if not scenarios:
        kiviat = _note("kiviat", "No simulation cells: no Kiviat charts.")

    body = "".join(
        [
            f"<h1>{html.escape(title)}</h1>",
            f"<p>{len(decision_rows)} decision cells, {len(sim_rows)} simulation cells.</p>",
            _section("section-leaderboards", "Leaderboards", tables),
            _section("section-quality-latency", "Quality against latency", quality),
            _section("section-latency-budget", "Latency against the budget", latency),
            _section("section-pareto", "Pareto fronts against the exact front", pareto),
            _section(
                "section-kiviat",
                "Simulation: Kiviat charts (BBSched Figures 13-14)",
                kiviat,
                "Axes: node usage, BB usage, 1/avg wait, 1/avg slowdown (SSD usage and 1/SSD "
                "waste when present), each normalised 0-1 across the policies of the scenario.",
            ),
            _section("section-definitions", "Metric definitions", _definitions_html()),
        ]
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n"
        f"<body>{body}<script>{_LOAD_SCRIPT}</script></body></html>\n"
    )
    atomic_write_text(out, page)
    return out
