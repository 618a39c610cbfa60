"""The human summary of one simulation printed by ``schedbench simulate`` (formatting lives
here, not in the simulation core)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
    return "n/a" if v is None else duration(v)


def duration(v: float) -> str:
    """Seconds in the unit that reads best, to 3 significant digits: ``67.5 µs``, ``4.2 ms``,
    ``12.3 s``; a minute or more also in hours (``216,008 s (60.00 h)``)."""
    if v != v:  # NaN
        return "n/a"
    size = abs(v)
    if size >= 60:
        return _fmt_seconds(v)
    if size >= 1 or size == 0:
        return f"{v:.3g} s"
    if size >= 1e-3:
        return f"{v * 1e3:.3g} ms"
    return f"{v * 1e6:.3g} µs"


def _fmt_number(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,d}"
    return f"{v:,.4g}" if abs(v) >= 1 else f"{v:.3g}"


#: How a metric of each catalogue unit (``simcore/metric_spec.py``) is shown in a summary.
_BY_UNIT: dict[str, Callable[[float], str]] = {
    "s": duration,
    "share": lambda v: f"{100 * v:.2f} %",
    "count": _fmt_number,
    "GB": lambda v: f"{_fmt_number(v)} GB",
    "jobs/s": lambda v: f"{_fmt_number(v)} jobs/s",
    "": _fmt_number,
}


def _metric_label(name: str) -> str:
    """A metric's row label: the summary's own words where it has them, else the name without
    its unit and its core's prefix (``CORE_jobs_done`` -> ``jobs done``)."""
    if name in _SUMMARY_LABELS:
        return _SUMMARY_LABELS[name]
    from schedbench.simcore.core import known_cores

    for core in known_cores():
        name = name.removeprefix(f"{core}_")
    return name.removesuffix("_s").replace("_", " ")


def format_metrics(metrics: Mapping[str, Any], names: Sequence[str]) -> str:
    """The metrics ``names`` of ``metrics`` as a two-column table, each shown by its catalogue
    unit (times in µs, ms, s or hours, shares in %, counts as integers, 3-4 significant digits);
    absent metrics are skipped, ``None`` prints as ``n/a``."""
    from schedbench.simcore.catalogue import catalogue

    specs = catalogue()
    rows = []
    for name in names:
        if name not in metrics:
            continue
        value = metrics[name]
        spec = specs.get(name)
        unit = spec.unit if spec is not None else ("s" if name.endswith("_s") else "")
        number = _num(value)
        rows.append(
            (
                _metric_label(name),
                "n/a" if number is None else _BY_UNIT.get(unit, _fmt_number)(number),
            )
        )
    return tabulate(
        rows, headers=("metric", "value"), tablefmt="simple", colalign=("left", "right")
    )


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
    ("offered node load", "offered_node_load", _fmt_share),
    ("offered burst-buffer load", "offered_bb_load", _fmt_share),
    ("passes with a choice", "choice_passes", _fmt_int),
    ("... that reached the solver", "solver_pass_share", _fmt_share),
    ("... blocked by starvation", "starvation_blocked", _fmt_int),
)


_SUMMARY_LABELS = {key: label for label, key, _fmt in _SUMMARY_ROWS}


def format_summary(metrics: Mapping[str, Any]) -> str:
    """A compact two-column table of the headline metrics of :func:`compute_metrics`.

    Keys that are absent are skipped; undefined values print as ``n/a``.
    """
    rows = [(label, fmt(metrics[key])) for label, key, fmt in _SUMMARY_ROWS if key in metrics]
    return tabulate(
        rows, headers=("metric", "value"), tablefmt="simple", colalign=("left", "right")
    )


# ---------------------------------------------------------------------------------------------
# Leaderboards that fit a terminal (docs/design.md#output-people-read): a few columns, units in the
# headers, numbers rounded to what the noise allows, a legend from the metric catalogue under the
# table. ``--wide`` prints every column instead (``tables.format_table``).
# ---------------------------------------------------------------------------------------------

#: Default width of terminal tables (characters).
WIDTH = 100

#: Unit suffixes of column headers (left out of the legend's names).
_UNITS = (" %", " ms", " h", " s")


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if value != value else float(value)  # NaN -> None


def _pct(value: Any) -> str:
    v = _num(value)
    if v is None:
        return "-"
    if v == 0:
        return "0"
    return f"{100 * v:.1f}" if abs(v) >= 0.001 else f"{100 * v:.2g}"


def _ms(value: Any) -> str:
    v = _num(value)
    if v is None:
        return "-"
    ms = 1e3 * v
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.3g}"


def _hours(value: Any) -> str:
    v = _num(value)
    return "-" if v is None else f"{v / 3600:.2f}"


def _sig(value: Any) -> str:
    v = _num(value)
    if v is None:
        return "-"
    return "0" if v == 0 else f"{v:.3g}"


def _int(value: Any) -> str:
    v = _num(value)
    return "-" if v is None else f"{int(v):,}"


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


@dataclass(frozen=True, slots=True)
class Column:
    """One compact column: header (with unit), leaderboard key, formatter, legend text (or the
    catalogue metric whose brief text is the legend)."""

    header: str
    key: str
    fmt: Callable[[Any], str]
    legend: str = ""
    metric: str = ""


DECISION_COLUMNS: tuple[Column, ...] = (
    Column("solver", "solver", _text),
    Column("cells", "cells", _int),
    Column("fail %", "fail_share", _pct, "no answer (error, timeout)"),
    Column("gap %", "primal_gap", _pct, metric="primal_gap"),
    Column("IGD+", "igd_plus", _sig, metric="igd_plus"),
    Column("front %", "front_found", _pct, metric="front_found"),
    Column("obj gap %", "objective_gap", _pct, metric="objective_gap"),
    Column("median ms", "median_s", _ms, metric="latency_median_s"),
    Column("p95 ms", "p95_s", _ms, metric="latency_p95_s"),
    Column("in budget %", "within_budget", _pct, metric="share_within_budget"),
)

SIMULATION_COLUMNS: tuple[Column, ...] = (
    Column("scenario", "family", _text),
    Column("policy", "solver", _text),
    Column("runs", "runs", _int),
    Column("fail", "failures", _int, "runs that did not complete"),
    Column("node %", "node_usage", _pct, metric="node_usage"),
    Column("BB %", "bb_usage", _pct, metric="bb_usage"),
    Column("SSD %", "ssd_usage", _pct, metric="ssd_usage"),
    Column("wait h", "wait_mean_s", _hours, metric="wait_mean_s"),
    Column("bsld", "bounded_slowdown_mean", _sig, metric="bounded_slowdown_mean"),
    Column("vs base", "vs_baseline", _sig, "mean ratio to the baseline policy (> 1 better)"),
)


def _fit(cells: list[list[str]], headers: list[str], width: int, render: Callable[[], str]) -> str:
    """``render()`` the table, shortening the two leading text columns (the widest first, with
    an ellipsis) until no line is wider than ``width`` or they cannot shrink further."""
    while True:
        table = render()
        if max(len(line) for line in table.splitlines()) <= width:
            return table
        widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
        text_cols = [i for i in range(min(len(headers), 4)) if widths[i] > 8]
        if not text_cols:
            return table
        i = max(text_cols, key=lambda c: widths[c])
        if widths[i] <= max(len(headers[i]), 8):
            return table  # nothing left to shorten sensibly
        limit = widths[i] - 1
        for r in cells:
            if len(r[i]) > limit:
                r[i] = r[i][: limit - 1] + "…"


def compact_table(
    entries: Sequence[Mapping[str, Any]], columns: Sequence[Column], *, width: int = WIDTH
) -> str:
    """``entries`` (leaderboard rows) as a table of at most ``width`` characters with the given
    columns (a column with no value in any row is left out) and a legend under it, generated
    from the metric catalogue."""
    shown, cells, legends = compact_columns(entries, columns)
    headers = [c.header for c in shown]
    align = ["left" if c.fmt is _text else "right" for c in shown]

    def render() -> str:
        return str(
            tabulate(
                cells, headers=headers, tablefmt="simple", disable_numparse=True, colalign=align
            )
        )

    table = _fit(cells, headers, width, render)
    parts = [f"{name}: {text}" for name, text in legends]
    return table + "\n" + _wrap(" · ".join(parts), width)


def compact_columns(
    entries: Sequence[Mapping[str, Any]], columns: Sequence[Column]
) -> tuple[list[Column], list[list[str]], list[tuple[str, str]]]:
    """The columns of ``columns`` that have a value in some entry, the formatted cells, and
    (short header, legend) pairs from the metric catalogue: what the terminal table and the
    HTML report's compact tables show."""
    from schedbench.simcore.catalogue import catalogue

    shown = [
        c
        for c in columns
        if any(
            _num(e.get(c.key)) is not None or (c.fmt is _text and e.get(c.key) is not None)
            for e in entries
        )
    ]
    cells = [[c.fmt(e.get(c.key)) for c in shown] for e in entries]
    specs = catalogue()
    legends = []
    for c in shown:
        text = c.legend or (specs[c.metric].brief if c.metric in specs else "")
        if text:
            name = c.header.rsplit(" ", 1)[0] if c.header.endswith(_UNITS) else c.header
            legends.append((name, text))
    return shown, cells, legends


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width=width))


def with_fail_share(board: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Decision leaderboard entries with ``fail_share`` (failures / cells) added."""
    return [
        {**e, "fail_share": (e["failures"] / e["cells"]) if e.get("cells") else None} for e in board
    ]


def decision_table(board: Sequence[Mapping[str, Any]], *, width: int = WIDTH) -> str:
    """The decision leaderboard (``tables.decision_leaderboard``) for a terminal."""
    return compact_table(with_fail_share(board), DECISION_COLUMNS, width=width)


def _metric_column(name: str) -> Column:
    """The compact column of simulation metric ``name``: :data:`SIMULATION_COLUMNS`' own, else
    one formatted by the metric's catalogue unit."""
    for column in SIMULATION_COLUMNS:
        if column.key == name:
            return column
    from schedbench.simcore.catalogue import catalogue

    spec = catalogue().get(name)
    unit = spec.unit if spec is not None else ""
    fmt, suffix = {"share": (_pct, " %"), "s": (_hours, " h")}.get(unit, (_sig, ""))
    label = (spec.label if spec is not None and spec.label else _metric_label(name)) + suffix
    return Column(label, name, fmt, metric=name)


def core_of_entry(entry: Mapping[str, Any]) -> str:
    """The simulation core of a leaderboard row, by its policy (``window:dp`` -> ``bbsched``);
    "" when no registered core has it."""
    from schedbench.simcore.core import core_of_policy
    from schedbench.simcore.errors import SchedbenchError

    try:
        return core_of_policy(str(entry.get("solver") or "").partition(":")[0]).name
    except SchedbenchError:
        return ""


def simulation_columns(board: Sequence[Mapping[str, Any]] = ()) -> tuple[Column, ...]:
    """The compact simulation columns for the rows of ``board``: scenario, policy, runs and
    failures, the ``compact`` metrics of the cores the rows ran on (``SimulationCore.compact``;
    BBSched's when none is known), and ``vs base``."""
    from schedbench.simcore.core import get_core

    names = dict.fromkeys(core_of_entry(e) for e in board) or {"bbsched": None}
    metrics: dict[str, None] = {}
    for name in names:
        if name:
            metrics.update(dict.fromkeys(get_core(name).compact))
    lead, last = SIMULATION_COLUMNS[:4], SIMULATION_COLUMNS[-1]
    return (*lead, *(_metric_column(m) for m in metrics), last)


def simulation_table(board: Sequence[Mapping[str, Any]], *, width: int = WIDTH) -> str:
    """The simulation leaderboard (``tables.simulation_leaderboard``) for a terminal: one table
    per simulation core, each with its core's columns."""
    by_core: dict[str, list[Mapping[str, Any]]] = {}
    for entry in board:
        by_core.setdefault(core_of_entry(entry), []).append(entry)
    tables = [
        compact_table(rows, simulation_columns(rows), width=width) for rows in by_core.values()
    ]
    return "\n\n".join(tables)


#: The family column leading the by-family decision leaderboard.
FAMILY_COLUMN = Column("family", "family", _text)

#: The formatter marking a text (left-aligned) column.
text_column = _text

FAILED_COLUMNS: tuple[Column, ...] = (
    Column("reason", "reason", _text),
    Column("solver", "solver", _text),
    Column("family", "family", _text),
    Column("instance", "instance", _text),
    Column("rep", "rep", _int),
    Column("status", "status", _text),
)


def failed_table(failures: Sequence[Mapping[str, Any]], *, width: int = WIDTH) -> str:
    """Failed cells (``tables.failed_cells``) with their reasons, shortened to fit ``width``:
    the reason first, so it is what a terminal shows whole."""
    cells = [[c.fmt(f.get(c.key)) for c in FAILED_COLUMNS] for f in failures]
    headers = [c.header for c in FAILED_COLUMNS]

    def render() -> str:
        return str(tabulate(cells, headers=headers, tablefmt="simple", disable_numparse=True))

    return _fit(cells, headers, width, render)


# ---------------------------------------------------------------------------------------------
# Listings (``schedbench solvers``, ``kinds``, ``policies``, ``metrics``): the long text columns
# wrap so that the table fits ``width``; ``--wide`` prints them unwrapped.
# ---------------------------------------------------------------------------------------------


def _cell_width(value: Any) -> int:
    return max((len(line) for line in str(value).split("\n")), default=0)


def listing(
    rows: Sequence[Sequence[Any]],
    headers: Sequence[str],
    wrap: Sequence[int],
    *,
    width: int | None = WIDTH,
) -> str:
    """A plain table whose columns ``wrap`` (indices) are wrapped at word boundaries so that no
    line is wider than ``width`` (``None``: no wrapping). The other columns keep their natural
    width; the room left is shared among the wrapped columns in proportion to their natural
    width, at least 16 characters each (so a very narrow ``width`` may still be exceeded)."""
    if width is None or not rows:
        return tabulate(rows, headers=list(headers), tablefmt="simple")
    n = len(headers)
    natural = [max([_cell_width(headers[i])] + [_cell_width(r[i]) for r in rows]) for i in range(n)]
    fixed = sum(natural[i] for i in range(n) if i not in wrap) + 2 * (n - 1)
    base = {i: min(natural[i], 16) for i in wrap}
    spare = max(width - fixed - sum(base.values()), 0)
    want = sum(natural[i] - base[i] for i in wrap) or 1
    limits: list[int | None] = [None] * n
    for i in wrap:
        limits[i] = base[i] + min(natural[i] - base[i], spare * (natural[i] - base[i]) // want)
    for _ in range(8):  # tabulate's wrapping may leave a line a little wider: tighten
        text = tabulate(rows, headers=list(headers), tablefmt="simple", maxcolwidths=limits)
        over = max(len(line) for line in text.split("\n")) - width
        if over <= 0 or all((limits[i] or 0) <= 16 for i in wrap):
            break
        widest = max(wrap, key=lambda i: limits[i] or 0)
        limits[widest] = max(16, (limits[widest] or 16) - over)
    return text
