"""A supervised pool of worker processes: every solver call gets a hard deadline.

Why not ``concurrent.futures.ProcessPoolExecutor``: a hanging solver hangs it forever, a solver
calling ``sys.exit(3)`` or raising ``KeyboardInterrupt`` ends the whole run (the exception is
re-raised in the parent), one crashing worker breaks every cell in flight, and killing the parent
leaves the workers running. Solvers are untrusted code
(docs/design.md#trust-boundaries-and-bounded-work), so this pool

* runs one item at a time per worker (spawned, clean interpreters) and always knows which item a
  worker holds, so a crash or a kill is charged to that item alone;
* watches the solver call in progress: the worker publishes, in shared memory, the monotonic
  time by which its current call must end (``simcore.solver`` call watch: deadline of the
  budget); the parent kills the worker ``grace_s`` after that and records the item as
  ``timeout``; before a worker's first solver call on an item (imports, warm-up, building the
  problem) ``startup_s`` applies instead;
* catches everything a worker's function raises, ``SystemExit`` and ``KeyboardInterrupt``
  included, and reports it as that item's failure; workers ignore SIGINT (Ctrl-C reaches the
  parent, which stops the run and kills them);
* replaces a dead or killed worker and goes on with the remaining items;
* ties the workers' lives to the parent: ``PR_SET_PDEATHSIG`` (Linux) kills a worker when the
  parent dies, even by ``kill -9``, a worker whose pipe closes exits, and the parent kills its
  live workers when it exits normally;
* kills whatever a worker's solver started with it: each worker leads a process group of its
  own, adopts its orphaned descendants and has a watchman that kills its group when the parent
  dies (:func:`contain_this_process`); a worker is killed with its group and every descendant
  (:func:`kill_tree`);
* caps each worker's memory (``RLIMIT_AS``, :func:`memory_limit`): an allocation past it fails
  in the solver and is that item's failure, not the machine's.

Workers are not daemonic: a daemonic process may not start children, and the MIP backends run
CBC/HiGHS in a child process (solvers/mip.py) and ``--isolate`` runs every solve in one, so
daemonic workers made those backends decline every cell of a parallel suite. Because
multiprocessing joins non-daemonic children at exit (an idle worker waiting on its pipe would
then never end), an exit hook registered after multiprocessing's own kills the workers first.

CLOCK_MONOTONIC is system-wide on Linux, so deadlines written by a worker are comparable in the
parent.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import multiprocessing as mp
import os
import resource
import signal
import subprocess
import sys
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, cast

from schedbench.simcore.errors import SchedbenchError


class MemoryLimitError(SchedbenchError, ValueError):
    """A memory limit that cannot be read (``--memory-limit``, ``$SCHEDBENCH_MEMORY_LIMIT``)."""


#: How often the parent looks at the deadlines when no worker has anything to say.
POLL_S = 0.05


@dataclass(frozen=True)
class Failure:
    """Why an item produced no result: ``kind`` is ``timeout``, ``raised``, ``died`` or
    ``startup``; ``reason`` is a sentence for the results store and the terminal."""

    kind: str
    reason: str


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: no such call
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value, 0, 0, 0)


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere)."""
    _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


#: The watchman: waits until the caller's end of multiprocessing's parent sentinel closes (the
#: caller is gone), then SIGKILLs its process group, which is the contained process's.
_WATCHMAN = "import os, select, signal; select.select([{fd}], [], []); os.killpg(0, signal.SIGKILL)"


def contain_this_process() -> None:
    """Make this (spawned) process the root of what a solver may start, so that the caller can
    kill all of it (:func:`kill_tree`): a process group of its own; the reaper of orphaned
    descendants (``PR_SET_CHILD_SUBREAPER``), so a solver's detached (double-forked, ``setsid``)
    grandchild stays a descendant; death with the caller (``PR_SET_PDEATHSIG``); and a
    watchman that kills the group when the caller dies, however it dies."""
    if hasattr(os, "setpgrp"):
        os.setpgrp()
        _start_watchman()
    _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    die_with_parent()


def _start_watchman() -> None:
    """Start, in this (new) process group, a tiny process that kills the whole group when the
    caller dies: ``PR_SET_PDEATHSIG`` ends this process only, and what the solver started would
    outlive it. A separate process, because a solver's compiled kernel may hold this one's
    interpreter for seconds; it holds only the sentinel, so it keeps none of our pipes open,
    and the caller's group kill ends it with the rest."""
    parent = mp.parent_process()
    if parent is None:
        return
    fd = parent.sentinel
    subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", _WATCHMAN.format(fd=fd)],
        pass_fds=[fd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _descendants(pid: int) -> list[int]:
    """The live descendants of ``pid``, from ``/proc`` (empty where there is none)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue  # ended meanwhile
            # ``pid (comm) state ppid ...``; comm may hold spaces and parentheses
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) > 1 and fields[0] != b"Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(pid: int) -> None:
    """SIGKILL process ``pid`` with its process group and every descendant (a contained
    process, :func:`contain_this_process`). Must be called before ``pid`` is reaped, so that
    neither its pid nor its group id can belong to another process. Descendants go first,
    while ``pid`` still adopts the orphans they leave; a few rounds catch what was started
    meanwhile."""
    for _ in range(5):
        found = _descendants(pid)
        for other in found:
            with contextlib.suppress(OSError):
                os.kill(other, signal.SIGKILL)
        if not found:
            break
    if hasattr(os, "killpg"):
        with contextlib.suppress(OSError):  # no such group: it has not made it yet
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _worker_main(
    conn: Connection, watch: Any, fn: Callable[[Any], Any], memory_bytes: int | None
) -> None:
    contain_this_process()
    limit_memory(memory_bytes)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from schedbench.simcore import solver as core_solver
    from schedbench.simcore.fdcapture import stdout_to_stderr

    # The parent's stdout carries its own document (a run's summary); what a solver prints
    # outside the captured solver calls (simcore/fdcapture.py) goes to stderr instead.
    stdout_to_stderr()

    def on_call(deadline_s: float | None) -> None:
        # watch[0]: monotonic time by which the current call must end (0: no call running);
        # watch[1]: calls started on the current item.
        if deadline_s is None:
            watch[0] = 0.0
        else:
            watch[0] = time.monotonic() + deadline_s
            watch[1] += 1

    core_solver.set_call_watch(on_call)
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if item is None:
            return
        watch[0] = 0.0
        watch[1] = 0.0
        try:
            result = fn(item)
            message: tuple[str, Any] = ("ok", result)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the item failed
            message = ("raised", f"{type(exc).__name__}: {exc}")
        watch[0] = 0.0
        try:
            conn.send(message)
        except (BrokenPipeError, OSError):
            return


#: The environment variable that sets the memory cap of every contained solver process
#: (:func:`memory_limit`), for commands and worker processes alike.
MEMORY_ENV = "SCHEDBENCH_MEMORY_LIMIT"
#: Default memory cap of a contained solver process: this share of the machine's RAM.
DEFAULT_MEMORY_SHARE = 0.5


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (None where the platform does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_limit(value: str | float | None = None) -> int | None:
    """The memory cap of a contained solver process, in bytes (None: no cap).

    ``value`` (else ``$SCHEDBENCH_MEMORY_LIMIT``, else :data:`DEFAULT_MEMORY_SHARE`): a size
    (``8G``, ``512M``, bytes), a share of the machine's RAM (``50%``), or ``off``. A cap below
    256 MiB is refused: no Python solver starts in less.
    """
    if value is None:
        value = os.environ.get(MEMORY_ENV) or f"{DEFAULT_MEMORY_SHARE * 100:g}%"
    text = str(value).strip().lower()
    if text in ("off", "none", "0"):
        return None
    where = f"memory limit {value!r}"
    try:
        if not text:
            raise ValueError("empty")
        if text.endswith("%"):
            share = float(text[:-1]) / 100
            ram = machine_memory()
            if not 0 < share <= 1:
                raise ValueError
            if ram is None:
                return None
            limit = int(ram * share)
        else:
            unit = text[-1] if text[-1:] in _UNITS and not text[-1:].isdigit() else ""
            limit = int(float(text[: len(text) - len(unit)]) * _UNITS[unit.removesuffix("b")])
    except (ValueError, OverflowError) as exc:
        raise MemoryLimitError(
            f"{where}: expected a size such as 8G or 512M, a share such as 50%, or off"
        ) from exc
    if limit < 256 << 20:
        raise MemoryLimitError(f"{where}: expected at least 256M (a solver process needs it)")
    return limit


def limit_memory(memory_bytes: int | None) -> None:
    """Cap this process's address space (``RLIMIT_AS``; inherited by what it starts): an
    allocation past it fails (``MemoryError`` in Python, a failed ``malloc`` in C) instead of
    taking the machine's memory. Never above an existing hard limit."""
    if memory_bytes is None or not hasattr(resource, "RLIMIT_AS"):
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory_bytes = min(memory_bytes, hard)
    with contextlib.suppress(OSError, ValueError):  # hard too: the solver may not lift it
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


class _Worker:
    def __init__(self, ctx: Any, fn: Callable[[Any], Any], memory_bytes: int | None):
        self.watch = ctx.RawArray("d", 2)
        self.conn, child = ctx.Pipe(duplex=True)
        # Not daemonic, so that solvers may start children (module docstring).
        self.proc = ctx.Process(
            target=_worker_main, args=(child, self.watch, fn, memory_bytes), daemon=False
        )
        self.proc.start()
        child.close()
        self.item: Any = None
        self.sent_at = 0.0

    def give(self, item: Any) -> None:
        self.item = item
        self.sent_at = time.monotonic()
        self.watch[0] = 0.0
        self.watch[1] = 0.0
        self.conn.send(item)

    # Cleanup of a worker that may already be gone: nothing to record if it is. Whatever the
    # worker started dies with it (kill_tree); its pid is not reaped before that.
    def kill(self) -> None:
        if not self._reaped():
            kill_tree(self.proc.pid)
        self.proc.join(5)
        with contextlib.suppress(OSError, ValueError):
            self.conn.close()

    def _reaped(self) -> bool:
        popen = getattr(self.proc, "_popen", None)
        return popen is None or getattr(popen, "returncode", None) is not None

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        wait([self.proc.sentinel], 2)  # its own exit first; ``wait`` does not reap it
        self.kill()


def exit_reason(code: int | None) -> str:
    """A process's exit code as a sentence (negative: killed by that signal)."""
    if code is None:
        return "the worker process vanished"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker process was killed by {name}"
    return f"the worker process exited with code {code}"


#: Pools with live workers, for the exit hook.
_POOLS: weakref.WeakSet[SupervisedPool] = weakref.WeakSet()
_HOOKED = False


def _kill_all_workers() -> None:
    for pool in list(_POOLS):
        pool.kill_workers()


def _hook_exit() -> None:
    """Register the exit hook once, after multiprocessing's (``atexit`` runs hooks last-in
    first-out, so the workers die before multiprocessing would join them)."""
    global _HOOKED
    if not _HOOKED:
        import multiprocessing.util  # noqa: F401  (registers multiprocessing's hook first)

        atexit.register(_kill_all_workers)
        _HOOKED = True


class SupervisedPool:
    """Run ``fn(item)`` for every item on ``workers`` supervised processes (module docstring).

    ``run`` calls ``on_result(item, result)`` or ``on_failure(item, Failure)`` for every item, in
    completion order, from the calling process. ``grace_s`` is added to each solver call's own
    deadline; ``startup_s`` (seconds, or a function of the item; None: no limit) bounds the time
    from handing out an item to its first solver call — set it for items that must call a solver
    (a decision cell), not for items that may legitimately compute for long without one (a
    simulation under a solver-free policy). ``memory_bytes`` caps each worker's address space
    (:func:`limit_memory`; None: no cap).
    """

    def __init__(
        self,
        fn: Callable[[Any], Any],
        workers: int,
        *,
        grace_s: float = 5.0,
        startup_s: Callable[[Any], float | None] | float | None = 120.0,
        memory_bytes: int | None = None,
    ):
        self.fn = fn
        self.workers = max(1, int(workers))
        self.grace_s = grace_s
        self.memory_bytes = memory_bytes
        self._startup = startup_s if callable(startup_s) else (lambda _item: startup_s)
        self._ctx = mp.get_context("spawn")
        self._live: list[_Worker] = []
        self._idle: list[_Worker] = []

    def run(
        self,
        items: Iterable[Any],
        on_result: Callable[[Any, Any], None],
        on_failure: Callable[[Any, Failure], None],
        *,
        keep_workers: bool = False,
    ) -> None:
        """``keep_workers``: leave the idle workers running for the next ``run`` (a pool kept by
        a long-lived process, such as a Dask worker); otherwise they are stopped at the end."""
        pending = deque(items)
        idle = self._idle
        busy: dict[Connection, _Worker] = {}
        finished = False
        try:
            while pending or busy:
                while pending and (idle or len(self._live) < self.workers):
                    worker = idle.pop() if idle else self._spawn()
                    worker.give(pending.popleft())
                    busy[worker.conn] = worker
                ready = wait([*busy], timeout=POLL_S)
                for obj in ready:
                    conn = cast(Connection, obj)  # wait() returns the objects it was given
                    worker = busy[conn]
                    item = worker.item
                    try:
                        kind, payload = conn.recv()
                    except (EOFError, OSError):
                        del busy[conn]
                        wait([worker.proc.sentinel], 5)  # not reaped: its group dies below
                        self._retire(worker)
                        reason = exit_reason(worker.proc.exitcode)
                        on_failure(item, Failure("died", reason))
                        continue
                    del busy[conn]
                    worker.item = None
                    idle.append(worker)
                    if kind == "ok":
                        on_result(item, payload)
                    else:
                        on_failure(item, Failure("raised", f"the solver raised {payload}"))
                now = time.monotonic()
                for conn, worker in list(busy.items()):
                    failure = self._overdue(worker, now)
                    if failure is not None:
                        del busy[conn]
                        item = worker.item
                        self._retire(worker)
                        on_failure(item, failure)
            finished = True
        finally:
            if not (finished and keep_workers):
                for worker in list(self._live):
                    if worker in idle:
                        worker.stop()
                    else:
                        worker.kill()
                self._live.clear()
                idle.clear()

    def _spawn(self) -> _Worker:
        _hook_exit()
        _POOLS.add(self)
        worker = _Worker(self._ctx, self.fn, self.memory_bytes)
        self._live.append(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        worker.kill()
        if worker in self._live:
            self._live.remove(worker)

    def _overdue(self, worker: _Worker, now: float) -> Failure | None:
        call_deadline, calls = worker.watch[0], worker.watch[1]
        if call_deadline > 0 and now > call_deadline + self.grace_s:
            return Failure(
                "timeout",
                f"a solver call ran past its deadline + {self.grace_s:g} s grace; "
                "the worker was killed",
            )
        startup = self._startup(worker.item)
        if startup is not None and calls == 0 and now - worker.sent_at > startup:
            return Failure(
                "startup",
                f"no solver call started within {startup:g} s (import, warm-up or a hang "
                "outside the solver); the worker was killed",
            )
        return None

    def __enter__(self) -> SupervisedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill_workers()

    def kill_workers(self) -> None:
        """Kill every live worker (idle or busy) at once."""
        for worker in self._live:
            worker.kill()
        self._live.clear()
        self._idle.clear()
