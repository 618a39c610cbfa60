"""Pictures of a schedule (docs/design.md#output-people-read): a Gantt chart of the jobs over time ×
nodes, and the use of nodes, burst buffer and SSD and the queue length over time. ``schedbench plot
gantt|usage RUN_DIR [RUN_DIR]`` draws them from a run's folder; the HTML report embeds them for
simulation cells.

Run folders of every core are read (:func:`job_files`): ``schedbench simulate`` and the suite
cells of any simulation core write the common per-job schema (``simcore/core.py``: jobs.csv,
metrics.json, and usage.csv where the core has a timeline); a reproduction's own files are read
through its core's ``job_formats`` (``reproduce locality``'s ``DIR/<scheduler>/``, jobs on the
cores of the node they ran on; ``reproduce ar --requests``'s ``decisions.csv``, reservations on
the PEs they hold; the three-queue reproduction's ``OUT/<run>/``). Where a run
wrote no usage.csv, the units in use are summed from its jobs; where it wrote no metrics.json,
the machine is what the jobs used.

Gantt conventions (after evalys): one rectangle per job and per contiguous block of the nodes it
ran on, time on x (since the first submission, in seconds, minutes or hours by the run's span:
:func:`time_unit`), node index on y. The simulator counts
nodes and does not name them, so the chart places each job on the lowest-numbered nodes free
when it starts (any placement with these counts is a valid one; this one keeps jobs compact).
Colours: by user (``--color user``, the default), by burst-buffer request (``bb``, grey = none),
or by phase (``phase``: the run on its nodes; the three-phase lifecycle's stage-in before it and
drain after it hold burst buffer, not nodes, and are drawn as thin lines at the job's first
row). Deadlines (a ``deadline`` column) and reserved starts (``reserved_start``) are marked when
the run has them. Large runs are decimated: at most ``max_jobs`` jobs are drawn (those starting
in a window around the middle of the run, or in ``--from``/``--to``), and the title says so; the
placement is still computed over every job.

Every picture labels its axes with units and says where it came from: the workload, the
policy, the machine and the git commit of the run (``metrics.json``'s config).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.bench._io import save_figure
from schedbench.bench.report.style import fit_inside
from schedbench.simcore import safeio
from schedbench.simcore.core import (
    JobFormat,
    JobTable,
    assign_nodes,
    parse_placement,
    units_in_use,
)
from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.safeio import ensure_dir

#: At most this many jobs are drawn in one Gantt chart (the rest of the run is decimated).
MAX_JOBS = 20_000
#: Timelines longer than this are reduced to this many bins (the maximum of each bin is kept).
MAX_POINTS = 4_000
COLOR_MODES = ("user", "bb", "phase")


#: Units (nodes, cores) a machine may have for its pictures: the Gantt chart places every job on
#: units one by one (an array per unit), so a damaged file claiming billions would exhaust memory.
MAX_UNITS = 10_000_000


class PlotError(SchedbenchError, ValueError):
    """A run folder that cannot be drawn; the message names the file and what is missing."""


@dataclass(frozen=True, slots=True)
class RunData:
    """What the pictures need of one run (:func:`load_run`). ``jobs`` holds ``submit``,
    ``start``, ``end``, ``nodes`` (the units a job holds: nodes, cores or PEs, as ``unit``
    says), ``user`` and ``status``, and the optional columns the run has; ``blocks`` is the
    placement the run recorded (per job, ``(first unit, count)`` blocks), None when the pictures
    place the jobs themselves (:func:`assign_nodes`)."""

    path: Path
    jobs: dict[str, np.ndarray]
    usage_t: np.ndarray
    usage: np.ndarray  # (n, 4): nodes, bb_gb, ssd_requested_gb, ssd_assigned_gb
    nodes: int
    bb_gb: float
    ssd_gb: float
    window: tuple[float, float] | None
    caption: str
    t0: float
    unit: str = "node"
    blocks: list[list[tuple[int, int]]] | None = None
    placement: str = "placed lowest-numbered first"
    origin: str = "first submission"

    @property
    def label(self) -> str:
        return self.path.name


def _float(text: str | None) -> float:
    return float(text) if text not in ("", "nan", None) else math.nan


def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    try:
        with safeio.open_text(path) as fh:
            reader = csv.DictReader(fh)
            rows = list(reader)
            return list(reader.fieldnames or []), rows
    except (OSError, safeio.InputFileError, csv.Error) as exc:
        raise PlotError(f"{path}: expected a readable per-job CSV file ({exc})") from exc


def _numbers(path: Path, rows: list[dict[str, str]], key: str) -> np.ndarray:
    try:
        return np.array([_float(r.get(key)) for r in rows], dtype=np.float64)
    except ValueError as exc:
        raise PlotError(f"{path}: column {key}: expected numbers ({exc})") from exc


def _read_json(path: Path) -> dict[str, Any]:
    """metrics.json of a run (an empty dict when the run wrote none)."""
    if not path.is_file():
        return {}
    try:
        doc = json.loads(safeio.read_text(path, gunzip=False))
    except (OSError, ValueError, safeio.InputFileError, RecursionError) as exc:
        raise PlotError(f"{path}: expected the run's metrics.json ({exc})") from exc
    return doc if isinstance(doc, dict) else {}


def load_run(path: str | Path) -> RunData:
    """Read a run folder: its per-job file (any format of :func:`job_files`), and where the run
    wrote them ``usage.csv`` (else the units in use are summed from the jobs) and
    ``metrics.json`` (the machine and the caption). A folder without a usable per-job file is a
    :class:`PlotError` naming the file and the columns expected."""
    folder = Path(path)
    if not folder.is_dir():
        raise PlotError(f"{folder}: expected a run folder (schedbench simulate --out, reproduce)")
    formats = job_files()
    expected = "; or ".join(f.expected() for f in formats)
    found = None
    for name in dict.fromkeys(f.file for f in formats):
        if not (folder / name).is_file():
            continue
        header, rows = _read_csv(folder / name)
        fmt = next((f for f in formats if f.file == name and set(f.columns) <= set(header)), None)
        if fmt is None:
            raise PlotError(f"{folder / name}: expected the columns of {expected}")
        found = fmt, rows
        break
    if found is None:
        raise PlotError(f"{folder}: no per-job file; expected {expected}")
    fmt, rows = found
    doc = _read_json(folder / "metrics.json")
    try:
        read = fmt.read(folder / fmt.file, rows, doc)
    except (SchedbenchError, ValueError, OverflowError) as exc:  # (a number past int64, ...)
        raise PlotError(f"{folder / fmt.file}: {exc}") from exc
    if not len(rows):
        raise PlotError(f"{folder / fmt.file}: expected at least one job row, found none")
    cols = dict(read.columns)
    cols.setdefault("status", np.array([""] * len(rows), dtype=object))
    cols.setdefault("user", np.full(len(rows), -1, dtype=np.int64))
    system = doc.get("system") or {}
    config = doc.get("config") or {}
    metrics = doc.get("metrics") or {}
    machine = config.get("machine")
    machine = machine if isinstance(machine, dict) else {}
    total = int(
        sum(g.get("count", 0) for g in system.get("node_groups", []))
        or machine.get("cores", 0)
        or read.total
        or 0
    )
    if (folder / "usage.csv").is_file():
        usage_t, usage = _read_usage(folder / "usage.csv")
    else:
        usage_t, usage = units_in_use(cols["start"], cols["end"], cols["nodes"])
    peak = float(np.nanmax(usage[:, 0], initial=0)) if usage.size else 1.0
    if max(total, peak) > MAX_UNITS:
        raise PlotError(
            f"{folder}: a machine of {max(total, peak):,.0f} units (metrics.json, usage.csv): "
            f"expected at most {MAX_UNITS:,}, which a picture places one by one"
        )
    total = max(total, 1, int(peak))
    nodes, started = cols["nodes"], np.isfinite(cols["start"])
    bad = np.flatnonzero(started & ~((nodes >= 0) & (nodes <= total)))
    if bad.size:
        raise PlotError(
            f"{folder / fmt.file}: line {int(bad[0]) + 2}: expected a job's units between 0 "
            f"and the machine's {total:,}, got {nodes[bad[0]]!r}"
        )
    window = None
    lo, hi = metrics.get("window_start_s"), metrics.get("window_end_s")
    if isinstance(lo, int | float) and isinstance(hi, int | float):
        window = (float(lo), float(hi))
    times = cols["submit"][np.isfinite(cols["submit"])]
    if not times.size:
        times = cols["start"][np.isfinite(cols["start"])]
    t0 = float(times.min()) if times.size else 0.0
    bb_gb = float(system.get("bb_gb") or 0.0)
    ssd_gb = float(
        sum(g.get("count", 0) * g.get("ssd_gb", 0.0) for g in system.get("node_groups", []))
    )
    return RunData(
        folder,
        cols,
        usage_t,
        usage,
        total,
        bb_gb,
        ssd_gb,
        window,
        _caption(config, fmt),
        t0,
        read.unit,
        read.blocks,
        read.placement,
        "first submission" if np.isfinite(cols["submit"]).any() else "first start",
    )


def _caption(config: dict[str, Any], fmt: JobFormat) -> str:
    machine = config.get("machine")
    machine = machine if isinstance(machine, dict) else {}
    items = (
        config.get("workload"),
        config.get("policy"),
        f"{config.get('priority')} order" if config.get("priority") else None,
        f"mode {config.get('mode')}" if config.get("mode") else None,
        config.get("system") or machine.get("name"),
        f"commit {config.get('commit')}" if config.get("commit") else "commit unknown",
    )
    text = " | ".join(str(x) for x in items if x)
    return text if config else f"{fmt.writer}: {fmt.file} ({text})"


_OPTIONAL = ("bb_gb", "first_alloc", "last_release", "deadline", "reserved_start")

# Re-exported: the pictures' placement helpers live with the common schema (simcore/core.py).
__all__ = ["assign_nodes", "load_run", "units_in_use"]


def _common_jobs(path: Path, rows: list[dict[str, str]], doc: dict[str, Any]) -> JobTable:
    """The common per-job schema every simulation core writes (``simcore/core.py``:
    ``schedbench simulate``, suite cells): the pictures' own columns, and the units held where
    the run recorded them (``placement``); the unit is ``metrics.json``'s ``config.unit``."""
    header = rows[0].keys() if rows else ()
    cols = {
        key: _numbers(path, rows, key)
        for key in ("submit", "start", "end", "nodes", *_OPTIONAL)
        if key in header or key in ("submit", "start", "end", "nodes")
    }
    try:
        cols["user"] = np.array(
            [int(r["user"]) if r.get("user", "") not in ("", None) else -1 for r in rows],
            dtype=np.int64,
        )
    except ValueError as exc:
        raise PlotError(f"{path}: column user: expected integers ({exc})") from exc
    cols["status"] = np.array([r.get("status", "") for r in rows], dtype=object)
    config = doc.get("config") or {}
    unit = str(config.get("unit") or "node")
    if "placement" not in header:
        return JobTable(cols, unit=unit)
    try:
        blocks = [parse_placement(r.get("placement") or "") for r in rows]
    except ValueError as exc:
        raise PlotError(f"{path}: column placement: expected unit ranges ({exc})") from exc
    return JobTable(cols, unit=unit, blocks=blocks, placement="as the run placed them")


def job_files() -> tuple[JobFormat, ...]:
    """Every per-job file format the pictures read, in the order they are tried: the common
    schema, then each simulation core's own formats (``SimulationCore.job_formats``)."""
    from schedbench.simcore.core import cores

    common = JobFormat(
        "jobs.csv",
        "schedbench simulate, suite runs (any core)",
        ("submit", "start", "end", "nodes"),
        _common_jobs,
    )
    return (common, *(f for core in cores() for f in core.job_formats))


def _read_usage(path: Path) -> tuple[np.ndarray, np.ndarray]:
    try:
        with safeio.open_text(path) as fh:
            rows = list(csv.reader(fh))
    except (safeio.InputFileError, csv.Error) as exc:
        raise PlotError(f"{path}: expected the run's usage.csv ({exc})") from exc
    body = rows[1:]
    if not body:
        return np.zeros(0), np.zeros((0, 4))
    try:
        data = np.array([[_float(x) for x in r] for r in body], dtype=np.float64)
    except ValueError as exc:
        raise PlotError(f"{path}: expected numbers ({exc})") from exc
    if data.ndim != 2 or data.shape[1] < 5:
        raise PlotError(f"{path}: expected 5 columns (time and 4 counts) on every row")
    bad = np.flatnonzero(np.isinf(data).any(axis=1))
    if bad.size:
        raise PlotError(f"{path}: line {int(bad[0]) + 2}: expected finite numbers, got infinity")
    return data[:, 0], data[:, 1:5]


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)  # text is measured to fit titles and captions (style.fit_text)
    return fig


def _label(ax: Any, title: str, caption: str, caption_y: float) -> None:
    """The axes' title and its caption underneath (both wrapped to fit the figure once drawn:
    :func:`style.fit_inside`)."""
    ax.set_title(title, fontsize=9)
    ax.text(0.0, caption_y, caption, transform=ax.transAxes, fontsize=7, va="top")


def _user_colors(users: np.ndarray) -> np.ndarray:
    from matplotlib import colormaps

    palette = colormaps["tab20"].colors  # type: ignore[attr-defined]
    return np.array([palette[int(u) % 20] if u >= 0 else (0.6, 0.6, 0.6) for u in users])


def _bb_colors(bb: np.ndarray) -> np.ndarray:
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    positive = bb[bb > 0]
    hi = math.log10(positive.max()) if positive.size else 1.0
    lo = math.log10(positive.min()) if positive.size else 0.0
    span = max(hi - lo, 1e-9)
    return np.array(
        [cmap((math.log10(b) - lo) / span) if b > 0 else (0.8, 0.8, 0.8, 1.0) for b in bb]
    )


def time_unit(runs: Sequence[RunData]) -> tuple[float, str]:
    """The time axis' unit for the longest of ``runs``: hours from two hours on, minutes from two
    minutes on, else seconds (a replayed reservation stream of minutes reads badly in hours).
    ``--from`` / ``--to`` stay in hours."""
    span = 0.0
    for run in runs:
        times = np.concatenate([run.jobs["start"], run.jobs["end"], run.usage_t])
        times = times[np.isfinite(times)]
        if times.size:
            span = max(span, float(times.max()) - run.t0)
    if span >= 2 * 3600:
        return 3600.0, "h"
    return (60.0, "min") if span >= 120 else (1.0, "s")


def _select(
    run: RunData, t_from: float | None, t_to: float | None, max_jobs: int
) -> tuple[np.ndarray, str]:
    """Indices of the jobs to draw and a note saying what was left out."""
    start = run.jobs["start"]
    ok = np.flatnonzero(~np.isnan(start))
    hours = (start[ok] - run.t0) / 3600
    if t_from is not None:
        ok, hours = ok[hours >= t_from], hours[hours >= t_from]
    if t_to is not None:
        ok, hours = ok[hours <= t_to], hours[hours <= t_to]
    note = ""
    if ok.size > max_jobs:
        order = ok[np.argsort(hours, kind="stable")]
        mid = order.size // 2
        lo = max(0, mid - max_jobs // 2)
        chosen = order[lo : lo + max_jobs]
        a, b = ((start[chosen] - run.t0) / 3600).min(), ((start[chosen] - run.t0) / 3600).max()
        note = f"; {max_jobs:,} of {ok.size:,} jobs drawn (those starting in {a:.1f}-{b:.1f} h)"
        ok = np.sort(chosen)
    return ok, note


def _draw_gantt(
    ax: Any,
    run: RunData,
    color: str,
    t_from: float | None,
    t_to: float | None,
    max_jobs: int,
    unit: tuple[float, str] = (3600.0, "h"),
) -> None:
    from matplotlib.collections import PolyCollection

    jobs = run.jobs
    blocks = (
        run.blocks
        if run.blocks is not None
        else assign_nodes(jobs["start"], jobs["end"], jobs["nodes"], run.nodes)
    )
    chosen, note = _select(run, t_from, t_to, max_jobs)
    ends = jobs["end"][np.isfinite(jobs["end"])]
    if not ends.size:  # nothing ended: the last start; no job at all: the origin
        ends = jobs["start"][np.isfinite(jobs["start"])]
    horizon = float(ends.max()) if ends.size else run.t0
    if color == "bb" and "bb_gb" in jobs:
        palette = _bb_colors(jobs["bb_gb"])
    elif color == "phase":
        palette = np.tile(np.array([0.2, 0.45, 0.75, 1.0]), (len(jobs["start"]), 1))
    elif (jobs["user"] >= 0).any():
        palette = _user_colors(jobs["user"])
    else:  # a generated workload has no users: tell the jobs apart instead
        palette = _user_colors(np.arange(len(jobs["start"])))
        color = "job (the workload has no user ids)"
    verts, faces = [], []
    for j in chosen:
        s = (jobs["start"][j] - run.t0) / unit[0]
        e_abs = jobs["end"][j] if not math.isnan(jobs["end"][j]) else horizon
        e = (e_abs - run.t0) / unit[0]
        for first, count in blocks[j]:
            verts.append([(s, first), (e, first), (e, first + count), (s, first + count)])
            faces.append(palette[j])
    ax.add_collection(PolyCollection(verts, facecolors=faces, edgecolors="black", linewidths=0.15))
    if color == "phase" and "first_alloc" in jobs:
        for j in chosen:
            if not blocks[j]:
                continue
            y = blocks[j][0][0] + 0.5
            fa, st = jobs["first_alloc"][j], jobs["start"][j]
            en, lr = jobs["end"][j], jobs.get("last_release", jobs["end"])[j]
            if fa < st:
                ax.plot(
                    [(fa - run.t0) / unit[0], (st - run.t0) / unit[0]],
                    [y, y],
                    color="tab:orange",
                    lw=0.8,
                )
            if lr > en:
                ax.plot(
                    [(en - run.t0) / unit[0], (lr - run.t0) / unit[0]],
                    [y, y],
                    color="tab:green",
                    lw=0.8,
                )
    for key, marker, col, what in (
        ("deadline", "|", "red", "deadline"),
        ("reserved_start", ">", "black", "reserved start"),
    ):
        if key in jobs:
            xs = [
                (jobs[key][j] - run.t0) / unit[0]
                for j in chosen
                if blocks[j] and not math.isnan(jobs[key][j])
            ]
            ys = [
                blocks[j][0][0] + 0.5 for j in chosen if blocks[j] and not math.isnan(jobs[key][j])
            ]
            if xs:
                ax.scatter(xs, ys, marker=marker, color=col, s=12, label=what, zorder=3)
    if color != "phase" and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper right")
    ax.autoscale_view()
    ax.set_ylim(0, run.nodes)
    ax.set_xlabel(f"time since the {run.origin} ({unit[1]})")
    ax.set_ylabel(f"{run.unit} (of {run.nodes:,}; {run.placement})")
    _label(ax, f"{run.label}: jobs on {run.unit}s, coloured by {color}{note}", run.caption, -0.16)
    if color == "phase":
        from matplotlib.lines import Line2D

        ax.legend(
            handles=[
                Line2D([], [], color=(0.2, 0.45, 0.75), lw=6, label="run (on nodes)"),
                Line2D([], [], color="tab:orange", label="stage-in (burst buffer)"),
                Line2D([], [], color="tab:green", label="drain (burst buffer)"),
            ],
            fontsize=7,
            loc="upper right",
        )


def gantt_figure(
    runs: Sequence[RunData],
    *,
    color: str = "user",
    t_from: float | None = None,
    t_to: float | None = None,
    max_jobs: int = MAX_JOBS,
) -> Any:
    """The Gantt chart of one run, or of several side by side (same time axis): the figure."""
    if color not in COLOR_MODES:
        raise PlotError(f"--color: expected one of {', '.join(COLOR_MODES)}, got {color!r}")
    fig = _figure(7.5 * len(runs), 5.0)
    axes = fig.subplots(1, len(runs), squeeze=False, sharex=True)[0]
    for ax, run in zip(axes, runs, strict=True):
        _draw_gantt(ax, run, color, t_from, t_to, max_jobs, time_unit(runs))
    fit_inside(fig)
    return fig


def gantt(
    runs: Sequence[RunData],
    out: str | Path,
    *,
    color: str = "user",
    t_from: float | None = None,
    t_to: float | None = None,
    max_jobs: int = MAX_JOBS,
) -> Path:
    """:func:`gantt_figure` as a PNG."""
    fig = gantt_figure(runs, color=color, t_from=t_from, t_to=t_to, max_jobs=max_jobs)
    return _save(fig, out)


def _reduce(
    t: np.ndarray, y: np.ndarray, points: int = MAX_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """A step timeline reduced to ``points`` bins keeping each bin's maximum (peaks stay)."""
    if t.size <= points:
        return t, y
    edges = np.linspace(t[0], t[-1], points + 1)
    idx = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, points - 1)
    out = np.full(points, -np.inf)
    np.maximum.at(out, idx, y)
    keep = np.isfinite(out)
    return edges[:-1][keep], out[keep]


def queue_length(run: RunData) -> tuple[np.ndarray, np.ndarray]:
    """Jobs waiting (submitted, not started) over time: a step function (t, length)."""
    jobs = run.jobs
    submit = jobs["submit"]
    start = jobs["start"]
    horizon = float(np.nanmax(np.concatenate([submit, start, jobs["end"]])))
    never = np.isnan(start) & (jobs["status"] != "rejected")
    leave = np.where(np.isnan(start), horizon, start)
    counted = ~np.isnan(start) | never
    times = np.concatenate([submit[counted], leave[counted]])
    steps = np.concatenate([np.ones(int(counted.sum())), -np.ones(int(counted.sum()))])
    # one step per instant (a job submitted and started at once never shows)
    instants, at = np.unique(times, return_inverse=True)
    return instants, np.cumsum(np.bincount(at, weights=steps, minlength=instants.size))


def _draw_usage(axes: Sequence[Any], run: RunData, unit: tuple[float, str] = (3600.0, "h")) -> None:
    top, bottom = axes
    hours = (run.usage_t - run.t0) / unit[0]  # in the figure's time unit
    series = [
        (f"{run.unit}s", 0, run.nodes),
        ("burst buffer", 1, run.bb_gb),
        ("local SSD (requested)", 2, run.ssd_gb),
    ]
    for name, col, cap in series:
        if cap > 0 and run.usage.size:
            t, y = _reduce(hours, 100 * run.usage[:, col] / cap)
            top.step(t, y, where="post", label=name, lw=0.9)
    top.set_ylim(0, 105)
    top.set_ylabel("in use (% of capacity)")
    top.legend(fontsize=7, loc="upper right")
    t, q = queue_length(run)
    th, qq = _reduce((t - run.t0) / unit[0], q)
    bottom.step(th, qq, where="post", color="tab:purple", lw=0.9)
    bottom.set_ylabel("queue length (jobs)")
    bottom.set_xlabel(f"time since the {run.origin} ({unit[1]})")
    for ax in axes:
        if run.window is not None:
            lo, hi = ((w - run.t0) / unit[0] for w in run.window)
            ax.axvspan(lo, hi, color="0.9", zorder=0, label="_measurement window")
    top.set_title(f"{run.label}: resources in use and queue (grey: measurement window)", fontsize=9)
    bottom.text(0.0, -0.3, run.caption, transform=bottom.transAxes, fontsize=7, va="top")


def usage_figure(runs: Sequence[RunData]) -> Any:
    """Resource use and queue length over time of one run, or of several side by side."""
    fig = _figure(7.5 * len(runs), 5.5)
    grid = fig.subplots(2, len(runs), squeeze=False, sharex="col")
    for i, run in enumerate(runs):
        _draw_usage(grid[:, i], run, time_unit(runs))
    fit_inside(fig)
    return fig


def usage(runs: Sequence[RunData], out: str | Path) -> Path:
    """:func:`usage_figure` as a PNG."""
    return _save(usage_figure(runs), out)


def _save(fig: Any, out: str | Path) -> Path:
    path = Path(out)
    ensure_dir(path.parent)
    save_figure(fig, path, format="png")
    return path


def png_bytes(draw: Any, *args: Any, **kwargs: Any) -> bytes:
    """The PNG a drawing function would write (for the HTML report)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = draw(*args, out=Path(tmp) / "p.png", **kwargs)
        return Path(path).read_bytes()
