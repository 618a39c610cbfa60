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
