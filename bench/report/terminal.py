"""The human summary of one simulation printed by ``schedbench simulate`` (formatting lives
here, not in the simulation core)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate


def _fmt_share(v: Any) -> str:
    return "n/a" if v is None else f"{100 * v:.2f} %"


def _fmt_seconds(v: Any) -> str:
    return "n/a" if v is None else f"{v:,.0f} s ({v / 3600:.2f} h)"


def _fmt_ratio(v: Any) -> str:
    return "n/a" if v is None else f"{v:,.3f}"


def _fmt_int(v: Any) -> str:
    return "n/a" if v is None else f"{v:,d}"


def _fmt_latency(v: Any) -> str:
    return "n/a" if v is None else f"{v:.4g} s"


_SUMMARY_ROWS: tuple[tuple[str, str, Any], ...] = (
    ("jobs measured", "jobs_measured", _fmt_int),
    ("jobs killed", "jobs_killed", _fmt_int),
    ("jobs rejected", "jobs_rejected", _fmt_int),
    ("jobs unfinished", "jobs_unfinished", _fmt_int),
    ("node usage", "node_usage", _fmt_share),
    ("burst-buffer usage", "bb_usage", _fmt_share),
    ("local-SSD usage", "ssd_usage", _fmt_share),
    ("local-SSD wasted", "ssd_waste", _fmt_share),
    ("wait mean", "wait_mean_s", _fmt_seconds),
    ("wait median", "wait_median_s", _fmt_seconds),
    ("wait p95", "wait_p95_s", _fmt_seconds),
    ("wait max", "wait_max_s", _fmt_seconds),
    ("slowdown mean", "slowdown_mean", _fmt_ratio),
    ("bounded slowdown mean", "bounded_slowdown_mean", _fmt_ratio),
    ("makespan", "makespan_s", _fmt_seconds),
    ("decisions", "decisions", _fmt_int),
    ("decision latency median", "decision_latency_median_s", _fmt_latency),
    ("decision latency p95", "decision_latency_p95_s", _fmt_latency),
    ("decisions within budget", "decision_within_budget", _fmt_share),
)


def format_summary(metrics: Mapping[str, Any]) -> str:
    """A compact two-column table of the headline metrics of :func:`compute_metrics`.

    Keys that are absent are skipped; undefined values print as ``n/a``.
    """
    rows = [(label, fmt(metrics[key])) for label, key, fmt in _SUMMARY_ROWS if key in metrics]
    return tabulate(
        rows, headers=("metric", "value"), tablefmt="simple", colalign=("left", "right")
    )
