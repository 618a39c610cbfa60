"""Capture what solver libraries print, at the file-descriptor level.

A command's stdout carries only its document (``schedbench solve`` prints one JSON object), but
solver libraries print banners and logs of their own, and C libraries write to file descriptor 1
directly, past ``sys.stdout`` (HiGHS 1.16 prints its banner on every model; CBC, CP-SAT's
``log_search_progress`` and numba warnings do similar things). ``captured_output()`` points fds
1 and 2 at a per-process scratch file for the duration of a call and hands what was written to
the logger ``schedbench.solver_output`` (at INFO level: silent by default, shown on stderr by
``--verbose``), so nothing reaches the terminal or a pipe uninvited.

* Cost: four ``dup``/``dup2`` calls, two flushes and a seek per call (about 6 microseconds; about
  16 when something was printed); the scratch file is made once per process and truncated only
  when something was written.
* Nesting is safe: an inner capture inside an outer one does nothing (the outer one collects).
* Process-wide: fds are shared by all threads, so output of other threads during the call is
  captured too (and logged, not lost). Captures in several threads overlap into one: the fds are
  redirected while any of them is open and restored by the last to close, which collects (and
  logs under its label) what all of them printed. Python-level ``print`` is captured as well:
  ``sys.stdout`` and ``sys.stderr`` are flushed into the scratch file before the fds are restored.
* The fds are restored whatever happens in the call (exceptions, ``KeyboardInterrupt``).
* A forked child makes its own scratch file: one shared with the parent would mix their output
  (the file offset is shared across ``fork``).
* Worker processes, whose stdout is never a document, point fd 1 at fd 2 when they start
  (``stdout_to_stderr``), so even output outside any capture stays off the parent's stdout.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

LOGGER = logging.getLogger("schedbench.solver_output")

_lock = threading.Lock()
_depth = 0  # open captures in this process (all threads)
_saved: tuple[int, int] | None = None  # copies of the real fds 1 and 2 while redirected
_scratch: IO[bytes] | None = None
#: Bytes kept from one call's output (the rest is counted, not logged).
MAX_LOGGED_BYTES = 64 * 1024


def _flush_python_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed stream has nothing to flush
            stream.flush()


def _redirect() -> None:
    """Point fds 1 and 2 at the scratch file (called with ``_lock`` held, ``_depth == 0``)."""
    global _saved, _scratch
    if _scratch is None:
        # Lives as long as the process (one per process, reused by every call).
        _scratch = tempfile.TemporaryFile(prefix="schedbench-solver-output-")  # noqa: SIM115
    _flush_python_streams()
    saved = (os.dup(1), os.dup(2))
    try:
        os.dup2(_scratch.fileno(), 1)
        os.dup2(_scratch.fileno(), 2)
    except BaseException:
        _restore(saved)
        raise
    _saved = saved


def _restore(saved: tuple[int, int]) -> None:
    _flush_python_streams()
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
    os.close(saved[0])
    os.close(saved[1])


def _collect() -> str:
    """What was written to the scratch file since the last collection (the file is emptied)."""
    assert _scratch is not None
    fd = _scratch.fileno()
    size = os.lseek(fd, 0, os.SEEK_CUR)
    if not size:
        return ""
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, min(size, MAX_LOGGED_BYTES))
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    text = data.decode("utf-8", "replace")
    if size > MAX_LOGGED_BYTES:
        text += f"\n[... {size - MAX_LOGGED_BYTES} more bytes not kept]"
    return text


@contextlib.contextmanager
def captured_output(label: str = "solver", *, log: bool = True) -> Iterator[list[str]]:
    """Redirect fds 1 and 2 into a scratch file during the block; yields a list that receives
    the captured text (one string) after the block, which is also logged under ``label``
    unless ``log`` is false (a worker process that sends the text to its parent instead).

    Only the capture that restores the fds (the outermost; with threads, the last to close)
    receives and logs the text; the others yield a list that stays empty."""
    global _depth, _saved
    sink: list[str] = []
    with _lock:
        if _depth == 0:
            _redirect()
        _depth += 1
    try:
        yield sink
    finally:
        text = None
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                saved, _saved = _saved, None
                _restore(saved)
                text = _collect()
        if text:  # (whitespace-only output is dropped with the rest)
            sink.append(text)
            if log and text.strip():
                LOGGER.info("%s printed:\n%s", label, text.rstrip("\n"))


def _after_fork_in_child() -> None:
    """A forked child starts with a fresh lock and, unless it was forked inside a capture (its
    fds then still point at the parent's file, which that capture will restore), its own
    scratch file."""
    global _lock, _scratch
    _lock = threading.Lock()
    if _depth == 0:
        _scratch = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def stdout_to_stderr() -> None:
    """Point this process's fd 1 at its fd 2 for good: for worker processes, which share the
    parent's stdout (the parent's document) but never write a document of their own."""
    with contextlib.suppress(OSError, ValueError):  # a closed stdout has nothing to flush
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        os.dup2(2, 1)


#: Set (to "1") by ``--verbose``; worker processes started afterwards inherit it.
VERBOSE_ENV = "SCHEDBENCH_VERBOSE"


def show_solver_output(stream: IO[str] | None = None) -> None:
    """Send captured solver output to ``stream`` (stderr by default): the ``--verbose`` switch."""
    if any(getattr(h, "_schedbench", False) for h in LOGGER.handlers):
        return
    if stream is None:
        # A private copy of fd 2, so that what is shown is not captured again by an enclosing
        # capture (e.g. a MIP worker's output logged during a warm-up).
        stream = os.fdopen(os.dup(2), "w", buffering=1, encoding="utf-8", errors="replace")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
    handler._schedbench = True  # type: ignore[attr-defined]
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)


if os.environ.get(VERBOSE_ENV) == "1":
    show_solver_output()
