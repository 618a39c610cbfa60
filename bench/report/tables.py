"""Leaderboards over the results store, for the terminal and Markdown.

Input is a list of row dicts as ``ResultStore.rows()`` returns them (bench/store/sqlite.py). Nothing
here recomputes a metric: quality numbers are the per-cell records of
``bench.quality.decision_quality`` and ``simcore.metrics.compute_metrics`` that the runner stored,
and the latency summaries come from ``bench.quality.latency_stats`` (failures charged the budget).

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
    ``vs_baseline`` is the mean of the Kiviat axes (below): 1 = as the scenario's baseline,
    above 1 better; rows are sorted by family, scenario, then that value, best first.

Kiviat charts (BBSched Figures 13–14), on a fixed scale
    Axes: each simulation core's (``SimulationCore.kiviat``: BBSched's node usage, BB usage, avg
    wait, avg slowdown, SSD usage and waste; the other cores' own), those every policy of the
    scenario has. Each axis is the policy's value as a ratio to the scenario's *baseline*
    policy — its core's (``SimulationCore.baseline``: ``naive``, ...) when the scenario ran it,
    else the first policy by name —
    oriented so that above 1 is better: v / v_base for usage, v_base / v for wait, slowdown and
    waste. The scale is fixed, 0 to :data:`KIVIAT_MAX` (= 2, twice as good; values beyond are
    drawn at the rim), and the baseline is the unit circle, so a 1 % difference looks like 1 %:
    min–max normalisation over the policies shown (what the report did before) made any
    difference fill the whole axis. A zero wait (slowdown, waste) against a positive baseline
    counts as the rim; a positive one against a zero baseline as 0; both zero as 1. An axis is
    drawn only when every policy has a value and the baseline's usage value is positive.

The HTML report is in ``html.py``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from tabulate import tabulate

from schedbench.bench.store.records import row_failed
from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.indicators import latency_stats
from schedbench.simcore.problem import DEFAULT_DEADLINE_S


class ReportError(SchedbenchError, ValueError):
    """A report cannot be made as asked (unknown table format, matplotlib missing, ...)."""


#: Table formats of :func:`format_table`: terminal, GitHub Markdown, HTML.
TABLE_FORMATS = ("simple", "github", "html")

#: ``data-plot`` kinds of the HTML report, in page order.
PLOT_KINDS = ("quality-latency", "latency-budget", "pareto", "kiviat", "gantt", "usage")

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
    "objective_gap": "mean objective gap of the cells of other kinds (placement, reservation, "
    "plug-ins) with an exact reference (a failure counts 1)",
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
    "vs_baseline": "mean ratio to the scenario's baseline policy over the Kiviat axes "
    "(1 = as the baseline, above 1 better; fixed scale 0-2)",
}


def _cores() -> list[Any]:
    from schedbench.simcore.core import cores

    return cores()


def sim_mean_metrics() -> tuple[str, ...]:
    """Simulation metrics averaged over runs, in column order: every simulation core's
    ``leaderboard`` metrics (``simcore/core.py``), cores in name order; a column appears when
    some run has it."""
    return tuple(dict.fromkeys(m for core in _cores() for m in core.leaderboard))


def kiviat_axes_all() -> tuple[tuple[str, str, bool], ...]:
    """Kiviat axes: (label, metric, True when lower is better: the ratio is baseline / value),
    every core's (``SimulationCore.kiviat``); an axis is drawn when every policy has it."""
    axes: dict[str, tuple[str, str, bool]] = {}
    for core in _cores():
        for axis in core.kiviat:
            axes.setdefault(axis[1], axis)
    return tuple(axes.values())


#: The rim of the Kiviat charts: twice as good as the baseline.
KIVIAT_MAX = 2.0


def metric_definition(name: str) -> str:
    """The catalogue's one-line definition of a metric (``simcore/catalogue.py``)."""
    spec = catalogue().get(name)
    return spec.definition if spec is not None else name


# ---------------------------------------------------------------------------------------------
# Reading rows
# ---------------------------------------------------------------------------------------------


def number(value: Any) -> float | None:
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


def decision_of(row: Mapping[str, Any]) -> Mapping[str, Any]:
    d = row.get("decision")
    return d if isinstance(d, Mapping) else {}


def metrics_of(row: Mapping[str, Any]) -> Mapping[str, Any]:
    m = row.get("metrics")
    return m if isinstance(m, Mapping) else {}


def failed_cells(
    rows: Iterable[Mapping[str, Any]], width: int | None = 100
) -> list[dict[str, Any]]:
    """Cells that produced no usable result, with the reason (the ``error`` column, else the
    decision's notes, else the status), for the table under a leaderboard. ``width`` cuts the
    reason to one terminal line (None: whole)."""
    out = []
    for r in rows:
        if not row_failed(r):
            continue
        reason = str(r.get("error") or "").strip()
        if not reason:
            notes = decision_of(r).get("notes") or []
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
    m = number(metrics_of(row).get("n_objectives"))
    if m is not None:
        return int(m)
    d = decision_of(row)
    for key in ("objective_names", "objectives"):
        if d.get(key):
            return len(d[key])
    if d.get("pareto"):
        return len(d["pareto"][0].get("objectives") or []) or None
    if d.get("reference_pareto"):
        return len(d["reference_pareto"][0])
    metrics = metrics_of(row)
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
    metrics = metrics_of(row)
    reference = metrics.get("reference")
    if isinstance(reference, str):
        return reference == "missing"
    d = decision_of(row)
    if "reference_pareto" in d:
        return not d["reference_pareto"]
    keys = ("primal_gap",) if n_objectives(row) == 1 else ("igd_plus", "hv_ratio", "front_found")
    return all(number(metrics.get(k)) is None for k in keys)


def budget_of(row: Mapping[str, Any]) -> float:
    b = number(row.get("budget_s"))
    return b if b is not None and b > 0 else DEFAULT_DEADLINE_S


def _latency(row: Mapping[str, Any]) -> float | None:
    lat = number(row.get("latency_s"))
    return lat if lat is not None else number(decision_of(row).get("latency_s"))


def _concurrency(row: Mapping[str, Any]) -> int | None:
    c = number(row.get("concurrency"))
    return None if c is None else int(c)


def charged_latency(row: Mapping[str, Any]) -> float | None:
    """The latency a cell counts with: a failure is charged at least its budget."""
    lat = _latency(row)
    if row_failed(row):
        return budget_of(row) if lat is None else max(lat, budget_of(row))
    return lat


# ---------------------------------------------------------------------------------------------
# Decision leaderboard
# ---------------------------------------------------------------------------------------------


def latency_rows(
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
    used = [r for r in rows if row_failed(r) or _latency(r) is not None]
    budgets = sorted({budget_of(r) for r in used})
    empty = {"lat_n": 0, "median_s": None, "p95_s": None, "max_s": None}
    empty |= {"within_budget": None, "sgm_s": None, "budget_s": None}
    if not used:
        return empty
    failed = [row_failed(r) for r in used]
    if len(budgets) == 1:
        lat = [math.nan if (x := _latency(r)) is None else x for r in used]
        stats = latency_stats(lat, budgets[0], failed=failed)
        budget: Any = budgets[0]
    else:
        # latency_stats takes one budget: charge each failure its own budget first, then pass
        # every cell as answered (nothing is charged twice) and count "within budget" per cell.
        charged = [math.nan if (x := charged_latency(r)) is None else x for r in used]
        stats = latency_stats(charged, budgets[-1])
        within = [
            not f and (_latency(r) or 0.0) <= budget_of(r)
            for r, f in zip(used, failed, strict=True)
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


def primary_quality(row: Mapping[str, Any]) -> tuple[str, float | None]:
    """The metric a decision cell is ranked by and the value a failure counts with: the primal
    gap (M = 1) or IGD+ (M >= 2) for selection cells, the objective gap for the other kinds."""
    kind = row.get("problem_kind") or "selection"
    if kind != "selection":
        return "objective_gap", 1.0
    return ("primal_gap", 1.0) if n_objectives(row) == 1 else ("igd_plus", None)


def _quality_loss(rows: Sequence[Mapping[str, Any]]) -> float:
    """Mean primary quality loss (:func:`primary_quality`) over scored cells; inf without any."""
    losses = []
    for r in rows:
        if reference_missing(r):
            continue
        name, failed_value = primary_quality(r)
        value = number(metrics_of(r).get(name))
        losses.append(failed_value if value is None and row_failed(r) else value)
    kept = [v for v in losses if v is not None]
    return float(np.mean(kept)) if kept else math.inf


def _decision_entry(rows: Sequence[Mapping[str, Any]], alone_only: bool) -> dict[str, Any]:
    scored = [r for r in rows if not reference_missing(r)]
    selection = [r for r in scored if (r.get("problem_kind") or "selection") == "selection"]
    others = [r for r in scored if (r.get("problem_kind") or "selection") != "selection"]
    single = [r for r in selection if n_objectives(r) == 1]
    multi = [r for r in selection if (n_objectives(r) or 0) >= 2]

    def mean_of(cells: Sequence[Mapping[str, Any]], key: str, failed_value: float | None) -> Any:
        values = []
        for r in cells:
            v = number(metrics_of(r).get(key))
            values.append(failed_value if v is None and row_failed(r) else v)
        return _mean(values)

    lat_rows, latency_from = latency_rows(rows, alone_only)
    entry: dict[str, Any] = {
        "cells": len(rows),
        "failures": sum(row_failed(r) for r in rows),
        "primal_gap": mean_of(single, "primal_gap", 1.0),
        "igd_plus": mean_of(multi, "igd_plus", None),
        "front_found": mean_of(multi, "front_found", 0.0),
        "hv_ratio": mean_of(multi, "hv_ratio", 0.0),
    }
    if others:  # placement, reservation, a plug-in kind: the objective gap of their answers
        entry["objective_gap"] = mean_of(others, "objective_gap", 1.0)
    entry["ref_missing"] = (len(rows) - len(scored)) / len(rows) if rows else None
    entry["latency_from"] = latency_from
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


def kiviat_baseline(entries: Sequence[Mapping[str, Any]]) -> str:
    """The scenario's baseline policy: the first core's baseline present (cores in name order:
    BBSched's Slurm-like ``naive`` first), else the first by name."""
    names = sorted(str(e["solver"]) for e in entries)
    for base in (core.baseline for core in _cores() if core.baseline):
        if base in names:
            return base
    return names[0] if names else ""


def _ratio(value: float, base: float, lower_is_better: bool) -> float:
    """``value`` against ``base``, above 1 better, clipped to [0, KIVIAT_MAX]."""
    good, ref = (base, value) if lower_is_better else (value, base)
    ratio = (1.0 if good == 0 else KIVIAT_MAX) if ref == 0 else good / ref
    return min(max(ratio, 0.0), KIVIAT_MAX)


def kiviat_axes(
    entries: Sequence[Mapping[str, Any]],
) -> tuple[list[str], dict[str, list[float]]]:
    """Kiviat axes of one scenario: (axis labels, {solver: ratios to the baseline, 1 = as the
    baseline, above 1 better, in [0, KIVIAT_MAX]}).

    ``entries`` are simulation leaderboard rows of one scenario (one per policy); the baseline
    is :func:`kiviat_baseline`. See the module docstring for the axes and the scale.
    """
    base_name = kiviat_baseline(entries)
    base = next((e for e in entries if str(e["solver"]) == base_name), None)
    labels: list[str] = []
    columns: list[list[float]] = []
    for label, metric, lower in kiviat_axes_all():
        raw = [number(e.get(metric)) for e in entries]
        ref = number(base.get(metric)) if base is not None else None
        if not entries or ref is None or any(v is None for v in raw):
            continue
        if not lower and ref <= 0:
            continue  # no usage on the baseline: no ratio to draw
        labels.append(label)
        columns.append([_ratio(v, ref, lower) for v in raw if v is not None])
    by_solver = {str(e["solver"]): [column[i] for column in columns] for i, e in enumerate(entries)}
    return labels, by_solver


def simulation_leaderboard(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (family, scenario, solver/policy) over the simulation cells.

    Metric columns are means over the completed runs (repetitions) of every core's leaderboard
    metrics (:func:`sim_mean_metrics`), each when some run has it. Columns:
    :data:`SIMULATION_COLUMNS` and those metrics; order: module docstring.
    """
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("kind") == "simulation":
            key = (str(r.get("family") or ""), _scenario(r), str(r.get("solver")))
            groups[key].append(r)
    metrics = [
        m
        for m in sim_mean_metrics()
        if any(number(metrics_of(r).get(m)) is not None for g in groups.values() for r in g)
    ]

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
            entry[m] = _mean(number(metrics_of(r).get(m)) for r in done)
        decisions = [number(metrics_of(r).get("decisions")) for r in done]
        known = [d for d in decisions if d is not None]
        entry["decisions"] = int(sum(known)) if known else None
        medians = [number(metrics_of(r).get("decision_latency_median_s")) for r in done]
        kept = [v for v in medians if v is not None]
        entry["decision_latency_median_s"] = float(np.median(kept)) if kept else None
        entries.append(entry)

    by_scenario: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_scenario[(e["family"] or "", e["scenario"] or "")].append(e)
    for group in by_scenario.values():
        labels, values = kiviat_axes(group)
        for e in group:
            e["vs_baseline"] = float(np.mean(values[e["solver"]])) if labels else None
    entries.sort(
        key=lambda e: (
            e["family"] or "",
            e["scenario"] or "",
            -(e["vs_baseline"] if e["vs_baseline"] is not None else -math.inf),
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
    means = sim_mean_metrics()
    for key in ("family", "scenario", "solver", "runs", "failures", *means):
        text = SIMULATION_COLUMNS.get(key) or metric_definition(key)
        suffix = "; mean over the completed runs" if key in means else ""
        lines.append(f"- `{key}`: {text}{suffix}")
    for key in ("decisions", "decision_latency_median_s", "vs_baseline"):
        lines.append(f"- `{key}`: {SIMULATION_COLUMNS[key]}")
    return "\n".join(lines)


RANKING_NOTE = (
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
        parts += [RANKING_NOTE, "", format_table(decision_leaderboard(rows), "github"), ""]
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
