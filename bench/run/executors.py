"""Where cells run: a supervised pool of local worker processes, or Dask distributed.

Every row records ``concurrency``: how many cells could run at the same time (the worker
count); latency tables use rows measured alone unless asked otherwise.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable
from typing import Any, Protocol

from schedbench.bench.run import isolate
from schedbench.bench.run.cells import execute, failed_record
from schedbench.bench.run.supervisor import Failure, SupervisedPool, memory_limit
from schedbench.bench.store.records import CellRecord
from schedbench.simcore.errors import SchedbenchError


class RunError(SchedbenchError, RuntimeError):
    """A run that cannot start (stored cells without --resume/--force, a bad executor)."""


class Executor(Protocol):
    name: str
    workers: int

    def run(
        self, payloads: list[dict[str, Any]], on_result: Callable[[CellRecord], None]
    ) -> None: ...


def _startup_limit(payload: dict[str, Any]) -> float | None:
    """A decision cell must reach its solver call within the start-up allowance (imports,
    warm-up such as numba compilation); a simulation may compute for long between calls."""
    return isolate.ISOLATION_STARTUP_S if payload["kind"] == "decision" else None


class LocalExecutor:
    """Cells on a supervised pool of spawned worker processes (``run/supervisor.py``): every
    solver call has a hard deadline (budget + ``GRACE_S``) and a memory cap
    (``supervisor.memory_limit``), a worker that hangs, exits, crashes or
    is interrupted is killed and replaced, and its cell is stored with the reason; the run goes
    on. Workers die with the runner."""

    name = "local"

    def __init__(self, workers: int, grace_s: float | None = None):
        self.workers = max(1, workers)
        self.grace_s = isolate.GRACE_S if grace_s is None else grace_s

    def run(self, payloads: list[dict[str, Any]], on_result: Callable[[CellRecord], None]) -> None:
        pool = SupervisedPool(
            execute,
            self.workers,
            grace_s=self.grace_s,
            startup_s=_startup_limit,
            memory_bytes=memory_limit(),
        )
        pool.run(
            payloads,
            lambda _p, record: on_result(record),
            lambda p, failure: on_result(failed_record(p, failure)),
        )


_SUPERVISED: SupervisedPool | None = None


def _execute_supervised(payload: dict[str, Any]) -> CellRecord:
    """``execute`` on this process's own supervised child (kept between cells): what a Dask
    worker runs. A daemonic worker (someone else's cluster) may not start children; it runs the
    cell itself, unprotected."""
    global _SUPERVISED
    if mp.current_process().daemon:
        return execute(payload)
    if _SUPERVISED is None:
        _SUPERVISED = SupervisedPool(
            execute,
            1,
            grace_s=isolate.GRACE_S,
            startup_s=_startup_limit,
            memory_bytes=memory_limit(),
        )
    out: list[CellRecord] = []
    _SUPERVISED.run(
        [payload],
        lambda _p, record: out.append(record),
        lambda p, failure: out.append(failed_record(p, failure)),
        keep_workers=True,
    )
    return out[0]


class DaskExecutor:
    """Cells on Dask distributed: a local cluster of ``workers`` processes, or ``scheduler``."""

    name = "dask"

    def __init__(self, workers: int, scheduler: str | None = None):
        self.workers = max(1, workers)
        self.scheduler = scheduler

    def run(self, payloads: list[dict[str, Any]], on_result: Callable[[CellRecord], None]) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError as exc:  # pragma: no cover - a dependency of the project
            raise RunError(f"--executor dask needs the 'distributed' package: {exc}") from exc
        cluster = None
        if self.scheduler:
            try:
                client = Client(self.scheduler, timeout=30)
            except (ValueError, OSError, TimeoutError) as exc:  # a malformed or dead address
                raise RunError(
                    f"--scheduler {self.scheduler}: cannot connect to a Dask scheduler ({exc}); "
                    "expected an address such as tcp://HOST:8786"
                ) from exc
            self.workers = max(1, len(client.scheduler_info().get("workers", {})))
        else:
            import dask

            # Non-daemonic workers may start the isolation children that bound every solver
            # call (see below); Dask's default makes them daemonic.
            with dask.config.set({"distributed.worker.daemon": False}):
                cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
            client = Client(cluster)
        try:
            # Each Dask worker runs its cells on a supervised child of its own (kept between
            # cells), so the hard deadline per solver call holds in this mode too.
            futures = [client.submit(_execute_supervised, p, pure=False) for p in payloads]
            by_key = {f.key: p for f, p in zip(futures, payloads, strict=True)}
            for f in as_completed(futures):
                try:
                    record = f.result()
                except Exception as exc:  # the worker died mid-cell: recorded as its failure
                    record = failed_record(
                        by_key[f.key],
                        Failure(
                            "died",
                            f"the worker process crashed on this cell ({type(exc).__name__}); "
                            "consider isolate = true",
                        ),
                    )
                on_result(record)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


EXECUTORS: dict[str, type] = {"local": LocalExecutor, "dask": DaskExecutor}


def make_executor(name: str, workers: int, scheduler: str | None = None) -> Executor:
    if name == "local":
        return LocalExecutor(workers)
    if name == "dask":
        return DaskExecutor(workers, scheduler)
    raise RunError(f"--executor: expected one of {', '.join(EXECUTORS)}, got {name!r}")
