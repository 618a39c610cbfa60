"""Reports over the results store: leaderboards (``tables.py``), the HTML page with plots
(``html.py``), the regression gate between two stores (``compare.py``) and the one-simulation
summary (``terminal.py``). Nothing here recomputes a metric: it reads the stored records and
the metric catalogue (``simcore/catalogue.py``)."""

import importlib
from typing import Any

#: What the package exports -> the module defining it. Loaded on first use (PEP 562), so that a
#: command needing only the terminal tables does not import the HTML report and matplotlib.
_EXPORTS = {
    "html_report": "html",
    **dict.fromkeys(
        (
            "DECISION_COLUMNS",
            "KIVIAT_MAX",
            "PLOT_KINDS",
            "SIMULATION_COLUMNS",
            "TABLE_FORMATS",
            "ReportError",
            "decision_leaderboard",
            "failed_cells",
            "format_table",
            "kiviat_axes",
            "kiviat_baseline",
            "markdown_report",
            "n_objectives",
            "reference_missing",
            "simulation_leaderboard",
        ),
        "tables",
    ),
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)  # derived: the names are listed once, above
