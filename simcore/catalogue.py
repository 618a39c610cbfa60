"""The metric catalogue: every metric schedbench reports, described once (``metric_spec.py``).

It gathers the quality metrics of every registered problem kind (``ProblemKind.metrics``) and
simulation core (``SimulationCore.metrics``), the
latency summaries over a group of decisions (defined here, computed by
``simcore.indicators.latency_stats``), the ``failures`` count, and every group of metrics
registered under the entry-point group ``schedbench.metrics`` (a tuple of ``MetricSpec``: the
simulation metrics of ``simcore/metrics.py``, a reproduction's own metrics). The terminal
tables, the HTML report, the regression gate and the README's metric list all read it, so new
metrics appear everywhere without an edit there.
"""

from __future__ import annotations

from functools import cache

from schedbench.simcore.core import cores as all_cores
from schedbench.simcore.core import known_cores
from schedbench.simcore.kinds.base import get_kind, known_kinds
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.plugins import Registry

_LAT = "schedbench (docs/design.md#quality-and-latency-of-a-decision)"

#: Latency over the decision cells of a group (one solver on one family), failures charged the
#: budget; stored name -> ``latency_stats`` key.
LATENCY_KEYS: dict[str, str] = {
    "latency_median_s": "median_s",
    "latency_p95_s": "p95_s",
    "latency_max_s": "max_s",
    "latency_sgm_s": "sgm_s",
    "share_within_budget": "share_within_budget",
}

LATENCY_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "latency_median_s",
        "median wall time around solve(), failures charged the budget",
        unit="s",
        direction="lower",
        source=_LAT,
        scope="latency",
        label="median",
        short="median solve time",
    ),
    MetricSpec(
        "latency_p95_s",
        "95th percentile of the latency, failures charged the budget",
        unit="s",
        direction="lower",
        source=_LAT,
        scope="latency",
        label="p95",
        short="95th percentile",
    ),
    MetricSpec(
        "latency_max_s",
        "largest latency, failures charged the budget",
        unit="s",
        direction="lower",
        source=_LAT,
        scope="latency",
        label="max",
        short="slowest solve",
    ),
    MetricSpec(
        "latency_sgm_s",
        "shifted geometric mean of the latency, shift 1 s, failures charged the budget",
        unit="s",
        direction="lower",
        source=_LAT,
        scope="latency",
        label="sgm",
        short="shifted geometric mean of the solve time",
    ),
    MetricSpec(
        "share_within_budget",
        "share of the decisions answered within the budget",
        unit="share",
        direction="higher",
        source=_LAT,
        scope="latency",
        label="in budget",
        short="answered within the budget",
    ),
    MetricSpec(
        "failures",
        "cells that delivered no answer (error, timeout without an answer) "
        "or simulations that did not complete",
        unit="count",
        direction="lower",
        source="bench/store/records.py",
        scope="latency",
        label="failed",
        short="cells without an answer",
    ),
)


def catalogue() -> dict[str, MetricSpec]:
    """A copy of :func:`_catalogue` for the kinds registered now (cached per set of kinds).

    Every metric by name: each kind's quality metrics, latency, then simulation (a name two
    kinds share — ``objective_gap`` — is described by the first kind in name order)."""
    return dict(_catalogue(tuple(known_kinds()), tuple(known_cores())))


GROUP = "schedbench.metrics"


def _not_a_group(obj: object) -> str:
    if isinstance(obj, tuple) and all(isinstance(m, MetricSpec) for m in obj):
        return ""
    return f"is a {type(obj).__name__}, not a tuple of MetricSpec"


#: Groups of metric descriptions (``simcore/plugins.py``: the one registry).
METRIC_GROUPS = Registry(
    GROUP,
    "metric group",
    protocol="a tuple of MetricSpec",
    check=_not_a_group,
    example="my_pkg.metrics:MY_METRICS",
)


@cache
def _catalogue(kinds: tuple[str, ...], cores: tuple[str, ...]) -> dict[str, MetricSpec]:
    out: dict[str, MetricSpec] = {}
    for name in kinds:
        for spec in get_kind(name).metrics:
            out.setdefault(spec.name, spec)
    for spec in LATENCY_METRICS:
        out.setdefault(spec.name, spec)
    for group in sorted(METRIC_GROUPS.names(), key=lambda g: (g != "simulation", g)):
        for spec in METRIC_GROUPS.load(group):  # simulation first
            out.setdefault(spec.name, spec)
    for core in all_cores():  # a core's metrics, when no group registers them
        if core.name in cores:
            for spec in core.metrics:
                out.setdefault(spec.name, spec)
    return out


def metric(name: str) -> MetricSpec | None:
    """The description of ``name``, or None when no metric has that name."""
    return catalogue().get(name)


def directions() -> dict[str, str]:
    """Metric name -> ``higher`` or ``lower`` for every metric with a direction (gateable)."""
    return {n: m.direction for n, m in catalogue().items() if m.direction != "none"}


def markdown_table() -> str:
    """The catalogue as a Markdown table (the README's metric list is this, regenerated by
    ``schedbench metrics --markdown``; a test keeps them equal)."""
    rows = ["| metric | unit | better | definition | source |", "|---|---|---|---|---|"]
    for m in catalogue().values():
        better = {"higher": "higher", "lower": "lower"}.get(m.direction, "")
        definition = m.definition.replace("|", "\\|")
        scope = f" ({m.kind})" if m.kind else ""
        rows.append(f"| `{m.name}`{scope} | {m.unit} | {better} | {definition} | {m.source} |")
    return "\n".join(rows)
