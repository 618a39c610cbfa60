"""Reports over the results store: leaderboards (``tables.py``), the HTML page with plots
(``html.py``), the regression gate between two stores (``compare.py``) and the one-simulation
summary (``terminal.py``). Nothing here recomputes a metric: it reads the stored records and
the metric catalogue (``simcore/catalogue.py``)."""

from schedbench.bench.report.html import html_report
from schedbench.bench.report.tables import (
    DECISION_COLUMNS,
    KIVIAT_MAX,
    PLOT_KINDS,
    SIMULATION_COLUMNS,
    TABLE_FORMATS,
    ReportError,
    decision_leaderboard,
    failed_cells,
    format_table,
    kiviat_axes,
    kiviat_baseline,
    markdown_report,
    n_objectives,
    reference_missing,
    simulation_leaderboard,
)

__all__ = [
    "DECISION_COLUMNS",
    "KIVIAT_MAX",
    "PLOT_KINDS",
    "SIMULATION_COLUMNS",
    "TABLE_FORMATS",
    "ReportError",
    "decision_leaderboard",
    "failed_cells",
    "format_table",
    "html_report",
    "kiviat_axes",
    "kiviat_baseline",
    "markdown_report",
    "n_objectives",
    "reference_missing",
    "simulation_leaderboard",
]
