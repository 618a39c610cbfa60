"""The HTML report: one self-contained page with the leaderboards and plots.

Plots are PNG images made with matplotlib's Agg canvas and embedded as base64 ``<img>``
elements, each with an ``id``, a ``data-plot`` kind and alt text; a plot without data is
replaced by a visible note (``<p class="no-data" data-note=KIND>``). An inline script marks
every image ``data-loaded`` once the page has loaded, so a headless browser can check that they
decode.
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
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench._io import atomic_write_text
from schedbench.bench.report.labels import place_labels
from schedbench.bench.report.schedule_render import ScheduleRenderer
from schedbench.bench.report.style import fit_text, series_style
from schedbench.bench.report.tables import (
    DECISION_COLUMNS,
    KIVIAT_MAX,
    RANKING_NOTE,
    SIMULATION_COLUMNS,
    ReportError,
    budget_of,
    charged_latency,
    decision_leaderboard,
    decision_of,
    failed_cells,
    format_table,
    kiviat_axes,
    kiviat_baseline,
    latency_rows,
    metric_definition,
    n_objectives,
    sim_mean_metrics,
    simulation_leaderboard,
)
from schedbench.bench.report.terminal import DECISION_COLUMNS as TERMINAL_DECISION_COLUMNS
from schedbench.bench.report.terminal import (
    FAMILY_COLUMN,
    Column,
    compact_columns,
    simulation_columns,
    text_column,
    with_fail_share,
)

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


#: What every plot of the report being drawn came from (suite, commit), stamped on it.
_SOURCE: ContextVar[str] = ContextVar("report_source", default="")


def add_below(fig: Any, text: str, **kwargs: Any) -> Any:
    """A figure text placed under everything the figure holds so far (axes, tick labels,
    legends, earlier notes), left-aligned with it: stacked notes never overlap what they
    follow, and ``bbox_inches="tight"`` keeps them in the picture."""
    renderer = fig.canvas.get_renderer()
    content = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)  # to pixels
    x, y = fig.transFigure.inverted().transform((content.x0, content.y0 - 3))
    return fig.text(x, y, text, ha="left", va="top", **kwargs)


def _stamp(fig: Any) -> None:
    source = _SOURCE.get()
    if source:  # every picture says where it came from, so it can be redrawn
        add_below(fig, source, fontsize=6, color="0.35")


def _png(fig: Any) -> bytes:
    _stamp(fig)
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
        ax.set_xscale("log")
        from matplotlib.ticker import NullFormatter

        ax.xaxis.set_minor_formatter(NullFormatter())  # decade labels only: no overlap
        ax.set_xlabel("median latency (s, log scale)")
        ax.set_ylabel(label + " (lower is better)")
        ax.set_title(label)
        ax.grid(True, which="both", alpha=0.3)
        top = max(ys)
        ax.set_ylim(-0.05 * (top or 1.0), (top or 1.0) * 1.15)
        place_labels(ax, points)  # after the limits: it measures in display space
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
        used, source = latency_rows(groups[solver], alone_only=True)
        values = [v for v in (charged_latency(r) for r in used) if v is not None]
        if values:
            series.append((f"{solver} [{source}]", [max(v, 1e-6) for v in values]))
    if not series:
        return None
    budgets = sorted({budget_of(r) for g in groups.values() for r in g})
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
        if any(decision_of(r).get("reference_pareto") for r in cells):
            chosen.append((f"{family}/{name}" if family else name, cells))
        if len(chosen) == limit:
            break
    return chosen


def _plot_pareto(name: str, cells: Sequence[Mapping[str, Any]]) -> tuple[bytes, str]:
    """The exact front as a line with markers, and each solver's Pareto set (its first
    repetition) as markers."""
    reference = next(
        decision_of(r)["reference_pareto"] for r in cells if decision_of(r).get("reference_pareto")
    )
    exact = sorted((float(p[0]), float(p[1])) for p in reference)
    names = next(
        (
            decision_of(r).get("objective_names")
            for r in cells
            if decision_of(r).get("objective_names")
        ),
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
        points = _pareto_points(decision_of(first[solver]))
        found.append(f"{solver}: {len(points)} points")
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, s=28, alpha=0.8, label=solver, zorder=3, **series_style(i).points())
    ax.set_xlabel(str(names[0]) if names else "objective 1 (maximised)")
    ax.set_ylabel(str(names[1]) if names and len(names) > 1 else "objective 2 (maximised)")
    fit_text(ax.set_title(name), fig.bbox.width)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    alt = f"Pareto sets on {name} over the exact front of {len(exact)} points; " + ", ".join(found)
    return _png(fig), alt


def _plot_kiviat(
    scenario: str, labels: Sequence[str], values: Mapping[str, Sequence[float]], baseline: str
) -> tuple[bytes, str]:
    """:func:`kiviat_figure` as a PNG, with its alt text."""
    fig, alt = kiviat_figure(scenario, labels, values, baseline)
    return _png(fig), alt


def kiviat_figure(
    scenario: str, labels: Sequence[str], values: Mapping[str, Sequence[float]], baseline: str
) -> tuple[Any, str]:
    """A Kiviat (radar) chart: one closed polygon per policy over the axes as ratios to the
    baseline, on the fixed scale 0–KIVIAT_MAX (``tables.kiviat_axes``), the baseline dashed; the
    caption under the chart. Returns the figure and its alt text."""
    angles = np.linspace(0.0, 2.0 * math.pi, len(labels), endpoint=False)
    closed = np.append(angles, angles[0])
    fig = _figure(5.5, 5.5)
    ax = fig.add_subplot(1, 1, 1, projection="polar")
    for i, (solver, v) in enumerate(values.items()):
        ring = np.append(np.asarray(v, dtype=float), v[0])
        style = series_style(i)
        # Markers keep a policy that is worst on every axis (all zeros) visible at the centre.
        ax.plot(closed, ring, linewidth=1.4, markersize=4, label=solver, **style.line())
        ax.fill(closed, ring, alpha=0.08, color=style.color)
    ax.set_xticks(angles, list(labels), fontsize=8)
    ax.tick_params(axis="x", pad=10)  # keep the axis names off the outer ring
    for text, angle in zip(ax.get_xticklabels(), angles, strict=True):
        c = math.cos(angle)
        text.set_horizontalalignment("left" if c > 0.1 else "right" if c < -0.1 else "center")
    ax.plot(np.linspace(0, 2 * math.pi, 100), np.ones(100), "k--", linewidth=0.8)
    ax.set_ylim(0.0, KIVIAT_MAX * 1.02)
    ax.set_rlabel_position(math.degrees(angles[1]) / 2 if len(angles) > 1 else 0.0)
    ax.set_yticks([0.5, 1.0, 1.5, 2.0], ["0.5", "1", "1.5", "2"], fontsize=7)
    fit_text(ax.set_title(scenario, pad=18), fig.bbox.width)  # a scenario name can be long
    ax.legend(loc="upper right", bbox_to_anchor=(1.35, 1.12), fontsize=8)
    caption = add_below(
        fig,
        f"ratio to {baseline} (dashed = 1; above 1 better: usage ÷ baseline, baseline ÷ wait, "
        f"slowdown, waste); fixed scale 0–{KIVIAT_MAX:g}",
        fontsize=7,
    )
    fit_text(caption, fig.bbox.width)
    alt = (
        f"Kiviat chart of {scenario} over {', '.join(labels)}, each a ratio to {baseline} "
        f"(1 = as the baseline, above 1 better, scale 0 to {KIVIAT_MAX:g}): "
        + "; ".join(f"{solver} mean {float(np.mean(v)):.2f}" for solver, v in values.items())
    )
    return fig, alt


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
td.num { text-align: right; }
.legend { font-size: 0.8em; color: #555; margin-top: -1em; }
details { margin: -0.5em 0 1.5em; font-size: 0.9em; }
img { max-width: 100%; height: auto; }
"""

# Marks every plot once the page has loaded, so a headless browser's DOM dump shows whether the
# embedded images decoded (naturalWidth > 0).
_LOAD_SCRIPT = """
window.addEventListener("load", function () {
  document.querySelectorAll("img[data-plot]").forEach(function (img) {
    img.setAttribute("data-natural-width", String(img.naturalWidth));
    img.setAttribute("data-loaded", img.complete && img.naturalWidth > 0 ? "1" : "0");
  });
  // what an automated accessibility and layout check reads back (tests/bench/test_report.py)
  var root = document.documentElement;
  document.body.setAttribute("data-scroll-width", String(root.scrollWidth));
  document.body.setAttribute("data-client-width", String(root.clientWidth));
  document.body.setAttribute("data-images-without-alt",
    String(document.querySelectorAll("img:not([alt]), img[alt='']").length));
  document.body.setAttribute("data-tables-without-headers", String(
    Array.prototype.filter.call(document.querySelectorAll("table"), function (t) {
      return t.querySelectorAll("th").length === 0;
    }).length));
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


def _leaderboard_html(
    entries: Sequence[Mapping[str, Any]], columns: Sequence[Column], table_id: str
) -> str:
    """A leaderboard as the terminal shows it (the few columns people compare, with units and
    a legend from the metric catalogue), then every column of the store behind a
    ``<details>`` toggle: the full table is there for whoever needs it, without burying the
    ranking under twenty columns."""
    shown, cells, legends = compact_columns(entries, columns)
    legend = dict(legends)
    head = "".join(
        f'<th title="{html.escape(legend.get(c.header.rsplit(" ", 1)[0], legend.get(c.header, "")))}">'
        f"{html.escape(c.header)}</th>"
        for c in shown
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"txt" if c.fmt is text_column else "num"}">{html.escape(v)}</td>'
            for c, v in zip(shown, row, strict=True)
        )
        + "</tr>"
        for row in cells
    )
    notes = " · ".join(f"{name}: {text}" for name, text in legends)
    return (
        f'<div class="table-wrap"><table id="{table_id}" class="compact"><thead><tr>{head}'
        f"</tr></thead><tbody>{body}</tbody></table></div>"
        f'<p class="legend">{html.escape(notes)}</p>'
        f"<details><summary>All {len(entries[0]) if entries else 0} columns</summary>"
        f"{_table_html(entries)}</details>"
    )


def _definitions_html() -> str:
    def items(pairs: Iterable[tuple[str, str]]) -> str:
        return "".join(
            f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>" for k, v in pairs
        )

    sim = [
        (k, SIMULATION_COLUMNS.get(k) or metric_definition(k))
        for k in (
            "runs",
            "failures",
            *sim_mean_metrics(),
            "decisions",
            "decision_latency_median_s",
            "vs_baseline",
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


def _schedule_folders(
    sim_rows: Sequence[Mapping[str, Any]], runs_root: str | os.PathLike[str] | None
) -> list[tuple[Mapping[str, Any], Path]]:
    """The simulation cells whose first repetition wrote its schedule, with their folders."""
    if runs_root is None:
        return []
    found = []
    for r in sim_rows:
        folder = Path(runs_root) / f"{r.get('suite')}-runs" / str(r.get("cell_id"))
        if r.get("repetition", 0) == 0 and (folder / "jobs.csv").is_file():
            found.append((r, folder))
    return found


def _schedules(
    found: list[tuple[Mapping[str, Any], Path]],
    renderer: Any,
    runs_root: str | os.PathLike[str] | None,
    limit: int,
    taken: set[str],
) -> str:
    """Gantt and usage pictures of the first repetition of up to ``limit`` simulation cells
    (``found``: :func:`_schedule_folders`), drawn by ``renderer`` (``schedule_render.py``)."""
    if runs_root is None:
        return _note("schedules", "No run folders given: no schedule pictures.")
    if not found:
        return _note("schedules", "No simulation cell wrote its schedule: no pictures.")
    out = ""
    for i, (r, _folder) in enumerate(found[:limit]):
        pictures = renderer.get(i)
        if pictures.error:
            out += _note("schedules", f"{r.get('family')} {r.get('solver')}: {pictures.error}")
            continue
        name = f"{r.get('family')} / {r.get('solver')}"
        for kind, png in (("gantt", pictures.gantt), ("usage", pictures.usage)):
            plot_id = f"plot-{kind}-" + _slug(name, taken)
            what = "jobs on nodes over time" if kind == "gantt" else "resources in use and queue"
            out += _img(
                plot_id,
                kind,
                png,
                f"{kind} of {name}: {what}; {pictures.caption}",
                f"{name}: {what}",
            )
    if len(found) > limit:
        out += _note("schedules", f"{len(found) - limit} more simulation cells not drawn.")
    return out


def html_report(
    rows: Iterable[Mapping[str, Any]],
    out_path: str | os.PathLike[str],
    *,
    title: str = "schedbench report",
    pareto_instances: int = 4,
    runs_root: str | os.PathLike[str] | None = None,
    schedules: int = 8,
    source: str = "",
) -> Path:
    """Write the HTML report of ``rows`` to ``out_path`` (atomically) and return its path.

    Sections: the leaderboards as tables, quality against latency (``id="plot-quality-latency"``),
    latency against the budget (``id="plot-latency-budget"``), the Pareto sets of up to
    ``pareto_instances`` M = 2 instances over their exact front (``id="plot-pareto-<slug>"``),
    one Kiviat chart per simulation scenario (``id="plot-kiviat-<slug>"``), the schedules of up
    to ``schedules`` simulation cells (a Gantt chart and a usage plot each, ``data-plot``
    ``gantt`` / ``usage``, from ``<runs_root>/<suite>-runs/<cell_id>/`` where the runner wrote
    them), and the metric definitions. Every image has ``data-plot`` set to its kind
    (:data:`PLOT_KINDS`) and carries ``source`` (default: the suites of the rows; the command
    adds the commits of their runs) in small print.
    """
    rows = list(rows)
    suites = sorted({str(r.get("suite")) for r in rows if r.get("suite")})
    token = _SOURCE.set(source or ("suite " + ", ".join(suites) if suites else ""))
    sim_rows = [r for r in rows if r.get("kind") == "simulation"]
    found = _schedule_folders(sim_rows, runs_root)
    # the schedule pictures are most of the report's time: drawn in workers meanwhile
    renderer = ScheduleRenderer([folder for _r, folder in found[:schedules]])
    try:
        pictures = (found, renderer)
        return _html_report(rows, out_path, title, pareto_instances, runs_root, schedules, pictures)
    finally:
        renderer.close()
        _SOURCE.reset(token)


def _html_report(
    rows: list[Mapping[str, Any]],
    out_path: str | os.PathLike[str],
    title: str,
    pareto_instances: int,
    runs_root: str | os.PathLike[str] | None,
    schedules: int,
    pictures: tuple[list[tuple[Mapping[str, Any], Path]], ScheduleRenderer],
) -> Path:
    out = Path(out_path)
    decision_rows = [r for r in rows if r.get("kind") == "decision"]
    sim_rows = [r for r in rows if r.get("kind") == "simulation"]
    taken: set[str] = set()

    tables = "<h3>Decision leaderboard</h3>"
    if decision_rows:
        tables += f"<p>{html.escape(RANKING_NOTE)}</p>"
        tables += _leaderboard_html(
            with_fail_share(decision_leaderboard(decision_rows)),
            TERMINAL_DECISION_COLUMNS,
            "table-decision",
        )
        tables += "<h3>Decision leaderboard by family</h3>"
        tables += _leaderboard_html(
            with_fail_share(decision_leaderboard(decision_rows, by_family=True)),
            (FAMILY_COLUMN, *TERMINAL_DECISION_COLUMNS),
            "table-decision-family",
        )
    else:
        tables += _note("table-decision", "No decision cells in the store.")
    tables += "<h3>Simulation leaderboard</h3>"
    sim_board = simulation_leaderboard(sim_rows)
    if sim_board:
        tables += _leaderboard_html(sim_board, simulation_columns(sim_board), "table-simulation")
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
        png, alt = _plot_kiviat(name, labels, values, kiviat_baseline(group))
        plot_id = "plot-kiviat-" + _slug(name, taken)
        kiviat += _img(
            plot_id,
            "kiviat",
            png,
            alt,
            f"{name}: each axis a ratio to {kiviat_baseline(group)} (1 = as the baseline, "
            f"above 1 better), fixed scale 0-{KIVIAT_MAX:g}",
        )
    if not scenarios:
        kiviat = _note("kiviat", "No simulation cells: no Kiviat charts.")

    schedule_html = _schedules(*pictures, runs_root, schedules, taken)

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
                "Axes: node usage, BB usage, avg wait, avg slowdown (SSD usage and SSD waste when "
                "present), each the policy's value as a ratio to the scenario's baseline policy "
                "(naive when present), oriented so that above 1 is better, on a fixed scale from "
                f"0 to {KIVIAT_MAX:g}: a 1 % difference looks like 1 %.",
            ),
            _section("section-schedules", "Simulation: schedules", schedule_html),
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
