"""Pictures of a schedule (issue 18): a Gantt chart of the jobs over time × nodes, and the use of
nodes, burst buffer and SSD and the queue length over time. ``schedbench plot gantt|usage
RUN_DIR [RUN_DIR]`` draws them from a simulation's folder (``bench/run/outputs.py``: jobs.csv,
usage.csv, metrics.json); the HTML report embeds them for simulation cells.

Gantt conventions (after evalys): one rectangle per job and per contiguous block of the nodes it
ran on, time on x (hours since the first submission), node index on y. The simulator counts
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

from schedbench.simcore.errors import SchedbenchError

#: At most this many jobs are drawn in one Gantt chart (the rest of the run is decimated).
MAX_JOBS = 20_000
#: Timelines longer than this are reduced to this many bins (the maximum of each bin is kept).
MAX_POINTS = 4_000
COLOR_MODES = ("user", "bb", "phase")


class PlotError(SchedbenchError, ValueError):
    """A run folder that cannot be drawn; the message names the file and what is missing."""


@dataclass(frozen=True, slots=True)
class RunData:
    """What the pictures need of one simulation run (:func:`load_run`)."""

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

    @property
    def label(self) -> str:
        return self.path.name


def _float(text: str) -> float:
    return float(text) if text not in ("", "nan") else math.nan


def load_run(path: str | Path) -> RunData:
    """Read ``jobs.csv``, ``usage.csv`` and ``metrics.json`` of a run folder; a missing or
    malformed file is a :class:`PlotError` naming it."""
    folder = Path(path)
    if not folder.is_dir():
        raise PlotError(
            f"{folder}: expected a simulation's output folder (schedbench simulate --out)"
        )
    jobs_path = folder / "jobs.csv"
    try:
        with jobs_path.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        raise PlotError(f"{jobs_path}: expected the run's jobs.csv ({exc.strerror})") from exc
    needed = ("submit", "start", "end", "nodes")
    if rows and not all(k in rows[0] for k in needed):
        raise PlotError(f"{jobs_path}: expected the columns {', '.join(needed)}")
    cols: dict[str, np.ndarray] = {}
    try:
        for key in (
            "submit",
            "start",
            "end",
            "nodes",
            "bb_gb",
            "first_alloc",
            "last_release",
            "deadline",
            "reserved_start",
        ):
            if rows and key in rows[0]:
                cols[key] = np.array([_float(r[key]) for r in rows], dtype=np.float64)
        cols["user"] = np.array(
            [int(r["user"]) if r.get("user", "") not in ("", None) else -1 for r in rows],
            dtype=np.int64,
        )
    except ValueError as exc:
        raise PlotError(f"{jobs_path}: expected numbers ({exc})") from exc
    cols["status"] = np.array([r.get("status", "") for r in rows], dtype=object)
    metrics_path = folder / "metrics.json"
    try:
        doc = json.loads(metrics_path.read_text())
    except (OSError, ValueError) as exc:
        raise PlotError(f"{metrics_path}: expected the run's metrics.json ({exc})") from exc
    system = doc.get("system") or {}
    config = doc.get("config") or {}
    metrics = doc.get("metrics") or {}
    usage_t, usage = _read_usage(folder / "usage.csv")
    window = None
    lo, hi = metrics.get("window_start_s"), metrics.get("window_end_s")
    if isinstance(lo, int | float) and isinstance(hi, int | float):
        window = (float(lo), float(hi))
    t0 = float(np.nanmin(cols["submit"])) if cols["submit"].size else 0.0
    caption = " | ".join(
        str(x)
        for x in (
            config.get("workload"),
            config.get("policy"),
            f"{config.get('priority')} order" if config.get("priority") else None,
            config.get("system"),
            f"commit {config.get('commit')}" if config.get("commit") else "commit unknown",
        )
        if x
    )
    return RunData(
        folder,
        cols,
        usage_t,
        usage,
        int(
            sum(g.get("count", 0) for g in system.get("node_groups", []))
            or max(1, int(np.nanmax(cols["nodes"], initial=1)))
        ),
        float(system.get("bb_gb") or 0.0),
        float(sum(g.get("count", 0) * g.get("ssd_gb", 0.0) for g in system.get("node_groups", []))),
        window,
        caption,
        t0,
    )


def _read_usage(path: Path) -> tuple[np.ndarray, np.ndarray]:
    try:
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise PlotError(f"{path}: expected the run's usage.csv ({exc.strerror})") from exc
    body = rows[1:]
    if not body:
        return np.zeros(0), np.zeros((0, 4))
    try:
        data = np.array([[_float(x) for x in r] for r in body], dtype=np.float64)
    except ValueError as exc:
        raise PlotError(f"{path}: expected numbers ({exc})") from exc
    return data[:, 0], data[:, 1:5]


# ---------------------------------------------------------------------------------------------
# Placement of jobs on node indices
# ---------------------------------------------------------------------------------------------


def assign_nodes(
    start: np.ndarray, end: np.ndarray, nodes: np.ndarray, total: int
) -> list[list[tuple[int, int]]]:
    """For every job, the blocks ``(first node, count)`` it occupies: each job takes the
    lowest-numbered nodes free when it starts (releases at an instant come before starts).
    Jobs that never started get no block; a job running to the end of the run keeps its nodes."""
    n = len(start)
    blocks: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    started = np.flatnonzero(~np.isnan(start))
    known = np.concatenate([start, end])
    known = known[~np.isnan(known)]
    horizon = float(known.max()) if known.size else 0.0
    ends = np.where(np.isnan(end), horizon, end)
    # events: (time, 0 = release / 1 = start, job)
    events = sorted(
        [(float(ends[j]), 0, int(j)) for j in started]
        + [(float(start[j]), 1, int(j)) for j in started]
    )
    busy = np.zeros(max(total, int(np.nanmax(nodes, initial=0))), dtype=bool)
    held: dict[int, np.ndarray] = {}
    for _t, kind, j in events:
        if kind == 0:
            idx = held.pop(j, None)
            if idx is not None:
                busy[idx] = False
            continue
        k = int(nodes[j])
        free = np.flatnonzero(~busy)[:k]
        if free.size < k:  # an over-full picture (inconsistent input): grow the axis
            extra = np.arange(busy.size, busy.size + k - free.size)
            busy = np.concatenate([busy, np.zeros(extra.size, dtype=bool)])
            free = np.concatenate([free, extra])
        busy[free] = True
        held[j] = free
        cut = np.flatnonzero(np.diff(free) != 1) + 1
        blocks[j] = [(int(b[0]), int(b.size)) for b in np.split(free, cut) if b.size]
    return blocks


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


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
    ax: Any, run: RunData, color: str, t_from: float | None, t_to: float | None, max_jobs: int
) -> None:
    from matplotlib.collections import PolyCollection

    jobs = run.jobs
    blocks = assign_nodes(jobs["start"], jobs["end"], jobs["nodes"], run.nodes)
    chosen, note = _select(run, t_from, t_to, max_jobs)
    horizon = np.nanmax(jobs["end"]) if np.isfinite(jobs["end"]).any() else np.nanmax(jobs["start"])
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
        s = (jobs["start"][j] - run.t0) / 3600
        e_abs = jobs["end"][j] if not math.isnan(jobs["end"][j]) else horizon
        e = (e_abs - run.t0) / 3600
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
                    [(fa - run.t0) / 3600, (st - run.t0) / 3600], [y, y], color="tab:orange", lw=0.8
                )
            if lr > en:
                ax.plot(
                    [(en - run.t0) / 3600, (lr - run.t0) / 3600], [y, y], color="tab:green", lw=0.8
                )
    for key, marker, col, what in (
        ("deadline", "|", "red", "deadline"),
        ("reserved_start", ">", "black", "reserved start"),
    ):
        if key in jobs:
            xs = [
                (jobs[key][j] - run.t0) / 3600
                for j in chosen
                if blocks[j] and not math.isnan(jobs[key][j])
            ]
            ys = [
                blocks[j][0][0] + 0.5 for j in chosen if blocks[j] and not math.isnan(jobs[key][j])
            ]
            if xs:
                ax.scatter(xs, ys, marker=marker, color=col, s=12, label=what, zorder=3)
    ax.autoscale_view()
    ax.set_ylim(0, run.nodes)
    ax.set_xlabel("time since the first submission (h)")
    ax.set_ylabel(f"node (of {run.nodes:,}; placed lowest-numbered first)")
    ax.set_title(f"{run.label}: jobs on nodes, coloured by {color}{note}", fontsize=9)
    ax.text(0.0, -0.16, run.caption, transform=ax.transAxes, fontsize=7, va="top")
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


def gantt(
    runs: Sequence[RunData],
    out: str | Path,
    *,
    color: str = "user",
    t_from: float | None = None,
    t_to: float | None = None,
    max_jobs: int = MAX_JOBS,
) -> Path:
    """The Gantt chart of one run, or of several side by side (same time axis), as a PNG."""
    if color not in COLOR_MODES:
        raise PlotError(f"--color: expected one of {', '.join(COLOR_MODES)}, got {color!r}")
    fig = _figure(7.5 * len(runs), 5.0)
    axes = fig.subplots(1, len(runs), squeeze=False, sharex=True)[0]
    for ax, run in zip(axes, runs, strict=True):
        _draw_gantt(ax, run, color, t_from, t_to, max_jobs)
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


def _draw_usage(axes: Sequence[Any], run: RunData) -> None:
    top, bottom = axes
    hours = (run.usage_t - run.t0) / 3600
    series = [
        ("nodes", 0, run.nodes),
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
    th, qq = _reduce((t - run.t0) / 3600, q)
    bottom.step(th, qq, where="post", color="tab:purple", lw=0.9)
    bottom.set_ylabel("queue length (jobs)")
    bottom.set_xlabel("time since the first submission (h)")
    for ax in axes:
        if run.window is not None:
            lo, hi = ((w - run.t0) / 3600 for w in run.window)
            ax.axvspan(lo, hi, color="0.9", zorder=0, label="_measurement window")
    top.set_title(f"{run.label}: resources in use and queue (grey: measurement window)", fontsize=9)
    bottom.text(0.0, -0.3, run.caption, transform=bottom.transAxes, fontsize=7, va="top")


def usage(runs: Sequence[RunData], out: str | Path) -> Path:
    """Resource use and queue length over time of one run, or of several side by side."""
    fig = _figure(7.5 * len(runs), 5.5)
    grid = fig.subplots(2, len(runs), squeeze=False, sharex="col")
    for i, run in enumerate(runs):
        _draw_usage(grid[:, i], run)
    return _save(fig, out)


def _save(fig: Any, out: str | Path) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def png_bytes(draw: Any, *args: Any, **kwargs: Any) -> bytes:
    """The PNG a drawing function would write (for the HTML report)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = draw(*args, out=Path(tmp) / "p.png", **kwargs)
        return Path(path).read_bytes()
