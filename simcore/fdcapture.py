"""Capture what solver libraries print, at the file-descriptor level.

A command's stdout carries only its document (``schedbench solve`` prints one JSON object), but
solver libraries print banners and logs of their own, and C libraries write to file descriptor 1
directly, past ``sys.stdout`` (HiGHS 1.16 prints its banner on every model; CBC, CP-SAT's
``log_search_progress`` and numba warnings do similar things). ``captured_output()`` points fds
1 and 2 at a per-process scratch file for the duration of a call and hands what was written to
the logger ``schedbench.solver_output`` (at INFO level: silent by default, shown on stderr by
``--verbose``), so nothing reaches the terminal or a pipe uninvited.

* Cost: four ``dup``/``dup2`` calls, two flushes and a seek per call (a few microseconds); the
  scratch file is made once per process and truncated only when something was written.
* Nesting is safe: an inner capture inside an outer one does nothing (the outer one collects).
* Process-wide: fds are shared by all threads, so output of other threads during the call is
  captured too (and logged, not lost). Python-level ``print`` is captured as well: ``sys.stdout``
  and ``sys.stderr`` are flushed into the scratch file before the fds are restored.
* The fds are restored whatever happens in the call (exceptions, ``KeyboardInterrupt``).
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
_depth = 0
_scratch: IO[bytes] | None = None
#: Bytes kept from one call's output (the rest is counted, not logged).
MAX_LOGGED_BYTES = 64 * 1024


def _flush_python_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


@contextlib.contextmanager
def captured_output(label: str = "solver", *, log: bool = True) -> Iterator[list[str]]:
    """Redirect fds 1 and 2 into a scratch file during the block; yields a list that receives
    the captured text (one string) after the block, which is also logged under ``label``
    unless ``log`` is false (a worker process that sends the text to its parent instead)."""
    global _depth, _scratch
    sink: list[str] = []
    with _lock:
        _depth += 1
        outer = _depth == 1
        if outer and _scratch is None:
            # Lives as long as the process (one per process, reused by every call).
            _scratch = tempfile.TemporaryFile(prefix="schedbench-solver-output-")  # noqa: SIM115
    if not outer:
        try:
            yield sink
        finally:
            with _lock:
                _depth -= 1
        return
    assert _scratch is not None
    fd = _scratch.fileno()
    _flush_python_streams()
    saved = (os.dup(1), os.dup(2))
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield sink
    finally:
        _flush_python_streams()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        size = os.lseek(fd, 0, os.SEEK_CUR)
        if size:  # (whitespace-only output is dropped with the rest)
            os.lseek(fd, 0, os.SEEK_SET)
            data = os.read(fd, min(size, MAX_LOGGED_BYTES))
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            text = data.decode("utf-8", "replace")
            if size > MAX_LOGGED_BYTES:
                text += f"\n[... {size - MAX_LOGGED_BYTES} more bytes not kept]"
            sink.append(text)
            if log and text.strip():
                LOGGER.info("%s printed:\n%s", label, text.rstrip("\n"))
        with _lock:
            _depth -= 1


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
