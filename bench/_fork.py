"""When a process may start a helper process by ``fork``: a copy of itself, which has imported
what the helper needs already (a second or more of imports saved per helper on this machine),
instead of a fresh interpreter (``spawn``)."""

from __future__ import annotations

import multiprocessing as mp
import threading


def fork_is_safe() -> bool:
    """Whether this process may fork a helper: it can, runs no other Python thread (a thread
    holding a lock at the fork would leave it held in the copy), and has no child process (a
    solver's worker, an isolation child) whose pipes the copy would share. A fresh
    ``schedbench`` command is such a process."""
    return (
        "fork" in mp.get_all_start_methods()
        and threading.active_count() == 1
        and not mp.active_children()
    )
