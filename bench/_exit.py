"""Leaving a process without the interpreter's teardown.

A process that has loaded numba kernels spends 0.3–0.7 s after its last statement tearing the
interpreter down (LLVM's objects and numba's dispatchers are destroyed one by one;
``bench/benchmarks/cold_start.py`` measures it), longer than a first ``dp`` solve takes. Nothing
a command wrote depends on that teardown: files are written through context managers or
``atomic_write``, results stores commit before they return, and what must run at exit is
registered with ``atexit`` (multiprocessing's clean-up, the isolated children's closing, the
MIP worker's stop, ``weakref.finalize`` hooks such as temporary folders). :func:`leave` runs
those hooks, flushes the standard streams and ends the process at once.

It falls back to the ordinary exit (``sys.exit``) whenever that could lose something: another
non-daemon thread still running (the ordinary exit would wait for it), or a standard stream
that cannot be flushed (the ordinary exit reports that as Python does, e.g. a closed pipe).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def flush_std_streams() -> bool:
    """Flush stdout and stderr; whether both flushed."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            return False
    return True


def _other_threads() -> bool:
    current = threading.current_thread()
    return any(t is not current and t.is_alive() and not t.daemon for t in threading.enumerate())


def leave(code: int) -> NoReturn:
    """End the process with exit status ``code``: the ``atexit`` hooks, the standard streams
    flushed, then ``os._exit`` (module docstring); ``sys.exit(code)`` when that is not safe."""
    if _other_threads() or not flush_std_streams():
        sys.exit(code)
    atexit._run_exitfuncs()
    if not flush_std_streams():
        sys.exit(code)
    os._exit(code)
