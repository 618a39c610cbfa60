"""The schedule pictures of the HTML report (a Gantt chart and a usage plot per simulation
cell), drawn in worker processes while the report's other parts are built.

They are most of a suite report's time (about 0.6 s a picture; the ``quick`` suite's report
draws twelve), and they depend only on the run folders the runner wrote, so each is drawn
apart: :class:`ScheduleRenderer` hands the folders to a pool of up to
:data:`MAX_WORKERS` processes (forked where that is safe, else fresh) as soon as it is made and gives the pictures
back in the folders' order. The pictures are the same bytes as drawn here (matplotlib's Agg
output does not depend on the process).

It draws in this process instead when a pool would not pay (fewer than :data:`MIN_FOLDERS`
folders, one CPU), cannot start (a daemonic worker of another pool), or broke (a worker
died): the report is the same, only slower.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedbench.bench._fork import fork_is_safe

#: Worker processes at most (the pictures of a report are a few seconds of work: more workers
#: than the machine's two cores would only wait for one another).
MAX_WORKERS = 2
#: Fewer folders than this are drawn here: a worker's start (importing matplotlib) costs about
#: what one folder's two pictures do.
MIN_FOLDERS = 3


@dataclass(frozen=True, slots=True)
class Pictures:
    """A run folder's pictures (PNG bytes) and caption, or why it has none (``error``)."""

    gantt: bytes = b""
    usage: bytes = b""
    caption: str = ""
    error: str = ""


def draw(folder: str) -> Pictures:
    """The Gantt chart and usage plot of the run in ``folder`` (``schedule_plots``)."""
    from schedbench.bench.report.schedule_plots import PlotError, gantt, load_run, png_bytes, usage

    try:
        run = load_run(Path(folder))
    except PlotError as exc:
        return Pictures(error=str(exc))
    return Pictures(png_bytes(gantt, [run]), png_bytes(usage, [run]), run.caption)


def _idle_cores() -> float:
    """Cores nobody else is using now: the CPUs less the 1-minute load average, this process
    (counted in the load) aside; all of them where the load cannot be read."""
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        return float(cpus)
    return cpus - max(load - 1.0, 0.0)


def _workers(folders: int) -> int:
    """Worker processes for ``folders`` run folders: none for a few (a worker's start costs
    what it saves), none in a daemonic process, and none without a second idle core (measured:
    the report's own drawing and the workers then share one core, and the pool only adds its
    overhead, +6-13 % wall at load 2.7 on 2 cores)."""
    if folders < MIN_FOLDERS or mp.current_process().daemon or _idle_cores() < 1.5:
        return 0
    return min(MAX_WORKERS, os.cpu_count() or 1, folders)


def _context() -> Any:
    """``fork`` where it is safe (``bench/_fork.py``), matplotlib imported first so that the
    workers start with it; else ``spawn`` (each worker imports it: about a second)."""
    if fork_is_safe():
        import schedbench.bench.report.schedule_plots  # noqa: F401  (for the forked workers)

        return mp.get_context("fork")
    return mp.get_context("spawn")


class ScheduleRenderer:
    """Draws the pictures of ``folders`` (module docstring); :meth:`get` gives folder ``i``'s,
    waiting for it. Use it as a context manager, or :meth:`close` it."""

    def __init__(self, folders: Sequence[str | os.PathLike[str]], workers: int | None = None):
        self.folders = [str(f) for f in folders]
        n = _workers(len(self.folders)) if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[Pictures]] = []
        #: Why a folder's pictures were drawn here after all (a worker died or failed).
        self.fallbacks: list[str] = []
        if n > 0:
            try:
                self._pool = ProcessPoolExecutor(n, mp_context=_context())
                self._futures = [self._pool.submit(draw, f) for f in self.folders]
            except (OSError, RuntimeError, AssertionError):  # no processes here: draw in-process
                self.close()

    @property
    def pooled(self) -> bool:
        """Whether the pictures are drawn by worker processes."""
        return bool(self._futures)

    def get(self, i: int) -> Pictures:
        if self._futures:
            try:
                return self._futures[i].result()
            except Exception as exc:  # a worker died (BrokenProcessPool) or failed: draw it here
                self.fallbacks.append(f"{self.folders[i]}: {type(exc).__name__}: {exc}")
        return draw(self.folders[i])

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # a cancelled one is drawn here

    def __enter__(self) -> ScheduleRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
