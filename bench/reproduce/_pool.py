"""One ordered map over worker processes with a progress bar, shared by the reproductions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from schedbench.bench.progress import progress

T = TypeVar("T")


def map_ordered(
    fn: Callable[[T], Any], tasks: Sequence[T], workers: int, label: str, no_progress: bool
) -> list[Any]:
    """``fn`` of every task, in task order (results stay aligned with the tasks), on ``workers``
    processes (in this process when one worker or one task)."""
    done: list[Any] = []
    with progress(len(tasks), label, "stream", disable=no_progress) as bar:
        if workers > 1 and len(tasks) > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for item in pool.map(fn, tasks):
                    done.append(item)
                    bar.update()
        else:
            for t in tasks:
                done.append(fn(t))
                bar.update()
    return done


def cpu_seconds() -> float:
    """CPU seconds (user + system) used so far by this process and by its finished child
    processes (the workers of :func:`map_ordered`, once their pool has shut down)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def cost_line(began_wall: float, began_cpu: float) -> str:
    """``N s wall, M s CPU (about K s on two free cores), load average a b c``: the run's cost
    since ``began_wall`` (``time.perf_counter``) and ``began_cpu`` (:func:`cpu_seconds`), with
    the machine's load, so that a time measured on a busy machine can be read."""
    import os
    import time

    wall = time.perf_counter() - began_wall
    cpu = cpu_seconds() - began_cpu
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{wall:.0f} s wall, {cpu:.0f} s CPU (~{cpu / 2:.0f} s on two free cores), load average {load}"
